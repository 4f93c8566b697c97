// SPDX-License-Identifier: GPL-2.0
/*
 * ltt per-CPU double buffers and block framing.
 *
 * Buffer protocol
 * ---------------
 *
 * Every CPU owns two buffers of ltt_run.buffer_size bytes, each able to
 * hold exactly one block (docs/trace-format.md section 2.3), and one raw
 * spinlock. Events are written by the CPU they happen on, into that CPU's
 * buffers only; the reader (read() in process context, any CPU) takes the
 * same lock to hand over whole blocks.
 *
 *      event on CPU n                               read()
 *   ------------------------------                  --------------------------
 *   irqs off, nesting guard, lock(n)
 *   now = clock (clamped >= last)
 *   no open block? open one in a                    lock(n)
 *     FREE buffer: BLOCK_START,                     oldest READY -> READING
 *     LOST record if lost != 0                      unlock(n)
 *   record does not fit (with a                     copy_to_user (no lock)
 *     heartbeat, if the delta would                 lock(n)
 *     overflow, and room for BLOCK_END)?            READING -> FREE
 *     -> BLOCK_END, fill length,                    unlock(n)
 *        WRITING -> READY, queue irq_work
 *        (-> wake_up + SIGIO later),
 *        open a block in the other
 *        buffer if it is FREE
 *   no FREE buffer: lost++ (the block
 *     that opens next reports it)
 *   else: [HEARTBEAT] + the record
 *   unlock(n), irqs on
 *
 *        FREE --open--> WRITING --full/stop--> READY --read--> READING
 *          ^                                                       |
 *          +-------------------------- copied ---------------------+
 *
 * The lock is held, with interrupts off, only while one record is copied
 * in (plus the few stores that close and open a block): this is the
 * paper's double buffer, one pair per CPU so that CPUs never contend for
 * it; only the reader does, briefly, for the CPU whose block it takes.
 *
 * Lost-event rule: an event is lost when its CPU's open block is full and
 * the other buffer still holds a block the reader has not taken (or is
 * copying). Lost events are counted per CPU; the next block of that CPU
 * carries the count in block_start.lost and a LOST record (count, time of
 * the first lost event) right after BLOCK_START, so that for every CPU
 *
 *      events stored + sum of lost in its blocks == events offered
 *
 * holds exactly once the FINAL block has been read. Structure records
 * (heartbeats, block start/end) are never counted as lost or recorded.
 *
 * Re-entrancy and NMI policy: the lock is taken with interrupts off, so on
 * one CPU only an NMI (or a fault inside NMI) can arrive while the lock is
 * held. Events arriving in NMI context are never written: they are counted
 * in an atomic per-CPU counter (nmi_lost) that the next block folds into
 * its lost count. A per-CPU nesting guard, set with interrupts off around
 * the locked section, catches any other recursion (an event raised by
 * something the critical section calls) the same way. So no path spins on
 * a lock its own CPU holds, and nothing is lost silently.
 *
 * Room: every record is written only if, after it, the block still has
 * room for a heartbeat and BLOCK_END, heartbeats included. A block's close
 * may come 2^32 clock units after its last record (an idle or offline
 * CPU, a paused machine) and then needs a heartbeat before BLOCK_END.
 *
 * The event path (ltt_log() and everything it calls, the heartbeat timer
 * and the module's callback) is notrace and NOKPROBE: a function tracer
 * or a kprobe on it would run while a CPU's lock is held and re-enter it.
 *
 * Ordering: timestamps are read under the lock and clamped to the last
 * one written on the CPU, so records in a block never go backwards even
 * for the few writes done from another CPU (blocks closed at stop).
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/string.h>
#include <linux/kprobes.h>

#include "ltt_tracer.h"

static DEFINE_PER_CPU(struct ltt_cpu, ltt_cpus);
static u64 ltt_hb_period_ns __read_mostly;
static u64 ltt_stop_time; /* when STOP was asked: the FINAL blocks' end */

/* The state of a traced CPU, NULL for ids that are not possible CPUs. */
static struct ltt_cpu *ltt_cpu_state(unsigned int cpu)
{
	return cpu_possible(cpu) ? per_cpu_ptr(&ltt_cpus, cpu) : NULL;
}

static __always_inline struct ltt_record_header *ltt_hdr_at(struct ltt_cpu *c,
							    u32 off)
{
	return c->buf[c->wr].data + off;
}

