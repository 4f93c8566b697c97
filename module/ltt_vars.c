// SPDX-License-Identifier: GPL-2.0
/*
 * ltt trace module, event layer: kernel-state variables (Ktrace's
 * variable mask).
 *
 * LTT_IOC_SET_VARS_MASK selects variables of enum ltt_var
 * (include/ltt/module_events.h). While a trace runs, the callback hands
 * every event it stored to ltt_vars_compose() with interrupts still off;
 * the VARS record it builds holds the selected variables whose values
 * changed since this CPU last recorded them (Ktrace's trace_dump()), and
 * the callback writes it right after the event, so nothing of the CPU
 * comes between the two.
 *
 * The last values are per session and CPU, in the per-CPU struct
 * ltt_vars_cpu of each session's struct ltt_trace: every session has its
 * own mask (LTT_IOC_SET_VARS_MASK sets the session's) and its own VARS
 * records, each relative to what that session last recorded on the CPU.
 *
 * Everything here runs in the event path (preemption and interrupts off,
 * any context but NMI, which never writes): values are read without
 * sleeping, locking or allocating. The system call arguments come from
 * current's saved user registers (task_pt_regs()), since the facility's
 * hook does not pass them; the memory figures from the zone counters and
 * this CPU's vm_event counters; the per-task figures from current.
 *
 * The run-queue length of the CPU is not among the variables: 6.1 exports
 * no reader of it (nr_running(), cpu_rq() and the rq layout are private to
 * the scheduler, and sched_update_nr_running_tp passes an opaque rq), so
 * LOADAVG, the exported 1-minute load average, stands in for it.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/vmstat.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/loadavg.h>
#include <linux/sched/task_stack.h>
#include <linux/cred.h>
#include <linux/compat.h>
#include <linux/kprobes.h>
#include <linux/uaccess.h>
#include <asm/syscall.h>

#include "ltt_event.h"

/*
 * Arguments each x86_64 system call takes, by number (Linux 6.12's
 * SYSCALL_DEFINEn of syscall_64.tbl's entry points; unused numbers 0;
 * older kernels lack the last ones, never renumber them).
 */
static const u8 ltt_sys_nargs[] = {
	3, 3, 3, 1, 2, 2, 2, 3, 3, 6, 3, 2, 1, 5, 4, 0,
	3, 4, 4, 3, 3, 2, 1, 5, 0, 5, 3, 3, 3, 3, 3, 3,
	1, 2, 0, 2, 2, 1, 3, 0, 4, 3, 3, 3, 6, 6, 3, 3,
	2, 3, 2, 3, 3, 4, 5, 5, 5, 0, 0, 3, 1, 4, 2, 1,
	3, 3, 4, 1, 2, 4, 5, 3, 3, 2, 1, 1, 2, 2, 3, 2,
	1, 1, 2, 2, 1, 2, 2, 1, 2, 3, 2, 2, 3, 3, 3, 1,
	2, 2, 2, 1, 1, 4, 0, 3, 0, 1, 1, 0, 0, 2, 0, 0,
	0, 2, 2, 2, 2, 3, 3, 3, 3, 1, 1, 1, 1, 2, 2, 2,
	4, 3, 2, 2, 2, 3, 6, 1, 2, 2, 2, 3, 2, 3, 2, 2,
	3, 1, 1, 1, 2, 2, 2, 1, 0, 0, 3, 2, 0, 5, 2, 1,
	2, 1, 0, 1, 2, 5, 2, 2, 1, 4, 2, 2, 1, 3, 6, 3,
	2, 6, 6, 4, 6, 6, 6, 6, 6, 6, 0, 3, 5, 5, 5, 4,
	4, 4, 3, 3, 3, 2, 2, 2, 2, 1, 6, 3, 3, 6, 2, 1,
	5, 3, 3, 6, 3, 1, 6, 6, 5, 3, 1, 0, 4, 4, 3, 4,
	2, 1, 1, 2, 2, 2, 4, 1, 4, 4, 3, 2, 6, 6, 3, 5,
	4, 1, 5, 5, 2, 3, 4, 5, 5, 4, 5, 3, 2, 0, 3, 2,
	4, 4, 3, 4, 5, 3, 4, 3, 4, 5, 3, 4, 3, 3, 6, 5,
	1, 2, 3, 6, 4, 4, 4, 6, 4, 6, 3, 2, 1, 4, 4, 2,
	4, 4, 2, 1, 3, 2, 1, 5, 5, 4, 5, 5, 2, 5, 4, 5,
	3, 2, 1, 4, 2, 3, 6, 6, 5, 3, 3, 4, 5, 3, 3, 2,
	5, 3, 5, 1, 3, 3, 6, 6, 6, 4, 2, 1, 5, 6, 4, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 4, 2, 6, 4, 3, 5, 2, 5,
	3, 3, 2, 2, 3, 4, 3, 4, 5, 6, 5, 4, 3, 4, 2, 1,
	2, 5, 4, 4, 4, 3, 4, 6, 4, 4, 4, 4, 4, 3, 3,
};

