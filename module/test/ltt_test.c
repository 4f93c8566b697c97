// SPDX-License-Identifier: GPL-2.0
/*
 * ltt_test.ko: the trace module's test mode and fault injection, a module
 * of its own (as lttng-modules ships lttng-test.ko), so that the product
 * module, ltt_tracer.ko, holds no test code. Loaded after it, this module
 * plugs its hooks in (struct ltt_test_ops, ltt_session.h):
 *
 * Test mode (LTT_IOC_TEST_EMIT on /dev/tracer, -ENOTTY without this
 * module) is the deterministic event source of the end-to-end tests: a
 * work item on each selected CPU writes exactly @count custom events (id
 * LTT_TEST_EVENT_ID, a struct ltt_test_payload with a sequence number and
 * the CPU first in the payload), or @count heartbeats, straight into the
 * caller's session's buffers. The events bypass every mask and filter, so
 * a trace must hold recorded + lost == emitted. The ioctl returns once
 * every emitter is done. The emitters are the session's writers outside
 * the event path (struct ltt_session's @writers): counted in under the
 * session lock while it traces, each write made with preemption disabled
 * after the channel's active flag was seen set, so STOP (which clears the
 * flag, waits a grace period, then for the writers) and close never
 * leave one writing. A session's TEST_EMITs run one at a time (each
 * numbers its events from 0); each session has its own, so one
 * session's TEST_EMIT never waits for another's.
 *
 * Fault injection (the parameter fault_attach, root only): the Nth attach
 * of the event sources from now fails as a failed allocation would
 * (-ENOMEM); 0: none.
 */
#include <linux/module.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/cpumask.h>
#include <linux/bitops.h>
#include <linux/log2.h>
#include <linux/sched.h>

#include "../ltt_session.h"

static unsigned int fault_attach;
module_param(fault_attach, uint, 0600);
MODULE_PARM_DESC(fault_attach,
		 "The Nth attach of the event sources from now fails with -ENOMEM (0: none)");

/**
 * struct ltt_emit_slot - one session's TEST_EMITs, one at a time
 * @node:  in ltt_emit_slots
 * @sess:  the session; it stays while a TEST_EMIT of it holds the file
 * @users: TEST_EMITs of it running or waiting; the slot goes with the last
 * @lock:  held by the one running
 */
struct ltt_emit_slot {
	struct list_head node;
	struct ltt_session *sess;
	unsigned int users;
	struct mutex lock;
};

static LIST_HEAD(ltt_emit_slots);
static DEFINE_MUTEX(ltt_emit_slots_lock);

static struct ltt_emit_slot *ltt_emit_slot_get(struct ltt_session *s)
{
	struct ltt_emit_slot *e;

	mutex_lock(&ltt_emit_slots_lock);
	list_for_each_entry(e, &ltt_emit_slots, node)
		if (e->sess == s)
			goto found;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		goto out;
	e->sess = s;
	mutex_init(&e->lock);
	list_add(&e->node, &ltt_emit_slots);
found:
	e->users++;
out:
	mutex_unlock(&ltt_emit_slots_lock);
	return e;
}

static void ltt_emit_slot_put(struct ltt_emit_slot *e)
{
	mutex_lock(&ltt_emit_slots_lock);
	if (!--e->users) {
		list_del(&e->node);
		mutex_destroy(&e->lock);
		kfree(e);
	}
	mutex_unlock(&ltt_emit_slots_lock);
}

struct ltt_emit_run;

/**
 * struct ltt_emitter - one CPU's share of a TEST_EMIT
 * @work:  runs on its CPU
 * @run:   the TEST_EMIT it belongs to
 * @count: events to emit
 * @ev:    the custom event; its payload starts with ltt_test_payload
 *         (NULL when the CPU writes heartbeats)
 * @size:  bytes of @ev to record
 * @flags: LTT_TEST_F_*
 */
struct ltt_emitter {
	struct work_struct work;
	struct ltt_emit_run *run;
	u64 count;
	struct ltt_ev_custom *ev;
	u16 size;
	u32 flags;
} ____cacheline_aligned_in_smp;

/**
 * struct ltt_emit_run - one TEST_EMIT
 * @sess:    the session it writes to
 * @pending: emitters not finished
 * @wq:      the ioctl waits there for them
 * @abort:   the caller was killed: emitters stop early
 * @e:       one emitter per traced CPU
 */
struct ltt_emit_run {
	struct ltt_session *sess;
	atomic_t pending;
	wait_queue_head_t wq;
	bool abort;
	struct ltt_emitter e[];
};

/*
 * Move the current CPU's prev 2^27 clock units back: its next record, or
 * the close of its open block, then needs a heartbeat first, as after
 * 2^27 units of idleness. With interrupts off, as the writer itself.
 */
static void ltt_test_age(struct ltt_chan *ch)
{
	struct ltt_cpu *c = this_cpu_ptr(ch->cpus);
	unsigned long flags;

	if (c->cpu >= ltt_ncpus)
		return;
	local_irq_save(flags);
	if (!c->nesting && c->wr >= 0 && c->last > LTT_LONG_DELTA_MAX + 1)
		c->last -= LTT_LONG_DELTA_MAX + 1;
	local_irq_restore(flags);
}

static void ltt_emit_one(struct ltt_emitter *e, struct ltt_chan *ch, u64 i)
{
	struct ltt_test_payload *p;

	if (e->flags & LTT_TEST_F_HEARTBEAT) {
		ltt_log_heartbeat(ch);
		return;
	}
	p = (struct ltt_test_payload *)e->ev->data;
	p->seq = i;
	p->cpu = smp_processor_id();
	ltt_log_chan(ch, LTT_EV_CUSTOM, 0, e->ev, e->size);
}

