// SPDX-License-Identifier: GPL-2.0
/*
 * ltt trace module: the /dev/tracer character device.
 *
 * The kernel's trace facility (<linux/ltt.h>, docs/kernel-facility.md)
 * hands every instrumented event to one callback. This module registers
 * that callback (ltt_callback() in ltt_buffer.c, with the writer it
 * inlines), which filters (ltt_task_match() here), timestamps and stores
 * each event in per-CPU double buffers, from which the trace daemon reads
 * whole blocks. The records and blocks are specified in
 * docs/trace-format.md, the ioctls in include/ltt/abi.h.
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
 * User-space call sequence:
 *
 *   fd = open("/dev/tracer", O_RDONLY);       a session; -EUSERS past the
 *                                             limits (below)
 *   ioctl(fd, LTT_IOC_GET_ABI_VERSION, &v);
 *   ioctl(fd, LTT_IOC_SET_...);               -EBUSY while tracing, except
 *                                             masks, filters, variables
 *   fcntl(fd, F_SETOWN, pid); fcntl(fd, F_SETFL, O_ASYNC);
 *   ioctl(fd, LTT_IOC_START);
 *   ioctl(fd, LTT_IOC_GET_TRACE_INFO, &info);
 *   loop: SIGIO or poll(), read(fd, buf, info.max_block or more);
 *   ioctl(fd, LTT_IOC_STOP);                  every CPU closes a FINAL block
 *   read until it returns 0, close(fd).       close (or fsync) resets
 *
 * States, per session: IDLE (no trace) -START-> TRACING -STOP-> STOPPED
 * (blocks left to read) -START-> TRACING (a new trace; unread blocks are
 * discarded). RESET, fsync() and close() go back to IDLE with the default
 * configuration. A START that fails (-ENOMEM for the buffers, -EBUSY when
 * another tracer holds the facility) goes back to IDLE too, keeping the
 * configuration: the last trace's unread blocks are gone, as after any
 * START, and read() returns 0.
 *
 * Who may open: by default only CAP_PERFMON (or CAP_SYS_ADMIN), whose
 * sessions see everything; the node is mode 0600. With the module
 * parameter unprivileged=1 (the node 0666) any other opener in the
 * initial pid and user namespaces gets a restricted session, which sees
 * only the events of the opener's tasks that ptrace would let it read
 * (ltt_task_owned(): uid, euid and suid the opener's, dumpable), with
 * kernel addresses and other users' tasks removed (ltt_restrict() in
 * ltt_buffer.c, module/README.md), and may not use test mode or LOCK;
 * its START, STOP, SNAPSHOT and changes while tracing are rate-limited,
 * its buffers count against its owner's locked-memory budget. The
 * privilege is decided once, at open, from the opener's credentials.
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
 *  - Test-mode events bypass every mask and filter: they exist to count;
 *    they go to the caller's session only. User events go through the
 *    callback, so to every session whose mask and filters take them.
 *  - TEST_EMIT and USER_EVENT need a running trace (-EINVAL otherwise);
 *    STOP without a trace is -EINVAL, STOP of a stopped trace is a no-op.
 *  - Clock: the TSC when it is constant, nonstop and stable and tsc_khz is
 *    known; otherwise CLOCK_MONOTONIC (ktime_get_mono_fast_ns(), see
 *    ltt_clock()) with LTT_TRACE_F_CLOCK_FALLBACK. The module parameter
 *    clock=tsc|local overrides the choice (local: the fallback).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/cpumask.h>
#include <linux/bitops.h>
#include <linux/cred.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>
#include <linux/kprobes.h>
#include <linux/capability.h>
#include <linux/pid_namespace.h>
#include <linux/user_namespace.h>
#include <linux/sched/mm.h>
#include <linux/resource.h>
#include <asm/tsc.h>

#include "ltt_tracer.h"

static unsigned int heartbeat_ms = 250;
module_param(heartbeat_ms, uint, 0444);
MODULE_PARM_DESC(heartbeat_ms,
		 "Interval of the per-CPU heartbeat (10..1000 ms, 0: none)");

static char *clock = "auto";
module_param(clock, charp, 0444);
MODULE_PARM_DESC(clock, "Trace clock: auto, tsc or local (CLOCK_MONOTONIC)");

/*
 * Restricted sessions are the administrator's choice, as unprivileged
 * perf is: off by default, /dev/tracer is then mode 0600 and only
 * CAP_PERFMON or CAP_SYS_ADMIN may open it (module/README.md).
 */