/* Variables read from the system as a whole or this CPU. */
#define LTT_VARS_SYSTEM                                                \
	(LTT_VAR_BIT(LTT_VAR_FREEMEM) | LTT_VAR_BIT(LTT_VAR_TOTALMEM) | \
	 LTT_VAR_BIT(LTT_VAR_LOADAVG) | LTT_VARS_VM_EVENTS)
#define LTT_VARS_VM_EVENTS                                              \
	(LTT_VAR_BIT(LTT_VAR_PGFAULT) | LTT_VAR_BIT(LTT_VAR_PGPGIN) |    \
	 LTT_VAR_BIT(LTT_VAR_PGPGOUT) | LTT_VAR_BIT(LTT_VAR_PSWPIN) |    \
	 LTT_VAR_BIT(LTT_VAR_PSWPOUT))
#define LTT_VARS_SWITCH \
	(LTT_VAR_BIT(LTT_VAR_PREV) | LTT_VAR_BIT(LTT_VAR_NEXT))

/*
 * What this kernel can record: the vm_event counters exist only with
 * CONFIG_VM_EVENT_COUNTERS (the patched kernels' configurations leave it
 * out); a trace's TRACE_START says what was recorded.
 */
#ifdef CONFIG_VM_EVENT_COUNTERS
#define LTT_VARS_SUPPORTED LTT_VAR_MASK_ALL
#else
#define LTT_VARS_SUPPORTED (LTT_VAR_MASK_ALL & ~LTT_VARS_VM_EVENTS)
#endif

/**
 * ltt_vars_set_mask() - LTT_IOC_SET_VARS_MASK: the variables of a
 * session's next trace
 * @cfg:     the session's setting
 * @uarg:    user pointer to the __u32 mask
 * @tracing: the session traces (its configuration cannot change)
 *
 * Return: 0, -EFAULT, -EBUSY while tracing, -EINVAL for bits that name no
 * variable.
 */
long ltt_vars_set_mask(u32 *cfg, u32 __user *uarg, bool tracing)
{
	u32 mask;

	if (get_user(mask, uarg))
		return -EFAULT;
	if (tracing)
		return -EBUSY;
	if (mask & ~LTT_VAR_MASK_ALL)
		return -EINVAL;
	*cfg = mask;
	return 0;
}

/**
 * ltt_vars_start() - prepare a trace's per-CPU state for its start
 * @t:   the trace, starting now
 * @cfg: the variables selected (LTT_IOC_SET_VARS_MASK)
 *
 * Every CPU records all selected variables in its first VARS record.
 * Called by START before any event can reach the trace.
 *
 * Return: the variables the trace records (those selected this kernel
 * can read), for its run.vars_mask and its TRACE_START record.
 */
u32 ltt_vars_start(struct ltt_trace *t, u32 cfg)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		ltt_vars_cpu_reset(per_cpu_ptr(t->vars, cpu));
		per_cpu_ptr(t->vars, cpu)->gen = 0;
	}
	t->run.vars_gen = 0;
	return ltt_vars_selected(cfg);
}

