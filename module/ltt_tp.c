// SPDX-License-Identifier: GPL-2.0
/*
 * ltt trace module: the event source of an unmodified kernel, its
 * tracepoints.
 *
 * A kernel without the ltt patches (no CONFIG_LTT) still has tracepoints
 * at most of the places the patches hook. At START this file finds them by
 * name (for_each_kernel_tracepoint()) and registers a probe on each one an
 * event of the event mask needs; STOP unregisters them and waits until no
 * CPU runs a probe (tracepoint_synchronize_unregister()). So a loaded
 * module with no trace running costs nothing: with no probe a tracepoint's
 * static key is off, and the syscall tracepoints' per-thread work flag is
 * clear, exactly as with no module.
 *
 * Every probe turns its tracepoint into the record the patched kernel's
 * hook writes (same event, subtype and detail structure, include/ltt/
 * events.h) and hands it to ltt_callback(), which masks, filters and
 * stores it like an event of the facility. The table of
 * docs/kernel-facility.md says where each event comes from here and what
 * this backend cannot record.
 *
 * Probes run with preemption disabled, in any context the tracepoint sits
 * in (hardirq, under the runqueue lock, NMI for page faults): they only
 * fill a structure on the stack and never sleep, fault, allocate or wake
 * anything up. They are notrace and NOKPROBE, as the rest of the event
 * path. The probes' prototypes are checked against the kernel headers'
 * TP_PROTO at build time (check_trace_callback_type_*()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <asm/syscall.h>
#include <asm/irq_regs.h>

#include <trace/events/irq.h>
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>

#include "ltt_tracer.h"

const u32 ltt_backend = LTT_BACKEND_TRACEPOINTS;

/* The syscall IP policy of the trace (paper section 3.1), fixed at START. */
static unsigned int ltt_ip_depth __read_mostly;
static unsigned long ltt_ip_lower __read_mostly;
static unsigned long ltt_ip_upper __read_mostly;

/* A user stack frame of code built with frame pointers. */
struct ltt_user_frame {
	unsigned long next_fp;
	unsigned long ret_ip;
};

/*
 * The user IP the syscall entry records, as the facility chooses it: the
 * syscall instruction's, the one ltt_ip_depth frames up the user stack,
 * or the first one on the walk inside [lower, upper). Frames are read
 * with copy_from_user_nofault(): a bad or paged-out frame ends the walk.
 */
static unsigned long notrace ltt_syscall_ip(struct pt_regs *regs)
{
	unsigned int depth = ltt_ip_depth;
	unsigned long lower = ltt_ip_lower, upper = ltt_ip_upper;
	unsigned long ip = instruction_pointer(regs);
	unsigned long fp = regs->bp, last = ip;
	bool range = lower < upper;
	struct ltt_user_frame frame;
	unsigned int i;

	if (likely(!depth && !range) || !user_64bit_mode(regs))
		return ip;
	if (range) {
		if (ip >= lower && ip < upper)
			return ip;
		depth = LTT_SYSCALL_DEPTH_MAX;
	}
	for (i = 0; i < depth; i++) {
		if (!fp || !IS_ALIGNED(fp, sizeof(long)))
			break;
		if (copy_from_user_nofault(&frame, (const void __user *)fp,
					   sizeof(frame)))
			break;
		if (!frame.ret_ip)
			break;
		if (range && frame.ret_ip >= lower && frame.ret_ip < upper)
			return frame.ret_ip;
		last = frame.ret_ip;
		if (frame.next_fp <= fp)
			break;
		fp = frame.next_fp;
	}
	return range ? ip : last;
}
NOKPROBE_SYMBOL(ltt_syscall_ip);

/* ------------------------------------------------------------ core events */

static void notrace ltt_tp_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct ltt_ev_syscall_entry ev = {
		.ip = ltt_syscall_ip(regs),
		.nr = (u32)id,
	};

	ltt_callback(LTT_EV_SYSCALL_ENTRY, 0, &ev, sizeof(ev), NULL);
}
NOKPROBE_SYMBOL(ltt_tp_sys_enter);

