// SPDX-License-Identifier: GPL-2.0
/*
 * ltt trace module, buffer layer: per-CPU double buffers and block
 * framing (format version 2), the reader side and the heartbeat. A leaf:
 * it calls nothing of the module's other layers, and its client (the
 * event layer's struct ltt_trace, for a session) owns the struct ltt_chan
 * every function here takes. The fast path of a write is ltt_write() in
 * ltt_write.h; its slow path, ltt_write_slow(), is here.
 *
 * Buffer protocol
 * ---------------
 *
 * Every channel (a session's, ltt_session.c) has, for every CPU, two
 * buffers of its size, each able to hold exactly one block
 * (docs/trace-format.md section 2.3). Events are
 * written by the CPU they happen on, into that CPU's buffers only, with
 * interrupts off and no lock: on one CPU, with interrupts off, only an NMI
 * can interrupt the writer, and NMIs never write (below). The reader
 * (read() in process context, any CPU, serialized by the session lock)
 * touches a buffer only through its state, which moves by single owner:
 *
 *        FREE --open--> WRITING --full/stop--> READY --read--> READING
 *          ^      (writer)            (writer)       (reader)     |
 *          +---------------------- copied (reader) ----------------+
 *
 * The writer only moves FREE -> WRITING -> READY, the reader only READY ->
 * READING -> FREE (or back to READY when the copy faults), so no state is
 * ever changed by both sides at once. READY is stored with release after
 * the block's last byte and read with acquire by the reader; FREE is
 * stored with release after the copy and read with acquire by the writer
 * before it writes the buffer again.
 *
 *      event on CPU n                        read() (device lock held)
 *   --------------------------------         ---------------------------
 *   irqs off, nesting guard                  oldest READY -> READING
 *   now = clock (clamped >= last)            copy_to_user
 *   no open block? open one in a FREE        READING -> FREE
 *     buffer: BLOCK_START, LOST record
 *     if lost != 0
 *   encode the record at the write offset
 *     (compact code, or EXT)
 *   delta >= 2^27 or record does not fit?
 *     -> slow path: [HEARTBEAT] + record
 *     if it fits, else BLOCK_END, fill
 *     length, WRITING -> READY, queue
 *     irq_work (-> wake_up + SIGIO later),
 *     open a block in the other buffer if
 *     it is FREE and write the record there
 *   no FREE buffer: lost++ (the block
 *     that opens next reports it)
 *   irqs on
 *
 * Only the CPU itself writes its buffers while a trace runs. STOP closes
 * every CPU's open block, from the CPU it runs on, only after the
 * callback is unregistered (an RCU grace period: no CPU is inside it any
 * more), the heartbeat timers are cancelled and the writers outside the
 * event path (test mode's emitters, ltt_test.ko) are done; user events
 * run under the device lock, as STOP does. After
 * that the reader may write a CPU's FINAL block when it frees a buffer.
 *
 * Records (include/ltt/format.h): a 32-bit header word with the code and
 * the delta since the previous record of the block (prev); compact codes
 * for the frequent events whose fields fit, LTT_CODE_EXT (the version 1
 * record) for everything else, 4-byte aligned. The fast path encodes the
 * record speculatively at the write offset (at most 24 bytes, always
 * inside the buffer, see Room) and commits it by advancing the offset
 * only once it is known to fit; bytes past the write offset are never
 * part of a block.
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
 * Re-entrancy and NMI policy: events arriving in NMI context are never
 * written: they are counted in an atomic per-CPU counter (nmi_lost) that
 * the next block folds into its lost count. A per-CPU nesting guard, set
 * with interrupts off around the write, catches any other recursion (an
 * event raised by something the write calls) the same way. So no write
 * is ever interrupted by another write of its CPU, and nothing is lost
 * silently.
 *
 * Room: every record is written only if, after it, the block still has
 * room for a heartbeat and BLOCK_END (40 bytes), heartbeats included. A
 * block's close may come 2^27 clock units or more after its last record
 * (an idle or offline CPU, a paused machine) and then needs a heartbeat
 * before BLOCK_END. The same 40 bytes hold any compact record (at most 24
 * bytes) encoded speculatively at the write offset.
 *
 * The event path (ltt_write() and everything it calls, the heartbeat
 * timer and the module's callback) is notrace and NOKPROBE: a function tracer
 * or a kprobe on it would re-enter the writer in the middle of a record.
 *
 * Ordering: timestamps are clamped to the last one written on the CPU, so
 * records in a block never go backwards, even for the blocks closed at
 * stop from another CPU.
 */
