// SPDX-License-Identifier: GPL-2.0
/*
 * ltt trace module, session layer: sessions, START, STOP and changes
 * while tracing (ltt_session.h). The device (ltt_dev.c) decodes the
 * ioctls; the event path (ltt_event.c) reads what this file publishes.
 *
 * Sessions: every open() of /dev/tracer is a session (struct ltt_session,
 * file->private_data) with its own configuration, per-CPU buffers, state,
 * readers, SIGIO and lost counts; up to LTT_MAX_SESSIONS trace at once.
 * The event path walks ltt_live, an RCU-published array of the tracing
 * sessions, and each takes the events its mask and filters take into its
 * own buffers. The hooks pay for the union of what the sessions want:
 * ltt_live_mask is that union, the callback's first test, and the
 * backend is attached for the union (the tracepoint backend registers
 * the probes the union needs). One session's START, STOP, overflow or
 * close touches only its own buffers and its entry in ltt_live.
 *
 * Choices the ABI leaves open, made here:
 *  - The backend is attached only while some session traces: the first
 *    START attaches it for its mask, later STARTs extend it to the new
 *    union, STOPs trim it to what the others still want, and the last
 *    STOP detaches it. So with the module loaded and no session tracing
 *    the hooks are patched out (static key off, no SYSCALL_WORK_LTT), as
 *    with no module at all. A session's STOP removes it from ltt_live and
 *    clears its active flag, then waits for an RCU grace period (the
 *    detach does, or synchronize_rcu()): every writer runs with
 *    preemption disabled and reached the session through ltt_live (the
 *    callback, and so user events) or its active flag (test mode and the
 *    heartbeat), so after it no event can touch its buffers. A START that
 *    cannot attach (another tracer holds the facility) fails with -EBUSY
 *    and leaves the session IDLE. The module cannot be unloaded while
 *    /dev/tracer is open.
 *  - The facility's syscall IP policy is global: the first privileged
 *    session to start while no other privileged session traces sets it
 *    (restricted sessions may trace meanwhile), and it holds until no
 *    session traces; restricted sessions never set it.
 *  - Filters: an event passes when the task it happens in (current) is
 *    tracked, or when the task it concerns (the facility's @task: the
 *    incoming task of a schedchange, the child of a fork, the woken task,
 *    the signal's destination) is. So a schedchange that switches a
 *    tracked task in or out is always kept. A PID filter matches a thread
 *    id or a thread-group id; UID and GID are the effective ids, the ones
 *    the daemon's .proc file lists. All filters in effect must match.
 *  - Masks, filters and variables may change while a session traces
 *    (ltt_apply_config()): the change is published to the event path
 *    without stopping it and recorded as a CONFIG record; the buffer
 *    size, cpuid and syscall IP settings are -EBUSY while tracing.
 *  - Test-mode events (ltt_test.ko) bypass every mask and filter: they
 *    exist to count; they go to the caller's session only. User events
 *    go through the event layer, so to every session whose mask and
 *    filters take them.
 *  - TEST_EMIT and USER_EVENT need a running trace (-EINVAL otherwise);
 *    STOP without a trace is -EINVAL, STOP of a stopped trace is a no-op.
 *  - Clock: the TSC when it is constant, nonstop and stable and tsc_khz is
 *    known; otherwise CLOCK_MONOTONIC (ktime_get_mono_fast_ns(), see
 *    ltt_clock()) with LTT_TRACE_F_CLOCK_FALLBACK. The module parameter
 *    clock=tsc|local overrides the choice (local: the fallback).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/cpumask.h>
#include <linux/bitops.h>
#include <linux/cred.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>
#include <linux/capability.h>
#include <linux/resource.h>
#include <linux/export.h>
#include <asm/tsc.h>

#include "ltt_session.h"

static unsigned int heartbeat_ms = 250;
module_param(heartbeat_ms, uint, 0444);
MODULE_PARM_DESC(heartbeat_ms,
		 "Interval of the per-CPU heartbeat (10..1000 ms, 0: none)");

static char *clock = "auto";
module_param(clock, charp, 0444);
MODULE_PARM_DESC(clock, "Trace clock: auto, tsc or local (CLOCK_MONOTONIC)");


/**
 * struct ltt_sessions - what the sessions share
 * @lock:       protects everything below, ltt_live and ltt_live_mask, and
 *              serializes the backend's attach and detach; taken inside a
 *              session's lock
 * @open:       sessions open
 * @restricted: restricted sessions open
 * @rs:         those sessions
 * @next_id:    the next session's id
 * @attached:   the backend delivers events (some session traces)
 * @priv_tracing: privileged sessions tracing (the syscall IP policy)
 */