static bool unprivileged;
module_param(unprivileged, bool, 0444);
MODULE_PARM_DESC(unprivileged,
		 "Let users without CAP_PERFMON open restricted sessions (default: no)");

/*
 * Fault injection, for the tests: the Nth attach of the event sources
 * from now fails as a failed allocation would (-ENOMEM); 0: none.
 */
static unsigned int fault_attach;
module_param(fault_attach, uint, 0600);
MODULE_PARM_DESC(fault_attach,
		 "Test only: the Nth attach from now fails with -ENOMEM (0: none)");

unsigned int ltt_ncpus __read_mostly;
/* The callback's first test: the union of the tracing sessions' masks. */
u64 ltt_live_mask __read_mostly;
struct ltt_live __rcu *ltt_live;
struct ltt_session __rcu *ltt_solo;

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

static void ltt_notify_fn(struct irq_work *work)
{
	struct ltt_session *s = container_of(work, struct ltt_session, notify);

	wake_up_interruptible(&s->readq);
	kill_fasync(&s->fasync, SIGIO, POLL_IN);
}

/* ---------------------------------------------------------------- events */

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

/* On while a tracing session has exit-signal triggers (ltt_callback()). */
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
		struct ltt_session *s = live->s[i];
		const struct ltt_run *r = &s->run;

		if (!(r->trigger_signals & BIT_ULL(sig - 1)))
			continue;
		if ((r->filters & LTT_FILTER_OWNER) ? !ltt_task_owned(r, task) :
						       !ltt_task_match(r, task))
			continue;
		WRITE_ONCE(s->triggered, true);
		irq_work_queue(&s->notify);
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
		if (old->s[i] != s)
			new->s[new->n++] = old->s[i];
	if (add && !WARN_ON_ONCE(new->n >= LTT_MAX_SESSIONS))
		new->s[new->n++] = s;
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
		keep |= live->s[i]->adding;
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

/* On while a session with the fallback clock traces (ltt_clock()). */
DEFINE_STATIC_KEY_FALSE(ltt_fallback_clock);

/*
 * Fill in the clock fields of @info for a trace started now. Return true
 * when the trace must use the fallback clock instead of the TSC.
 */