#include <linux/kernel.h>
#include <linux/cpu.h>
#include <linux/smp.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/isolation.h>
#include <linux/uaccess.h>
#include <linux/string.h>
#include <linux/kprobes.h>
#include <linux/rcupdate.h>
#include <linux/export.h>

#include "ltt_write.h"

unsigned int ltt_ncpus __read_mostly;
EXPORT_SYMBOL_GPL(ltt_ncpus);

/* On while a channel with the fallback clock traces (ltt_clock()). */
DEFINE_STATIC_KEY_FALSE(ltt_fallback_clock);

/* @ch's state of a traced CPU, NULL for ids that are not possible CPUs. */
static struct ltt_cpu *ltt_cpu_state(struct ltt_chan *ch, unsigned int cpu)
{
	return cpu_possible(cpu) ? per_cpu_ptr(ch->cpus, cpu) : NULL;
}


/* Fold the events dropped without writing into the pending lost count. */
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
	WRITE_ONCE(c->lost_total, c->lost_total + n);
}
NOKPROBE_SYMBOL(ltt_fold_nmi_lost);

/*
 * Overwrite mode: the buffer of @c's oldest READY block, which the
 * block about to open replaces, its events counted as overwritten; -1
 * when the session loses events instead (lossless mode, or the ring held
 * by a snapshot the reader has not finished: ltt_buffers_snapshot()).
 */
static int notrace ltt_overwrite_idx(struct ltt_cpu *c)
{
	int idx = -1, i;

	/* Acquire: pairs with the reader's release once it let go. */
	if (!c->chan->overwrite || smp_load_acquire(&c->snap))
		return -1;
	for (i = 0; i < 2; i++)
		if (READ_ONCE(c->buf[i].state) == LTT_BUF_READY &&
		    (idx < 0 || c->buf[i].sequence < c->buf[idx].sequence))
			idx = i;
	if (idx >= 0)
		c->overwritten += c->buf[idx].nrec;
	return idx;
}
NOKPROBE_SYMBOL(ltt_overwrite_idx);

/*
 * Open a block in a FREE buffer, or in overwrite mode over the oldest
 * READY one. Return false if there is none.
 */
static bool notrace ltt_open_block(struct ltt_cpu *c, u64 now, s32 pid)
{
	/* Acquire: the reader's copy of the buffer is done. */
	bool f0 = smp_load_acquire(&c->buf[0].state) == LTT_BUF_FREE;
	/* Acquire, as for f0. */
	bool f1 = smp_load_acquire(&c->buf[1].state) == LTT_BUF_FREE;
	struct ltt_block_start *bs;
	u32 *p;
	int idx;

	if (f0)
		idx = 0;
	else if (f1)
		idx = 1;
	else
		idx = ltt_overwrite_idx(c);
	if (idx < 0)
		return false;

	ltt_fold_nmi_lost(c);
	c->wr = idx;
	c->data = c->buf[idx].data;
	WRITE_ONCE(c->buf[idx].state, LTT_BUF_WRITING);
	c->buf[idx].sequence = c->next_seq;
	c->buf[idx].rec_start = c->recorded;

	p = c->data;
	p[0] = LTT_LONG_WORD(LTT_CODE_EXT, 0);
	p[1] = ltt_ext_word(LTT_EV_BLOCK_START, 0, LTT_START_REC);
	bs = (struct ltt_block_start *)(p + 2);
	*bs = (struct ltt_block_start){ .magic = LTT_BLOCK_MAGIC,
					.start_tsc = now,
					.lost = c->lost,
					.sequence = c->next_seq,
					.cpu = c->cpu,
					.pid = pid };
	c->off = LTT_START_REC;
	c->events = 1;
	c->last = now;
	c->last_ip = 0;
	c->next_seq++;
	c->ctx_pid = pid;

	if (c->lost) {
		struct ltt_ev_lost l = { .count = c->lost,
					 .first_tsc = c->first_lost };

		ltt_put_ext(c->data + c->off, 0, LTT_EV_LOST, 0, &l, sizeof(l),
			    LTT_LOST_REC);
		c->off += LTT_LOST_REC;
		c->events++;
		c->lost = 0;
		c->first_lost = 0;
	}
	return true;
}
NOKPROBE_SYMBOL(ltt_open_block);

