// SPDX-License-Identifier: GPL-2.0
/*
 * LTT_HAVE_TASK_EXEC_STATE: a task's dumpability lives in its
 * task->exec_state (enum task_dumpable), as in 7.x; before, it was in
 * the flags of its mm (get_dumpable()).
 */
#include <linux/sched.h>
#include <linux/sched/exec_state.h>

static bool __maybe_unused check(struct task_struct *t)
{
	return rcu_dereference_sched(t->exec_state)->dumpable ==
	       TASK_DUMPABLE_OWNER;
}