static bool ltt_choose_clock(struct ltt_trace_info *info)
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
	unsigned int n;
	bool policy;
	int ret;

	want.event_mask = ltt_live_union() | mask;
	/*
	 * The syscall IP policy is global: see the top of this file. A
	 * privileged session starting while no other privileged one traces
	 * sets it, restricted sessions tracing or not.
	 */
	policy = starting && !s->restricted && !ltt_sessions.priv_tracing;
	n = READ_ONCE(fault_attach);
	if (n) {
		WRITE_ONCE(fault_attach, n - 1);
		if (n == 1)
			return -ENOMEM;
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

		if (o != s && uid_eq(o->run.owner, s->run.owner))
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
static int ltt_ratelimit(struct ltt_session *s)
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

static int ltt_start(struct ltt_session *s)
{
	struct ltt_config *cfg = &s->cfg;
	struct ltt_trace_info *info = &s->info;
	struct ltt_run *r = &s->run;
	struct ltt_ev_trace_start_ext ts;
	unsigned long flags;
	int ret, i;

	if (s->state == LTT_TRACING)
		return -EBUSY;
	ret = s->restricted ? ltt_charge(s, cfg->buffer_size) : 0;
	if (!ret)
		ret = ltt_buffers_alloc(s, cfg->buffer_size);
	if (ret) {
		/*
		 * A START discards the last trace's unread blocks; one that
		 * fails leaves no trace at all, only the configuration.
		 */
		ltt_discard(s);
		return ret;
	}

	memset(info, 0, sizeof(*info));
	r->fallback = ltt_choose_clock(info);
	/* Until this session's last clock read, in ltt_stop() or below. */
	if (r->fallback)
		static_branch_inc(&ltt_fallback_clock);
	if (info->flags & LTT_TRACE_F_CLOCK_FALLBACK)
		pr_info_once("TSC not usable, timestamps are CLOCK_MONOTONIC ns\n");
	if (s->restricted)
		info->flags |= LTT_TRACE_F_RESTRICTED;
	r->event_mask = cfg->event_mask & LTT_REC_MASK;
	r->vars_mask = ltt_vars_start(s);
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
	r->overwrite = s->overwrite_cfg;
	r->trigger_signals = s->trigger_cfg;
	/* Until this session's STOP, or below. */
	if (r->trigger_signals)
		static_branch_inc(&ltt_exit_key);
	s->triggered = false;

	local_irq_save(flags);
	info->anchor_tsc = ltt_clock(r);
	info->anchor_realtime_ns = ktime_get_real_ns();
	info->anchor_monotonic_ns = ktime_get_ns();
	local_irq_restore(flags);
	info->abi_version = LTT_ABI_VERSION;
	info->ncpus = ltt_ncpus;
	info->max_block = cfg->buffer_size;
	info->config = *cfg;
	ltt_buffers_reset(s, info->anchor_tsc);

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
	ltt_log_trace_start(s, &ts);
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
		if (r->fallback)
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
	smp_store_release(&s->active, true);
	if (heartbeat_ms)
		ltt_heartbeat_start(s, (u64)heartbeat_ms * NSEC_PER_MSEC);
	WRITE_ONCE(s->state, LTT_TRACING);
	return 0;
}

static int ltt_stop(struct ltt_session *s)
{
	bool others;
	u64 stop;

	if (s->state == LTT_IDLE)
		return -EINVAL;
	if (s->state == LTT_STOPPED)
		return 0;
	/* The trace ends now, however long the teardown below takes. */
	stop = ltt_clock(&s->run);
	WRITE_ONCE(s->active, false);
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
	ltt_heartbeat_stop(s);
	ltt_test_quiesce(s);
	ltt_buffers_finish(s, stop);
	/* No writer reads this session's clock any more. */
	if (s->run.fallback)
		static_branch_dec(&ltt_fallback_clock);
	if (s->run.trigger_signals)
		static_branch_dec(&ltt_exit_key);
	WRITE_ONCE(s->state, LTT_STOPPED);
	wake_up_interruptible(&s->readq);
	return 0;
}

/* Drop the last trace and its buffers: IDLE, the configuration kept. */
static void ltt_discard(struct ltt_session *s)
{
	irq_work_sync(&s->notify);
	ltt_buffers_reset(s, 0);
	ltt_buffers_free(s);
	s->run.buffer_size = 0;
	if (s->pinned) {
		mutex_lock(&ltt_sessions.lock);
		s->pinned = 0;
		mutex_unlock(&ltt_sessions.lock);
	}
	memset(&s->info, 0, sizeof(s->info));
	WRITE_ONCE(s->state, LTT_IDLE);
	wake_up_interruptible(&s->readq);
}

static void ltt_reset(struct ltt_session *s)
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
	WRITE_ONCE(s->run.event_mask, mask);
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
static int ltt_apply_config(struct ltt_session *s, u8 what)
{
	const struct ltt_config *cfg = &s->cfg;
	struct ltt_run *r = &s->run;
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
		vars = ltt_vars_selected(s);
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
	ltt_log_session(s, LTT_EV_CONFIG, what, &ev, sizeof(ev));
	local_irq_restore(flags);

	mutex_lock(&ltt_sessions.lock);
	s->adding = 0;
	ltt_live_set_mask(s, mask);
	mutex_unlock(&ltt_sessions.lock);
	return 0;
}

/*
 * The ioctls that change a tracing session's masks, filters or
 * variables, and the part of the CONFIG record each changes; 0 for the
 * others.
 */
static int ltt_config_sub(unsigned int cmd)
{
	switch (cmd) {
	case LTT_IOC_SET_EVENT_MASK:
		return LTT_CONFIG_EVENTS + 1;
	case LTT_IOC_SET_DETAILS_MASK:
		return LTT_CONFIG_DETAILS + 1;
	case LTT_IOC_TRACK_PID:
		return LTT_CONFIG_PID + 1;
	case LTT_IOC_TRACK_PGRP:
		return LTT_CONFIG_PGRP + 1;
	case LTT_IOC_TRACK_UID:
		return LTT_CONFIG_UID + 1;
	case LTT_IOC_TRACK_GID:
		return LTT_CONFIG_GID + 1;
	case LTT_IOC_SET_VARS_MASK:
		return LTT_CONFIG_VARS + 1;
	}
	return 0;
}

/* ---------------------------------------------------------------- ioctls */

static long ltt_ioc_get_info(struct ltt_session *s,
			     struct ltt_trace_info __user *uarg)
{
	struct ltt_trace_info info = s->info;

	if (s->state == LTT_IDLE) {
		/* No trace yet: what START would produce, without anchors. */
		memset(&info, 0, sizeof(info));
		ltt_choose_clock(&info);
		info.abi_version = LTT_ABI_VERSION;
		info.ncpus = ltt_ncpus;
		info.max_block = s->cfg.buffer_size;
		info.config = s->cfg;
		info.flags |= LTT_TRACE_F_CONTEXT;
		if (s->restricted)
			info.flags |= LTT_TRACE_F_RESTRICTED;
	}
	return copy_to_user(uarg, &info, sizeof(info)) ? -EFAULT : 0;
}

/*
 * LTT_IOC_GET_CLOCK_PAIR: the session's trace clock between two
 * CLOCK_MONOTONIC reads, interrupts off so that nothing runs between.
 */
static long ltt_ioc_clock_pair(struct ltt_session *s,
			       struct ltt_clock_pair __user *uarg)
{
	struct ltt_clock_pair p = {};
	unsigned long flags;
	u64 m0, m1;

	if (s->state != LTT_TRACING)
		return -EINVAL;
	local_irq_save(flags);
	m0 = ktime_get_ns();
	p.trace = ltt_clock(&s->run);
	m1 = ktime_get_ns();
	p.cpu = smp_processor_id();
	local_irq_restore(flags);
	p.monotonic = m0 + (m1 - m0) / 2;
	p.window_ns = (u32)min_t(u64, m1 - m0, U32_MAX);
	return copy_to_user(uarg, &p, sizeof(p)) ? -EFAULT : 0;
}

static long ltt_ioc_get_lost(struct ltt_session *s, unsigned int cmd,
			     struct ltt_lost_counts __user *uarg)
{
	struct ltt_lost_counts *lc;
	long ret = 0;

	lc = kzalloc(sizeof(*lc), GFP_KERNEL);
	if (!lc)
		return -ENOMEM;
	if (cmd == LTT_IOC_GET_OVERWRITTEN)
		ltt_buffers_overwritten(s, lc);
	else
		ltt_buffers_lost(s, lc);
	if (copy_to_user(uarg, lc, sizeof(*lc)))
		ret = -EFAULT;
	kfree(lc);
	return ret;
}

/* TRACK_UID / TRACK_GID argument: -1 (off) or an id valid in our userns. */
static int ltt_get_id(struct ltt_session *s, s64 __user *uarg, s64 *id)
{
	if (get_user(*id, uarg))
		return -EFAULT;
	if (*id < -1 || *id >= U32_MAX)
		return -EINVAL;
	return 0;
}

static long ltt_ioc_config(struct ltt_session *s, unsigned int cmd,
			   void __user *uarg)
{
	struct ltt_config *cfg = &s->cfg;
	struct ltt_addr_range range;
	u64 v64;
	u32 v32;
	s32 s32v;
	s64 id;
	int ret;

	switch (cmd) {
	case LTT_IOC_SET_BUFFER_SIZE:
	case LTT_IOC_SET_CPUID:
	case LTT_IOC_SET_SYSCALL_DEPTH:
		if (get_user(v32, (u32 __user *)uarg))
			return -EFAULT;
		if (s->state == LTT_TRACING)
			return -EBUSY;
		if (cmd == LTT_IOC_SET_BUFFER_SIZE) {
			if (v32 < LTT_BUFFER_MIN || v32 > LTT_BUFFER_MAX ||
			    !IS_ALIGNED(v32, LTT_RECORD_ALIGN))
				return -EINVAL;
			/* What an unprivileged user may pin: README. */
			if (s->restricted && v32 > LTT_RESTRICTED_BUFFER_MAX)
				return -EPERM;
			cfg->buffer_size = v32;
		} else if (cmd == LTT_IOC_SET_CPUID) {
			if (v32 > 1)
				return -EINVAL;
			cfg->record_cpuid = v32;
		} else {
			if (v32 > LTT_SYSCALL_DEPTH_MAX)
				return -EINVAL;
			cfg->syscall_depth = v32;
		}
		return 0;
	case LTT_IOC_SET_EVENT_MASK:
	case LTT_IOC_SET_DETAILS_MASK:
		if (get_user(v64, (u64 __user *)uarg))
			return -EFAULT;
		if (v64 & ~(BIT_ULL(LTT_EV_MAX) - 1) & ~LTT_MOD_MASK)
			return -EINVAL;
		/*
		 * LOCK puts a probe on every contended lock of the machine:
		 * not for a user without privilege.
		 */
		if (s->restricted && cmd == LTT_IOC_SET_EVENT_MASK &&
		    (v64 & LTT_EV_BIT(LTT_EV_LOCK)))
			return -EPERM;
		if (cmd == LTT_IOC_SET_EVENT_MASK)
			cfg->event_mask = v64;
		else
			cfg->details_mask = v64;
		return 0;
	case LTT_IOC_TRACK_PID:
	case LTT_IOC_TRACK_PGRP:
		if (get_user(s32v, (s32 __user *)uarg))
			return -EFAULT;
		if (s32v < -1)
			return -EINVAL;
		v32 = cmd == LTT_IOC_TRACK_PID ? LTT_FILTER_PID :
						 LTT_FILTER_PGRP;
		if (s32v == -1) {
			cfg->filters &= ~v32;
			s32v = 0;
		} else {
			cfg->filters |= v32;
		}
		if (cmd == LTT_IOC_TRACK_PID)
			cfg->pid = s32v;
		else
			cfg->pgrp = s32v;
		return 0;
	case LTT_IOC_TRACK_UID: {
		kuid_t uid;

		ret = ltt_get_id(s, uarg, &id);
		if (ret)
			return ret;
		if (id == -1) {
			cfg->filters &= ~LTT_FILTER_UID;
			cfg->uid = 0;
			return 0;
		}
		uid = make_kuid(current_user_ns(), id);
		if (!uid_valid(uid))
			return -EINVAL;
		s->uid = uid;
		cfg->uid = id;
		cfg->filters |= LTT_FILTER_UID;
		return 0;
	}
	case LTT_IOC_TRACK_GID: {
		kgid_t gid;

		ret = ltt_get_id(s, uarg, &id);
		if (ret)
			return ret;
		if (id == -1) {
			cfg->filters &= ~LTT_FILTER_GID;
			cfg->gid = 0;
			return 0;
		}
		gid = make_kgid(current_user_ns(), id);
		if (!gid_valid(gid))
			return -EINVAL;
		s->gid = gid;
		cfg->gid = id;
		cfg->filters |= LTT_FILTER_GID;
		return 0;
	}
	case LTT_IOC_SET_SYSCALL_RANGE:
		if (copy_from_user(&range, uarg, sizeof(range)))
			return -EFAULT;
		if (s->state == LTT_TRACING)
			return -EBUSY;
		if ((range.lower || range.upper) && range.lower >= range.upper)
			return -EINVAL;
		cfg->syscall_range = range;
		return 0;
	case LTT_IOC_SET_OVERWRITE:
		if (get_user(v32, (u32 __user *)uarg))
			return -EFAULT;
		if (s->state == LTT_TRACING)
			return -EBUSY;
		if (v32 > 1)
			return -EINVAL;
		s->overwrite_cfg = v32;
		return 0;
	case LTT_IOC_SET_TRIGGER_SIGNALS:
		if (get_user(v64, (u64 __user *)uarg))
			return -EFAULT;
		if (s->state == LTT_TRACING)
			return -EBUSY;
		s->trigger_cfg = v64;
		return 0;
	}
	return -ENOTTY;
}

/*
 * A mask, filter or variables ioctl while @s traces: the new setting, as
 * while idle, then applied to the trace with its CONFIG record. A change
 * that cannot be applied leaves the configuration as it was.
 */
static long ltt_ioc_change(struct ltt_session *s, unsigned int cmd,
			   void __user *uarg)
{
	struct ltt_config cfg = s->cfg;
	u32 vars_cfg = s->vars_cfg;
	kuid_t uid = s->uid;
	kgid_t gid = s->gid;
	long ret;

	if (cmd == LTT_IOC_SET_VARS_MASK)
		ret = ltt_vars_set_mask(&s->vars_cfg, uarg, false);
	else
		ret = ltt_ioc_config(s, cmd, uarg);
	if (!ret)
		ret = ltt_apply_config(s, ltt_config_sub(cmd) - 1);
	if (ret) {
		s->cfg = cfg;
		s->vars_cfg = vars_cfg;
		s->uid = uid;
		s->gid = gid;
	}
	return ret;
}

static long ltt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct ltt_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;
	long ret;

	switch (cmd) {
	case LTT_IOC_GET_ABI_VERSION:
		return put_user(LTT_ABI_VERSION, (u32 __user *)uarg);
	case LTT_IOC_TEST_EMIT:
		/*
		 * Test mode runs emitters on every CPU (outside the caller's
		 * cgroup): privileged sessions only.
		 */
		if (s->restricted)
			return -EPERM;
		/* Takes the lock itself: it must not hold it while waiting. */
		return ltt_ioc_test_emit(s, uarg);
	}
	if (_IOC_TYPE(cmd) != LTT_IOC_MAGIC)
		return -ENOTTY;

	mutex_lock(&s->lock);
	if (s->state == LTT_TRACING && ltt_config_sub(cmd)) {
		ret = ltt_ratelimit(s);
		if (!ret)
			ret = ltt_ioc_change(s, cmd, uarg);
		mutex_unlock(&s->lock);
		return ret;
	}
	switch (cmd) {
	case LTT_IOC_START:
	case LTT_IOC_STOP:
	case LTT_IOC_SNAPSHOT:
		ret = ltt_ratelimit(s);
		if (ret)
			goto out;
		break;
	}
	switch (cmd) {
	case LTT_IOC_START:
		ret = ltt_start(s);
		break;
	case LTT_IOC_STOP:
		ret = ltt_stop(s);
		break;
	case LTT_IOC_RESET:
		ltt_reset(s);
		ret = 0;
		break;
	case LTT_IOC_GET_TRACE_INFO:
		ret = ltt_ioc_get_info(s, uarg);
		break;
	case LTT_IOC_GET_CLOCK_PAIR:
		ret = ltt_ioc_clock_pair(s, uarg);
		break;
	case LTT_IOC_GET_LOST:
	case LTT_IOC_GET_OVERWRITTEN:
		ret = ltt_ioc_get_lost(s, cmd, uarg);
		break;
	case LTT_IOC_SNAPSHOT:
		ret = -EINVAL;
		if (s->state == LTT_TRACING && s->run.overwrite)
			ret = ltt_buffers_snapshot(s);
		if (!ret)
			WRITE_ONCE(s->triggered, false);
		break;
	case LTT_IOC_USER_EVENT:
		ret = ltt_ioc_user_event(s, uarg);
		break;
	case LTT_IOC_SET_VARS_MASK:
		ret = ltt_vars_set_mask(&s->vars_cfg, uarg,
					s->state == LTT_TRACING);
		break;
	default:
		ret = ltt_ioc_config(s, cmd, uarg);
		break;
	}
out:
	mutex_unlock(&s->lock);
	return ret;
}

