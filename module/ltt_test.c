// SPDX-License-Identifier: GPL-2.0
/*
 * ltt trace module: test mode and user events.
 *
 * Test mode (LTT_IOC_TEST_EMIT) is the deterministic event source of the
 * end-to-end tests: a work item on each selected CPU writes exactly
 * @count custom events (id LTT_TEST_EVENT_ID, a struct ltt_test_payload
 * with a sequence number and the CPU first in the payload), or @count
 * heartbeats, straight into the caller's session's buffers. The events
 * bypass every mask and filter, so a trace must hold recorded + lost ==
 * emitted. The ioctl returns once every emitter is done; the session's
 * STOP and close wait for them (ltt_test_quiesce()). Each session has
 * its own emitters, so one session's TEST_EMIT never waits for another's.
 *
 * User events (LTT_IOC_USER_EVENT) are custom events a program writes
 * through the facility's callback, like any kernel event: every tracing
 * session whose mask and filters take them records them.
 *
 * Both need a running trace of the caller's session (-EINVAL otherwise).
 * Every event is written with preemption disabled after the session's
 * active flag (test mode) was seen set or the session was found in
 * ltt_live (the callback), which STOP's grace period relies on
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
 * @sess:  the session it writes to
 * @count: events to emit
 * @ev:    the custom event; its payload starts with ltt_test_payload
 *         (NULL when the CPU writes heartbeats)
 * @size:  bytes of @ev to record
 * @flags: LTT_TEST_F_*
 */
struct ltt_emitter {
	struct work_struct work;
	struct ltt_session *sess;
	u64 count;
	struct ltt_ev_custom *ev;
	u16 size;
	u32 flags;
} ____cacheline_aligned_in_smp;

static void ltt_emit_one(struct ltt_emitter *e, u64 i)
{
	struct ltt_test_payload *p;

	if (e->flags & LTT_TEST_F_HEARTBEAT) {
		ltt_log_heartbeat(e->sess);
		return;
	}
	p = (struct ltt_test_payload *)e->ev->data;
	p->seq = i;
	p->cpu = smp_processor_id();
	ltt_log_session(e->sess, LTT_EV_CUSTOM, 0, e->ev, e->size);
}

static void ltt_emit_fn(struct work_struct *work)
{
	struct ltt_emitter *e = container_of(work, struct ltt_emitter, work);
	struct ltt_session *s = e->sess;
	u64 i;

	for (i = 0; i < e->count; i++) {
		preempt_disable();
		/*
		 * Acquire pairs with START's release; STOP waits a grace
		 * period after clearing the session's active flag.
		 */
		if (likely(smp_load_acquire(&s->active)))
			ltt_emit_one(e, i);
		preempt_enable();
		if ((i & 1023) == 1023) {
			if (!READ_ONCE(s->active) || READ_ONCE(s->emit_abort))
				break;
			cond_resched();
		}
	}
	if (e->flags & LTT_TEST_F_AGE) {
		preempt_disable();
		/* Pairs with START's release, as for the events above. */
		if (smp_load_acquire(&s->active))
			ltt_test_age_base(s);
		preempt_enable();
	}
	if (atomic_dec_and_test(&s->emit_pending))
		wake_up(&s->emit_wq);
}

/*
 * Wait until no emitter work item of @s runs any more, not only until
 * each has counted itself out: STOP and close must not return while one
 * is still executing its last lines.
 */
static void ltt_emitters_flush(struct ltt_session *s)
{
	unsigned int cpu;

	if (!s->emitters)
		return;
	for (cpu = 0; cpu < ltt_ncpus; cpu++)
		flush_work(&s->emitters[cpu].work);
}

/* The session's emitters, allocated at its first TEST_EMIT. */
static int ltt_emitters_get(struct ltt_session *s)
{
	unsigned int cpu;

	if (s->emitters)
		return 0;
	s->emitters = kcalloc(ltt_ncpus, sizeof(*s->emitters), GFP_KERNEL);
	if (!s->emitters)
		return -ENOMEM;
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		INIT_WORK(&s->emitters[cpu].work, ltt_emit_fn);
		s->emitters[cpu].sess = s;
	}
	return 0;
}

/**
 * ltt_ioc_test_emit() - LTT_IOC_TEST_EMIT: emit known events on each CPU
 * @s:    the caller's session, which receives them
 * @uarg: the user's struct ltt_test_emit
 *
 * Called without the session lock: it takes the lock to set up the
 * emitters and drops it while they run, so that STOP and read() go on.
 *
 * Return: 0 when every emitter finished, -EINTR when the caller was
 * killed meanwhile, -EINVAL without a running trace or on a bad argument,
 * -EFAULT, -ENOMEM.
 */
long ltt_ioc_test_emit(struct ltt_session *s,
		       struct ltt_test_emit __user *uarg)
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
	if (mutex_lock_interruptible(&s->emit_lock))
		return -ERESTARTSYS;
	mutex_lock(&s->lock);
	if (s->state != LTT_TRACING) {
		ret = -EINVAL;
		goto out_unlock;
	}
	ret = ltt_emitters_get(s);
	if (ret)
		goto out_unlock;
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
		struct ltt_emitter *e = &s->emitters[cpu];

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
	atomic_set(&s->emit_pending, hweight64(mask));
	for (cpu = 0; cpu < ltt_ncpus; cpu++)
		if (mask & BIT_ULL(cpu))
			queue_work_on(cpu, system_highpri_wq,
				      &s->emitters[cpu].work);
	mutex_unlock(&s->lock);

	if (wait_event_killable(s->emit_wq, !atomic_read(&s->emit_pending))) {
		WRITE_ONCE(s->emit_abort, true);
		wait_event(s->emit_wq, !atomic_read(&s->emit_pending));
		WRITE_ONCE(s->emit_abort, false);
		ret = -EINTR;
	}
	ltt_emitters_flush(s);
	mutex_lock(&s->lock);
out_free:
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		kfree(s->emitters[cpu].ev);
		s->emitters[cpu].ev = NULL;
	}
out_unlock:
	mutex_unlock(&s->lock);
	mutex_unlock(&s->emit_lock);
	return ret;
}

/**
 * ltt_ioc_user_event() - LTT_IOC_USER_EVENT: record a user's custom event
 * @s:    the caller's session, which must be tracing
 * @uarg: the user's struct ltt_user_event
 *
 * Called with the session lock held. Unlike test-mode events, a user
 * event goes through the callback, so every tracing session whose masks
 * and filters take it records it; one a restricted session logs goes
 * only to restricted sessions (the owner rules still apply to each).
 *
 * Return: 0, -EINVAL without a running trace or when the payload is too
 * long, -EFAULT, -ENOMEM.
 */
long ltt_ioc_user_event(struct ltt_session *s,
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
		ltt_callback(LTT_EV_CUSTOM, 0, ev,
			     LTT_EV_CUSTOM_FIXED + ue.length, NULL);
	preempt_enable();
out:
	kfree(ev);
	return ret;
}

/**
 * ltt_test_quiesce() - wait until no test-mode emitter of @s runs
 * @s: the session
 *
 * For STOP (after clearing the active flag) and close: every emitter has
 * counted itself out and no work item still executes this module's code.
 */
void ltt_test_quiesce(struct ltt_session *s)
{
	wait_event(s->emit_wq, !atomic_read(&s->emit_pending));
	ltt_emitters_flush(s);
}

/**
 * ltt_test_free() - free @s's emitters; none may run (ltt_test_quiesce())
 * @s: the session
 */
void ltt_test_free(struct ltt_session *s)
{
	kfree(s->emitters);
	s->emitters = NULL;
}
