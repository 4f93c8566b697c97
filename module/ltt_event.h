/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ltt trace module, event layer: what the event path knows of a trace
 * (struct ltt_trace: its run settings and its channel), the set of
 * tracing traces it walks (ltt_live), and the dispatch of one event to
 * each of them through its mask, filters, owner rules and variables
 * (ltt_event.c, ltt_vars.c). It calls only the buffer layer
 * (ltt_buffer.h, whose writer ltt_write.h it inlines); the probes and
 * backends above hand it their events, the session layer fills in the
 * traces and publishes them.
 */
#ifndef LTT_EVENT_H
#define LTT_EVENT_H

#include <linux/types.h>
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/uidgid.h>
#include <linux/jump_label.h>
#include <linux/rcupdate.h>

#include "ltt_write.h"

struct task_struct;

/*
 * Events the module records: the facility's (events.h) and those of its
 * own that it implements (module_events.h).
 */
#define LTT_MOD_MASK                                        \
	(LTT_EV_MASK_ALL | LTT_EV_MASK_MOUNT_LOCK | LTT_EV_BIT(LTT_EV_MAP) | \
	 LTT_EV_BIT(LTT_EV_STACK))
/*
 * Those it records on this kernel: a mask may select any of LTT_MOD_MASK,
 * but MAP records nothing on PREEMPT_RT (ltt_compat.h says why).
 */
#ifdef CONFIG_PREEMPT_RT
#define LTT_REC_MASK (LTT_MOD_MASK & ~LTT_EV_BIT(LTT_EV_MAP))
#else
#define LTT_REC_MASK LTT_MOD_MASK
#endif
/* Largest details the module stores: a custom event with a full payload. */
#define LTT_DETAILS_MAX (LTT_EV_CUSTOM_FIXED + LTT_CUSTOM_MAX)

/**
 * struct ltt_vars_cpu - a CPU's last recorded kernel-state variables, one
 * per trace and CPU (ltt_vars.c)
 * @known: LTT_VAR_BIT()s whose @last value the trace holds
 * @gen:   the trace's run.vars_gen this CPU last saw
 * @last:  the values, by enum ltt_var
 */
struct ltt_vars_cpu {
	u32 known;
	u32 gen;
	u64 last[LTT_VAR_COUNT];
};

/**
 * struct ltt_run - what the event path reads of a trace's settings; while
 * it traces only the masks, filters and variables change, each field with
 * one store (ltt_apply_config() in ltt_session.c)
 * @event_mask:   events selected (structure events are always recorded)
 * @details_mask: events whose details are recorded
 * @filters:      LTT_FILTER_* in effect, LTT_FILTER_OWNER for a
 *                restricted session, LTT_FILTER_VARS with variables
 * @pid:          tracked PID (thread or thread group)
 * @pgrp:         tracked process group
 * @uid:          tracked effective UID
 * @gid:          tracked effective GID
 * @owner:        a restricted session's user: it sees only events of
 *                that user's tasks as ptrace would let it read them
 *                (ltt_task_owned() in ltt_event.c)
 * @size_max:     detail bytes stored of each event: 0 when its details are
 *                masked, else LTT_DETAILS_MAX
 * @vars_mask:    variables recorded after each event (enum ltt_var)
 * @vars_gen:     changes of @vars_mask while tracing: a CPU that has not
 *                seen the latest records every variable in its next VARS
 *                record (ltt_vars_compose())
 * @trigger_signals: bit n-1: a task of the trace dying of signal n
 *                sets the trace's triggered flag (EPOLLPRI)
 */
struct ltt_run {
	u64 event_mask;
	u64 details_mask;
	u32 filters;
	s32 pid;
	s32 pgrp;
	kuid_t uid;
	kgid_t gid;
	kuid_t owner;
	u16 size_max[LTT_EV_COUNT];
	u32 vars_mask;
	u32 vars_gen;
	u64 trigger_signals;
};

/* Not an ABI filter: the session is restricted to its owner's tasks. */
#define LTT_FILTER_OWNER 0x80000000u
/*
 * Not a filter either: the session records variables (@vars_mask), so its
 * events take the same branch out of the direct path as filtered ones,
 * and a session without either pays a single test.
 */
#define LTT_FILTER_VARS 0x40000000u
/*
 * Nor this: the session's trace must say which task is current where
 * scheduling changes alone do not (its mask leaves SCHEDCHANGE or its
 * details out, a filter or its restriction hides some switches). Before
 * each event its CPU's task is compared with the one the trace shows,
 * and a CONTEXT record written when they differ (ltt_context() in
 * ltt_event.c); a session without filters that records scheduling
 * changes pays nothing.
 */
#define LTT_FILTER_CONTEXT 0x20000000u

/* The LTT_FILTER_CONTEXT a session of @filters and masks needs. */
static inline u32 ltt_context_filter(u32 filters, u64 event_mask,
				     u64 details_mask)
{
	u64 sched = LTT_EV_BIT(LTT_EV_SCHEDCHANGE);

	if ((filters & ~(LTT_FILTER_VARS | LTT_FILTER_CONTEXT)) ||
	    !(event_mask & details_mask & sched))
		return LTT_FILTER_CONTEXT;
	return 0;
}

/**
 * struct ltt_trace - a session as the event path sees it
 * @run:       its settings; first, for the hot path
 * @chan:      its buffers, right after: the writer reads @chan.cpus
 * @vars:      per CPU, the variables last recorded (ltt_vars.c)
 * @triggered: a trigger fired since the last SNAPSHOT (ltt_exit_trigger())
 */