/* ------------------------------------------------------- file operations */

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
			if (uid_eq(ltt_sessions.rs[i]->run.owner, s->run.owner))
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
	ltt_session_buffers_destroy(s);
	ltt_test_free(s);
	kfree(s);
}

/*
 * May the opener see everything? CAP_PERFMON (or CAP_SYS_ADMIN), the
 * kernel's capability for system-wide observation, in the initial user
 * namespace. When restricted sessions are off, a refusal is a real
 * denial and is audited as one; when they are on, lacking the capability
 * only means a restricted session, and nothing is audited (else any user
 * could fill the audit log by opening the device).
 */
static bool ltt_privileged(void)
{
	if (!unprivileged)
		return perfmon_capable();
	return ns_capable_noaudit(&init_user_ns, CAP_PERFMON) ||
	       ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN);
}

/*
 * Every open is a session. The opener's privilege, decided here once: a
 * privileged opener (ltt_privileged()) gets a session that sees every
 * task. Anyone else gets -EPERM, unless the administrator turned
 * restricted sessions on (unprivileged=1): then a restricted session that
 * sees only the opener's own tasks as ptrace would let it read them
 * (ltt_task_owned()), opened from the initial pid and user namespaces
 * only, since its owner is a global uid and its records carry global
 * pids (README "Who may open").
 */
