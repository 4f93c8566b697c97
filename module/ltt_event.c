// SPDX-License-Identifier: GPL-2.0
/*
 * ltt trace module, event layer: the event path's dispatch and policy.
 *
 * Every event a backend or probe hands over goes to each tracing trace
 * (ltt_live; ltt_solo when only one traces) whose event mask takes it.
 * A trace without filters or variables gets it straight from the writer,
 * inlined (ltt_dispatch() in ltt_event.h); one with filters, variables,
 * CONTEXT records or an owner (a restricted session) takes
 * ltt_callback_filtered(): the task filters (ltt_task_match()), the
 * owner rules and redactions (ltt_task_owned(), ltt_restrict()), the
 * CONTEXT record when the trace shows another task than current, and the
 * VARS record after the event (ltt_vars.c). The flight recorder's
 * exit-signal triggers (ltt_exit_trigger()) are here too: they read the
 * same traces and rules.
 *
 * Everything here runs in the event path: notrace, NOKPROBE, preemption
 * disabled, no sleeping, allocation or wakeup (a wakeup goes through the
 * channel's irq_work). The traces are the session layer's
 * (ltt_session.c), which fills in their struct ltt_run and publishes
 * them in ltt_live; this layer writes only to their channels.
 */
#include <linux/kernel.h>
#include <linux/cred.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/irqflags.h>
#include <linux/string.h>
#include <linux/kprobes.h>
#include <linux/rcupdate.h>

#include "ltt_event.h"

/* The callback's first test: the union of the tracing traces' masks. */
u64 ltt_live_mask __read_mostly;
struct ltt_live __rcu *ltt_live;
struct ltt_trace __rcu *ltt_solo;

/* Does @t pass the task filters of @r? Part of the event path. */
bool notrace ltt_task_match(const struct ltt_run *r, struct task_struct *t)
{
	u32 f = r->filters;
	bool ok = true;

	if ((f & LTT_FILTER_PID) && task_pid_nr(t) != r->pid &&
	    task_tgid_nr(t) != r->pid)
		return false;
	if ((f & LTT_FILTER_PGRP) && task_pgrp_nr(t) != r->pgrp)
		return false;
	if (f & (LTT_FILTER_UID | LTT_FILTER_GID)) {
		const struct cred *cred;

		rcu_read_lock();
		cred = __task_cred(t);
		if ((f & LTT_FILTER_UID) && !uid_eq(cred->euid, r->uid))
			ok = false;
		if ((f & LTT_FILTER_GID) && !gid_eq(cred->egid, r->gid))
			ok = false;
		rcu_read_unlock();
	}
	return ok;
}
NOKPROBE_SYMBOL(ltt_task_match);

/* On while a tracing trace has exit-signal triggers (ltt_callback()). */
DEFINE_STATIC_KEY_FALSE(ltt_exit_key);

/**
 * ltt_exit_trigger() - a task's exit, seen by the flight recorder
 * @details: the PROCESS EXIT record's details (arg: the exit code)
 * @size:    valid bytes at @details
 * @task:    the exiting task (NULL: current)
 *
 * A task that died of a signal in a tracing session's trigger mask, and
 * that the session sees (its filters, or its owner for a restricted
 * one), sets the session's triggered flag: poll() reports EPOLLPRI once
 * the irq_work has woken the reader. Part of the event path: no sleeping,
 * no wakeup from here.
 */
void notrace ltt_exit_trigger(const void *details, u16 size,
			      struct task_struct *task)
{
	const struct ltt_ev_process *e = details;
	struct ltt_live *live;
	unsigned int sig, i;

	if (size < sizeof(*e))
		return;
	/* do_exit()'s code: the signal in the low 7 bits, 0 for exit(). */
	sig = e->arg & 0x7f;
	if (!sig || sig > 64)
		return;
	live = rcu_dereference_sched(ltt_live);
	if (!live)
		return;
	if (!task)
		task = current;
	for (i = 0; i < live->n; i++) {
		struct ltt_trace *t = live->s[i];
		const struct ltt_run *r = &t->run;

		if (!(r->trigger_signals & BIT_ULL(sig - 1)))
			continue;
		if ((r->filters & LTT_FILTER_OWNER) ? !ltt_task_owned(r, task) :
						       !ltt_task_match(r, task))
			continue;
		WRITE_ONCE(t->triggered, true);
		irq_work_queue(&t->chan.notify);
	}
}
NOKPROBE_SYMBOL(ltt_exit_trigger);