/* Write one record at the write offset; the caller checked the room. */
static void notrace ltt_put(struct ltt_cpu *c, u64 now, u8 event, u8 subtype,
			    const void *details, u16 size)
{
	struct ltt_record_header *h = ltt_hdr_at(c, c->off);
	u32 rsize = LTT_HDR_SIZE + ALIGN(size, LTT_RECORD_ALIGN);
	char *d = (char *)(h + 1);

	h->delta = (u32)(now - c->base);
	h->event = event;
	h->subtype = subtype;
	h->size = rsize;
	if (size) {
		memcpy(d, details, size);
		if (rsize - LTT_HDR_SIZE > size)
			memset(d + size, 0, rsize - LTT_HDR_SIZE - size);
	}
	c->off += rsize;
	c->events++;
	c->last = now;
}
NOKPROBE_SYMBOL(ltt_put);

/* Fold the events dropped without the lock into the pending lost count. */
static void notrace ltt_fold_nmi_lost(struct ltt_cpu *c)
{
	long n = atomic_long_xchg(&c->nmi_lost, 0);
	u64 first;

	if (!n)
		return;
	first = atomic64_xchg(&c->nmi_first, 0);
	if (!c->lost || (first && first < c->first_lost))
		c->first_lost = first;
	c->lost += n;
	c->lost_total += n;
}
NOKPROBE_SYMBOL(ltt_fold_nmi_lost);

/* Open a block in a FREE buffer. Return false if there is none. */
static bool notrace ltt_open_block(struct ltt_cpu *c, u64 now, s32 pid)
{
	struct ltt_record_header *h;
	struct ltt_block_start *bs;
	int idx;

	if (c->buf[0].state == LTT_BUF_FREE)
		idx = 0;
	else if (c->buf[1].state == LTT_BUF_FREE)
		idx = 1;
	else
		return false;

	ltt_fold_nmi_lost(c);
	c->wr = idx;
	c->buf[idx].state = LTT_BUF_WRITING;
	c->buf[idx].sequence = c->next_seq;
	c->off = 0;
	c->events = 0;
	c->base = now;

	h = ltt_hdr_at(c, 0);
	bs = (struct ltt_block_start *)(h + 1);
	*h = (struct ltt_record_header){ .delta = 0,
					 .event = LTT_EV_BLOCK_START,
					 .size = LTT_START_REC };
	*bs = (struct ltt_block_start){ .magic = LTT_BLOCK_MAGIC,
					.start_tsc = now,
					.lost = c->lost,
					.sequence = c->next_seq,
					.cpu = c->cpu,
					.pid = pid };
	c->off = LTT_START_REC;
	c->events = 1;
	c->last = now;
	c->next_seq++;

	if (c->lost) {
		struct ltt_ev_lost l = { .count = c->lost,
					 .first_tsc = c->first_lost };

		ltt_put(c, now, LTT_EV_LOST, 0, &l, sizeof(l));
		c->lost = 0;
		c->first_lost = 0;
	}
	return true;
}
NOKPROBE_SYMBOL(ltt_open_block);

/* Close the open block: BLOCK_END, length, WRITING -> READY. */
static void notrace ltt_close_block(struct ltt_cpu *c, u64 now, u16 flags)
{
	struct ltt_record_header *h = ltt_hdr_at(c, 0);
	struct ltt_block_start *bs = (struct ltt_block_start *)(h + 1);
	struct ltt_block_end be;
	bool overdue;

	if (now < c->last)
		now = c->last;
	overdue = now - c->base > U32_MAX;
	/*
	 * ltt_fits() always keeps room for this heartbeat and BLOCK_END. If
	 * that ever failed, end the block at the last time its deltas can
	 * express rather than write past the buffer.
	 */
	if (WARN_ON_ONCE(c->off + LTT_END_REC + (overdue ? LTT_HB_REC : 0) >
			 ltt_run.buffer_size)) {
		if (overdue) {
			now = c->base + U32_MAX;
			overdue = false;
		}
		if (c->off + LTT_END_REC > ltt_run.buffer_size) {
			/* No room even for BLOCK_END: drop the block. */
			c->buf[c->wr].state = LTT_BUF_FREE;
			c->wr = -1;
			return;
		}
	}
	if (overdue) {
		ltt_put(c, now, LTT_EV_HEARTBEAT, 0, &now, sizeof(now));
		c->base = now;
	}
	be = (struct ltt_block_end){ .end_tsc = now, .events = c->events + 1 };
	ltt_put(c, now, LTT_EV_BLOCK_END, 0, &be, sizeof(be));
	bs->length = c->off;
	bs->flags = flags;
	c->buf[c->wr].len = c->off;
	c->buf[c->wr].state = LTT_BUF_READY;
	c->nready++;
	c->wr = -1;
}
NOKPROBE_SYMBOL(ltt_close_block);