struct ltt_sessions {
	struct mutex lock;
	unsigned int open;
	unsigned int restricted;
	struct ltt_session *rs[LTT_RESTRICTED_SESSIONS];
	u32 next_id;
	bool attached;
	unsigned int priv_tracing;
};

static struct ltt_sessions ltt_sessions = {
	.lock = __MUTEX_INITIALIZER(ltt_sessions.lock),
};

/* ------------------------------------------------------------ test hooks */

/* The test module's hooks (ltt_test_register()); sessions lock. */
static const struct ltt_test_ops *ltt_test_ops;

/**
 * ltt_test_register() - plug a test module's hooks in
 * @ops: the hooks, which stay valid until ltt_test_unregister()
 *
 * Return: 0, or -EBUSY when another test module has them.
 */
int ltt_test_register(const struct ltt_test_ops *ops)
{
	int ret = 0;

	mutex_lock(&ltt_sessions.lock);
	if (ltt_test_ops)
		ret = -EBUSY;
	else
		ltt_test_ops = ops;
	mutex_unlock(&ltt_sessions.lock);
	return ret;
}
EXPORT_SYMBOL_GPL(ltt_test_register);

/**
 * ltt_test_unregister() - take a test module's hooks out
 * @ops: what ltt_test_register() was given
 *
 * After it no attach calls @ops->attach; a TEST_EMIT running holds the
 * module (@ops->owner), so none runs when its exit calls this.
 */
void ltt_test_unregister(const struct ltt_test_ops *ops)
{
	mutex_lock(&ltt_sessions.lock);
	if (ltt_test_ops == ops)
		ltt_test_ops = NULL;
	mutex_unlock(&ltt_sessions.lock);
}
EXPORT_SYMBOL_GPL(ltt_test_unregister);

/**
 * ltt_test_emit() - LTT_IOC_TEST_EMIT, handed to the test module
 * @s:    a privileged session
 * @uarg: the user's struct ltt_test_emit
 *
 * Return: what the test module's @emit returns, or -ENOTTY when no test
 * module is loaded (the ioctl is then unknown, as in a kernel without it).
 */
long ltt_test_emit(struct ltt_session *s, void __user *uarg)
{
	const struct ltt_test_ops *ops;
	long ret;

	mutex_lock(&ltt_sessions.lock);
	ops = ltt_test_ops;
	if (ops && (!ops->emit || !try_module_get(ops->owner)))
		ops = NULL;
	mutex_unlock(&ltt_sessions.lock);
	if (!ops)
		return -ENOTTY;
	ret = ops->emit(s, uarg);
	module_put(ops->owner);
	return ret;
}

/*
 * Wait until no writer outside the event path (struct ltt_session's
 * @writers) may write to @s any more: for STOP, after its grace period,
 * and for close.
 */
static void ltt_writers_wait(struct ltt_session *s)
{
	wait_event(s->writers_wq, !atomic_read(&s->writers));
}


static void ltt_notify_fn(struct irq_work *work)
{
	struct ltt_session *s = container_of(work, struct ltt_session, tr.chan.notify);

	wake_up_interruptible(&s->readq);
	kill_fasync(&s->fasync, SIGIO, POLL_IN);
}

/* ------------------------------------------------------- the live set */

/*
 * Publish the tracing sessions with @s added (@add) or removed. Sessions
 * lock held. The old array is freed after a grace period. Return 0 or
 * -ENOMEM (nothing changed).
 */