static __always_inline bool ltt_cred_owned(const struct cred *cred,
					   kuid_t owner)
{
	return uid_eq(cred->uid, owner) && uid_eq(cred->euid, owner) &&
	       uid_eq(cred->suid, owner);
}

/*
 * Is @t a task of the restricted session's owner, one ptrace would let
 * the owner read: its real, effective and saved uids all the owner's,
 * and its dumpability the default one (a setuid, setgid or
 * file-capability exec, a change of credentials, PR_SET_DUMPABLE 0 each
 * take it away from that moment)? Kernel threads never are. The same
 * rule for current and for the other task an event names (a wakeup's,
 * a signal's, a fork's, the incoming side of a schedchange). Part of the
 * event path: no lock but RCU, a few loads (ltt_compat.h: where the
 * dumpability lives, and how another task's is read).
 */
bool notrace ltt_task_owned(const struct ltt_run *r, struct task_struct *t)
{
	bool ok;

	if (t->flags & PF_KTHREAD)
		return false;
	if (t == current)
		return ltt_cred_owned(current_cred(), r->owner) &&
		       ltt_current_dumpable();
	rcu_read_lock();
	ok = ltt_cred_owned(__task_cred(t), r->owner);
	rcu_read_unlock();
	return ok && ltt_task_dumpable(t);
}
NOKPROBE_SYMBOL(ltt_task_owned);

/* The details a restricted session may need to rewrite. */
union ltt_redacted {
	struct ltt_ev_syscall_entry sys;
	struct ltt_ev_trap_entry trap;
	struct ltt_ev_schedchange sched;
	struct ltt_ev_soft_irq soft;
	struct ltt_ev_memory mem;
	struct ltt_ev_lock lock;
};

/* Is @addr outside user space, i.e. a kernel address? */
static __always_inline bool ltt_kernel_addr(u64 addr)
{
	return addr >= TASK_SIZE_MAX;
}

/*
 * May the restricted session of @r see this event, and how? The rules are
 * module/README.md's "Who may open /dev/tracer": an event that concerns
 * another task (@task) needs that task to be the owner's; any other one
 * needs current to be the owner's, and to happen in task context, or be
 * an interrupt, trap or timer interrupting the owner's task. A
 * schedchange passes when either side is the owner's, the other side
 * shown as pid 0. Kernel addresses (a LOCK's lock among them) are zeroed,
 * kthread creation and page allocations dropped. *@details may be pointed
 * at @buf, a rewritten copy.
 */
static bool notrace ltt_restrict(const struct ltt_run *r, u8 event,
				 u8 subtype, const void **details, u16 size,
				 struct task_struct *task,
				 union ltt_redacted *buf)
{
	bool cur = ltt_task_owned(r, current);