/* Close the open block: [HEARTBEAT,] BLOCK_END, length, -> READY. */
static void notrace ltt_close_block(struct ltt_cpu *c, u64 now, u16 flags)
{
	struct ltt_block_start *bs = (struct ltt_block_start *)((u32 *)c->data + 2);
	struct ltt_block_end be;
	u64 delta;

	if (now < c->last)
		now = c->last;
	delta = now - c->last;
	/*
	 * The room rule always keeps room for a heartbeat and BLOCK_END. If
	 * that ever failed, drop the block rather than write past the buffer.
	 */
	if (WARN_ON_ONCE(c->off + LTT_HB_REC + LTT_END_REC >
			 c->chan->size)) {
		WRITE_ONCE(c->buf[c->wr].state, LTT_BUF_FREE);
		c->wr = -1;
		return;
	}
	if (delta > LTT_LONG_DELTA_MAX) {
		ltt_put_hb(c->data + c->off, now);
		c->off += LTT_HB_REC;
		c->events++;
		delta = 0;
	}
	be = (struct ltt_block_end){ .end_tsc = now, .events = c->events + 1 };
	ltt_put_ext(c->data + c->off, delta, LTT_EV_BLOCK_END, 0, &be,
		    sizeof(be), LTT_END_REC);
	c->off += LTT_END_REC;
	c->last = now;
	bs->length = c->off;
	bs->flags = flags;
	c->buf[c->wr].len = c->off;
	c->buf[c->wr].nrec = c->recorded - c->buf[c->wr].rec_start;
	/* Release: the whole block is written before the reader sees it. */
	smp_store_release(&c->buf[c->wr].state, LTT_BUF_READY);
	c->wr = -1;
}
NOKPROBE_SYMBOL(ltt_close_block);

/*
 * The pid a block of @c's channel may show for @t: the client's choice
 * (an unprivileged user's trace shows a task it may not see as pid 0,
 * as the idle task), else @t's pid.
 */
static s32 notrace ltt_block_pid(struct ltt_cpu *c, struct task_struct *t)
{
	const struct ltt_chan *ch = c->chan;

	if (ch->task_pid)
		return ch->task_pid(ch, t);
	return task_pid_nr(t);
}
NOKPROBE_SYMBOL(ltt_block_pid);

/*
 * The slow path of a write: no open block, a delta that needs a heartbeat
 * first, or a record that does not fit. @task: the facility's task of the
 * event (or NULL). Return LTT_W_NOTIFY when the caller must notify the
 * reader (a block became READY), with LTT_W_STORED when the record was
 * written (a value, not a pointer: the fast path keeps its flag in a
 * register).
 *
 * It also notes the task current on the CPU after the event, for a FINAL
 * block STOP may have to open on this CPU's behalf: that happens only when
 * the CPU has no open block, and every event since its last block was
 * closed took this path, so the fast path need not note it.
 */
noinline unsigned int notrace ltt_write_slow(struct ltt_cpu *c, u64 now,
					     u8 event, u8 subtype,
					     const void *details, u16 size,
					     bool counted,
					     struct task_struct *task)
{
	unsigned int notify = 0;
	int tries;