/*
 * Does a record of @rsize bytes fit, with a heartbeat before it if one is
 * due (@overdue), and room left to close the block (a heartbeat and
 * BLOCK_END)? The room to close is kept after every record, heartbeats
 * included: a block whose last record is a heartbeat may still need
 * another one at its close, if the close comes 2^32 clock units later.
 */
static __always_inline bool ltt_fits(struct ltt_cpu *c, u32 rsize,
				     bool overdue)
{
	u32 need = rsize + LTT_HB_REC + LTT_END_REC;

	if (overdue)
		need += LTT_HB_REC;
	return c->off + need <= ltt_run.buffer_size;
}

/*
 * Store one record with the lock held. @counted: a real event (counted as
 * recorded or lost), as opposed to a heartbeat. Return true when the
 * caller must notify the reader (a block became READY).
 */
static bool notrace ltt_write_locked(struct ltt_cpu *c, u64 now, u8 event,
				     u8 subtype, const void *details, u16 size,
				     bool counted, s32 pid)
{
	bool heartbeat = event == LTT_EV_HEARTBEAT;
	bool notify = false;
	u32 rsize;

	/* A heartbeat's details are its own time, the new delta base. */
	if (heartbeat) {
		details = &now;
		size = sizeof(now);
	}
	rsize = LTT_HDR_SIZE + ALIGN(size, LTT_RECORD_ALIGN);
	if (c->wr < 0 && !ltt_open_block(c, now, pid))
		goto lost;
	if (!ltt_fits(c, rsize, !heartbeat && now - c->base > U32_MAX)) {
		ltt_close_block(c, now, 0);
		notify = true;
		if (!ltt_open_block(c, now, pid))
			goto lost;
	}
	if (heartbeat) {
		ltt_put(c, now, event, 0, details, size);
		c->base = now;
		return notify;
	}
	if (now - c->base > U32_MAX) {
		ltt_put(c, now, LTT_EV_HEARTBEAT, 0, &now, sizeof(now));
		c->base = now;
	}
	ltt_put(c, now, event, subtype, details, size);
	if (counted)
		c->recorded++;
	return notify;

lost:
	if (counted) {
		if (!c->lost)
			c->first_lost = now;
		c->lost++;
		c->lost_total++;
	}
	return notify;
}
NOKPROBE_SYMBOL(ltt_write_locked);

/* Count an event that cannot take the lock (NMI, recursion). */
static void notrace ltt_drop(struct ltt_cpu *c)
{
	atomic64_cmpxchg(&c->nmi_first, 0, ltt_clock());
	atomic_long_inc(&c->nmi_lost);
}
NOKPROBE_SYMBOL(ltt_drop);

static void notrace ltt_write(u8 event, u8 subtype, const void *details,
			      u16 size, bool counted, s32 next_pid)
{
	unsigned int cpu = smp_processor_id();
	struct ltt_cpu *c;
	unsigned long flags;
	bool notify;
	u64 now;

	if (unlikely(cpu >= ltt_ncpus))
		return;
	c = per_cpu_ptr(&ltt_cpus, cpu);
	if (unlikely(in_nmi())) {
		if (counted)
			ltt_drop(c);
		return;
	}
	local_irq_save(flags);
	if (unlikely(c->nesting)) {
		local_irq_restore(flags);
		if (counted)
			ltt_drop(c);
		return;
	}
	c->nesting = 1;
	raw_spin_lock(&c->lock);
	now = ltt_clock();
	if (now < c->last)
		now = c->last;
	notify = ltt_write_locked(c, now, event, subtype, details, size,
				  counted, task_pid_nr(current));
	c->cur_pid = next_pid;
	raw_spin_unlock(&c->lock);
	c->nesting = 0;
	local_irq_restore(flags);
	if (notify)
		irq_work_queue(&ltt_notify);
}
NOKPROBE_SYMBOL(ltt_write);