	if (event == LTT_EV_SCHEDCHANGE) {
		bool in = task && ltt_task_owned(r, task);

		if (!cur && !in)
			return false;
		if ((cur && in) || size < sizeof(buf->sched))
			return true;
		memcpy(&buf->sched, *details, sizeof(buf->sched));
		if (!cur) {
			buf->sched.out = 0;
			buf->sched.out_state = 0;
		}
		if (!in)
			buf->sched.in = 0;
		*details = buf;
		return true;
	}
	if (task && task != current) {
		if (!ltt_task_owned(r, task))
			return false;
	} else if (!cur) {
		return false;
	} else if (in_interrupt()) {
		switch (event) {
		case LTT_EV_IRQ_ENTRY:
		case LTT_EV_IRQ_EXIT:
		case LTT_EV_SOFT_IRQ:
		case LTT_EV_KERNEL_TIMER:
		case LTT_EV_TRAP_ENTRY:
		case LTT_EV_TRAP_EXIT:
			break;
		default:
			return false;
		}
	}
	switch (event) {
	case LTT_EV_SYSCALL_ENTRY:
		if (size >= sizeof(u64) &&
		    ltt_kernel_addr(((const struct ltt_ev_syscall_entry *)
					     *details)->ip)) {
			memcpy(&buf->sys, *details, min_t(u16, size,
							  sizeof(buf->sys)));
			buf->sys.ip = 0;
			*details = buf;
		}
		break;
	case LTT_EV_TRAP_ENTRY:
		if (size >= sizeof(buf->trap)) {
			memcpy(&buf->trap, *details, sizeof(buf->trap));
			if (ltt_kernel_addr(buf->trap.ip))
				buf->trap.ip = 0;
			if (ltt_kernel_addr(buf->trap.address))
				buf->trap.address = 0;
			*details = buf;
		}
		break;
	case LTT_EV_SOFT_IRQ:
		if (subtype >= LTT_TASKLET_ENTRY && size >= sizeof(buf->soft)) {
			buf->soft.id = 0;
			*details = buf;
		}
		break;
	case LTT_EV_PROCESS:
		if (subtype == LTT_PROCESS_KTHREAD)
			return false;
		break;
	case LTT_EV_MEMORY:
		if (subtype <= LTT_MEM_PAGE_FREE)
			return false;
		if (size >= sizeof(buf->mem)) {
			memcpy(&buf->mem, *details, sizeof(buf->mem));
			buf->mem.address = 0;
			*details = buf;
		}
		break;
	case LTT_EV_NETWORK:
		return !in_interrupt();
	case LTT_EV_STACK:
		/* A kernel stack is nothing but kernel addresses. */
		return subtype != LTT_STACK_KERNEL;
	case LTT_EV_LOCK:
		/* The lock's address is a kernel address. */
		if (size >= sizeof(buf->lock)) {
			memcpy(&buf->lock, *details, sizeof(buf->lock));
			buf->lock.lock = 0;
			*details = buf;
		}
		break;
	}
	return true;
}
NOKPROBE_SYMBOL(ltt_restrict);

/*
 * Before an event of @t (LTT_FILTER_CONTEXT): if the task current on this
 * CPU is not the one the trace shows, a CONTEXT record naming it
 * (docs/trace-format.md, CONTEXT). Not counted: a CONTEXT record that
 * cannot be stored is tried again at the next event, and the next block
 * says the task in its header. For a restricted session a task it may
 * not see is pid 0; where the session records scheduling changes, a
 * change there is one of ownership (OWNED, HIDDEN), not a switch.
 */
static noinline void notrace ltt_context(struct ltt_trace *t,
					 struct ltt_cpu *c, s32 pid)
{
	const struct ltt_run *r = &t->run;
	struct ltt_ev_context ctx = { .pid = pid };
	u8 sub = LTT_CONTEXT_SWITCH;

	if (pid)
		ctx.tgid = task_tgid_nr(current);
	if ((r->filters & LTT_FILTER_OWNER) &&
	    (r->event_mask & LTT_EV_BIT(LTT_EV_SCHEDCHANGE)))
		sub = pid ? LTT_CONTEXT_OWNED : LTT_CONTEXT_HIDDEN;
	if (ltt_write(&t->chan, LTT_EV_CONTEXT, sub, &ctx, sizeof(ctx), false, NULL))
		WRITE_ONCE(c->ctx_pid, pid);
}
NOKPROBE_SYMBOL(ltt_context);

/*
 * The task an event of @t shows current on this CPU, and the CONTEXT
 * record when the trace shows another (ltt_context()). A schedchange says
 * it itself: the trace shows its incoming task (@details, as stored)
 * after it, if its details are recorded.
 */
static __always_inline void ltt_context_before(struct ltt_trace *t, u8 event)
{
	struct ltt_cpu *c = this_cpu_ptr(t->chan.cpus);
	const struct ltt_run *r = &t->run;
	s32 pid = task_pid_nr(current);

	if (event == LTT_EV_SCHEDCHANGE)
		return;
	if (pid && (r->filters & LTT_FILTER_OWNER) &&
	    !ltt_task_owned(r, current))
		pid = 0;
	if (unlikely(READ_ONCE(c->ctx_pid) != pid))
		ltt_context(t, c, pid);
}

static __always_inline void ltt_context_after(struct ltt_trace *t, u8 event,
					      const void *details, u16 size)
{
	if (event == LTT_EV_SCHEDCHANGE && size >= sizeof(struct ltt_ev_schedchange) &&
	    t->run.size_max[LTT_EV_SCHEDCHANGE])
		WRITE_ONCE(this_cpu_ptr(t->chan.cpus)->ctx_pid,
			   ((const struct ltt_ev_schedchange *)details)->in);
}

/*
 * An event of @t followed by its VARS record (ltt_vars.c), with interrupts
 * off across both so that no other record of the CPU comes between them.
 * @size bytes at @details are what the variables are taken from,
 * @stored_size of them are stored.
 */