	/* CPUs past LTT_MAX_CPUS never open a block (c->wr stays -1). */
	if (unlikely(c->cpu >= ltt_ncpus))
		return 0;
	c->cur_pid = ltt_block_pid(c, event == LTT_EV_SCHEDCHANGE && task ?
					      task : current);
	if (c->wr < 0 && !ltt_open_block(c, now, ltt_block_pid(c, current)))
		goto lost;
	for (tries = 0; tries < 2; tries++) {
		u64 delta = now - c->last;
		bool hb = event != LTT_EV_HEARTBEAT &&
			  delta > LTT_LONG_DELTA_MAX;
		u32 at = c->off, rec = at + (hb ? LTT_HB_REC : 0);
		u32 *p = c->data + rec;
		bool ext;
		u32 rsize;

		if (hb)
			delta = 0;
		rsize = ltt_encode(c, p, now, delta, event, subtype, details,
				   size);
		ext = !rsize;
		if (ext)
			rsize = LTT_EXT_HDR + ALIGN(size, LTT_V2_RECORD_ALIGN);
		if (rec + rsize <= c->end) {
			if (ext)
				ltt_put_ext(p, delta, event, subtype, details,
					    size, rsize);
			if (hb) {
				ltt_put_hb(c->data + at, now);
				c->off += LTT_HB_REC;
				c->events++;
			}
			ltt_commit(c, rsize, now, event, details, size, ext);
			if (counted)
				WRITE_ONCE(c->recorded, c->recorded + 1);
			return notify | LTT_W_STORED;
		}
		ltt_close_block(c, now, 0);
		notify = LTT_W_NOTIFY;
		if (!ltt_open_block(c, now, ltt_block_pid(c, current)))
			break;
	}
lost:
	if (counted) {
		if (!c->lost)
			c->first_lost = now;
		c->lost++;
		WRITE_ONCE(c->lost_total, c->lost_total + 1);
	}
	return notify;
}
NOKPROBE_SYMBOL(ltt_write_slow);

/* Count an event that cannot be written (NMI, recursion). */
void notrace ltt_drop(struct ltt_cpu *c)
{
	atomic64_cmpxchg(&c->nmi_first, 0, ltt_clock(c->chan));
	atomic_long_inc(&c->nmi_lost);
}
NOKPROBE_SYMBOL(ltt_drop);

/**
 * ltt_log_chan() - store one event in @ch on the current CPU
 * @ch:       a tracing channel
 * @event:    enum ltt_event_id
 * @subtype:  the event's subtype
 * @details:  detail bytes (may be NULL when @size is 0)
 * @size:     valid bytes at @details, at most LTT_DETAILS_MAX
 *
 * No mask or filter applies. Must be called with preemption disabled;
 * any context, NMI included. The event is recorded, or counted as lost:
 * never both, never neither.
 */
void notrace ltt_log_chan(struct ltt_chan *ch, u8 event, u8 subtype,
			  const void *details, u16 size)
{
	ltt_write(ch, event, subtype, details, size, true, NULL);
}
EXPORT_SYMBOL_GPL(ltt_log_chan);
NOKPROBE_SYMBOL(ltt_log_chan);

/**
 * ltt_log_trace_start() - write TRACE_START as the first record of the
 * current CPU's first block
 * @ch: the channel
 * @ts: the record's details
 *
 * Called once by START, with preemption disabled, before the callback is
 * registered, so the block it opens is this CPU's block 0.
 */
void ltt_log_trace_start(struct ltt_chan *ch,
			 const struct ltt_ev_trace_start_ext *ts)
{
	ltt_write(ch, LTT_EV_TRACE_START, 0, ts, sizeof(*ts), false, NULL);
}

/**
 * ltt_log_heartbeat() - write a HEARTBEAT record on the current CPU
 * @ch: the channel
 *
 * What the periodic timer writes; test mode writes the same through here.
 * Must be called with preemption disabled.
 */
