// SPDX-License-Identifier: GPL-2.0
/*
 * ltt trace module, device: /dev/tracer, its file operations and the
 * decoding of its ioctls into the session layer's calls (ltt_session.h).
 * The top of the module's graph (module/README.md): nothing calls it.
 *
 * The kernel's trace facility (<linux/ltt.h>, docs/kernel-facility.md)
 * hands every instrumented event to one callback. This module registers
 * that callback (ltt_callback() in ltt_probe.c, with the dispatch and the
 * writer it inlines), which filters (ltt_event.c), timestamps and stores
 * each event in per-CPU double buffers (ltt_buffer.c), from which the
 * trace daemon reads whole blocks. The records and blocks are specified
 * in docs/trace-format.md, the ioctls in include/ltt/abi.h.
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
 * ltt_event.c, module/README.md), and may not use test mode or LOCK;
 * its START, STOP, SNAPSHOT and changes while tracing are rate-limited,
 * its buffers count against its owner's locked-memory budget. The
 * privilege is decided once, at open, from the opener's credentials.
 *
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
#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/sched.h>
#include <linux/capability.h>
#include <linux/pid_namespace.h>
#include <linux/user_namespace.h>

#include "ltt_session.h"

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
	p.trace = ltt_clock(&s->tr.chan);
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
		ltt_buffers_overwritten(&s->tr.chan, lc);
	else
		ltt_buffers_lost(&s->tr.chan, lc);
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

/**
 * ltt_ioc_user_event() - LTT_IOC_USER_EVENT: record a user's custom event
 * @s:    the caller's session, which must be tracing
 * @uarg: the user's struct ltt_user_event
 *
 * Called with the session lock held. Unlike test-mode events, a user
 * event goes through the event layer, so every tracing session whose masks
 * and filters take it records it; one a restricted session logs goes
 * only to restricted sessions (the owner rules still apply to each).
 *
 * Return: 0, -EINVAL without a running trace or when the payload is too
 * long, -EFAULT, -ENOMEM.
 */
static long ltt_ioc_user_event(struct ltt_session *s,
			struct ltt_user_event __user *uarg)
{
	struct ltt_user_event ue;
	struct ltt_ev_custom *ev;
	long ret = 0;

	if (copy_from_user(&ue, uarg, sizeof(ue)))
		return -EFAULT;
	if (ue.length > LTT_CUSTOM_MAX)
		return -EINVAL;
	if (s->state != LTT_TRACING)
		return -EINVAL;
	ev = kmalloc(LTT_EV_CUSTOM_FIXED + ue.length, GFP_KERNEL);
	if (!ev)
		return -ENOMEM;
	ev->id = ue.id;
	ev->length = ue.length;
	if (copy_from_user(ev->data, u64_to_user_ptr(ue.data), ue.length)) {
		ret = -EFAULT;
		goto out;
	}
	preempt_disable();
	if (s->restricted)
		ltt_callback_restricted(LTT_EV_CUSTOM, 0, ev,
					LTT_EV_CUSTOM_FIXED + ue.length);
	else
		ltt_log_event(LTT_EV_CUSTOM, 0, ev,
			      LTT_EV_CUSTOM_FIXED + ue.length, NULL);
	preempt_enable();
out:
	kfree(ev);
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
		/*
		 * Handed to the test module, if one is loaded. Takes the lock
		 * itself: it must not hold it while waiting.
		 */
		return ltt_test_emit(s, uarg);
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
		if (s->state == LTT_TRACING && s->tr.chan.overwrite)
			ret = ltt_buffers_snapshot(&s->tr.chan);
		if (!ret)
			WRITE_ONCE(s->tr.triggered, false);
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

	restricted = !ltt_privileged();
	if (restricted &&
	    (!unprivileged || task_active_pid_ns(current) != &init_pid_ns ||
	     current_user_ns() != &init_user_ns))
		return -EPERM;
	s = ltt_session_open(restricted);
	if (IS_ERR(s))
		return PTR_ERR(s);
	file->private_data = s;
	return stream_open(inode, file);
}

static int ltt_release(struct inode *inode, struct file *file)
{
	ltt_session_close(file->private_data);
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
			ret = ltt_buffers_read(&s->tr.chan, buf, count);
		if (!ret && s->state == LTT_TRACING)
			ret = -EAGAIN;
		mutex_unlock(&s->lock);

		if (ret != -EAGAIN || (file->f_flags & O_NONBLOCK))
			return ret;
		if (wait_event_interruptible(s->readq,
					     ltt_buffers_ready(&s->tr.chan) ||
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
	if (READ_ONCE(s->state) != LTT_TRACING ||
	    ltt_buffers_ready(&s->tr.chan))
		mask = EPOLLIN | EPOLLRDNORM;
	/* A flight-recorder trigger (ltt_exit_trigger()), until SNAPSHOT. */
	if (READ_ONCE(s->tr.triggered))
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
	int ret = ltt_session_init();

	if (ret)
		return ret;
	if (unprivileged)
		ltt_misc.mode = 0666;
	/* The backend is attached by START, not here (ltt_session.c). */
	return misc_register(&ltt_misc);
}

static void __exit ltt_exit(void)
{
	misc_deregister(&ltt_misc);
	ltt_session_exit();
}

module_init(ltt_init);
module_exit(ltt_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Linux Trace Toolkit trace module (/dev/tracer)");
MODULE_AUTHOR("ltt project");