static void notrace ltt_tp_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct ltt_ev_syscall_exit ev = { .ret = ret };

	ltt_callback(LTT_EV_SYSCALL_EXIT, 0, &ev, sizeof(ev), NULL);
}
NOKPROBE_SYMBOL(ltt_tp_sys_exit);

static void notrace ltt_tp_sched_switch(void *data, bool preempt,
					struct task_struct *prev,
					struct task_struct *next,
					unsigned int prev_state)
{
	struct ltt_ev_schedchange ev = {
		.in = task_pid_nr(next),
		.out = task_pid_nr(prev),
		/* A preempted task is still runnable, whatever __state says. */
		.out_state = preempt ? TASK_RUNNING : prev_state,
	};

	ltt_callback(LTT_EV_SCHEDCHANGE, 0, &ev, sizeof(ev), next);
}
NOKPROBE_SYMBOL(ltt_tp_sched_switch);

/* ----------------------------------------------------------- registration */

/**
 * struct ltt_tp - one tracepoint and its probe
 * @name:   the tracepoint's name
 * @probe:  the probe registered on it
 * @events: the events that need it: the probe is registered at START only
 *          when the event mask selects one of them
 * @tp:     the kernel's tracepoint, NULL until found (or absent)
 * @on:     the probe is registered
 */
struct ltt_tp {
	const char *name;
	void *probe;
	u64 events;
	struct tracepoint *tp;
	bool on;
};

/*
 * An entry of the table. The sizeof() is never evaluated: it only makes
 * the build fail when @fn does not match the tracepoint's TP_PROTO.
 */
#define LTT_TP(tpname, fn, ev)                                         \
	{                                                              \
		.name = #tpname, .probe = fn,                          \
		.events = (ev) + 0 * sizeof((                          \
			check_trace_callback_type_##tpname(fn), 0))    \
	}

static struct ltt_tp ltt_tps[] = {
	LTT_TP(sys_enter, ltt_tp_sys_enter, LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY)),
	LTT_TP(sys_exit, ltt_tp_sys_exit, LTT_EV_BIT(LTT_EV_SYSCALL_EXIT)),
	LTT_TP(sched_switch, ltt_tp_sched_switch,
	       LTT_EV_BIT(LTT_EV_SCHEDCHANGE)),
};

static bool ltt_tps_found;

static void ltt_tp_find(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ltt_tps); i++)
		if (!ltt_tps[i].tp && !strcmp(tp->name, ltt_tps[i].name))
			ltt_tps[i].tp = tp;
}

int ltt_backend_attach(const struct ltt_config *cfg)
{
	unsigned int i;
	int ret;

	/* The kernel's own tracepoints never go away: look them up once. */
	if (!ltt_tps_found) {
		for_each_kernel_tracepoint(ltt_tp_find, NULL);
		for (i = 0; i < ARRAY_SIZE(ltt_tps); i++)
			if (!ltt_tps[i].tp)
				pr_info("kernel has no tracepoint %s\n",
					ltt_tps[i].name);
		ltt_tps_found = true;
	}
	ltt_ip_depth = min_t(u32, cfg->syscall_depth, LTT_SYSCALL_DEPTH_MAX);
	ltt_ip_lower = cfg->syscall_range.lower;
	ltt_ip_upper = max(cfg->syscall_range.upper, cfg->syscall_range.lower);

	for (i = 0; i < ARRAY_SIZE(ltt_tps); i++) {
		struct ltt_tp *t = &ltt_tps[i];

		if (!t->tp || !(cfg->event_mask & t->events))
			continue;
		ret = tracepoint_probe_register(t->tp, t->probe, NULL);
		if (ret) {
			pr_warn("cannot register a probe on %s (%d)\n", t->name,
				ret);
			ltt_backend_detach();
			return ret;
		}
		t->on = true;
	}
	return 0;
}

void ltt_backend_detach(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ltt_tps); i++) {
		if (!ltt_tps[i].on)
			continue;
		WARN_ON_ONCE(tracepoint_probe_unregister(ltt_tps[i].tp,
							 ltt_tps[i].probe,
							 NULL));
		ltt_tps[i].on = false;
	}
	/* After it no CPU runs a probe: the buffers may be closed. */
	tracepoint_synchronize_unregister();
}