static noinline void notrace ltt_write_vars(struct ltt_trace *t, u8 event,
					    u8 subtype, const void *details,
					    u16 size, u16 stored_size,
					    struct task_struct *task)
{
	struct ltt_vars_cpu *vc;
	struct ltt_ev_vars v;
	unsigned long flags;
	u8 nargs;
	u16 vsize;

	local_irq_save(flags);
	if (ltt_write(&t->chan, event, subtype, details, stored_size, true, task)) {
		vc = this_cpu_ptr(t->vars);
		vsize = ltt_vars_compose(vc, &t->run, event, details,
					 size, task, &v, &nargs);
		if (vsize &&
		    !ltt_write(&t->chan, LTT_EV_VARS, nargs, &v, vsize, false, NULL))
			ltt_vars_cpu_reset(vc);
	}
	local_irq_restore(flags);
}
NOKPROBE_SYMBOL(ltt_write_vars);

/*
 * The path of a session with filters or variables: the task filters, for
 * a restricted session its owner rules and redactions. The VARS record
 * (@vars and the session's vars_mask) reads current's state, so a
 * restricted session gets one only after an event of its owner's current
 * task; its PREV and NEXT come from the redacted schedchange.
 */
noinline void notrace ltt_callback_filtered(struct ltt_trace *t, u8 event,
					    u8 subtype, const void *details,
					    u16 size, struct task_struct *task,
					    bool vars)
{
	const struct ltt_run *r = &t->run;
	union ltt_redacted buf;
	u16 stored = min(size, r->size_max[event]);

	if ((r->filters &
	     ~(LTT_FILTER_OWNER | LTT_FILTER_VARS | LTT_FILTER_CONTEXT)) &&
	    !ltt_task_match(r, current) &&
	    !(task && ltt_task_match(r, task)))
		return;
	if (r->filters & LTT_FILTER_OWNER) {
		if (!ltt_restrict(r, event, subtype, &details, size, task,
				  &buf))
			return;
		if (vars && r->vars_mask && !ltt_task_owned(r, current))
			vars = false;
	}
	if (r->filters & LTT_FILTER_CONTEXT)
		ltt_context_before(t, event);
	if (vars && r->vars_mask)
		ltt_write_vars(t, event, subtype, details, size, stored, task);
	else
		ltt_write(&t->chan, event, subtype, details, stored, true, task);
	if (r->filters & LTT_FILTER_CONTEXT)
		ltt_context_after(t, event, details, size);
}
NOKPROBE_SYMBOL(ltt_callback_filtered);

/*
 * The path of a session whose only flag is LTT_FILTER_CONTEXT (no
 * scheduling changes recorded, nothing filtered): the write with the
 * context check around it, none of ltt_callback_filtered()'s tests.
 */
noinline void notrace ltt_callback_context(struct ltt_trace *t, u8 event,
					   u8 subtype, const void *details,
					   u16 size, struct task_struct *task)
{
	ltt_context_before(t, event);
	ltt_write(&t->chan, event, subtype, details,
		  min(size, t->run.size_max[event]), true, task);
	ltt_context_after(t, event, details, size);
}
NOKPROBE_SYMBOL(ltt_callback_context);

/* The walk when more than one session traces. */
noinline void notrace ltt_callback_many(struct ltt_live *live, u8 event,
					u8 subtype, const void *details,
					u16 size, struct task_struct *task,
					bool vars)
{
	unsigned int i;

	for (i = 0; i < live->n; i++)
		ltt_trace_event(live->s[i], event, subtype, details, size,
				task, vars);
}
NOKPROBE_SYMBOL(ltt_callback_many);

/**
 * ltt_callback_restricted() - an event only restricted sessions may take
 * @event:   enum ltt_event_id
 * @subtype: the event's subtype
 * @details: the detail structure
 * @size:    valid bytes at @details
 *
 * Preemption disabled. As ltt_log_event(), for the tracing restricted
 * sessions only: what a user without privilege logs (USER_EVENT) never
 * lands in a privileged session.
 */
