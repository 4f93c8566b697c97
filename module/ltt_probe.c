// SPDX-License-Identifier: GPL-2.0
/*
 * ltt trace module, probe layer: the callback of both backends
 * (ltt_probe.h). The hooks that follow other events (MAP, STACK, the
 * exit triggers) sit here, above the event layer they write through, so
 * that the event layer calls nothing above it; ltt_dispatch() is inlined
 * after them, so the callback makes no call of its own on the path of an
 * event stored by one session without filters.
 */
#include <linux/kernel.h>
#include <linux/jump_label.h>
#include <linux/kprobes.h>

#include "ltt_probe.h"

/**
 * ltt_callback() - the backends' callback: mask, filter, store one event
 * @event:   enum ltt_event_id
 * @subtype: the event's subtype
 * @details: the detail structure (NULL when @size is 0)
 * @size:    valid bytes at @details
 * @task:    the task the event concerns (docs/kernel-facility.md)
 *
 * Preemption disabled, any context. Every tracing session whose mask and
 * filters take the event gets it in its own buffers, followed by a VARS
 * record when the session records variables.
 */
void notrace ltt_callback(u8 event, u8 subtype, const void *details, u16 size,
			  struct task_struct *task)
{
	/*
	 * MAP records, when a session selects them (ltt_map.c). The key is
	 * patched in only while one does: otherwise this costs one nop.
	 */
	if (static_branch_unlikely(&ltt_map_key) &&
	    event == LTT_EV_SYSCALL_EXIT &&
	    (READ_ONCE(ltt_live_mask) & LTT_EV_BIT(LTT_EV_MAP)))
		ltt_map_syscall_exit();
	/* The flight recorder's exit-signal triggers, when one has some. */
	if (static_branch_unlikely(&ltt_exit_key) &&
	    event == LTT_EV_PROCESS && subtype == LTT_PROCESS_EXIT)
		ltt_exit_trigger(details, size, task);
	/* STACK records of a task that blocks, before its schedchange. */
	if (static_branch_unlikely(&ltt_stack_key) &&
	    event == LTT_EV_SCHEDCHANGE &&
	    (READ_ONCE(ltt_live_mask) & LTT_EV_BIT(LTT_EV_STACK)))
		ltt_stack_switch(details, size);
	ltt_dispatch(event, subtype, details, size, task, true);
}
NOKPROBE_SYMBOL(ltt_callback);
