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
 * User-space call sequence:
 *
 *   fd = open("/dev/tracer", O_RDONLY);       CAP_PERFMON or CAP_SYS_ADMIN,
 *                                             else -EPERM; one opener,
 *                                             else -EBUSY
 *   ioctl(fd, LTT_IOC_GET_ABI_VERSION, &v);
 *   ioctl(fd, LTT_IOC_SET_...);               -EBUSY while tracing
 *   fcntl(fd, F_SETOWN, pid); fcntl(fd, F_SETFL, O_ASYNC);
 *   ioctl(fd, LTT_IOC_START);
 *   ioctl(fd, LTT_IOC_GET_TRACE_INFO, &info);
 *   loop: SIGIO or poll(), read(fd, buf, info.max_block or more);
 *   ioctl(fd, LTT_IOC_STOP);                  every CPU closes a FINAL block
 *   read until it returns 0, close(fd).       close (or fsync) resets
 *
 * States: IDLE (no trace) -START-> TRACING -STOP-> STOPPED (blocks left to
 * read) -START-> TRACING (a new trace; unread blocks are discarded).
 * RESET, fsync() and close() go back to IDLE with the default
 * configuration. A START that fails (-ENOMEM for the buffers, -EBUSY when
 * another tracer holds the facility) goes back to IDLE too, keeping the
 * configuration: the last trace's unread blocks are gone, as after any
 * START, and read() returns 0.
 *
 * Choices the ABI leaves open, made here:
 *  - The callback is registered with the facility only while a trace runs:
 *    START registers it once ltt_run, the buffers and the TRACE_START
 *    record are ready, and every path that ends a trace (STOP, and RESET,
 *    fsync, close and unload, which stop a running trace first)
 *    unregisters it before the FINAL blocks are closed. So with the module
 *    loaded and no trace running the hooks are patched out (static key
 *    off, no SYSCALL_WORK_LTT), as with no module at all. STOP clears
 *    ltt_live_mask and ltt_active, then unregisters, which waits for an
 *    RCU grace period: every writer runs with preemption disabled and
 *    tests one of them first (the callback, and so user events, the
 *    mask; test mode and the heartbeat ltt_active), so after it no event
 *    can touch the buffers. A START that cannot register (another
 *    tracer holds the facility) fails with -EBUSY and leaves the device
 *    IDLE. The module cannot be unloaded while /dev/tracer is open.
 *  - Filters: an event passes when the task it happens in (current) is
 *    tracked, or when the task it concerns (the facility's @task: the
 *    incoming task of a schedchange, the child of a fork, the woken task,
 *    the signal's destination) is. So a schedchange that switches a
 *    tracked task in or out is always kept. A PID filter matches a thread
 *    id or a thread-group id; UID and GID are the effective ids, the ones
 *    the daemon's .proc file lists. All filters in effect must match.
 *  - Test-mode events bypass every mask and filter: they exist to count.
 *  - TEST_EMIT and USER_EVENT need a running trace (-EINVAL otherwise);
 *    STOP without a trace is -EINVAL, STOP of a stopped trace is a no-op.
 *  - Clock: the TSC when it is constant, nonstop and stable and tsc_khz is
 *    known; otherwise local_clock() with LTT_TRACE_F_CLOCK_FALLBACK. The
 *    module parameter clock=tsc|local overrides the choice.
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
#include <asm/tsc.h>

#include "ltt_tracer.h"

static unsigned int heartbeat_ms = 250;
module_param(heartbeat_ms, uint, 0444);
MODULE_PARM_DESC(heartbeat_ms,
		 "Interval of the per-CPU heartbeat (10..1000 ms, 0: none)");

static char *clock = "auto";
module_param(clock, charp, 0444);
MODULE_PARM_DESC(clock, "Trace clock: auto, tsc or local");

struct ltt_run ltt_run __read_mostly;
unsigned int ltt_ncpus __read_mostly;
bool ltt_active __read_mostly;
/* The callback's one test: set with ltt_active, cleared with it. */
u64 ltt_live_mask __read_mostly;

enum ltt_state { LTT_IDLE, LTT_TRACING, LTT_STOPPED };

/**
 * struct ltt_device - state of /dev/tracer
 * @lock:  serializes ioctls, read and release; protects everything below
 * @busy:  bit 0 set while the device is open
 * @state: enum ltt_state, also read locklessly by poll and read's wait
 * @cfg:   configuration for the next START (what the SET ioctls change)
 * @uid:   @cfg.uid mapped into the kernel's ids when it was set
 * @gid:   @cfg.gid likewise
 * @info:  the running or last trace, for GET_TRACE_INFO
 * @hooked: ltt_callback() is registered with the facility (while TRACING)
 * @readq: readers waiting for a block
 * @fasync: SIGIO subscribers
 * @rr:    the CPU read() serves first
 */
struct ltt_device {
	struct mutex lock;
	unsigned long busy;
	enum ltt_state state;
	struct ltt_config cfg;
	kuid_t uid;
	kgid_t gid;
	struct ltt_trace_info info;
	bool hooked;
	wait_queue_head_t readq;
	struct fasync_struct *fasync;
	unsigned int rr;
};

static struct ltt_device ltt_dev;

static void ltt_notify_fn(struct irq_work *work)
{
	wake_up_interruptible(&ltt_dev.readq);
	kill_fasync(&ltt_dev.fasync, SIGIO, POLL_IN);
}

struct irq_work ltt_notify = IRQ_WORK_INIT(ltt_notify_fn);

/* The device lock, for the ioctls of ltt_test.c. */
void ltt_dev_lock(void)
{
	mutex_lock(&ltt_dev.lock);
}

void ltt_dev_unlock(void)
{
	mutex_unlock(&ltt_dev.lock);
}

/* Whether a trace runs (START done, STOP not yet); device lock held. */
bool ltt_dev_tracing(void)
{
	lockdep_assert_held(&ltt_dev.lock);
	return ltt_dev.state == LTT_TRACING;
}

/* ---------------------------------------------------------------- events */

/* Does @t pass the task filters in effect? Part of the event path. */
bool notrace ltt_task_match(struct task_struct *t)
{
	u32 f = ltt_run.filters;
	bool ok = true;

	if ((f & LTT_FILTER_PID) && task_pid_nr(t) != ltt_run.pid &&
	    task_tgid_nr(t) != ltt_run.pid)
		return false;
	if ((f & LTT_FILTER_PGRP) && task_pgrp_nr(t) != ltt_run.pgrp)
		return false;
	if (f & (LTT_FILTER_UID | LTT_FILTER_GID)) {
		const struct cred *cred;

		rcu_read_lock();
		cred = __task_cred(t);
		if ((f & LTT_FILTER_UID) && !uid_eq(cred->euid, ltt_run.uid))
			ok = false;
		if ((f & LTT_FILTER_GID) && !gid_eq(cred->egid, ltt_run.gid))
			ok = false;
		rcu_read_unlock();
	}
	return ok;
}
NOKPROBE_SYMBOL(ltt_task_match);


/* -------------------------------------------------------- start and stop */

static bool ltt_tsc_reliable(void)
{
	return tsc_khz && boot_cpu_has(X86_FEATURE_CONSTANT_TSC) &&
	       boot_cpu_has(X86_FEATURE_NONSTOP_TSC) && !check_tsc_unstable();
}

/*
 * Fill in the clock fields of @info for a trace started now. Return true
 * when the trace must use local_clock() instead of the TSC.
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

static void ltt_discard(void);

/* Unregister the callback if a trace registered it; sleeps. */
static void ltt_unhook(void)
{
	if (!ltt_dev.hooked) {
		synchronize_rcu();
		return;
	}
	ltt_extra_detach();
	ltt_backend_detach();
	ltt_dev.hooked = false;
}

static int ltt_start(void)
{
	struct ltt_config *cfg = &ltt_dev.cfg;
	struct ltt_trace_info *info = &ltt_dev.info;
	struct ltt_ev_trace_start_ext ts;
	unsigned long flags;
	int ret, i;

	if (ltt_dev.state == LTT_TRACING)
		return -EBUSY;
	ret = ltt_buffers_alloc(cfg->buffer_size);
	if (ret) {
		/*
		 * A START discards the last trace's unread blocks; one that
		 * fails leaves no trace at all, only the configuration.
		 */
		ltt_discard();
		return ret;
	}

	memset(info, 0, sizeof(*info));
	ltt_run.fallback = ltt_choose_clock(info);
	if (info->flags & LTT_TRACE_F_CLOCK_FALLBACK)
		pr_info_once("TSC not usable, timestamps are local_clock() ns\n");
	ltt_run.event_mask = cfg->event_mask &
			     (LTT_EV_MASK_ALL | LTT_EV_MASK_MOUNT_LOCK);
	ltt_run.vars_mask = ltt_vars_start();
	ltt_run.details_mask = cfg->details_mask;
	for (i = 0; i < LTT_EV_MAX; i++)
		ltt_run.size_max[i] = ltt_run.details_mask & BIT_ULL(i) ?
					      LTT_DETAILS_MAX : 0;
	ltt_run.filters = cfg->filters;
	ltt_run.pid = cfg->pid;
	ltt_run.pgrp = cfg->pgrp;
	ltt_run.uid = ltt_dev.uid;
	ltt_run.gid = ltt_dev.gid;

	local_irq_save(flags);
	info->anchor_tsc = ltt_clock();
	info->anchor_realtime_ns = ktime_get_real_ns();
	info->anchor_monotonic_ns = ktime_get_ns();
	local_irq_restore(flags);
	info->abi_version = LTT_ABI_VERSION;
	info->ncpus = ltt_ncpus;
	info->max_block = cfg->buffer_size;
	info->config = *cfg;
	ltt_buffers_reset(info->anchor_tsc);

	ts = (struct ltt_ev_trace_start_ext){
		.start.tsc_khz = info->tsc_khz,
		.start.anchor_tsc = info->anchor_tsc,
		.start.anchor_realtime_ns = info->anchor_realtime_ns,
		.start.event_mask = ltt_run.event_mask,
		.start.details_mask = ltt_run.details_mask,
		.backend = ltt_backend,
		.vars_mask = ltt_run.vars_mask,
	};
	preempt_disable();
	ltt_log_trace_start(&ts);
	preempt_enable();

	/*
	 * Patch the hooks in only now: everything the callback uses is set
	 * up, and it still returns at once until ltt_live_mask is set below.
	 */
	/*
	 * The probes of ltt_extra.c first: on a shared tracepoint (sys_exit)
	 * they then run before the backend's, so a MOUNT record precedes its
	 * SYSCALL_EXIT where the backend takes both from the tracepoint.
	 */
	ret = ltt_extra_attach(ltt_run.event_mask);
	if (!ret) {
		ret = ltt_backend_attach(cfg);
		if (ret)
			ltt_extra_detach();
	}
	if (ret) {
		pr_warn_once("cannot attach to the kernel's events (%d)\n", ret);
		ltt_discard();
		return ret;
	}
	ltt_dev.hooked = true;
	/* Publish ltt_run and the buffers before any event can see them. */
	smp_store_release(&ltt_active, true);
	/* The callback's acquire of the mask pairs with this, as above. */
	smp_store_release(&ltt_live_mask, ltt_run.event_mask);
	if (heartbeat_ms)
		ltt_heartbeat_start((u64)heartbeat_ms * NSEC_PER_MSEC);
	WRITE_ONCE(ltt_dev.state, LTT_TRACING);
	return 0;
}

static int ltt_stop(void)
{
	u64 stop;

	if (ltt_dev.state == LTT_IDLE)
		return -EINVAL;
	if (ltt_dev.state == LTT_STOPPED)
		return 0;
	/* The trace ends now, however long the teardown below takes. */
	stop = ltt_clock();
	WRITE_ONCE(ltt_live_mask, 0);
	WRITE_ONCE(ltt_active, false);
	/*
	 * Patch the hooks out. Unregistering waits for an RCU grace period,
	 * and every writer runs preempt-disabled: after it no CPU is inside
	 * the callback, and none of the writers that saw ltt_active or
	 * ltt_live_mask set (test mode, user events, heartbeats) is still
	 * writing.
	 */
	ltt_unhook();
	ltt_heartbeat_stop();
	ltt_test_quiesce();
	ltt_buffers_finish(stop);
	WRITE_ONCE(ltt_dev.state, LTT_STOPPED);
	wake_up_interruptible(&ltt_dev.readq);
	return 0;
}

/* Drop the last trace and its buffers: IDLE, the configuration kept. */
static void ltt_discard(void)
{
	irq_work_sync(&ltt_notify);
	ltt_buffers_reset(0);
	ltt_buffers_free();
	ltt_run.buffer_size = 0;
	memset(&ltt_dev.info, 0, sizeof(ltt_dev.info));
	WRITE_ONCE(ltt_dev.state, LTT_IDLE);
	wake_up_interruptible(&ltt_dev.readq);
}

static void ltt_reset(void)
{
	if (ltt_dev.state == LTT_TRACING)
		ltt_stop();
	ltt_discard();
	ltt_dev.cfg = ltt_default_config;
	ltt_vars_reset_config();
	ltt_dev.uid = GLOBAL_ROOT_UID;
	ltt_dev.gid = GLOBAL_ROOT_GID;
}

/* ---------------------------------------------------------------- ioctls */

static long ltt_ioc_get_info(struct ltt_trace_info __user *uarg)
{
	struct ltt_trace_info info = ltt_dev.info;

	if (ltt_dev.state == LTT_IDLE) {
		/* No trace yet: what START would produce, without anchors. */
		memset(&info, 0, sizeof(info));
		ltt_choose_clock(&info);
		info.abi_version = LTT_ABI_VERSION;
		info.ncpus = ltt_ncpus;
		info.max_block = ltt_dev.cfg.buffer_size;
		info.config = ltt_dev.cfg;
	}
	return copy_to_user(uarg, &info, sizeof(info)) ? -EFAULT : 0;
}

static long ltt_ioc_get_lost(struct ltt_lost_counts __user *uarg)
{
	struct ltt_lost_counts *lc;
	long ret = 0;

	lc = kzalloc(sizeof(*lc), GFP_KERNEL);
	if (!lc)
		return -ENOMEM;
	ltt_buffers_lost(lc);
	if (copy_to_user(uarg, lc, sizeof(*lc)))
		ret = -EFAULT;
	kfree(lc);
	return ret;
}

/* TRACK_UID / TRACK_GID argument: -1 (off) or an id valid in our userns. */
static int ltt_get_id(s64 __user *uarg, s64 *id)
{
	if (get_user(*id, uarg))
		return -EFAULT;
	if (ltt_dev.state == LTT_TRACING)
		return -EBUSY;
	if (*id < -1 || *id >= U32_MAX)
		return -EINVAL;
	return 0;
}

static long ltt_ioc_config(unsigned int cmd, void __user *uarg)
{
	struct ltt_config *cfg = &ltt_dev.cfg;
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
		if (ltt_dev.state == LTT_TRACING)
			return -EBUSY;
		if (cmd == LTT_IOC_SET_BUFFER_SIZE) {
			if (v32 < LTT_BUFFER_MIN || v32 > LTT_BUFFER_MAX ||
			    !IS_ALIGNED(v32, LTT_RECORD_ALIGN))
				return -EINVAL;
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
		if (ltt_dev.state == LTT_TRACING)
			return -EBUSY;
		if (v64 & ~(BIT_ULL(LTT_EV_MAX) - 1) & ~LTT_EV_MASK_MOUNT_LOCK)
			return -EINVAL;
		if (cmd == LTT_IOC_SET_EVENT_MASK)
			cfg->event_mask = v64;
		else
			cfg->details_mask = v64;
		return 0;
	case LTT_IOC_TRACK_PID:
	case LTT_IOC_TRACK_PGRP:
		if (get_user(s32v, (s32 __user *)uarg))
			return -EFAULT;
		if (ltt_dev.state == LTT_TRACING)
			return -EBUSY;
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

		ret = ltt_get_id(uarg, &id);
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
		ltt_dev.uid = uid;
		cfg->uid = id;
		cfg->filters |= LTT_FILTER_UID;
		return 0;
	}
	case LTT_IOC_TRACK_GID: {
		kgid_t gid;

		ret = ltt_get_id(uarg, &id);
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
		ltt_dev.gid = gid;
		cfg->gid = id;
		cfg->filters |= LTT_FILTER_GID;
		return 0;
	}
	case LTT_IOC_SET_SYSCALL_RANGE:
		if (copy_from_user(&range, uarg, sizeof(range)))
			return -EFAULT;
		if (ltt_dev.state == LTT_TRACING)
			return -EBUSY;
		if ((range.lower || range.upper) && range.lower >= range.upper)
			return -EINVAL;
		cfg->syscall_range = range;
		return 0;
	}
	return -ENOTTY;
}