void notrace ltt_callback_restricted(u8 event, u8 subtype,
				     const void *details, u16 size)
{
	struct ltt_live *live;
	unsigned int i;

	if (event >= 64 || !(READ_ONCE(ltt_live_mask) & BIT_ULL(event)))
		return;
	live = rcu_dereference_sched(ltt_live);
	for (i = 0; live && i < live->n; i++)
		if (live->s[i]->run.filters & LTT_FILTER_OWNER)
			ltt_trace_event(live->s[i], event, subtype, details,
					size, NULL, true);
}
NOKPROBE_SYMBOL(ltt_callback_restricted);

/**
 * ltt_log_event() - mask, filter, store one event in every tracing trace
 * @event:   enum ltt_event_id
 * @subtype: the event's subtype
 * @details: the detail structure (NULL when @size is 0)
 * @size:    valid bytes at @details
 * @task:    the task the event concerns (docs/kernel-facility.md)
 *
 * Preemption disabled, any context. Every tracing trace whose mask and
 * filters take the event gets it in its own buffers, followed by a VARS
 * record when the trace records variables. What the backends' callback
 * (ltt_callback(), ltt_probe.h) does after the hooks; for the events of
 * the probes that have none (MAP, the derived system call events, user
 * events).
 */
void notrace ltt_log_event(u8 event, u8 subtype, const void *details,
			   u16 size, struct task_struct *task)
{
	ltt_dispatch(event, subtype, details, size, task, true);
}
NOKPROBE_SYMBOL(ltt_log_event);

/**
 * ltt_log_stack() - store a STACK record of current (ltt_stack.c)
 * @subtype: enum ltt_stack_sub
 * @details: struct ltt_ev_stack, cut after its last frame
 * @size:    valid bytes at @details
 *
 * As ltt_log_event() for an event of current without a concerned task,
 * without VARS records: every session's masks, filters and (restricted)
 * owner rules apply.
 */
void notrace ltt_log_stack(u8 subtype, const void *details, u16 size)
{
	ltt_dispatch(LTT_EV_STACK, subtype, details, size, NULL, false);
}
NOKPROBE_SYMBOL(ltt_log_stack);

/**
 * ltt_log_extra() - store an event of ltt_extra.c's probes
 * @event:   LTT_EV_MOUNT or LTT_EV_LOCK
 * @subtype: the event's subtype
 * @details: the detail structure
 * @size:    valid bytes at @details
 *
 * As ltt_log_event() for an event of current without a concerned task,
 * without VARS records: every session's masks, filters and (restricted)
 * owner rules apply.
 */
void notrace ltt_log_extra(u8 event, u8 subtype, const void *details,
			   u16 size)
{
	ltt_dispatch(event, subtype, details, size, NULL, false);
}
NOKPROBE_SYMBOL(ltt_log_extra);

/*
 * The pid a block of a restricted session's trace may show for @t: 0 (as
 * for the idle task) when @t is not its owner's (the channel's
 * task_pid).
 */
static s32 notrace ltt_trace_task_pid(const struct ltt_chan *ch,
				      struct task_struct *t)
{
	const struct ltt_trace *tr = container_of(ch, struct ltt_trace, chan);

	if ((tr->run.filters & LTT_FILTER_OWNER) &&
	    !ltt_task_owned(&tr->run, t))
		return 0;
	return task_pid_nr(t);
}
NOKPROBE_SYMBOL(ltt_trace_task_pid);

/**
 * ltt_trace_init() - set up a new trace's channel and per-CPU state
 * @t:          the trace, zeroed
 * @restricted: an unprivileged user's: its blocks show only its owner's
 *              tasks, and it leaves isolated CPUs alone
 * @notify:     what a block becoming READY queues (wakes the readers)
 *
 * Return: 0 or -ENOMEM (then ltt_trace_destroy() frees what was set up).
 */
int ltt_trace_init(struct ltt_trace *t, bool restricted,
		   void (*notify)(struct irq_work *))
{
	t->vars = alloc_percpu_gfp(struct ltt_vars_cpu, GFP_KERNEL_ACCOUNT);
	if (!t->vars)
		return -ENOMEM;
	t->chan.quiet = restricted;
	if (restricted)
		t->chan.task_pid = ltt_trace_task_pid;
	return ltt_chan_init(&t->chan, notify);
}

/**
 * ltt_trace_destroy() - free a trace no event path can reach any more
 * @t: the trace
 */
void ltt_trace_destroy(struct ltt_trace *t)
{
	ltt_chan_destroy(&t->chan);
	free_percpu(t->vars);
	t->vars = NULL;
}