struct ltt_trace {
	struct ltt_run run;
	struct ltt_chan chan;
	struct ltt_vars_cpu __percpu *vars;
	bool triggered;
};

/*
 * At most this many sessions are open at once (more: -EUSERS), so at
 * most this many traces are live.
 */
#define LTT_MAX_SESSIONS 8

/**
 * struct ltt_live - the tracing traces, as the event path sees them
 * @n:    entries of @s in use
 * @rcu:  freed after a grace period once replaced
 * @s:    the traces, in the order they started
 *
 * Replaced (RCU) by the session layer whenever a session starts or
 * stops; the event path reads it with preemption disabled.
 */
struct ltt_live {
	unsigned int n;
	struct rcu_head rcu;
	struct ltt_trace *s[LTT_MAX_SESSIONS];
};

extern struct ltt_live __rcu *ltt_live;
/* The tracing trace when exactly one traces, else NULL (ltt_live). */
extern struct ltt_trace __rcu *ltt_solo;
/* The union of the tracing traces' event masks, 0 when none traces. */
extern u64 ltt_live_mask;

/* ltt_event.c: the out-of-line parts of ltt_dispatch() below */
void ltt_callback_filtered(struct ltt_trace *t, u8 event, u8 subtype,
			   const void *details, u16 size,
			   struct task_struct *task, bool vars);
void ltt_callback_context(struct ltt_trace *t, u8 event, u8 subtype,
			  const void *details, u16 size,
			  struct task_struct *task);
void ltt_callback_many(struct ltt_live *live, u8 event, u8 subtype,
		       const void *details, u16 size,
		       struct task_struct *task, bool vars);

/*
 * One tracing trace's share of an event: its mask, filters, writer, and
 * with @vars the VARS record its vars_mask asks for (LTT_FILTER_VARS
 * sends it to ltt_callback_filtered()).
 */
static __always_inline void ltt_trace_event(struct ltt_trace *t, u8 event,
					    u8 subtype, const void *details,
					    u16 size, struct task_struct *task,
					    bool vars)
{
	if (!(t->run.event_mask & BIT_ULL(event)))
		return;
	if (unlikely(t->run.filters)) {
		if (t->run.filters == LTT_FILTER_CONTEXT)
			ltt_callback_context(t, event, subtype, details, size,
					     task);
		else
			ltt_callback_filtered(t, event, subtype, details, size,
					      task, vars);
		return;
	}
	ltt_write(&t->chan, event, subtype, details,
		  min(size, t->run.size_max[event]), true, task);
}

/*
 * ltt_dispatch() - hand an event to every tracing trace whose mask and
 * filters take it. The writer is inlined for one trace without filters,
 * the common case; several traces take ltt_callback_many(). Inline, so
 * that the backend's callback (ltt_probe.h) has no call on that path.
 * Preemption disabled, any context.
 */
static __always_inline void ltt_dispatch(u8 event, u8 subtype,
					 const void *details, u16 size,
					 struct task_struct *task, bool vars)
{
	struct ltt_trace *t;
	struct ltt_live *live;
	u64 mask;

	if (event >= 64)
		return;
	/*
	 * Pairs with the traces' publication (rcu_assign_pointer). The one
	 * tracing trace, NULL when there are several (or, for a moment,
	 * none). It is published and withdrawn with ltt_live, so its own mask
	 * is the only test it needs.
	 */
	t = rcu_dereference_sched(ltt_solo);
	if (likely(t)) {
		ltt_trace_event(t, event, subtype, details, size, task, vars);
		return;
	}
	/* The union of the tracing traces' masks, 0 when none traces. */
	mask = READ_ONCE(ltt_live_mask);
	if (!(mask & BIT_ULL(event)))
		return;
	live = rcu_dereference_sched(ltt_live);
	if (live)
		ltt_callback_many(live, event, subtype, details, size, task,
				  vars);
}

/* ltt_event.c */
int ltt_trace_init(struct ltt_trace *t, bool restricted,
		   void (*notify)(struct irq_work *));
void ltt_trace_destroy(struct ltt_trace *t);
void ltt_log_event(u8 event, u8 subtype, const void *details, u16 size,
		   struct task_struct *task);
void ltt_callback_restricted(u8 event, u8 subtype, const void *details,
			     u16 size);
void ltt_log_extra(u8 event, u8 subtype, const void *details, u16 size);
void ltt_log_stack(u8 subtype, const void *details, u16 size);
bool ltt_task_match(const struct ltt_run *r, struct task_struct *t);
bool ltt_task_owned(const struct ltt_run *r, struct task_struct *t);
/* On while a tracing trace has exit-signal triggers. */
DECLARE_STATIC_KEY_FALSE(ltt_exit_key);
void ltt_exit_trigger(const void *details, u16 size, struct task_struct *task);

/* ltt_vars.c: kernel-state variables (struct ltt_vars_cpu above). */
long ltt_vars_set_mask(u32 *cfg, u32 __user *uarg, bool tracing);
u32 ltt_vars_start(struct ltt_trace *t, u32 cfg);
u32 ltt_vars_selected(u32 cfg);
void ltt_vars_cpu_reset(struct ltt_vars_cpu *vc);
u16 ltt_vars_compose(struct ltt_vars_cpu *vc, const struct ltt_run *r,
		     u8 event, const void *details, u16 size,
		     struct task_struct *task, struct ltt_ev_vars *out,
		     u8 *nargs);

#endif /* LTT_EVENT_H */