static long ltt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	long ret;

	switch (cmd) {
	case LTT_IOC_GET_ABI_VERSION:
		return put_user(LTT_ABI_VERSION, (u32 __user *)uarg);
	case LTT_IOC_TEST_EMIT:
		/* Takes the lock itself: it must not hold it while waiting. */
		return ltt_ioc_test_emit(uarg);
	}
	if (_IOC_TYPE(cmd) != LTT_IOC_MAGIC)
		return -ENOTTY;

	mutex_lock(&ltt_dev.lock);
	switch (cmd) {
	case LTT_IOC_START:
		ret = ltt_start();
		break;
	case LTT_IOC_STOP:
		ret = ltt_stop();
		break;
	case LTT_IOC_RESET:
		ltt_reset();
		ret = 0;
		break;
	case LTT_IOC_GET_TRACE_INFO:
		ret = ltt_ioc_get_info(uarg);
		break;
	case LTT_IOC_GET_LOST:
		ret = ltt_ioc_get_lost(uarg);
		break;
	case LTT_IOC_USER_EVENT:
		ret = ltt_ioc_user_event(uarg);
		break;
	case LTT_IOC_SET_VARS_MASK:
		ret = ltt_vars_set_mask(uarg, ltt_dev.state == LTT_TRACING);
		break;
	default:
		ret = ltt_ioc_config(cmd, uarg);
		break;
	}
	mutex_unlock(&ltt_dev.lock);
	return ret;
}