/**
 * ltt_log() - store one event on the current CPU
 * @event:    enum ltt_event_id
 * @subtype:  the event's subtype
 * @details:  detail bytes (may be NULL when @size is 0)
 * @size:     valid bytes at @details, at most LTT_DETAILS_MAX
 * @next_pid: the task current on this CPU after the event (the incoming
 *            task of a schedchange, else current's pid)
 *
 * Must be called with preemption disabled; any context, NMI included.
 * The event is recorded, or counted as lost: never both, never neither.
 */
void notrace ltt_log(u8 event, u8 subtype, const void *details, u16 size,
		     s32 next_pid)
{
	ltt_write(event, subtype, details, size, true, next_pid);
}
NOKPROBE_SYMBOL(ltt_log);

/**
 * ltt_log_trace_start() - write TRACE_START as the first record of the
 * current CPU's first block
 * @ts: the record's details
 *
 * Called once by START, with preemption disabled, before the callback is
 * registered, so the block it opens is this CPU's block 0.
 */
void ltt_log_trace_start(const struct ltt_ev_trace_start *ts)
{
	ltt_write(LTT_EV_TRACE_START, 0, ts, sizeof(*ts), false,
		  task_pid_nr(current));
}

/**
 * ltt_log_heartbeat() - write a HEARTBEAT record on the current CPU
 *
 * What the periodic timer writes; test mode writes the same through here.
 * Must be called with preemption disabled.
 */
void notrace ltt_log_heartbeat(void)
{
	ltt_write(LTT_EV_HEARTBEAT, 0, NULL, 0, false, task_pid_nr(current));
}
NOKPROBE_SYMBOL(ltt_log_heartbeat);

/**
 * ltt_test_age_base() - move the current CPU's delta base 2^32 units back
 *
 * Test mode only: the CPU's next record, or the close of its open block,
 * then needs a heartbeat first, as after 2^32 clock units of idleness.
 * Must be called with preemption disabled.
 */
void ltt_test_age_base(void)
{
	unsigned int cpu = smp_processor_id();
	unsigned long flags;
	struct ltt_cpu *c;

	if (cpu >= ltt_ncpus)
		return;
	c = per_cpu_ptr(&ltt_cpus, cpu);
	raw_spin_lock_irqsave(&c->lock, flags);
	if (c->wr >= 0 && c->base > U32_MAX)
		c->base -= (u64)U32_MAX + 1;
	raw_spin_unlock_irqrestore(&c->lock, flags);
}

static enum hrtimer_restart notrace ltt_heartbeat_fn(struct hrtimer *t)
{
	if (!READ_ONCE(ltt_active))
		return HRTIMER_NORESTART;
	ltt_log_heartbeat();
	hrtimer_forward_now(t, ns_to_ktime(ltt_hb_period_ns));
	return HRTIMER_RESTART;
}
NOKPROBE_SYMBOL(ltt_heartbeat_fn);

static void ltt_heartbeat_start_one(void *unused)
{
	struct ltt_cpu *c = this_cpu_ptr(&ltt_cpus);

	if (c->cpu < ltt_ncpus)
		hrtimer_start(&c->heartbeat, ns_to_ktime(ltt_hb_period_ns),
			      HRTIMER_MODE_REL_PINNED);
}

/**
 * ltt_heartbeat_start() - start the periodic heartbeat on every online CPU
 * @period_ns: interval between heartbeats
 *
 * Process context. The heartbeat shows time passing on idle CPUs and keeps
 * deltas small; a record whose delta would overflow gets one anyway.
 */
void ltt_heartbeat_start(u64 period_ns)
{
	ltt_hb_period_ns = period_ns;
	on_each_cpu(ltt_heartbeat_start_one, NULL, 1);
}

/**
 * ltt_heartbeat_stop() - cancel the heartbeat timers and wait for them
 */
void ltt_heartbeat_stop(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&ltt_cpus, cpu)->heartbeat);
}

/* Write a FINAL block for @c if a buffer is free; the lock is held. */
static void ltt_finish_locked(struct ltt_cpu *c, u64 now)
{
	if (now < c->last)
		now = c->last;
	ltt_fold_nmi_lost(c);
	if (c->wr < 0) {
		if (!ltt_open_block(c, now, c->cur_pid)) {
			c->final_pending = true;
			return;
		}
	}
	ltt_close_block(c, now, LTT_BLOCK_F_FINAL);
	c->final_pending = false;
}