static int ltt_open(struct inode *inode, struct file *file)
{
	struct ltt_session *s;
	bool restricted;
	int ret;

	restricted = !ltt_privileged();
	if (restricted &&
	    (!unprivileged || task_active_pid_ns(current) != &init_pid_ns ||
	     current_user_ns() != &init_user_ns))
		return -EPERM;
	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return -ENOMEM;
	mutex_init(&s->lock);
	mutex_init(&s->emit_lock);
	init_waitqueue_head(&s->readq);
	init_waitqueue_head(&s->emit_wq);
	init_irq_work(&s->notify, ltt_notify_fn);
	s->cfg = ltt_default_config;
	s->uid = GLOBAL_ROOT_UID;
	s->gid = GLOBAL_ROOT_GID;
	s->restricted = restricted;
	s->run.owner = current_uid();
	s->rl_tokens = LTT_RESTRICTED_BURST;
	s->rl_stamp = jiffies;
	if (s->restricted)
		s->cfg.buffer_size = min_t(u32, s->cfg.buffer_size,
					   LTT_RESTRICTED_BUFFER_MAX);
	ret = ltt_session_buffers_init(s);
	if (ret)
		goto err_free;
	mutex_lock(&ltt_sessions.lock);
	ret = ltt_session_count(s);
	mutex_unlock(&ltt_sessions.lock);
	if (ret)
		goto err_free;
	file->private_data = s;
	return stream_open(inode, file);

err_free:
	ltt_session_free(s);
	return ret;
}