/* ------------------------------------------------------- file operations */

/*
 * A trace shows every task of every user: the system calls, files,
 * sockets and memory maps of all of them, and kernel addresses. The node
 * is root's with mode 0600, and opening it also takes CAP_PERFMON (or
 * CAP_SYS_ADMIN), the kernel's capability for system-wide observation,
 * so that a node whose mode was widened by a udev rule or a chmod does not
 * hand the whole system's activity to any user who can open it.
 */
static int ltt_open(struct inode *inode, struct file *file)
{
	if (!perfmon_capable())
		return -EPERM;
	if (test_and_set_bit_lock(0, &ltt_dev.busy))
		return -EBUSY;
	return stream_open(inode, file);
}

static int ltt_release(struct inode *inode, struct file *file)
{
	mutex_lock(&ltt_dev.lock);
	ltt_reset();
	mutex_unlock(&ltt_dev.lock);
	clear_bit_unlock(0, &ltt_dev.busy);
	return 0;
}

static int ltt_fsync(struct file *file, loff_t start, loff_t end, int datasync)
{
	mutex_lock(&ltt_dev.lock);
	ltt_reset();
	mutex_unlock(&ltt_dev.lock);
	return 0;
}

static int ltt_fasync(int fd, struct file *file, int on)
{
	return fasync_helper(fd, file, on, &ltt_dev.fasync);
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
	ssize_t ret;

	for (;;) {
		if (mutex_lock_interruptible(&ltt_dev.lock))
			return -ERESTARTSYS;
		if (ltt_dev.state == LTT_IDLE)
			ret = 0;
		else
			ret = ltt_buffers_read(buf, count, &ltt_dev.rr);
		if (!ret && ltt_dev.state == LTT_TRACING)
			ret = -EAGAIN;
		mutex_unlock(&ltt_dev.lock);

		if (ret != -EAGAIN || (file->f_flags & O_NONBLOCK))
			return ret;
		if (wait_event_interruptible(ltt_dev.readq,
					     ltt_buffers_ready() ||
					     READ_ONCE(ltt_dev.state) !=
						     LTT_TRACING))
			return -ERESTARTSYS;
	}
}