/**
 * ltt_buffers_finish() - close every CPU's trace with a FINAL block
 * @stop: the time STOP was asked; the FINAL blocks end there (or at their
 *        last record, if that is later), not when STOP got round to them
 *
 * Called by STOP once no event can be written any more (callback
 * unregistered, heartbeats cancelled). A CPU whose two buffers both wait
 * for the reader gets its FINAL block when the reader frees one.
 */
void ltt_buffers_finish(u64 stop)
{
	unsigned int cpu;

	ltt_stop_time = stop;
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(cpu);
		unsigned long flags;

		if (!c)
			continue;
		raw_spin_lock_irqsave(&c->lock, flags);
		ltt_finish_locked(c, stop);
		raw_spin_unlock_irqrestore(&c->lock, flags);
	}
}

/* Take the oldest READY block of @c. Return its index or -1. */
static int ltt_take_block(struct ltt_cpu *c, u32 *len)
{
	unsigned long flags;
	int idx = -1;

	raw_spin_lock_irqsave(&c->lock, flags);
	if (c->buf[0].state == LTT_BUF_READY)
		idx = 0;
	if (c->buf[1].state == LTT_BUF_READY &&
	    (idx < 0 || c->buf[1].sequence < c->buf[0].sequence))
		idx = 1;
	if (idx >= 0) {
		c->buf[idx].state = LTT_BUF_READING;
		*len = c->buf[idx].len;
	}
	raw_spin_unlock_irqrestore(&c->lock, flags);
	return idx;
}

/* Give a taken block back: consumed (FREE) or not (READY again). */
static void ltt_give_block(struct ltt_cpu *c, int idx, bool consumed)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&c->lock, flags);
	if (consumed) {
		c->buf[idx].state = LTT_BUF_FREE;
		c->nready--;
		if (c->final_pending)
			ltt_finish_locked(c, ltt_stop_time);
	} else {
		c->buf[idx].state = LTT_BUF_READY;
	}
	raw_spin_unlock_irqrestore(&c->lock, flags);
}

/**
 * ltt_buffers_read() - copy ready blocks to user space
 * @ubuf:  destination
 * @count: its size
 * @rr:    CPU to look at first; advanced so CPUs are served in turn
 *
 * Copies as many whole READY blocks as fit, oldest first within a CPU.
 * Process context; the caller serializes readers against buffer freeing.
 *
 * Return: bytes copied (0: none ready), -EINVAL if the first ready block
 * is larger than @count, -EFAULT if nothing could be copied.
 */
ssize_t ltt_buffers_read(char __user *ubuf, size_t count, unsigned int *rr)
{
	unsigned int i, n = ltt_ncpus;
	size_t done = 0;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		struct ltt_cpu *c = ltt_cpu_state((*rr + i) % n);
		int idx;
		u32 len;

		if (!c)
			continue;
		while ((idx = ltt_take_block(c, &len)) >= 0) {
			if (len > count - done)
				err = -EINVAL;
			else if (copy_to_user(ubuf + done, c->buf[idx].data, len))
				err = -EFAULT;
			ltt_give_block(c, idx, !err);
			if (err)
				break;
			done += len;
		}
	}
	*rr = (*rr + 1) % n;
	return done ? done : err;
}

/**
 * ltt_buffers_ready() - is a block waiting for the reader?
 *
 * Return: true if some CPU has a READY block. Lockless: a hint for poll
 * and the read wait; read() itself decides under the locks.
 */
bool ltt_buffers_ready(void)
{
	unsigned int cpu;

	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(cpu);

		if (!c)
			continue;
		if (READ_ONCE(c->nready) || READ_ONCE(c->final_pending))
			return true;
	}
	return false;
}

/**
 * ltt_buffers_lost() - fill in the per-CPU lost and recorded counts
 * @lc: destination; ncpus, total, per_cpu[] and recorded[] are set
 */