static int ltt_release(struct inode *inode, struct file *file)
{
	struct ltt_session *s = file->private_data;

	mutex_lock(&s->lock);
	ltt_reset(s);
	mutex_unlock(&s->lock);
	/* STOP waited for a grace period: no event path holds @s now. */
	ltt_test_quiesce(s);
	irq_work_sync(&s->notify);
	ltt_session_uncount(s);
	ltt_session_free(s);
	return 0;
}

static int ltt_fsync(struct file *file, loff_t start, loff_t end, int datasync)
{
	struct ltt_session *s = file->private_data;

	mutex_lock(&s->lock);
	ltt_reset(s);
	mutex_unlock(&s->lock);
	return 0;
}

static int ltt_fasync(int fd, struct file *file, int on)
{
	struct ltt_session *s = file->private_data;

	return fasync_helper(fd, file, on, &s->fasync);
}

/*
 * read: whole blocks only. Returns 0 at the end of a stopped trace (or
 * when no trace was started), -EAGAIN with O_NONBLOCK while the trace runs
 * and no block is ready, -EINVAL if @count is smaller than the next block
 * (GET_TRACE_INFO's max_block always suffices).
 */
static ssize_t ltt_read(struct file *file, char __user *buf, size_t count,
			loff_t *ppos)
{
	struct ltt_session *s = file->private_data;
	ssize_t ret;

	for (;;) {
		if (mutex_lock_interruptible(&s->lock))
			return -ERESTARTSYS;
		if (s->state == LTT_IDLE)
			ret = 0;
		else
			ret = ltt_buffers_read(s, buf, count);
		if (!ret && s->state == LTT_TRACING)
			ret = -EAGAIN;
		mutex_unlock(&s->lock);

		if (ret != -EAGAIN || (file->f_flags & O_NONBLOCK))
			return ret;
		if (wait_event_interruptible(s->readq,
					     ltt_buffers_ready(s) ||
					     READ_ONCE(s->state) !=
						     LTT_TRACING))
			return -ERESTARTSYS;
	}
}