/**
 * ltt_vars_selected() - the variables a trace records
 * @cfg: the variables selected (LTT_IOC_SET_VARS_MASK)
 *
 * Those selected that this kernel can read. When they change while a
 * trace runs, the caller stores them in run.vars_mask and then bumps
 * run.vars_gen (release): each CPU records all of them in its next VARS
 * record (ltt_vars_compose()), and no CPU is interrupted for it, an
 * isolated one included.
 *
 * Return: the mask, for the trace's run.vars_mask and its records.
 */
u32 ltt_vars_selected(u32 cfg)
{
	return cfg & LTT_VARS_SUPPORTED;
}

/**
 * ltt_vars_cpu_reset() - forget a CPU's last values
 * @vc: the CPU's state
 *
 * Its next VARS record holds every selected variable. Also what the
 * caller does when a VARS record could not be stored.
 */
void notrace ltt_vars_cpu_reset(struct ltt_vars_cpu *vc)
{
	vc->known = 0;
}
NOKPROBE_SYMBOL(ltt_vars_cpu_reset);

static u64 notrace ltt_vars_ppid(void)
{
	u64 v;

	rcu_read_lock();
	v = task_tgid_nr(rcu_dereference(current->real_parent));
	rcu_read_unlock();
	return v;
}
NOKPROBE_SYMBOL(ltt_vars_ppid);

/* This CPU's count of @item; 0 when the kernel keeps none. */
static u64 notrace ltt_vars_vm_event(enum vm_event_item item)
{
#ifdef CONFIG_VM_EVENT_COUNTERS
	return raw_cpu_read(vm_event_states.event[item]);
#else
	return 0;
#endif
}
NOKPROBE_SYMBOL(ltt_vars_vm_event);

/* The value of variable @v now; PREV, NEXT and ARGS are not read here. */
static u64 notrace ltt_vars_read(unsigned int v)
{
	struct task_struct *t = current;

	switch (v) {
	case LTT_VAR_PID:
		return task_pid_nr(t);
	case LTT_VAR_PPID:
		return ltt_vars_ppid();
	case LTT_VAR_PGID:
		return task_pgrp_nr(t);
	case LTT_VAR_FREEMEM:
		return global_zone_page_state(NR_FREE_PAGES);
	case LTT_VAR_TOTALMEM:
		return totalram_pages();
	case LTT_VAR_PGFAULT:
		return ltt_vars_vm_event(PGFAULT);
	case LTT_VAR_PGPGIN:
		return ltt_vars_vm_event(PGPGIN);
	case LTT_VAR_PGPGOUT:
		return ltt_vars_vm_event(PGPGOUT);
	case LTT_VAR_PSWPIN:
		return ltt_vars_vm_event(PSWPIN);
	case LTT_VAR_PSWPOUT:
		return ltt_vars_vm_event(PSWPOUT);
	case LTT_VAR_SIGPENDING:
		return READ_ONCE(t->pending.signal.sig[0]) |
		       READ_ONCE(t->signal->shared_pending.signal.sig[0]);
	case LTT_VAR_UID:
		return from_kuid_munged(&init_user_ns, current_euid());
	case LTT_VAR_MINFLT:
		return READ_ONCE(t->min_flt);
	case LTT_VAR_MAJFLT:
		return READ_ONCE(t->maj_flt);
	case LTT_VAR_NVCSW:
		return READ_ONCE(t->nvcsw);
	case LTT_VAR_NIVCSW:
		return READ_ONCE(t->nivcsw);
	case LTT_VAR_LOADAVG:
		return READ_ONCE(avenrun[0]);
	}
	return 0;
}
NOKPROBE_SYMBOL(ltt_vars_read);

/*
 * The arguments of the system call current is entering, into @args;
 * returns how many the call takes (0 for a 32-bit call, whose numbers and
 * registers are another table's).
 */
