// SPDX-License-Identifier: GPL-2.0
/*
 * ltt trace module: STACK records (include/ltt/module_events.h), where a
 * task blocked, for off-CPU profiles.
 *
 * Both backends deliver a SCHEDCHANGE before the switch, while the
 * outgoing task is still current: the tracepoint backend from
 * sched_switch, the facility from its schedchange hook in __schedule().
 * ltt_callback() calls ltt_stack_switch() for each one while a session
 * selects STACK; when the outgoing task blocks (it is not runnable, nor
 * dead), this saves its kernel stack (stack_trace_save(): current's) and
 * walks its user stack by frame pointers, and hands each to the sessions
 * as a STACK record, before the SCHEDCHANGE itself.
 *
 * The hook runs with interrupts off and the runqueue lock held, so
 * nothing here may sleep, allocate, wake or fault: the records are built
 * in a per-CPU scratch (a CPU runs one switch at a time, and never in
 * NMI), the depth is bounded (LTT_STACK_DEPTH_MAX frames each), and user
 * memory is read with copy_from_user_nofault(), which fails instead of
 * faulting a page in. The test in ltt_callback() sits behind a static key
 * (ltt_stack_key) that ltt_stack_select() patches in only while a session
 * that selects STACK traces: without one, every event pays a nop for it.
 * Restricted sessions never take the kernel stack (ltt_restrict()).
 */
#include <linux/compat.h>
#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>

#include "ltt_probe.h"

DEFINE_STATIC_KEY_FALSE(ltt_stack_key);

/* Per-CPU scratch: the record being built. */
static DEFINE_PER_CPU(struct ltt_ev_stack, ltt_stack_rec);

/* Bytes of @rec as stored: the fixed part and its frames. */
static __always_inline u16 ltt_stack_size(const struct ltt_ev_stack *rec)
{
	return LTT_EV_STACK_FIXED + rec->nr * sizeof(rec->ip[0]);
}

/*
 * current's kernel stack into @rec, innermost first, without the module's
 * own frames (the callback's). stack_trace_save() stores unsigned longs;
 * ip[] is __u64, the same on the 64-bit kernels the module builds for.
 */
static noinline void notrace ltt_stack_kernel(struct ltt_ev_stack *rec)
{
	unsigned long *ips = (unsigned long *)rec->ip;
	unsigned int n, skip = 0;

	BUILD_BUG_ON(sizeof(unsigned long) != sizeof(rec->ip[0]));
	n = stack_trace_save(ips, LTT_STACK_DEPTH_MAX, 0);
	while (skip < n && within_module(ips[skip], THIS_MODULE))
		skip++;
	if (skip)
		memmove(ips, ips + skip, (n - skip) * sizeof(*ips));
	rec->nr = n - skip;
	rec->flags = n == LTT_STACK_DEPTH_MAX ? LTT_STACK_F_TRUNCATED : 0;
}
NOKPROBE_SYMBOL(ltt_stack_kernel);

/* A frame as the x86-64 frame-pointer convention lays it out. */
struct ltt_user_frame {
	u64 next; /* the caller's frame pointer */
	u64 ret;  /* the return address into the caller */
};

/*
 * current's user stack into @rec: the user instruction pointer saved at
 * its entry into the kernel, then the return addresses found by following
 * the saved frame pointers. Each frame is read with
 * copy_from_user_nofault() (no fault is taken: a page not resident ends
 * the walk), and the walk ends at a frame pointer that is misaligned, or
 * does not move up the stack (so it always ends), or at the depth bound.
 */
static noinline void notrace ltt_stack_user(struct ltt_ev_stack *rec)
{
	struct pt_regs *regs = task_pt_regs(current);
	struct ltt_user_frame f;
	u64 fp;

	rec->nr = 0;
	rec->flags = 0;
	if (!user_mode(regs) || !user_64bit_mode(regs))
		return;
	rec->ip[rec->nr++] = regs->ip;
	fp = regs->bp;
	while (rec->nr < LTT_STACK_DEPTH_MAX) {
		if (!fp || (fp & 7) || fp < regs->sp ||
		    fp > TASK_SIZE_MAX - sizeof(f))
			return;
		if (copy_from_user_nofault(&f, (const void __user *)fp,
					   sizeof(f)))
			return;
		if (!f.ret || f.ret >= TASK_SIZE_MAX)
			return;
		rec->ip[rec->nr++] = f.ret;
		if (f.next <= fp)
			return;
		fp = f.next;
	}
	rec->flags = LTT_STACK_F_TRUNCATED;
}
NOKPROBE_SYMBOL(ltt_stack_user);

/**
 * ltt_stack_switch() - STACK records for a task that blocks
 * @details: the SCHEDCHANGE's struct ltt_ev_schedchange
 * @size:    valid bytes at @details
 *
 * Called by ltt_callback() for every SCHEDCHANGE while a session selects
 * STACK, before the SCHEDCHANGE is handed to the sessions; current is the
 * outgoing task. Interrupts off, runqueue lock held.
 */
void notrace ltt_stack_switch(const void *details, u16 size)
{
	const struct ltt_ev_schedchange *ev = details;
	struct ltt_ev_stack *rec;

	if (size < sizeof(*ev) || ev->out_state == LTT_TASK_RUNNING ||
	    (ev->out_state & LTT_TASK_DEAD) || in_nmi())
		return;
	rec = this_cpu_ptr(&ltt_stack_rec);
	rec->pid = task_pid_nr(current);
	ltt_stack_kernel(rec);
	ltt_log_stack(LTT_STACK_KERNEL, rec, ltt_stack_size(rec));
	if (current->flags & PF_KTHREAD)
		return;
	ltt_stack_user(rec);
	if (rec->nr)
		ltt_log_stack(LTT_STACK_USER, rec, ltt_stack_size(rec));
}
NOKPROBE_SYMBOL(ltt_stack_switch);

/**
 * ltt_stack_select() - patch ltt_callback()'s STACK test in or out
 * @mask: the union of the event masks of the sessions that trace, or are
 *        about to
 *
 * As ltt_map_select(): sessions lock held, may sleep; the test behind the
 * key checks ltt_live_mask again.
 */
void ltt_stack_select(u64 mask)
{
	if (mask & LTT_EV_BIT(LTT_EV_STACK))
		static_branch_enable(&ltt_stack_key);
	else
		static_branch_disable(&ltt_stack_key);
}