void notrace ltt_log_heartbeat(struct ltt_chan *ch)
{
	ltt_write(ch, LTT_EV_HEARTBEAT, 0, NULL, 0, false, NULL);
}
EXPORT_SYMBOL_GPL(ltt_log_heartbeat);
NOKPROBE_SYMBOL(ltt_log_heartbeat);

static enum hrtimer_restart notrace ltt_heartbeat_fn(struct hrtimer *t)
{
	struct ltt_chan *ch = container_of(t, struct ltt_cpu, heartbeat)->chan;

	if (!READ_ONCE(ch->active))
		return HRTIMER_NORESTART;
	ltt_log_heartbeat(ch);
	hrtimer_forward_now(t, ns_to_ktime(ch->hb_period_ns));
	return HRTIMER_RESTART;
}
NOKPROBE_SYMBOL(ltt_heartbeat_fn);

/*
 * May @ch make work on @cpu that nothing there asked for (a heartbeat
 * timer, a snapshot's IPI)? A quiet channel (a restricted session's)
 * leaves nohz_full and
 * isolated CPUs (isolcpus, the housekeeping masks) alone: an unprivileged
 * user must not disturb the workload the administrator keeps there.
 */
static bool ltt_cpu_disturbable(const struct ltt_chan *ch, int cpu)
{
	return !ch->quiet || (housekeeping_cpu(cpu, HK_TYPE_TICK) &&
				  housekeeping_cpu(cpu, HK_TYPE_DOMAIN));
}

static bool ltt_heartbeat_cond(int cpu, void *arg)
{
	return ltt_cpu_disturbable(arg, cpu);
}

static void ltt_heartbeat_start_one(void *arg)
{
	struct ltt_chan *ch = arg;
	struct ltt_cpu *c = this_cpu_ptr(ch->cpus);

	if (c->cpu < ltt_ncpus)
		hrtimer_start(&c->heartbeat, ns_to_ktime(ch->hb_period_ns),
			      HRTIMER_MODE_REL_PINNED_HARD);
}

/**
 * ltt_heartbeat_start() - start the periodic heartbeat on every online CPU
 * @ch: the channel
 * @period_ns: interval between heartbeats
 *
 * Process context. The heartbeat shows time passing on idle CPUs and keeps
 * deltas small; a record whose delta would overflow gets one anyway, so a
 * CPU without the timer (a restricted session's on an isolated CPU:
 * ltt_cpu_disturbable()) still writes correct deltas.
 */
void ltt_heartbeat_start(struct ltt_chan *ch, u64 period_ns)
{
	ch->hb_period_ns = period_ns;
	on_each_cpu_cond(ltt_heartbeat_cond, ltt_heartbeat_start_one, ch, 1);
}

/**
 * ltt_heartbeat_stop() - cancel the heartbeat timers and wait for them
 * @ch: the channel
 */
void ltt_heartbeat_stop(struct ltt_chan *ch)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(ch->cpus, cpu)->heartbeat);
}

/*
 * Write a FINAL block for @c if a buffer is free. No event path writes any
 * more (STOP), and the reader is serialized by the session lock.
 */
static void ltt_finish_cpu(struct ltt_cpu *c, u64 now)
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
 * @ch: the channel
 * @stop: the time STOP was asked; the FINAL blocks end there (or at their
 *        last record, if that is later), not when STOP got round to them
 *
 * Called by STOP once no event can be written any more (callback
 * unregistered, heartbeats cancelled). A CPU whose two buffers both wait
 * for the reader gets its FINAL block when the reader frees one.
 */
void ltt_buffers_finish(struct ltt_chan *ch, u64 stop)
{
	unsigned int cpu;

	ch->stop_time = stop;
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(ch, cpu);

		if (c)
			ltt_finish_cpu(c, stop);
	}
}

/*
 * May the reader take buffer @i of @c? READY, and in overwrite mode part
 * of the snapshot in progress (the writer overwrites only while @snap is
 * clear, so a block of the snapshot stays READY until taken).
 */
