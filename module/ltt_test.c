// SPDX-License-Identifier: GPL-2.0
/*
 * ltt trace module: test mode and user events.
 *
 * Test mode (LTT_IOC_TEST_EMIT) is the deterministic event source of the
 * end-to-end tests: a work item on each selected CPU writes exactly
 * @count custom events (id LTT_TEST_EVENT_ID, a struct ltt_test_payload
 * with a sequence number and the CPU first in the payload), or @count
 * heartbeats, straight into the buffers. The events bypass every mask
 * and filter, so a trace must hold recorded + lost == emitted. The ioctl
 * returns once every emitter is done; STOP and unload wait for them
 * (ltt_test_quiesce()).
 *
 * User events (LTT_IOC_USER_EVENT) are custom events a program writes
 * into a running trace through the facility's callback, like any kernel
 * event.
 *
 * Both need a running trace (-EINVAL otherwise). Every event is written
 * with preemption disabled after ltt_active (test mode) or ltt_live_mask
 * (the callback) was seen set, which STOP's grace period relies on
 * (ltt_main.c).
 */
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/cpumask.h>
#include <linux/bitops.h>
#include <linux/log2.h>
#include <linux/sched.h>

#include "ltt_tracer.h"

/**
 * struct ltt_emitter - one CPU's share of a TEST_EMIT
 * @work:  runs on its CPU
 * @count: events to emit
 * @ev:    the custom event; its payload starts with ltt_test_payload
 *         (NULL when the CPU writes heartbeats)
 * @size:  bytes of @ev to record
 * @flags: LTT_TEST_F_*
 */
struct ltt_emitter {
	struct work_struct work;
	u64 count;
	struct ltt_ev_custom *ev;
	u16 size;
	u32 flags;
} ____cacheline_aligned_in_smp;

static struct ltt_emitter ltt_emitters[LTT_MAX_CPUS];
static DEFINE_MUTEX(ltt_emit_lock);	/* one TEST_EMIT at a time */
static atomic_t ltt_emit_pending;	/* emitters not finished */
static DECLARE_WAIT_QUEUE_HEAD(ltt_emit_wq);
static bool ltt_emit_abort;

static void ltt_emit_one(struct ltt_emitter *e, u64 i)
{
	struct ltt_test_payload *p;

	if (e->flags & LTT_TEST_F_HEARTBEAT) {
		ltt_log_heartbeat();
		return;
	}
	p = (struct ltt_test_payload *)e->ev->data;
	p->seq = i;
	p->cpu = smp_processor_id();
	ltt_log(LTT_EV_CUSTOM, 0, e->ev, e->size);
}

static void ltt_emit_fn(struct work_struct *work)
{
	struct ltt_emitter *e = container_of(work, struct ltt_emitter, work);
	u64 i;

	for (i = 0; i < e->count; i++) {
		preempt_disable();
		/*
		 * Acquire pairs with START's release; STOP waits a grace
		 * period after clearing ltt_active.
		 */
		if (likely(smp_load_acquire(&ltt_active)))
			ltt_emit_one(e, i);
		preempt_enable();
		if ((i & 1023) == 1023) {
			if (!READ_ONCE(ltt_active) || READ_ONCE(ltt_emit_abort))
				break;
			cond_resched();
		}
	}
	if (e->flags & LTT_TEST_F_AGE) {
		preempt_disable();
		/* Pairs with START's release, as for the events above. */
		if (smp_load_acquire(&ltt_active))
			ltt_test_age_base();
		preempt_enable();
	}
	if (atomic_dec_and_test(&ltt_emit_pending))
		wake_up(&ltt_emit_wq);
}

/*
 * Wait until no emitter work item runs any more, not only until each has
 * counted itself out: STOP and unload must not return while one is still
 * executing its last lines.
 */
static void ltt_emitters_flush(void)
{
	unsigned int cpu;

	for (cpu = 0; cpu < LTT_MAX_CPUS; cpu++)
		flush_work(&ltt_emitters[cpu].work);
}

/**
 * ltt_ioc_test_emit() - LTT_IOC_TEST_EMIT: emit known events on each CPU
 * @uarg: the user's struct ltt_test_emit
 *
 * Called without the device lock: it takes the lock to set up the
 * emitters and drops it while they run, so that STOP and read() go on.
 *
 * Return: 0 when every emitter finished, -EINTR when the caller was
 * killed meanwhile, -EINVAL without a running trace or on a bad argument,
 * -EFAULT, -ENOMEM.
 */
