// SPDX-License-Identifier: GPL-2.0
/*
 * LTT_HAVE_TP_PROCESS_EXIT_GROUP_DEAD: sched:sched_process_exit passes
 * (task, group_dead), as later kernels do; 6.1's and 6.12's pass the task
 * only.
 */
#include <linux/sched.h>
#include <trace/events/sched.h>

static void probe(void *data, struct task_struct *p, bool group_dead)
{
}

static void __maybe_unused check(void)
{
	check_trace_callback_type_sched_process_exit(probe);
}