static bool ltt_readable(struct ltt_cpu *c, int i)
{
	if (c->chan->overwrite &&
	    (!READ_ONCE(c->snap) || c->buf[i].sequence > c->snap_last))
		return false;
	/* Acquire: the writer wrote the whole block before READY. */
	return smp_load_acquire(&c->buf[i].state) == LTT_BUF_READY;
}

/*
 * Take the oldest READY block of @c (READY -> READING). Return its index
 * or -1. The reader (session lock held) is the only one to leave READY,
 * but for the writer overwriting a block no snapshot holds.
 */
static int ltt_take_block(struct ltt_cpu *c, u32 *len)
{
	bool r0 = ltt_readable(c, 0);
	bool r1 = ltt_readable(c, 1);
	int idx = -1;

	if (r0)
		idx = 0;
	if (r1 && (idx < 0 || c->buf[1].sequence < c->buf[0].sequence))
		idx = 1;
	if (idx >= 0) {
		WRITE_ONCE(c->buf[idx].state, LTT_BUF_READING);
		*len = c->buf[idx].len;
	}
	return idx;
}

/* Give a taken block back: consumed (FREE) or not (READY again). */
static void ltt_give_block(struct ltt_cpu *c, int idx, bool consumed)
{
	if (!consumed) {
		WRITE_ONCE(c->buf[idx].state, LTT_BUF_READY);
		return;
	}
	/* Release: the copy is done before the writer reuses the buffer. */
	smp_store_release(&c->buf[idx].state, LTT_BUF_FREE);
	if (READ_ONCE(c->final_pending))
		ltt_finish_cpu(c, c->chan->stop_time);
}

/**
 * ltt_buffers_read() - copy ready blocks of @ch to user space
 * @ch:    the channel
 * @ubuf:  destination
 * @count: its size
 *
 * ch->rr is the CPU to look at first, advanced so CPUs are served in turn.
 *
 * Copies as many whole READY blocks as fit, oldest first within a CPU.
 * Process context; the caller serializes readers against buffer freeing.
 *
 * Return: bytes copied (0: none ready), -EINVAL if the first ready block
 * is larger than @count, -EFAULT if nothing could be copied.
 */
ssize_t ltt_buffers_read(struct ltt_chan *ch, char __user *ubuf,
			 size_t count)
{
	unsigned int *rr = &ch->rr;
	unsigned int i, n = ltt_ncpus;
	size_t done = 0;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		struct ltt_cpu *c = ltt_cpu_state(ch, (*rr + i) % n);
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
		/* The snapshot's last block of @c is read: the ring is free. */
		if (c->chan->overwrite && READ_ONCE(c->snap) &&
		    !ltt_readable(c, 0) && !ltt_readable(c, 1)) {
			/* Release: the copies are done before any overwrite. */
			smp_store_release(&c->snap, false);
		}
	}
	*rr = (*rr + 1) % n;
	return done ? done : err;
}

/**
 * ltt_buffers_ready() - is a block waiting for the reader?
 * @ch: the channel
 *
 * Return: true if some CPU has a READY block (or a FINAL block to write).
 * A hint for poll and the read wait; read() itself takes the blocks.
 */
bool ltt_buffers_ready(struct ltt_chan *ch)
{
	unsigned int cpu;

	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(ch, cpu);

		if (!c)
			continue;
		if (ch->overwrite) {
			if (READ_ONCE(c->snap))
				return true;
			continue;
		}
		if (READ_ONCE(c->buf[0].state) == LTT_BUF_READY ||
		    READ_ONCE(c->buf[1].state) == LTT_BUF_READY ||
		    READ_ONCE(c->final_pending))
			return true;
	}
	return false;
}

/**
 * ltt_buffers_lost() - fill in the per-CPU lost and recorded counts
 * @ch: the channel
 * @lc: destination; ncpus, total, per_cpu[] and recorded[] are set
 */