void ltt_buffers_lost(struct ltt_lost_counts *lc)
{
	unsigned int cpu;

	lc->ncpus = ltt_ncpus;
	lc->total = 0;
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(cpu);
		unsigned long flags;

		if (!c)
			continue;
		raw_spin_lock_irqsave(&c->lock, flags);
		lc->per_cpu[cpu] = c->lost_total +
				   atomic_long_read(&c->nmi_lost);
		lc->recorded[cpu] = c->recorded;
		raw_spin_unlock_irqrestore(&c->lock, flags);
		lc->total += lc->per_cpu[cpu];
	}
}

/**
 * ltt_buffers_reset() - empty every buffer and zero every counter
 * @start: timestamp no record of the new trace may precede (the anchor)
 *
 * Process context, with no event path running (callback unregistered or
 * never registered, heartbeats stopped).
 */
void ltt_buffers_reset(u64 start)
{
	unsigned int cpu;

	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(cpu);
		unsigned long flags;

		if (!c)
			continue;
		raw_spin_lock_irqsave(&c->lock, flags);
		c->buf[0].state = LTT_BUF_FREE;
		c->buf[1].state = LTT_BUF_FREE;
		c->wr = -1;
		c->off = 0;
		c->events = 0;
		c->base = start;
		c->last = start;
		c->next_seq = 0;
		c->lost = 0;
		c->first_lost = 0;
		c->lost_total = 0;
		c->recorded = 0;
		c->nready = 0;
		c->cur_pid = 0;
		c->final_pending = false;
		atomic_long_set(&c->nmi_lost, 0);
		atomic64_set(&c->nmi_first, 0);
		raw_spin_unlock_irqrestore(&c->lock, flags);
	}
}

/**
 * ltt_buffers_free() - free every CPU's buffers
 *
 * Process context, with no event path and no reader running.
 */
void ltt_buffers_free(void)
{
	unsigned int cpu;
	int i;

	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(cpu);

		if (!c)
			continue;
		for (i = 0; i < 2; i++) {
			kvfree(c->buf[i].data);
			c->buf[i].data = NULL;
		}
	}
}

/**
 * ltt_buffers_alloc() - allocate two buffers of @size bytes per CPU
 * @size: bytes per buffer, LTT_BUFFER_MIN..LTT_BUFFER_MAX, multiple of 8
 *
 * Process context, with no event path and no reader running. Buffers of
 * the right size are kept from the previous trace. The new buffers are
 * all allocated before the old ones are freed, so that on failure the old
 * buffers, their blocks and ltt_run.buffer_size are left exactly as they
 * were: no block ever points at a freed buffer.
 *
 * Return: 0 or -ENOMEM (then nothing changed).
 */
int ltt_buffers_alloc(u32 size)
{
	unsigned int cpu;
	u64 total = 0;
	int i;

	if (ltt_run.buffer_size == size &&
	    per_cpu_ptr(&ltt_cpus, 0)->buf[0].data)
		return 0;
	/*
	 * Never take more than half of the memory available now: a trace
	 * must not push the machine into the OOM killer.
	 */
	for (cpu = 0; cpu < ltt_ncpus; cpu++)
		if (cpu_possible(cpu))
			total += 2 * (u64)size;
	if (total > (u64)si_mem_available() * PAGE_SIZE / 2)
		return -ENOMEM;
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(cpu);

		if (!c)
			continue;
		for (i = 0; i < 2; i++) {
			/* A size the machine cannot afford is -ENOMEM, no splat. */
			c->spare[i] = kvzalloc_node(size,
						    GFP_KERNEL | __GFP_NOWARN,
						    cpu_to_node(cpu));
			if (!c->spare[i])
				goto err_free_spares;
		}
	}
	ltt_buffers_free();
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(cpu);

		if (!c)
			continue;
		for (i = 0; i < 2; i++) {
			c->buf[i].data = c->spare[i];
			c->spare[i] = NULL;
		}
	}
	ltt_run.buffer_size = size;
	return 0;

err_free_spares:
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(cpu);

		if (!c)
			continue;
		for (i = 0; i < 2; i++) {
			kvfree(c->spare[i]);
			c->spare[i] = NULL;
		}
	}
	return -ENOMEM;
}

/**
 * ltt_buffer_init() - initialize the per-CPU state at module load
 */
void ltt_buffer_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct ltt_cpu *c = ltt_cpu_state(cpu);

		raw_spin_lock_init(&c->lock);
		c->cpu = cpu;
		c->wr = -1;
		hrtimer_init(&c->heartbeat, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED);
		c->heartbeat.function = ltt_heartbeat_fn;
	}
}
