// SPDX-License-Identifier: GPL-2.0
/*
 * LTT_HAVE_TP_TASKLET: the irq:tasklet_entry/exit tracepoints exist with
 * the prototype (struct tasklet_struct *t, void *func). They came after
 * 6.1 and were backported into its stable updates (6.1.192 has them), so
 * no version number tells.
 */
#include <linux/interrupt.h>
#include <trace/events/irq.h>

static void probe(void *data, struct tasklet_struct *t, void *func)
{
}

static void __maybe_unused check(void)
{
	check_trace_callback_type_tasklet_entry(probe);
	check_trace_callback_type_tasklet_exit(probe);
}