void ltt_buffers_lost(struct ltt_chan *ch, struct ltt_lost_counts *lc)
{
	unsigned int cpu;

	lc->ncpus = ltt_ncpus;
	lc->total = 0;
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(ch, cpu);

		if (!c)
			continue;
		/* While a trace runs, a snapshot; exact once it is stopped. */
		lc->per_cpu[cpu] = READ_ONCE(c->lost_total) +
				   atomic_long_read(&c->nmi_lost);
		lc->recorded[cpu] = READ_ONCE(c->recorded);
		lc->total += lc->per_cpu[cpu];
	}
}

/**
 * ltt_buffers_overwritten() - fill in the per-CPU overwritten counts
 * @ch: the channel
 * @lc: destination: per_cpu[] and total count the events overwritten in
 *      overwrite mode, recorded[] as ltt_buffers_lost()
 */
void ltt_buffers_overwritten(struct ltt_chan *ch, struct ltt_lost_counts *lc)
{
	unsigned int cpu;

	ltt_buffers_lost(ch, lc);
	lc->total = 0;
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(ch, cpu);

		if (!c)
			continue;
		lc->per_cpu[cpu] = READ_ONCE(c->overwritten);
		lc->total += lc->per_cpu[cpu];
	}
}

/*
 * Close @c's open block (opening one if it has none) as a snapshot's
 * FINAL block, and hand the ring to the reader: its READY blocks up to
 * that one are the snapshot. Runs on @c's CPU with interrupts off (or
 * for an offline CPU, which writes nothing), so no write is under way.
 */
static void ltt_snapshot_cpu(void *arg)
{
	struct ltt_cpu *c = arg;
	u64 now = ltt_clock(c->chan);

	if (now < c->last)
		now = c->last;
	if (c->wr < 0 && !ltt_open_block(c, now, c->cur_pid))
		return;
	ltt_close_block(c, now, LTT_BLOCK_F_FINAL);
	c->snap_last = c->next_seq - 1;
	WRITE_ONCE(c->snap, true);
}

/**
 * ltt_buffers_snapshot() - take a flight-recorder snapshot
 * @ch: a channel tracing in overwrite mode
 *
 * Every CPU closes its open block with the FINAL flag; read() then
 * returns each CPU's blocks, oldest first, up to that one, while the CPUs
 * go on writing into the buffers the reader frees (losing events, counted
 * as lost, while a CPU's ring is still held). A restricted session's
 * snapshot leaves out the CPUs it may not disturb (ltt_cpu_disturbable()):
 * they get no IPI, and their rings stay the writer's. Process context,
 * session lock held.
 *
 * Return: 0, or -EBUSY while the previous snapshot is not all read.
 */
int ltt_buffers_snapshot(struct ltt_chan *ch)
{
	unsigned long flags;
	unsigned int cpu;

	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(ch, cpu);

		if (c && READ_ONCE(c->snap))
			return -EBUSY;
	}
	cpus_read_lock();
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(ch, cpu);

		if (!c || !ltt_cpu_disturbable(ch, cpu))
			continue;
		if (cpu_online(cpu)) {
			smp_call_function_single(cpu, ltt_snapshot_cpu, c, 1);
		} else {
			local_irq_save(flags);
			ltt_snapshot_cpu(c);
			local_irq_restore(flags);
		}
	}
	cpus_read_unlock();
	return 0;
}

/**
 * ltt_buffers_reset() - empty every buffer and zero every counter
 * @ch: the channel
 * @start: timestamp no record of the new trace may precede (the anchor)
 *
 * Process context, with no event path running (callback unregistered or
 * never registered, heartbeats stopped).
 */