long ltt_ioc_test_emit(struct ltt_test_emit __user *uarg)
{
	struct ltt_test_emit te;
	unsigned int cpu;
	u64 mask = 0;
	long ret = 0;

	if (copy_from_user(&te, uarg, sizeof(te)))
		return -EFAULT;
	if (te.flags & ~LTT_TEST_F_ALL)
		return -EINVAL;
	if (te.flags & LTT_TEST_F_HEARTBEAT) {
		if (te.payload)
			return -EINVAL;
	} else if (te.payload < sizeof(struct ltt_test_payload) ||
		   te.payload > LTT_CUSTOM_MAX) {
		return -EINVAL;
	}
	if (mutex_lock_interruptible(&ltt_emit_lock))
		return -ERESTARTSYS;
	ltt_dev_lock();
	if (!ltt_dev_tracing()) {
		ret = -EINVAL;
		goto out_unlock;
	}
	/* A CPU going offline meanwhile runs its share elsewhere. */
	for_each_online_cpu(cpu)
		if (cpu < ltt_ncpus)
			mask |= BIT_ULL(cpu);
	if (te.cpu_mask) {
		if (te.cpu_mask & ~mask) {
			ret = -EINVAL;
			goto out_unlock;
		}
		mask = te.cpu_mask;
	}
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_emitter *e = &ltt_emitters[cpu];

		if (!(mask & BIT_ULL(cpu)))
			continue;
		e->flags = te.flags;
		e->count = te.count;
		if (te.flags & LTT_TEST_F_HEARTBEAT)
			continue;
		e->size = LTT_EV_CUSTOM_FIXED + te.payload;
		/* Power-of-two sizes >= 128: no cache line shared by CPUs. */
		e->ev = kzalloc(roundup_pow_of_two(max_t(u32, e->size, 128)),
				GFP_KERNEL);
		if (!e->ev) {
			ret = -ENOMEM;
			goto out_free;
		}
		e->ev->id = LTT_TEST_EVENT_ID;
		e->ev->length = te.payload;
	}
	atomic_set(&ltt_emit_pending, hweight64(mask));
	for (cpu = 0; cpu < ltt_ncpus; cpu++)
		if (mask & BIT_ULL(cpu))
			queue_work_on(cpu, system_highpri_wq,
				      &ltt_emitters[cpu].work);
	ltt_dev_unlock();

	if (wait_event_killable(ltt_emit_wq, !atomic_read(&ltt_emit_pending))) {
		WRITE_ONCE(ltt_emit_abort, true);
		wait_event(ltt_emit_wq, !atomic_read(&ltt_emit_pending));
		WRITE_ONCE(ltt_emit_abort, false);
		ret = -EINTR;
	}
	ltt_emitters_flush();
	ltt_dev_lock();
out_free:
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		kfree(ltt_emitters[cpu].ev);
		ltt_emitters[cpu].ev = NULL;
	}
out_unlock:
	ltt_dev_unlock();
	mutex_unlock(&ltt_emit_lock);
	return ret;
}

/**
 * ltt_ioc_user_event() - LTT_IOC_USER_EVENT: record a user's custom event
 * @uarg: the user's struct ltt_user_event
 *
 * Called with the device lock held. Unlike test-mode events, a user event
 * goes through the callback, so masks and filters apply to it.
 *
 * Return: 0, -EINVAL without a running trace or when the payload is too
 * long, -EFAULT, -ENOMEM.
 */
long ltt_ioc_user_event(struct ltt_user_event __user *uarg)
{
	struct ltt_user_event ue;
	struct ltt_ev_custom *ev;
	long ret = 0;

	if (copy_from_user(&ue, uarg, sizeof(ue)))
		return -EFAULT;
	if (ue.length > LTT_CUSTOM_MAX)
		return -EINVAL;
	if (!ltt_dev_tracing())
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
	ltt_callback(LTT_EV_CUSTOM, 0, ev, LTT_EV_CUSTOM_FIXED + ue.length,
		     NULL);
	preempt_enable();
out:
	kfree(ev);
	return ret;
}

/**
 * ltt_test_quiesce() - wait until no test-mode emitter runs
 *
 * For STOP (after clearing ltt_active) and unload: every emitter has
 * counted itself out and no work item still executes this module's code.
 */
void ltt_test_quiesce(void)
{
	wait_event(ltt_emit_wq, !atomic_read(&ltt_emit_pending));
	ltt_emitters_flush();
}

/**
 * ltt_test_init() - set up the per-CPU emitters at module load
 */
void ltt_test_init(void)
{
	unsigned int cpu;

	for (cpu = 0; cpu < LTT_MAX_CPUS; cpu++)
		INIT_WORK(&ltt_emitters[cpu].work, ltt_emit_fn);
}