static __poll_t ltt_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &ltt_dev.readq, wait);
	if (READ_ONCE(ltt_dev.state) != LTT_TRACING || ltt_buffers_ready())
		return EPOLLIN | EPOLLRDNORM;
	return 0;
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
	.llseek = no_llseek,
};

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
	ltt_ncpus = min_t(unsigned int, nr_cpu_ids, LTT_MAX_CPUS);
	if (nr_cpu_ids > LTT_MAX_CPUS)
		pr_warn("only CPUs 0..%u are traced\n", LTT_MAX_CPUS - 1);
	mutex_init(&ltt_dev.lock);
	init_waitqueue_head(&ltt_dev.readq);
	ltt_dev.cfg = ltt_default_config;
	ltt_vars_reset_config();
	ltt_dev.uid = GLOBAL_ROOT_UID;
	ltt_dev.gid = GLOBAL_ROOT_GID;
	ltt_test_init();
	ltt_buffer_init();

	/* The callback is registered by START, not here (see the top). */
	return misc_register(&ltt_misc);
}

static void __exit ltt_exit(void)
{
	misc_deregister(&ltt_misc);
	/*
	 * release() already reset; this only guards against a bug there. A
	 * trace still running would be stopped, which unregisters the
	 * callback and returns once no CPU is inside it any more.
	 */
	mutex_lock(&ltt_dev.lock);
	ltt_reset();
	WARN_ON_ONCE(ltt_dev.hooked);
	mutex_unlock(&ltt_dev.lock);
	/* No emitter may still run this module's code once it is gone. */
	ltt_test_quiesce();
	irq_work_sync(&ltt_notify);
}

module_init(ltt_init);
module_exit(ltt_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Linux Trace Toolkit trace module (/dev/tracer)");
MODULE_AUTHOR("ltt project");