void ltt_buffers_reset(struct ltt_chan *ch, u64 start)
{
	unsigned int cpu;

	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(ch, cpu);

		if (!c)
			continue;
		c->buf[0].state = LTT_BUF_FREE;
		c->buf[1].state = LTT_BUF_FREE;
		c->wr = -1;
		c->data = NULL;
		c->off = 0;
		c->end = ch->size - LTT_HB_REC - LTT_END_REC;
		c->events = 0;
		c->last = start;
		c->last_ip = 0;
		c->next_seq = 0;
		c->lost = 0;
		c->first_lost = 0;
		c->lost_total = 0;
		c->recorded = 0;
		c->cur_pid = 0;
		c->final_pending = false;
		c->overwritten = 0;
		c->snap = false;
		atomic_long_set(&c->nmi_lost, 0);
		atomic64_set(&c->nmi_first, 0);
	}
}

/**
 * ltt_buffers_free() - free every CPU's buffers
 * @ch: the channel
 *
 * Process context, with no event path and no reader running.
 */
void ltt_buffers_free(struct ltt_chan *ch)
{
	unsigned int cpu;
	int i;

	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(ch, cpu);

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
 * @ch: the channel
 * @size: bytes per buffer, LTT_BUFFER_MIN..LTT_BUFFER_MAX, multiple of 8
 *
 * Process context, with no event path and no reader running. Buffers of
 * the right size are kept from the previous trace. The new buffers are
 * all allocated before the old ones are freed, so that on failure the old
 * buffers, their blocks and run.buffer_size are left exactly as they
 * were: no block ever points at a freed buffer.
 *
 * Return: 0 or -ENOMEM (then nothing changed).
 */
int ltt_buffers_alloc(struct ltt_chan *ch, u32 size)
{
	unsigned int cpu;
	u64 total = 0;
	int i;

	if (ch->size == size &&
	    per_cpu_ptr(ch->cpus, cpumask_first(cpu_possible_mask))->buf[0].data)
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
		struct ltt_cpu *c = ltt_cpu_state(ch, cpu);

		if (!c)
			continue;
		for (i = 0; i < 2; i++) {
			/*
			 * A size the machine cannot afford is -ENOMEM, no
			 * splat. Charged to the caller's memory cgroup.
			 */
			c->spare[i] = kvzalloc_node(size,
						    GFP_KERNEL_ACCOUNT |
							    __GFP_NOWARN,
						    cpu_to_node(cpu));
			if (!c->spare[i])
				goto err_free_spares;
		}
	}
	ltt_buffers_free(ch);
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(ch, cpu);

		if (!c)
			continue;
		for (i = 0; i < 2; i++) {
			c->buf[i].data = c->spare[i];
			c->spare[i] = NULL;
		}
	}
	ch->size = size;
	return 0;

err_free_spares:
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(ch, cpu);

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
 * ltt_chan_init() - allocate and initialize @ch's per-CPU state
 * @ch: a new channel, zeroed
 * @notify: what a block becoming READY queues (as irq_work: it wakes the
 *          reader)
 *
 * Return: 0 or -ENOMEM. The buffers themselves come with
 * ltt_buffers_alloc().
 */
int ltt_chan_init(struct ltt_chan *ch, void (*notify)(struct irq_work *))
{
	unsigned int cpu;

	init_irq_work(&ch->notify, notify);
	ch->cpus = alloc_percpu_gfp(struct ltt_cpu, GFP_KERNEL_ACCOUNT);
	if (!ch->cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct ltt_cpu *c = ltt_cpu_state(ch, cpu);

		c->chan = ch;
		c->cpu = cpu;
		c->wr = -1;
		/* Hard: a writer, it expires with interrupts off on RT too. */
		ltt_hrtimer_setup(&c->heartbeat, ltt_heartbeat_fn,
				  HRTIMER_MODE_REL_PINNED_HARD);
	}
	return 0;
}

/**
 * ltt_chan_destroy() - free @ch's buffers and per-CPU state
 * @ch: a channel no event path and no reader can reach any more
 */
void ltt_chan_destroy(struct ltt_chan *ch)
{
	if (!ch->cpus)
		return;
	ltt_buffers_free(ch);
	free_percpu(ch->cpus);
	ch->cpus = NULL;
}