static int ltt_live_update(struct ltt_session *s, bool add)
{
	struct ltt_live *old, *new;
	unsigned int i;
	u64 mask = 0;

	lockdep_assert_held(&ltt_sessions.lock);
	old = rcu_dereference_protected(ltt_live,
					lockdep_is_held(&ltt_sessions.lock));
	/* A session leaving must be able to leave: no failure then. */
	new = kzalloc(sizeof(*new), add ? GFP_KERNEL : GFP_KERNEL | __GFP_NOFAIL);
	if (!new)
		return -ENOMEM;
	for (i = 0; old && i < old->n; i++)
		if (old->s[i] != &s->tr)
			new->s[new->n++] = old->s[i];
	if (add && !WARN_ON_ONCE(new->n >= LTT_MAX_SESSIONS))
		new->s[new->n++] = &s->tr;
	for (i = 0; i < new->n; i++)
		mask |= new->s[i]->run.event_mask;
	if (!new->n) {
		kfree(new);
		new = NULL;
	}
	/*
	 * A session leaving: its bits may leave the union only once the
	 * array without it is published, and a session arriving is published
	 * before its bits join, so a set bit always has a session behind it
	 * that the callback can find (an unset one only skips the walk).
	 */
	if (add) {
		rcu_assign_pointer(ltt_live, new);
		rcu_assign_pointer(ltt_solo, new->n == 1 ? new->s[0] : NULL);
		WRITE_ONCE(ltt_live_mask, mask);
	} else {
		WRITE_ONCE(ltt_live_mask, mask);
		rcu_assign_pointer(ltt_live, new);
		rcu_assign_pointer(ltt_solo, new && new->n == 1 ? new->s[0] :
							    NULL);
	}
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

/* The union of the tracing sessions' masks; sessions lock held. */
static u64 ltt_live_union(void)
{
	lockdep_assert_held(&ltt_sessions.lock);
	return READ_ONCE(ltt_live_mask);
}

/*
 * What the event sources must keep delivering when they are trimmed: the
 * union, and the bits tracing sessions are adding (struct ltt_session's
 * @adding), attached already. Sessions lock held.
 */
static u64 ltt_keep_union(void)
{
	struct ltt_live *live;
	u64 keep = ltt_live_union();
	unsigned int i;

	live = rcu_dereference_protected(ltt_live,
					 lockdep_is_held(&ltt_sessions.lock));
	for (i = 0; live && i < live->n; i++)
		keep |= container_of(live->s[i], struct ltt_session, tr)->adding;
	return keep;
}

/* Trim the event sources to ltt_keep_union(). Sessions lock held. */
static void ltt_trim(void)
{
	u64 keep = ltt_keep_union();

	ltt_backend_trim(keep);
	ltt_extra_trim(keep);
	ltt_map_select(keep);
	ltt_stack_select(keep);
}


/* -------------------------------------------------------- start and stop */

static bool ltt_tsc_reliable(void)
{
	return tsc_khz && boot_cpu_has(X86_FEATURE_CONSTANT_TSC) &&
	       boot_cpu_has(X86_FEATURE_NONSTOP_TSC) && !check_tsc_unstable();
}

/*
 * Fill in the clock fields of @info for a trace started now. Return true
 * when the trace must use the fallback clock instead of the TSC.
 */
bool ltt_choose_clock(struct ltt_trace_info *info)
{
	bool reliable = ltt_tsc_reliable();
	bool fallback;

	if (!strcmp(clock, "local"))
		fallback = true;
	else if (!strcmp(clock, "tsc"))
		fallback = !tsc_khz;
	else
		fallback = !reliable;
	info->flags = 0;
	if (ltt_backend == LTT_BACKEND_TRACEPOINTS)
		info->flags |= LTT_TRACE_F_TRACEPOINTS;
	if (fallback) {
		info->flags |= LTT_TRACE_F_CLOCK_FALLBACK;
		info->tsc_khz = 1000000;
	} else {
		if (reliable)
			info->flags |= LTT_TRACE_F_TSC_RELIABLE;
		info->tsc_khz = tsc_khz;
	}
	return fallback;
}

static const struct ltt_config ltt_default_config = {
	.event_mask = LTT_EV_MASK_ALL,
	.details_mask = LTT_EV_MASK_ALL,
	.buffer_size = LTT_BUFFER_DEFAULT,
	.record_cpuid = 1,
};

static void ltt_discard(struct ltt_session *s);

/*
 * Attach the backend for the union of the tracing sessions' masks and
 * @mask, what @s is about to take (at its start, or a change of its mask
 * while it traces). Sessions lock held.
 */
static int ltt_attach_for(struct ltt_session *s, u64 mask, bool starting)
{
	struct ltt_config want = s->cfg;
	bool policy;
	int ret;

	want.event_mask = ltt_live_union() | mask;
	/*
	 * The syscall IP policy is global: see the top of this file. A
	 * privileged session starting while no other privileged one traces
	 * sets it, restricted sessions tracing or not.
	 */
	policy = starting && !s->restricted && !ltt_sessions.priv_tracing;
	if (ltt_test_ops && ltt_test_ops->attach) {
		ret = ltt_test_ops->attach();
		if (ret)
			return ret;
	}
	/*
	 * ltt_extra.c's probes first; their sys_exit probe runs before the
	 * backend's anyway (its priority, see there).
	 */
	ret = ltt_extra_attach(want.event_mask);
	if (!ret)
		ret = ltt_backend_attach(&want, policy);
	if (!ret) {
		ltt_map_select(want.event_mask);
		ltt_stack_select(want.event_mask);
	}
	return ret;
}

/*
 * Count the buffers a START of the restricted session @s would allocate
 * against its owner's locked-memory budget, as perf counts its buffers:
 * the bytes every restricted session of the owner holds, these included,
 * may not pass RLIMIT_MEMLOCK plus LTT_MLOCK_ALLOWANCE_KB per online CPU,
 * unless the caller has CAP_IPC_LOCK. Return 0 (s->pinned then holds the
 * bytes until the buffers are freed) or -EPERM, perf's answer.
 */
static int ltt_charge(struct ltt_session *s, u32 size)
{
	u64 want = 2ull * size * num_possible_cpus(), held = 0;
	unsigned long rlim = rlimit(RLIMIT_MEMLOCK);
	unsigned int i;
	int ret = 0;

	mutex_lock(&ltt_sessions.lock);
	for (i = 0; i < ltt_sessions.restricted; i++) {
		struct ltt_session *o = ltt_sessions.rs[i];

		if (o != s && uid_eq(o->tr.run.owner, s->tr.run.owner))
			held += o->pinned;
	}
	/* The capability is asked (and audited) only past the budget. */
	if (rlim != RLIM_INFINITY &&
	    held + want > (u64)rlim + (u64)LTT_MLOCK_ALLOWANCE_KB * 1024 *
						num_online_cpus() &&
	    !capable(CAP_IPC_LOCK))
		ret = -EPERM;
	else
		s->pinned = want;
	mutex_unlock(&ltt_sessions.lock);
	return ret;
}

/*
 * A restricted session's operation that makes system-wide work: taken
 * from its budget of LTT_RESTRICTED_RATE a second (bursts of
 * LTT_RESTRICTED_BURST), else -EAGAIN. Session lock held.
 */
int ltt_ratelimit(struct ltt_session *s)
{
	unsigned long period = HZ / LTT_RESTRICTED_RATE ?: 1;
	unsigned long n = (jiffies - s->rl_stamp) / period;

	if (!s->restricted)
		return 0;
	if (n >= LTT_RESTRICTED_BURST) {
		s->rl_tokens = LTT_RESTRICTED_BURST;
		s->rl_stamp = jiffies;
	} else if (n) {
		s->rl_tokens = min_t(unsigned int, s->rl_tokens + n,
				     LTT_RESTRICTED_BURST);
		s->rl_stamp += n * period;
	}
	if (!s->rl_tokens)
		return -EAGAIN;
	s->rl_tokens--;
	return 0;
}

int ltt_start(struct ltt_session *s)
{
	struct ltt_config *cfg = &s->cfg;
	struct ltt_trace_info *info = &s->info;
	struct ltt_run *r = &s->tr.run;
	struct ltt_chan *ch = &s->tr.chan;
	struct ltt_ev_trace_start_ext ts;
	unsigned long flags;
	int ret, i;

	if (s->state == LTT_TRACING)
		return -EBUSY;
	ret = s->restricted ? ltt_charge(s, cfg->buffer_size) : 0;
	if (!ret)
		ret = ltt_buffers_alloc(ch, cfg->buffer_size);
	if (ret) {
		/*
		 * A START discards the last trace's unread blocks; one that
		 * fails leaves no trace at all, only the configuration.
		 */
		ltt_discard(s);
		return ret;
	}

	memset(info, 0, sizeof(*info));
	ch->fallback = ltt_choose_clock(info);
	/* Until this session's last clock read, in ltt_stop() or below. */
	if (ch->fallback)
		static_branch_inc(&ltt_fallback_clock);
	if (info->flags & LTT_TRACE_F_CLOCK_FALLBACK)
		pr_info_once("TSC not usable, timestamps are CLOCK_MONOTONIC ns\n");
	if (s->restricted)
		info->flags |= LTT_TRACE_F_RESTRICTED;
	r->event_mask = cfg->event_mask & LTT_REC_MASK;
	r->vars_mask = ltt_vars_start(&s->tr, s->vars_cfg);
	r->details_mask = cfg->details_mask;
	for (i = 0; i < LTT_EV_COUNT; i++)
		r->size_max[i] = r->details_mask & BIT_ULL(i) ?
					 LTT_DETAILS_MAX : 0;
	r->filters = cfg->filters;
	if (s->restricted)
		r->filters |= LTT_FILTER_OWNER;
	if (r->vars_mask)
		r->filters |= LTT_FILTER_VARS;
	r->filters |= ltt_context_filter(r->filters, r->event_mask,
					 r->details_mask);
	info->flags |= LTT_TRACE_F_CONTEXT;
	r->pid = cfg->pid;
	r->pgrp = cfg->pgrp;
	r->uid = s->uid;
	r->gid = s->gid;
	ch->overwrite = s->overwrite_cfg;
	r->trigger_signals = s->trigger_cfg;
	/* Until this session's STOP, or below. */
	if (r->trigger_signals)
		static_branch_inc(&ltt_exit_key);
	s->tr.triggered = false;

	local_irq_save(flags);
	info->anchor_tsc = ltt_clock(ch);
	info->anchor_realtime_ns = ktime_get_real_ns();
	info->anchor_monotonic_ns = ktime_get_ns();
	local_irq_restore(flags);
	info->abi_version = LTT_ABI_VERSION;
	info->ncpus = ltt_ncpus;
	info->max_block = cfg->buffer_size;
	info->config = *cfg;
	ltt_buffers_reset(ch, info->anchor_tsc);

	ts = (struct ltt_ev_trace_start_ext){
		.start.tsc_khz = info->tsc_khz,
		.start.anchor_tsc = info->anchor_tsc,
		.start.anchor_realtime_ns = info->anchor_realtime_ns,
		.start.event_mask = r->event_mask,
		.start.details_mask = r->details_mask,
		.backend = ltt_backend,
		.vars_mask = r->vars_mask,
		.session = s->id,
	};
	preempt_disable();
	ltt_log_trace_start(ch, &ts);
	preempt_enable();

	/*
	 * Attach (or extend) the backend only now: everything the callback
	 * uses is set up, and it cannot find this session until ltt_live
	 * holds it below.
	 */
	mutex_lock(&ltt_sessions.lock);
	ret = ltt_attach_for(s, r->event_mask, true);
	if (!ret)
		ret = ltt_live_update(s, true);
	if (ret) {
		if (!ltt_sessions.attached) {
			ltt_backend_detach();
			ltt_extra_detach();
			ltt_map_select(0);
			ltt_stack_select(0);
		} else {
			ltt_trim();
		}
		mutex_unlock(&ltt_sessions.lock);
		pr_warn_once("cannot attach to the kernel's events (%d)\n", ret);
		if (ch->fallback)
			static_branch_dec(&ltt_fallback_clock);
		if (r->trigger_signals)
			static_branch_dec(&ltt_exit_key);
		ltt_discard(s);
		return ret;
	}
	ltt_sessions.attached = true;
	if (!s->restricted)
		ltt_sessions.priv_tracing++;
	mutex_unlock(&ltt_sessions.lock);
	/* Test mode and the heartbeat: pairs with their acquire. */
	smp_store_release(&ch->active, true);
	if (heartbeat_ms)
		ltt_heartbeat_start(ch, (u64)heartbeat_ms * NSEC_PER_MSEC);
	WRITE_ONCE(s->state, LTT_TRACING);
	return 0;
}

int ltt_stop(struct ltt_session *s)
{
	bool others;
	u64 stop;

	if (s->state == LTT_IDLE)
		return -EINVAL;
	if (s->state == LTT_STOPPED)
		return 0;
	/* The trace ends now, however long the teardown below takes. */
	stop = ltt_clock(&s->tr.chan);
	WRITE_ONCE(s->tr.chan.active, false);
	mutex_lock(&ltt_sessions.lock);
	ltt_live_update(s, false);
	if (!s->restricted)
		ltt_sessions.priv_tracing--;
	/*
	 * The last session out patches the hooks out; unregistering waits
	 * for an RCU grace period. Otherwise the backend keeps what the
	 * others want, and a grace period does the same for this session,
	 * waited for once the sessions lock is dropped (the others' STARTs
	 * and STOPs need not wait for it). Every writer runs
	 * preempt-disabled: after it no CPU is inside the callback with this
	 * session, and none of the writers that saw it in ltt_live or its
	 * active flag set (test mode, user events, heartbeats) is still
	 * writing.
	 */
	others = rcu_access_pointer(ltt_live);
	if (!others) {
		ltt_backend_detach();
		ltt_extra_detach();
		ltt_map_select(0);
		ltt_stack_select(0);
		ltt_sessions.attached = false;
	} else {
		ltt_trim();
	}
	mutex_unlock(&ltt_sessions.lock);
	if (others)
		synchronize_rcu();
	ltt_heartbeat_stop(&s->tr.chan);
	ltt_writers_wait(s);
	ltt_buffers_finish(&s->tr.chan, stop);
	/* No writer reads this session's clock any more. */
	if (s->tr.chan.fallback)
		static_branch_dec(&ltt_fallback_clock);
	if (s->tr.run.trigger_signals)
		static_branch_dec(&ltt_exit_key);
	WRITE_ONCE(s->state, LTT_STOPPED);
	wake_up_interruptible(&s->readq);
	return 0;
}

/* Drop the last trace and its buffers: IDLE, the configuration kept. */
static void ltt_discard(struct ltt_session *s)
{
	irq_work_sync(&s->tr.chan.notify);
	ltt_buffers_reset(&s->tr.chan, 0);
	ltt_buffers_free(&s->tr.chan);
	s->tr.chan.size = 0;
	if (s->pinned) {
		mutex_lock(&ltt_sessions.lock);
		s->pinned = 0;
		mutex_unlock(&ltt_sessions.lock);
	}
	memset(&s->info, 0, sizeof(s->info));
	WRITE_ONCE(s->state, LTT_IDLE);
	wake_up_interruptible(&s->readq);
}

void ltt_reset(struct ltt_session *s)
{
	if (s->state == LTT_TRACING)
		ltt_stop(s);
	ltt_discard(s);
	s->cfg = ltt_default_config;
	/* What an unprivileged user may pin, as at open. */
	if (s->restricted)
		s->cfg.buffer_size = min_t(u32, s->cfg.buffer_size,
					   LTT_RESTRICTED_BUFFER_MAX);
	s->vars_cfg = 0;
	s->overwrite_cfg = false;
	s->trigger_cfg = 0;
	s->uid = GLOBAL_ROOT_UID;
	s->gid = GLOBAL_ROOT_GID;
}

/* ------------------------------------------------ changes while tracing */

/*
 * Give the tracing session @s the event mask @mask, whose bits the event
 * sources deliver already (ltt_attach_for() attached those @s adds), and
 * the union what that changes. Session and sessions locks held. A bit
 * joins the union once @s has it; one leaving @s leaves the union after
 * (the callback retests the session's own mask). The sources are then
 * trimmed to what the sessions take and are adding (ltt_trim()).
 */
static void ltt_live_set_mask(struct ltt_session *s, u64 mask)
{
	struct ltt_live *live;
	u64 all = 0;
	unsigned int i;

	lockdep_assert_held(&ltt_sessions.lock);
	WRITE_ONCE(s->tr.run.event_mask, mask);
	live = rcu_dereference_protected(ltt_live,
					 lockdep_is_held(&ltt_sessions.lock));
	for (i = 0; live && i < live->n; i++)
		all |= live->s[i]->run.event_mask;
	WRITE_ONCE(ltt_live_mask, all);
	ltt_trim();
}

/*
 * Apply @s's configuration (s->cfg, s->vars_cfg, s->uid, s->gid) to its
 * running trace and write the CONFIG record (@what: enum ltt_config_sub)
 * on this CPU. Session lock held.
 *
 * The event path is lock-free, so the new configuration is published
 * field by field, each with one store, in an order where every event
 * sees the old or the new one: a filter's value before its flag turns on
 * (turning off leaves the value), a variables mask before the VARS flag.
 * An ioctl changes one field, so that is the whole change. Event bits
 * being removed go first, and a grace period later no CPU is inside an
 * event under the old mask any more: the record, written then, is the
 * moment the change holds everywhere. Bits being added go last, so no
 * event of theirs comes before the record (docs/trace-format.md, CONFIG).
 * A restricted session keeps LTT_FILTER_OWNER: a change never widens
 * what it may see.
 */
int ltt_apply_config(struct ltt_session *s, u8 what)
{
	const struct ltt_config *cfg = &s->cfg;
	struct ltt_run *r = &s->tr.run;
	u64 mask = cfg->event_mask & LTT_REC_MASK;
	struct ltt_ev_config ev;
	unsigned long flags;
	u32 filters, vars;
	int ret = 0, i;

	/*
	 * A change that leaves scheduling changes out has CONTEXT records
	 * written before it holds (ltt_context_filter()); they stay until
	 * the next change.
	 */
	WRITE_ONCE(r->filters,
		   r->filters | ltt_context_filter(r->filters, mask,
						   cfg->details_mask));
	/*
	 * The only step that can fail comes first: the event sources
	 * deliver what the added bits need before anything changes, and
	 * keep delivering it until the second step below, whatever other
	 * sessions stop meanwhile (@adding), so that step attaches nothing
	 * and cannot fail: the CONFIG record between the two never claims
	 * a mask that is not in force.
	 */
	mutex_lock(&ltt_sessions.lock);
	if (mask & ~r->event_mask)
		ret = ltt_attach_for(s, r->event_mask | mask, false);
	if (ret) {
		ltt_trim();
	} else {
		s->adding = mask & ~r->event_mask;
		ltt_live_set_mask(s, r->event_mask & mask);
	}
	mutex_unlock(&ltt_sessions.lock);
	if (ret)
		return ret;

	vars = r->vars_mask;
	if (what == LTT_CONFIG_VARS)
		vars = ltt_vars_selected(s->vars_cfg);
	if (what == LTT_CONFIG_DETAILS) {
		WRITE_ONCE(r->details_mask, cfg->details_mask);
		for (i = 0; i < LTT_EV_COUNT; i++)
			WRITE_ONCE(r->size_max[i],
				   cfg->details_mask & BIT_ULL(i) ?
					   LTT_DETAILS_MAX : 0);
	}
	if (cfg->filters & LTT_FILTER_PID)
		WRITE_ONCE(r->pid, cfg->pid);
	if (cfg->filters & LTT_FILTER_PGRP)
		WRITE_ONCE(r->pgrp, cfg->pgrp);
	if (cfg->filters & LTT_FILTER_UID)
		WRITE_ONCE(r->uid, s->uid);
	if (cfg->filters & LTT_FILTER_GID)
		WRITE_ONCE(r->gid, s->gid);
	WRITE_ONCE(r->vars_mask, vars);
	filters = cfg->filters;
	if (s->restricted)
		filters |= LTT_FILTER_OWNER;
	if (vars)
		filters |= LTT_FILTER_VARS;
	filters |= ltt_context_filter(filters, READ_ONCE(r->event_mask),
				      READ_ONCE(r->details_mask));
	/* The values above before the flags that make the path read them. */
	smp_wmb();
	WRITE_ONCE(r->filters, filters);
	/*
	 * Each CPU's next VARS record holds every variable: the CPU sees
	 * the new generation at its next record (ltt_vars_compose()), so
	 * none is interrupted for it, an isolated one included.
	 */
	if (what == LTT_CONFIG_VARS)
		/* Pairs with its acquire: who sees it sees the new mask. */
		smp_store_release(&r->vars_gen, r->vars_gen + 1);
	synchronize_rcu();

	ev = (struct ltt_ev_config){
		.event_mask = mask,
		.details_mask = cfg->details_mask,
		.filters = cfg->filters,
		.pid = cfg->pid,
		.pgrp = cfg->pgrp,
		.uid = cfg->uid,
		.gid = cfg->gid,
		.vars_mask = vars,
	};
	local_irq_save(flags);
	ltt_log_chan(&s->tr.chan, LTT_EV_CONFIG, what, &ev, sizeof(ev));
	local_irq_restore(flags);

	mutex_lock(&ltt_sessions.lock);
	s->adding = 0;
	ltt_live_set_mask(s, mask);
	mutex_unlock(&ltt_sessions.lock);
	return 0;
}

/*
 * Count a new session against the limits: LTT_MAX_SESSIONS in all, and
 * for unprivileged openers LTT_USER_SESSIONS each and
 * LTT_RESTRICTED_SESSIONS together (so root always has the rest).
 * Sessions lock held. Return 0 or -EUSERS.
 */
static int ltt_session_count(struct ltt_session *s)
{
	unsigned int i, mine = 0;

	if (ltt_sessions.open >= LTT_MAX_SESSIONS)
		return -EUSERS;
	if (s->restricted) {
		if (ltt_sessions.restricted >= LTT_RESTRICTED_SESSIONS)
			return -EUSERS;
		for (i = 0; i < ltt_sessions.restricted; i++)
			if (uid_eq(ltt_sessions.rs[i]->tr.run.owner, s->tr.run.owner))
				mine++;
		if (mine >= LTT_USER_SESSIONS)
			return -EUSERS;
		ltt_sessions.rs[ltt_sessions.restricted++] = s;
	}
	ltt_sessions.open++;
	s->id = ltt_sessions.next_id++;
	return 0;
}

static void ltt_session_uncount(struct ltt_session *s)
{
	unsigned int i;

	mutex_lock(&ltt_sessions.lock);
	ltt_sessions.open--;
	for (i = 0; s->restricted && i < ltt_sessions.restricted; i++) {
		if (ltt_sessions.rs[i] == s) {
			ltt_sessions.rs[i] =
				ltt_sessions.rs[--ltt_sessions.restricted];
			break;
		}
	}
	mutex_unlock(&ltt_sessions.lock);
}

static void ltt_session_free(struct ltt_session *s)
{
	ltt_trace_destroy(&s->tr);
	kfree(s);
}
/* ------------------------------------------------------ open and close */

/**
 * ltt_session_open() - a new session, counted against the limits
 * @restricted: the opener may see only its own tasks (ltt_dev.c decides)
 *
 * Return: the session, or ERR_PTR(-ENOMEM or -EUSERS).
 */
struct ltt_session *ltt_session_open(bool restricted)
{
	struct ltt_session *s;
	int ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return ERR_PTR(-ENOMEM);
	mutex_init(&s->lock);
	init_waitqueue_head(&s->readq);
	init_waitqueue_head(&s->writers_wq);
	s->cfg = ltt_default_config;
	s->uid = GLOBAL_ROOT_UID;
	s->gid = GLOBAL_ROOT_GID;
	s->restricted = restricted;
	s->tr.run.owner = current_uid();
	s->rl_tokens = LTT_RESTRICTED_BURST;
	s->rl_stamp = jiffies;
	if (s->restricted)
		s->cfg.buffer_size = min_t(u32, s->cfg.buffer_size,
					   LTT_RESTRICTED_BUFFER_MAX);
	ret = ltt_trace_init(&s->tr, restricted, ltt_notify_fn);
	if (ret)
		goto err_free;
	mutex_lock(&ltt_sessions.lock);
	ret = ltt_session_count(s);
	mutex_unlock(&ltt_sessions.lock);
	if (ret)
		goto err_free;
	return s;

err_free:
	ltt_session_free(s);
	return ERR_PTR(ret);
}

/**
 * ltt_session_close() - stop, reset and free a session
 * @s: the session; no ioctl or read of it runs or will run
 */
void ltt_session_close(struct ltt_session *s)
{
	mutex_lock(&s->lock);
	ltt_reset(s);
	mutex_unlock(&s->lock);
	/* STOP waited for a grace period: no event path holds @s now. */
	ltt_writers_wait(s);
	irq_work_sync(&s->tr.chan.notify);
	ltt_session_uncount(s);
	ltt_session_free(s);
}

/**
 * ltt_session_init() - at load: check the module parameters, count CPUs
 *
 * Return: 0, or -EINVAL for a parameter out of range.
 */
int ltt_session_init(void)
{
	if (heartbeat_ms && (heartbeat_ms < 10 || heartbeat_ms > 1000))
		return -EINVAL;
	if (strcmp(clock, "auto") && strcmp(clock, "tsc") &&
	    strcmp(clock, "local"))
		return -EINVAL;
	ltt_ncpus = min_t(unsigned int, nr_cpu_ids, LTT_MAX_CPUS);
	if (nr_cpu_ids > LTT_MAX_CPUS)
		pr_warn("only CPUs 0..%u are traced\n", LTT_MAX_CPUS - 1);
	return 0;
}

/**
 * ltt_session_exit() - at unload: check that no session is left
 *
 * Every file holds a module reference, and release() stopped and freed
 * its session: nothing may be left. The last live array goes after a
 * grace period (kfree_rcu), which rcu_barrier() waits for.
 */
void ltt_session_exit(void)
{
	mutex_lock(&ltt_sessions.lock);
	WARN_ON_ONCE(ltt_sessions.open || ltt_sessions.attached);
	mutex_unlock(&ltt_sessions.lock);
	rcu_barrier();
}