static unsigned int notrace ltt_vars_args(u32 nr, u64 *args)
{
	struct pt_regs *regs = task_pt_regs(current);
	unsigned long a[LTT_VAR_ARGS_MAX];
	unsigned int i, n;

	if (in_compat_syscall() || nr >= ARRAY_SIZE(ltt_sys_nargs))
		return 0;
	n = ltt_sys_nargs[nr];
	syscall_get_arguments(current, regs, a);
	for (i = 0; i < n; i++)
		args[i] = a[i];
	return n;
}
NOKPROBE_SYMBOL(ltt_vars_args);

/**
 * ltt_vars_compose() - the VARS record that follows an event just stored
 * @vc:      the CPU's last values
 * @r:       the session's run: the variables it records (vars_mask), and
 *           their changes (vars_gen)
 * @event:   the event
 * @details: its details as given to the callback (before the details mask)
 * @size:    valid bytes at @details
 * @task:    the facility's task of the event (the incoming one of a
 *           SCHEDCHANGE), or NULL
 * @out:     the record's details
 * @nargs:   the record's subtype: system call arguments in @out
 *
 * Interrupts off, not in NMI. Updates @vc as if the record were stored;
 * the caller resets it with ltt_vars_cpu_reset() when it was not.
 *
 * Return: the record's detail bytes, 0 when nothing changed.
 */
u16 notrace ltt_vars_compose(struct ltt_vars_cpu *vc, const struct ltt_run *r,
			     u8 event, const void *details, u16 size,
			     struct task_struct *task, struct ltt_ev_vars *out,
			     u8 *nargs)
{
	/* Acquire: a CPU that sees the change sees the mask it made. */
	u32 gen = smp_load_acquire(&r->vars_gen);
	u32 mask = READ_ONCE(r->vars_mask);
	unsigned int v, n = 0;
	unsigned long m;
	u64 sw[2];

	/* The variables changed since this CPU's last record: all of them. */
	if (unlikely(vc->gen != gen)) {
		ltt_vars_cpu_reset(vc);
		vc->gen = gen;
	}
	out->changed = 0;
	out->nr = 0;
	*nargs = 0;
	if ((mask & LTT_VAR_BIT(LTT_VAR_ARGS)) &&
	    event == LTT_EV_SYSCALL_ENTRY) {
		u32 nr = size >= 12 ?
			((const struct ltt_ev_syscall_entry *)details)->nr :
			(u32)syscall_get_nr(current, task_pt_regs(current));

		out->changed |= LTT_VAR_BIT(LTT_VAR_ARGS);
		out->nr = nr;
		n = ltt_vars_args(nr, out->values);
		*nargs = n;
	}
	if ((mask & LTT_VARS_SWITCH) && event == LTT_EV_SCHEDCHANGE) {
		const struct ltt_ev_schedchange *sc = details;

		if (size >= sizeof(*sc)) {
			sw[0] = sc->out;
			sw[1] = sc->in;
		} else {
			sw[0] = task_pid_nr(current);
			sw[1] = task ? task_pid_nr(task) : 0;
		}
	} else {
		mask &= ~LTT_VARS_SWITCH;
	}
	/* The selected variables only, in ascending order. */
	m = mask & ~LTT_VAR_BIT(LTT_VAR_ARGS);
	while (m) {
		u64 val;

		v = __ffs(m);
		m &= m - 1;
		if (v == LTT_VAR_PREV || v == LTT_VAR_NEXT)
			val = sw[v - LTT_VAR_PREV];
		else
			val = ltt_vars_read(v);
		if ((vc->known & LTT_VAR_BIT(v)) && vc->last[v] == val)
			continue;
		vc->last[v] = val;
		vc->known |= LTT_VAR_BIT(v);
		out->changed |= LTT_VAR_BIT(v);
		out->values[n++] = val;
	}
	if (!out->changed)
		return 0;
	return LTT_EV_VARS_FIXED + n * sizeof(u64);
}
NOKPROBE_SYMBOL(ltt_vars_compose);