static void ltt_emit_fn(struct work_struct *work)
{
	struct ltt_emitter *e = container_of(work, struct ltt_emitter, work);
	struct ltt_emit_run *run = e->run;
	struct ltt_session *s = run->sess;
	struct ltt_chan *ch = &s->tr.chan;
	u64 i;

	for (i = 0; i < e->count; i++) {
		preempt_disable();
		/*
		 * Acquire pairs with START's release; STOP waits a grace
		 * period after clearing the channel's active flag.
		 */
		if (likely(smp_load_acquire(&ch->active)))
			ltt_emit_one(e, ch, i);
		preempt_enable();
		if ((i & 1023) == 1023) {
			if (!READ_ONCE(ch->active) || READ_ONCE(run->abort))
				break;
			cond_resched();
		}
	}
	if (e->flags & LTT_TEST_F_AGE) {
		preempt_disable();
		/* Pairs with START's release, as for the events above. */
		if (smp_load_acquire(&ch->active))
			ltt_test_age(ch);
		preempt_enable();
	}
	/* This emitter writes no more: STOP and close may go on. */
	if (atomic_dec_and_test(&s->writers))
		wake_up(&s->writers_wq);
	if (atomic_dec_and_test(&run->pending))
		wake_up(&run->wq);
}

static void ltt_emit_free(struct ltt_emit_run *run)
{
	unsigned int cpu;

	for (cpu = 0; cpu < ltt_ncpus; cpu++)
		kfree(run->e[cpu].ev);
	kfree(run);
}

/*
 * LTT_IOC_TEST_EMIT: emit the known events @tep asks for on each CPU into
 * the caller's session (@s, privileged). Called without the session
 * lock: it takes the lock to set up the emitters and drops it while they
 * run, so that STOP and read() go on. Return 0 when every emitter
 * finished, -EINTR when the caller was killed meanwhile, -EINVAL without
 * a running trace or on a bad argument, -ENOMEM.
 */
static long ltt_test_emit_run(struct ltt_session *s,
			      const struct ltt_test_emit *tep)
{
	const struct ltt_test_emit te = *tep;
	struct ltt_emit_run *run;
	unsigned int cpu, n;
	u64 mask = 0;
	long ret = 0;

	run = kzalloc(struct_size(run, e, ltt_ncpus), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	run->sess = s;
	init_waitqueue_head(&run->wq);
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		INIT_WORK(&run->e[cpu].work, ltt_emit_fn);
		run->e[cpu].run = run;
	}
	mutex_lock(&s->lock);
	if (s->state != LTT_TRACING) {
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
		struct ltt_emitter *e = &run->e[cpu];

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
			goto out_unlock;
		}
		e->ev->id = LTT_TEST_EVENT_ID;
		e->ev->length = te.payload;
	}
	n = hweight64(mask);
	atomic_set(&run->pending, n);
	/* Counted in while the session lock holds off STOP. */
	atomic_add(n, &s->writers);
	for (cpu = 0; cpu < ltt_ncpus; cpu++)
		if (mask & BIT_ULL(cpu))
			queue_work_on(cpu, system_highpri_wq, &run->e[cpu].work);
	mutex_unlock(&s->lock);

	if (wait_event_killable(run->wq, !atomic_read(&run->pending))) {
		WRITE_ONCE(run->abort, true);
		wait_event(run->wq, !atomic_read(&run->pending));
		ret = -EINTR;
	}
	/* Every work item has returned, not only counted itself out. */
	for (cpu = 0; cpu < ltt_ncpus; cpu++)
		if (mask & BIT_ULL(cpu))
			flush_work(&run->e[cpu].work);
	ltt_emit_free(run);
	return ret;

out_unlock:
	mutex_unlock(&s->lock);
	ltt_emit_free(run);
	return ret;
}

/*
 * LTT_IOC_TEST_EMIT (struct ltt_test_ops' emit): the argument checked,
 * then ltt_test_emit_run() once the session's earlier TEST_EMITs are done.
 */
static long ltt_test_emit_ioctl(struct ltt_session *s, void __user *uarg)
{
	struct ltt_emit_slot *slot;
	struct ltt_test_emit te;
	long ret;

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
	slot = ltt_emit_slot_get(s);
	if (!slot)
		return -ENOMEM;
	if (mutex_lock_interruptible(&slot->lock)) {
		ret = -ERESTARTSYS;
	} else {
		ret = ltt_test_emit_run(s, &te);
		mutex_unlock(&slot->lock);
	}
	ltt_emit_slot_put(slot);
	return ret;
}

/* Before each attach of the event sources, sessions lock held. */
static int ltt_test_attach(void)
{
	unsigned int n = READ_ONCE(fault_attach);

	if (n) {
		WRITE_ONCE(fault_attach, n - 1);
		if (n == 1)
			return -ENOMEM;
	}
	return 0;
}

static const struct ltt_test_ops ltt_test_ops = {
	.owner = THIS_MODULE,
	.emit = ltt_test_emit_ioctl,
	.attach = ltt_test_attach,
};

static int __init ltt_test_init(void)
{
	return ltt_test_register(&ltt_test_ops);
}

static void __exit ltt_test_exit(void)
{
	ltt_test_unregister(&ltt_test_ops);
}

module_init(ltt_test_init);
module_exit(ltt_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Linux Trace Toolkit trace module's test mode (tests only)");
MODULE_AUTHOR("ltt project");