static __poll_t ltt_poll(struct file *file, poll_table *wait)
{
	struct ltt_session *s = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &s->readq, wait);
	if (READ_ONCE(s->state) != LTT_TRACING || ltt_buffers_ready(s))
		mask = EPOLLIN | EPOLLRDNORM;
	/* A flight-recorder trigger (ltt_exit_trigger()), until SNAPSHOT. */
	if (READ_ONCE(s->triggered))
		mask |= EPOLLPRI;
	return mask;
}

static const struct file_operations ltt_fops = {
	.owner = THIS_MODULE,
	.open = ltt_open,
	.release = ltt_release,
	.read = ltt_read,
	.poll = ltt_poll,
	.unlocked_ioctl = ltt_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.fsync = ltt_fsync,
	.fasync = ltt_fasync,
	/* No .llseek: stream_open() makes lseek() -ESPIPE (ltt_compat.h). */
};

/*
 * Mode 0600 (root's, which the capability check narrows further); 0666
 * when restricted sessions are on, what an opener sees being decided at
 * open.
 */
static struct miscdevice ltt_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "tracer",
	.fops = &ltt_fops,
	.mode = 0600,
};

static int __init ltt_init(void)
{
	if (heartbeat_ms && (heartbeat_ms < 10 || heartbeat_ms > 1000))
		return -EINVAL;
	if (strcmp(clock, "auto") && strcmp(clock, "tsc") &&
	    strcmp(clock, "local"))
		return -EINVAL;
	if (unprivileged)
		ltt_misc.mode = 0666;
	ltt_ncpus = min_t(unsigned int, nr_cpu_ids, LTT_MAX_CPUS);
	if (nr_cpu_ids > LTT_MAX_CPUS)
		pr_warn("only CPUs 0..%u are traced\n", LTT_MAX_CPUS - 1);
	/* The backend is attached by START, not here (see the top). */
	return misc_register(&ltt_misc);
}

static void __exit ltt_exit(void)
{
	misc_deregister(&ltt_misc);
	/*
	 * Every file holds a module reference, and release() stopped and
	 * freed its session: nothing may be left. The last live array goes
	 * after a grace period (kfree_rcu), which rcu_barrier() waits for.
	 */
	mutex_lock(&ltt_sessions.lock);
	WARN_ON_ONCE(ltt_sessions.open || ltt_sessions.attached);
	mutex_unlock(&ltt_sessions.lock);
	rcu_barrier();
}

module_init(ltt_init);
module_exit(ltt_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Linux Trace Toolkit trace module (/dev/tracer)");
MODULE_AUTHOR("ltt project");
