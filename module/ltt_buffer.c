// SPDX-License-Identifier: GPL-2.0
/*
 * ltt per-CPU double buffers and block framing (format version 2).
 *
 * Buffer protocol
 * ---------------
 *
 * Every session (ltt_main.c) has, for every CPU, two buffers of
 * run.buffer_size bytes, each able to hold exactly one block (docs/trace-format.md section 2.3). Events are
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
 * more), the heartbeat timers are cancelled and the test-mode emitters
 * are done; user events run under the device lock, as STOP does. After
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
 * The event path (ltt_log() and everything it calls, the heartbeat timer
 * and the module's callback) is notrace and NOKPROBE: a function tracer
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

#include "ltt_tracer.h"

/* @s's state of a traced CPU, NULL for ids that are not possible CPUs. */
static struct ltt_cpu *ltt_cpu_state(struct ltt_session *s, unsigned int cpu)
{
	return cpu_possible(cpu) ? per_cpu_ptr(s->cpus, cpu) : NULL;
}

/* Second word of an EXT record. */
static __always_inline u32 ltt_ext_word(u8 event, u8 subtype, u32 rsize)
{
	return event | (u32)subtype << 8 | rsize << 16;
}

/* Write an EXT record of @rsize bytes at @p; @size bytes of details. */
static __always_inline void ltt_put_ext(u32 *p, u32 delta, u8 event,
					u8 subtype, const void *details,
					u16 size, u32 rsize)
{
	p[0] = LTT_LONG_WORD(LTT_CODE_EXT, delta);
	p[1] = ltt_ext_word(event, subtype, rsize);
	if (size) {
		/* Zero the last 4-byte unit first: the details may end in it. */
		p[rsize / 4 - 1] = 0;
		memcpy(p + 2, details, size);
	}
}

/* Write a HEARTBEAT at @p: its own time whole, delta 0, after a zero word. */
static __always_inline void ltt_put_hb(u32 *p, u64 now)
{
	p[0] = LTT_LONG_WORD(LTT_CODE_HEARTBEAT, 0);
	p[1] = 0;
	put_unaligned(now, (u64 *)(p + 2));
}

static __always_inline void ltt_put_u64(u32 *p, u64 v)
{
	put_unaligned(v, (u64 *)p);
}

/*
 * ltt_encode() for the events other than system call entry and exit:
 * the compact code when every field fits, else 0 (an EXT record).
 */
static __always_inline u32 ltt_encode_other(u32 *p, u64 now, u32 delta,
					    bool shrt, u8 event, u8 subtype,
					    const void *details, u16 size)
{
	switch (event) {
	case LTT_EV_HEARTBEAT:
		ltt_put_hb(p, now);
		return LTT_HB_REC;
	case LTT_EV_TRAP_EXIT:
		p[0] = LTT_LONG_WORD(LTT_CODE_TRAP_EXIT, delta);
		return 4;
	case LTT_EV_IRQ_EXIT:
		p[0] = LTT_LONG_WORD(LTT_CODE_IRQ_EXIT, delta);
		return 4;
	case LTT_EV_KERNEL_TIMER:
		p[0] = LTT_LONG_WORD(LTT_CODE_KERNEL_TIMER, delta);
		return 4;
	case LTT_EV_TRAP_ENTRY: {
		const struct ltt_ev_trap_entry *e = details;

		if (size < sizeof(*e) || subtype || e->trap > 0xff ||
		    e->error_code >> LTT_TRAP_ERROR_BITS)
			return 0;
		p[0] = LTT_LONG_WORD(LTT_CODE_TRAP_ENTRY, delta);
		p[1] = e->trap | e->error_code << 8;
		ltt_put_u64(p + 2, e->ip);
		ltt_put_u64(p + 4, e->address);
		return 24;
	}
	case LTT_EV_IRQ_ENTRY: {
		const struct ltt_ev_irq_entry *e = details;

		if (size < sizeof(*e) || subtype ||
		    e->irq >> LTT_IRQ_NUMBER_BITS || e->flags > 0xff)
			return 0;
		p[0] = LTT_LONG_WORD(LTT_CODE_IRQ_ENTRY, delta);
		p[1] = e->irq | e->flags << 24;
		return 8;
	}
	case LTT_EV_SCHEDCHANGE: {
		const struct ltt_ev_schedchange *e = details;

		if (size < sizeof(*e) || subtype || e->reserved ||
		    (u32)e->in >> LTT_SCHED_PID_BITS ||
		    (u32)e->out >> LTT_SCHED_PID_BITS ||
		    e->out_state >> LTT_SCHED_STATE_BITS)
			return 0;
		p[0] = LTT_LONG_WORD(LTT_CODE_SCHED, delta);
		ltt_put_u64(p + 1, (u64)e->in | (u64)e->out << 22 |
					   (u64)e->out_state << 44);
		return 12;
	}
	case LTT_EV_SOFT_IRQ: {
		const struct ltt_ev_soft_irq *e = details;

		if (size < sizeof(*e) || !shrt || e->id > LTT_SHORT_ARG_MAX ||
		    subtype > LTT_SOFTIRQ_EXIT)
			return 0;
		p[0] = LTT_SHORT_WORD(subtype == LTT_SOFTIRQ_ENTRY ?
					      LTT_CODE_SOFTIRQ_ENTRY :
					      LTT_CODE_SOFTIRQ_EXIT,
				      e->id, delta);
		return 4;
	}
	case LTT_EV_PROCESS: {
		const struct ltt_ev_process *e = details;

		if (size < sizeof(*e) || subtype != LTT_PROCESS_WAKEUP ||
		    e->reserved || e->pid < 0 || e->arg > U32_MAX)
			return 0;
		p[0] = LTT_LONG_WORD(LTT_CODE_WAKEUP, delta);
		p[1] = e->pid;
		p[2] = (u32)e->arg;
		return 12;
	}
	case LTT_EV_FILE_SYSTEM: {
		const struct ltt_ev_file_system *e = details;

		if (size != LTT_EV_FS_FIXED || e->aux)
			return 0;
		if (subtype == LTT_FS_CLOSE && !e->arg) {
			p[0] = LTT_LONG_WORD(LTT_CODE_FS_CLOSE, delta);
			p[1] = e->fd;
			return 8;
		}
		if ((subtype != LTT_FS_READ && subtype != LTT_FS_WRITE) ||
		    e->arg != (s32)e->arg)
			return 0;
		p[0] = LTT_LONG_WORD(subtype == LTT_FS_READ ?
					     LTT_CODE_FS_READ :
					     LTT_CODE_FS_WRITE,
				     delta);
		p[1] = e->fd;
		p[2] = (u32)e->arg;
		return 12;
	}
	case LTT_EV_MEMORY: {
		const struct ltt_ev_memory *e = details;

		if (size < sizeof(*e) || subtype > LTT_MEM_PAGE_FREE ||
		    e->address & LTT_PAGE_ORDER_MASK ||
		    e->arg > LTT_PAGE_ORDER_MASK)
			return 0;
		p[0] = LTT_LONG_WORD(subtype == LTT_MEM_PAGE_ALLOC ?
					     LTT_CODE_PAGE_ALLOC :
					     LTT_CODE_PAGE_FREE,
				     delta);
		ltt_put_u64(p + 1, e->address | e->arg);
		return 12;
	}
	}
	return 0;
}

/*
 * Encode the event as a compact record at @p, @delta clock units after
 * the previous record of the block. Return the record's size, or 0 (and
 * nothing written) when it takes an EXT record. @size is what the caller
 * recorded of @details: 0 when the event's details are masked.
 */
static __always_inline u32 ltt_encode(const struct ltt_cpu *c, u32 *p,
				      u64 now, u32 delta, u8 event,
				      u8 subtype, const void *details,
				      u16 size)
{
	bool shrt = delta <= LTT_SHORT_DELTA_MAX;

	if (event == LTT_EV_SYSCALL_ENTRY) {
		const struct ltt_ev_syscall_entry *e = details;
		s64 off;

		if (size < sizeof(*e) || subtype || e->reserved)
			return 0;
		if (e->ip == c->last_ip) {
			if (e->nr <= LTT_SHORT_ARG_MAX && shrt) {
				p[0] = LTT_SHORT_WORD(LTT_CODE_SYS_ENTRY_SHORT,
						      e->nr, delta);
				return 4;
			}
			p[0] = LTT_LONG_WORD(LTT_CODE_SYS_ENTRY_SAME, delta);
			p[1] = e->nr;
			return 8;
		}
		off = e->ip - c->last_ip;
		if (off == (s32)off) {
			p[0] = LTT_LONG_WORD(LTT_CODE_SYS_ENTRY_NEAR, delta);
			p[1] = e->nr;
			p[2] = (u32)off;
			return 12;
		}
		p[0] = LTT_LONG_WORD(LTT_CODE_SYS_ENTRY, delta);
		p[1] = e->nr;
		ltt_put_u64(p + 2, e->ip);
		return 16;
	}
	if (event == LTT_EV_SYSCALL_EXIT) {
		const struct ltt_ev_syscall_exit *e = details;

		if (size < sizeof(*e) || subtype)
			return 0;
		if (e->ret >= -256 && e->ret <= 255 && shrt) {
			p[0] = LTT_SHORT_WORD(LTT_CODE_SYS_EXIT_SHORT, e->ret,
					      delta);
			return 4;
		}
		if (e->ret == (s32)e->ret) {
			p[0] = LTT_LONG_WORD(LTT_CODE_SYS_EXIT_MID, delta);
			p[1] = (u32)e->ret;
			return 8;
		}
		p[0] = LTT_LONG_WORD(LTT_CODE_SYS_EXIT, delta);
		ltt_put_u64(p + 1, e->ret);
		return 12;
	}
	return ltt_encode_other(p, now, delta, shrt, event, subtype, details,
				size);
}

/*
 * Commit the record of @rsize bytes written at the write offset: advance
 * the offset, count it, move prev (and last_ip for a system call entry
 * that carries its ip). @ext: an EXT record, whose details may be cut
 * short; a compact system call entry always has its whole details.
 */
static __always_inline void ltt_commit(struct ltt_cpu *c, u32 rsize, u64 now,
				       u8 event, const void *details,
				       u16 size, bool ext)
{
	c->off += rsize;
	c->events++;
	c->last = now;
	if (event == LTT_EV_SYSCALL_ENTRY && (!ext || size >= sizeof(u64)))
		c->last_ip = ((const struct ltt_ev_syscall_entry *)details)->ip;
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
	if (!c->sess->run.overwrite || smp_load_acquire(&c->snap))
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
			 c->sess->run.buffer_size)) {
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
 * The pid a block of @c's session may show for @t: 0 (as for the idle
 * task) when the session is restricted and @t is not its owner's.
 */
static s32 notrace ltt_block_pid(struct ltt_cpu *c, struct task_struct *t)
{
	const struct ltt_run *r = &c->sess->run;

	if ((r->filters & LTT_FILTER_OWNER) && !ltt_task_owned(r, t))
		return 0;
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
#define LTT_W_NOTIFY 0x1
#define LTT_W_STORED 0x2
static noinline unsigned int notrace ltt_write_slow(struct ltt_cpu *c,
						    u64 now, u8 event,
						    u8 subtype,
						    const void *details,
						    u16 size, bool counted,
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
static void notrace ltt_drop(struct ltt_cpu *c)
{
	atomic64_cmpxchg(&c->nmi_first, 0, ltt_clock(&c->sess->run));
	atomic_long_inc(&c->nmi_lost);
}
NOKPROBE_SYMBOL(ltt_drop);

/*
 * Store one record on the current CPU. The fast path: an open block, a
 * delta that fits 27 bits, a compact record (or an EXT one) that fits.
 * A CPU that is not traced (id >= ltt_ncpus) has no open block: its
 * events take the slow path, which ignores them. Return true when the
 * record was stored.
 */
static __always_inline bool ltt_write(struct ltt_session *s, u8 event,
				      u8 subtype, const void *details,
				      u16 size, bool counted,
				      struct task_struct *task)
{
	struct ltt_cpu *c = this_cpu_ptr(s->cpus);
	unsigned long flags;
	bool notify = false, stored = true;
	unsigned int res;
	u32 rsize, *p;
	u64 now, delta;

	if (unlikely(in_nmi())) {
		if (counted)
			ltt_drop(c);
		return false;
	}
	local_irq_save(flags);
	if (unlikely(c->nesting)) {
		local_irq_restore(flags);
		if (counted)
			ltt_drop(c);
		return false;
	}
	c->nesting = 1;
	now = ltt_clock(&s->run);
	if (unlikely(now < c->last))
		now = c->last;
	delta = now - c->last;
	if (unlikely(c->wr < 0 || delta > LTT_LONG_DELTA_MAX))
		goto slow;
	p = c->data + c->off;
	rsize = ltt_encode(c, p, now, delta, event, subtype, details, size);
	if (likely(rsize)) {
		if (unlikely(c->off + rsize > c->end))
			goto slow;
		ltt_commit(c, rsize, now, event, details, size, false);
	} else {
		rsize = LTT_EXT_HDR + ALIGN(size, LTT_V2_RECORD_ALIGN);
		if (unlikely(c->off + rsize > c->end))
			goto slow;
		ltt_put_ext(p, delta, event, subtype, details, size, rsize);
		ltt_commit(c, rsize, now, event, details, size, true);
	}
	/*
	 * A plain increment (one instruction): GET_LOST reads it from other
	 * CPUs as a snapshot; a 64-bit store is never torn on x86-64.
	 */
	if (counted)
		c->recorded++;
	goto out;
slow:
	res = ltt_write_slow(c, now, event, subtype, details, size, counted,
			     task);
	notify = res & LTT_W_NOTIFY;
	stored = res & LTT_W_STORED;
out:
	c->nesting = 0;
	local_irq_restore(flags);
	if (unlikely(notify))
		irq_work_queue(&s->notify);
	return stored;
}

/**
 * ltt_log_session() - store one event of @s on the current CPU
 * @s:        a tracing session
 * @event:    enum ltt_event_id
 * @subtype:  the event's subtype
 * @details:  detail bytes (may be NULL when @size is 0)
 * @size:     valid bytes at @details, at most LTT_DETAILS_MAX
 *
 * No mask or filter applies. Must be called with preemption disabled;
 * any context, NMI included. The event is recorded, or counted as lost:
 * never both, never neither.
 */
void notrace ltt_log_session(struct ltt_session *s, u8 event, u8 subtype,
			     const void *details, u16 size)
{
	ltt_write(s, event, subtype, details, size, true, NULL);
}
NOKPROBE_SYMBOL(ltt_log_session);

/**
 * ltt_log() - store one event on the current CPU in every tracing session
 * @event:    enum ltt_event_id
 * @subtype:  the event's subtype
 * @details:  detail bytes (may be NULL when @size is 0)
 * @size:     valid bytes at @details, at most LTT_DETAILS_MAX
 *
 * As ltt_log_session(), for each session that traces now. Must be called
 * with preemption disabled.
 */
void notrace ltt_log(u8 event, u8 subtype, const void *details, u16 size)
{
	struct ltt_live *live = rcu_dereference_sched(ltt_live);
	unsigned int i;

	if (!live)
		return;
	for (i = 0; i < live->n; i++)
		ltt_write(live->s[i], event, subtype, details, size, true,
			  NULL);
}
NOKPROBE_SYMBOL(ltt_log);

/* The details a restricted session may need to rewrite. */
union ltt_redacted {
	struct ltt_ev_syscall_entry sys;
	struct ltt_ev_trap_entry trap;
	struct ltt_ev_schedchange sched;
	struct ltt_ev_soft_irq soft;
	struct ltt_ev_memory mem;
	struct ltt_ev_lock lock;
};

/* Is @addr outside user space, i.e. a kernel address? */
static __always_inline bool ltt_kernel_addr(u64 addr)
{
	return addr >= TASK_SIZE_MAX;
}

/*
 * May the restricted session of @r see this event, and how? The rules are
 * module/README.md's "Who may open /dev/tracer": an event that concerns
 * another task (@task) needs that task to be the owner's; any other one
 * needs current to be the owner's, and to happen in task context, or be
 * an interrupt, trap or timer interrupting the owner's task. A
 * schedchange passes when either side is the owner's, the other side
 * shown as pid 0. Kernel addresses (a LOCK's lock among them) are zeroed,
 * kthread creation and page allocations dropped. *@details may be pointed
 * at @buf, a rewritten copy.
 */
static bool notrace ltt_restrict(const struct ltt_run *r, u8 event,
				 u8 subtype, const void **details, u16 size,
				 struct task_struct *task,
				 union ltt_redacted *buf)
{
	bool cur = ltt_task_owned(r, current);

	if (event == LTT_EV_SCHEDCHANGE) {
		bool in = task && ltt_task_owned(r, task);

		if (!cur && !in)
			return false;
		if ((cur && in) || size < sizeof(buf->sched))
			return true;
		memcpy(&buf->sched, *details, sizeof(buf->sched));
		if (!cur) {
			buf->sched.out = 0;
			buf->sched.out_state = 0;
		}
		if (!in)
			buf->sched.in = 0;
		*details = buf;
		return true;
	}
	if (task && task != current) {
		if (!ltt_task_owned(r, task))
			return false;
	} else if (!cur) {
		return false;
	} else if (in_interrupt()) {
		switch (event) {
		case LTT_EV_IRQ_ENTRY:
		case LTT_EV_IRQ_EXIT:
		case LTT_EV_SOFT_IRQ:
		case LTT_EV_KERNEL_TIMER:
		case LTT_EV_TRAP_ENTRY:
		case LTT_EV_TRAP_EXIT:
			break;
		default:
			return false;
		}
	}
	switch (event) {
	case LTT_EV_SYSCALL_ENTRY:
		if (size >= sizeof(u64) &&
		    ltt_kernel_addr(((const struct ltt_ev_syscall_entry *)
					     *details)->ip)) {
			memcpy(&buf->sys, *details, min_t(u16, size,
							  sizeof(buf->sys)));
			buf->sys.ip = 0;
			*details = buf;
		}
		break;
	case LTT_EV_TRAP_ENTRY:
		if (size >= sizeof(buf->trap)) {
			memcpy(&buf->trap, *details, sizeof(buf->trap));
			if (ltt_kernel_addr(buf->trap.ip))
				buf->trap.ip = 0;
			if (ltt_kernel_addr(buf->trap.address))
				buf->trap.address = 0;
			*details = buf;
		}
		break;
	case LTT_EV_SOFT_IRQ:
		if (subtype >= LTT_TASKLET_ENTRY && size >= sizeof(buf->soft)) {
			buf->soft.id = 0;
			*details = buf;
		}
		break;
	case LTT_EV_PROCESS:
		if (subtype == LTT_PROCESS_KTHREAD)
			return false;
		break;
	case LTT_EV_MEMORY:
		if (subtype <= LTT_MEM_PAGE_FREE)
			return false;
		if (size >= sizeof(buf->mem)) {
			memcpy(&buf->mem, *details, sizeof(buf->mem));
			buf->mem.address = 0;
			*details = buf;
		}
		break;
	case LTT_EV_NETWORK:
		return !in_interrupt();
	case LTT_EV_STACK:
		/* A kernel stack is nothing but kernel addresses. */
		return subtype != LTT_STACK_KERNEL;
	case LTT_EV_LOCK:
		/* The lock's address is a kernel address. */
		if (size >= sizeof(buf->lock)) {
			memcpy(&buf->lock, *details, sizeof(buf->lock));
			buf->lock.lock = 0;
			*details = buf;
		}
		break;
	}
	return true;
}
NOKPROBE_SYMBOL(ltt_restrict);

/*
 * Before an event of @s (LTT_FILTER_CONTEXT): if the task current on this
 * CPU is not the one the trace shows, a CONTEXT record naming it
 * (docs/trace-format.md, CONTEXT). Not counted: a CONTEXT record that
 * cannot be stored is tried again at the next event, and the next block
 * says the task in its header. For a restricted session a task it may
 * not see is pid 0; where the session records scheduling changes, a
 * change there is one of ownership (OWNED, HIDDEN), not a switch.
 */
static noinline void notrace ltt_context(struct ltt_session *s,
					 struct ltt_cpu *c, s32 pid)
{
	const struct ltt_run *r = &s->run;
	struct ltt_ev_context ctx = { .pid = pid };
	u8 sub = LTT_CONTEXT_SWITCH;

	if (pid)
		ctx.tgid = task_tgid_nr(current);
	if ((r->filters & LTT_FILTER_OWNER) &&
	    (r->event_mask & LTT_EV_BIT(LTT_EV_SCHEDCHANGE)))
		sub = pid ? LTT_CONTEXT_OWNED : LTT_CONTEXT_HIDDEN;
	if (ltt_write(s, LTT_EV_CONTEXT, sub, &ctx, sizeof(ctx), false, NULL))
		WRITE_ONCE(c->ctx_pid, pid);
}
NOKPROBE_SYMBOL(ltt_context);

/*
 * The task an event of @s shows current on this CPU, and the CONTEXT
 * record when the trace shows another (ltt_context()). A schedchange says
 * it itself: the trace shows its incoming task (@details, as stored)
 * after it, if its details are recorded.
 */
static __always_inline void ltt_context_before(struct ltt_session *s, u8 event)
{
	struct ltt_cpu *c = this_cpu_ptr(s->cpus);
	const struct ltt_run *r = &s->run;
	s32 pid = task_pid_nr(current);

	if (event == LTT_EV_SCHEDCHANGE)
		return;
	if (pid && (r->filters & LTT_FILTER_OWNER) &&
	    !ltt_task_owned(r, current))
		pid = 0;
	if (unlikely(READ_ONCE(c->ctx_pid) != pid))
		ltt_context(s, c, pid);
}

static __always_inline void ltt_context_after(struct ltt_session *s, u8 event,
					      const void *details, u16 size)
{
	if (event == LTT_EV_SCHEDCHANGE && size >= sizeof(struct ltt_ev_schedchange) &&
	    s->run.size_max[LTT_EV_SCHEDCHANGE])
		WRITE_ONCE(this_cpu_ptr(s->cpus)->ctx_pid,
			   ((const struct ltt_ev_schedchange *)details)->in);
}

/*
 * An event of @s followed by its VARS record (ltt_vars.c), with interrupts
 * off across both so that no other record of the CPU comes between them.
 * @size bytes at @details are what the variables are taken from,
 * @stored_size of them are stored.
 */
static noinline void notrace ltt_write_vars(struct ltt_session *s, u8 event,
					    u8 subtype, const void *details,
					    u16 size, u16 stored_size,
					    struct task_struct *task)
{
	struct ltt_vars_cpu *vc;
	struct ltt_ev_vars v;
	unsigned long flags;
	u8 nargs;
	u16 vsize;

	local_irq_save(flags);
	if (ltt_write(s, event, subtype, details, stored_size, true, task)) {
		vc = &this_cpu_ptr(s->cpus)->vars;
		vsize = ltt_vars_compose(vc, &s->run, event, details,
					 size, task, &v, &nargs);
		if (vsize &&
		    !ltt_write(s, LTT_EV_VARS, nargs, &v, vsize, false, NULL))
			ltt_vars_cpu_reset(vc);
	}
	local_irq_restore(flags);
}
NOKPROBE_SYMBOL(ltt_write_vars);

/*
 * The path of a session with filters or variables: the task filters, for
 * a restricted session its owner rules and redactions. The VARS record
 * (@vars and the session's vars_mask) reads current's state, so a
 * restricted session gets one only after an event of its owner's current
 * task; its PREV and NEXT come from the redacted schedchange.
 */
static noinline void notrace ltt_callback_filtered(struct ltt_session *s,
						   u8 event, u8 subtype,
						   const void *details,
						   u16 size,
						   struct task_struct *task,
						   bool vars)
{
	const struct ltt_run *r = &s->run;
	union ltt_redacted buf;
	u16 stored = min(size, r->size_max[event]);

	if ((r->filters &
	     ~(LTT_FILTER_OWNER | LTT_FILTER_VARS | LTT_FILTER_CONTEXT)) &&
	    !ltt_task_match(r, current) &&
	    !(task && ltt_task_match(r, task)))
		return;
	if (r->filters & LTT_FILTER_OWNER) {
		if (!ltt_restrict(r, event, subtype, &details, size, task,
				  &buf))
			return;
		if (vars && r->vars_mask && !ltt_task_owned(r, current))
			vars = false;
	}
	if (r->filters & LTT_FILTER_CONTEXT)
		ltt_context_before(s, event);
	if (vars && r->vars_mask)
		ltt_write_vars(s, event, subtype, details, size, stored, task);
	else
		ltt_write(s, event, subtype, details, stored, true, task);
	if (r->filters & LTT_FILTER_CONTEXT)
		ltt_context_after(s, event, details, size);
}
NOKPROBE_SYMBOL(ltt_callback_filtered);

/*
 * The path of a session whose only flag is LTT_FILTER_CONTEXT (no
 * scheduling changes recorded, nothing filtered): the write with the
 * context check around it, none of ltt_callback_filtered()'s tests.
 */
static noinline void notrace ltt_callback_context(struct ltt_session *s,
						  u8 event, u8 subtype,
						  const void *details,
						  u16 size,
						  struct task_struct *task)
{
	ltt_context_before(s, event);
	ltt_write(s, event, subtype, details, min(size, s->run.size_max[event]),
		  true, task);
	ltt_context_after(s, event, details, size);
}
NOKPROBE_SYMBOL(ltt_callback_context);

/*
 * One tracing session's share of an event: its mask, filters, writer, and
 * with @vars the VARS record its vars_mask asks for (LTT_FILTER_VARS
 * sends it to ltt_callback_filtered()).
 */
static __always_inline void ltt_session_event(struct ltt_session *s, u8 event,
					      u8 subtype,
					      const void *details, u16 size,
					      struct task_struct *task,
					      bool vars)
{
	if (!(s->run.event_mask & BIT_ULL(event)))
		return;
	if (unlikely(s->run.filters)) {
		if (s->run.filters == LTT_FILTER_CONTEXT)
			ltt_callback_context(s, event, subtype, details, size,
					     task);
		else
			ltt_callback_filtered(s, event, subtype, details, size,
					      task, vars);
		return;
	}
	ltt_write(s, event, subtype, details, min(size, s->run.size_max[event]),
		  true, task);
}

/* The walk when more than one session traces. */
static noinline void notrace ltt_callback_many(struct ltt_live *live,
					       u8 event, u8 subtype,
					       const void *details, u16 size,
					       struct task_struct *task,
					       bool vars)
{
	unsigned int i;

	for (i = 0; i < live->n; i++)
		ltt_session_event(live->s[i], event, subtype, details, size,
				  task, vars);
}
NOKPROBE_SYMBOL(ltt_callback_many);

/*
 * Hand an event to every tracing session whose mask and filters take it.
 * The writer is inlined for one session without filters, the common
 * case; several sessions take ltt_callback_many().
 */
static __always_inline void ltt_dispatch(u8 event, u8 subtype,
					 const void *details, u16 size,
					 struct task_struct *task, bool vars)
{
	struct ltt_session *s;
	struct ltt_live *live;
	u64 mask;

	if (event >= 64)
		return;
	/*
	 * Pairs with the sessions' publication (rcu_assign_pointer). The one
	 * tracing session, NULL when there are several (or, for a moment,
	 * none). It is published and withdrawn with ltt_live, so its own mask
	 * is the only test it needs.
	 */
	s = rcu_dereference_sched(ltt_solo);
	if (likely(s)) {
		ltt_session_event(s, event, subtype, details, size, task, vars);
		return;
	}
	/* The union of the tracing sessions' masks, 0 when none traces. */
	mask = READ_ONCE(ltt_live_mask);
	if (!(mask & BIT_ULL(event)))
		return;
	live = rcu_dereference_sched(ltt_live);
	if (live)
		ltt_callback_many(live, event, subtype, details, size, task,
				  vars);
}

/**
 * ltt_callback_restricted() - an event only restricted sessions may take
 * @event:   enum ltt_event_id
 * @subtype: the event's subtype
 * @details: the detail structure
 * @size:    valid bytes at @details
 *
 * Preemption disabled. As ltt_callback() without the MAP and trigger
 * tests, for the tracing restricted sessions only: what a user without
 * privilege logs (USER_EVENT) never lands in a privileged session.
 */
void notrace ltt_callback_restricted(u8 event, u8 subtype,
				     const void *details, u16 size)
{
	struct ltt_live *live;
	unsigned int i;

	if (event >= 64 || !(READ_ONCE(ltt_live_mask) & BIT_ULL(event)))
		return;
	live = rcu_dereference_sched(ltt_live);
	for (i = 0; live && i < live->n; i++)
		if (live->s[i]->run.filters & LTT_FILTER_OWNER)
			ltt_session_event(live->s[i], event, subtype, details,
					  size, NULL, true);
}
NOKPROBE_SYMBOL(ltt_callback_restricted);

/**
 * ltt_callback() - the facility's callback: mask, filter, store one event
 * @event:   enum ltt_event_id
 * @subtype: the event's subtype
 * @details: the detail structure (NULL when @size is 0)
 * @size:    valid bytes at @details
 * @task:    the task the event concerns (docs/kernel-facility.md)
 *
 * Preemption disabled, any context. Every tracing session whose mask and
 * filters take the event gets it in its own buffers, followed by a VARS
 * record when the session records variables.
 */
void notrace ltt_callback(u8 event, u8 subtype, const void *details, u16 size,
			  struct task_struct *task)
{
	/*
	 * MAP records, when a session selects them (ltt_map.c). The key is
	 * patched in only while one does: otherwise this costs one nop.
	 */
	if (static_branch_unlikely(&ltt_map_key) &&
	    event == LTT_EV_SYSCALL_EXIT &&
	    (READ_ONCE(ltt_live_mask) & LTT_EV_BIT(LTT_EV_MAP)))
		ltt_map_syscall_exit();
	/* The flight recorder's exit-signal triggers, when one has some. */
	if (static_branch_unlikely(&ltt_exit_key) &&
	    event == LTT_EV_PROCESS && subtype == LTT_PROCESS_EXIT)
		ltt_exit_trigger(details, size, task);
	/* STACK records of a task that blocks, before its schedchange. */
	if (static_branch_unlikely(&ltt_stack_key) &&
	    event == LTT_EV_SCHEDCHANGE &&
	    (READ_ONCE(ltt_live_mask) & LTT_EV_BIT(LTT_EV_STACK)))
		ltt_stack_switch(details, size);
	ltt_dispatch(event, subtype, details, size, task, true);
}
NOKPROBE_SYMBOL(ltt_callback);

/**
 * ltt_log_stack() - store a STACK record of current (ltt_stack.c)
 * @subtype: enum ltt_stack_sub
 * @details: struct ltt_ev_stack, cut after its last frame
 * @size:    valid bytes at @details
 *
 * As ltt_callback() for an event of current without a concerned task,
 * without VARS records: every session's masks, filters and (restricted)
 * owner rules apply.
 */
void notrace ltt_log_stack(u8 subtype, const void *details, u16 size)
{
	ltt_dispatch(LTT_EV_STACK, subtype, details, size, NULL, false);
}
NOKPROBE_SYMBOL(ltt_log_stack);

/**
 * ltt_log_extra() - store an event of ltt_extra.c's probes
 * @event:   LTT_EV_MOUNT or LTT_EV_LOCK
 * @subtype: the event's subtype
 * @details: the detail structure
 * @size:    valid bytes at @details
 *
 * As ltt_callback() for an event of current without a concerned task,
 * without VARS records: every session's masks, filters and (restricted)
 * owner rules apply.
 */
void notrace ltt_log_extra(u8 event, u8 subtype, const void *details,
			   u16 size)
{
	ltt_dispatch(event, subtype, details, size, NULL, false);
}
NOKPROBE_SYMBOL(ltt_log_extra);

/**
 * ltt_log_trace_start() - write TRACE_START as the first record of the
 * current CPU's first block
 * @s: the session
 * @ts: the record's details
 *
 * Called once by START, with preemption disabled, before the callback is
 * registered, so the block it opens is this CPU's block 0.
 */
void ltt_log_trace_start(struct ltt_session *s,
			 const struct ltt_ev_trace_start_ext *ts)
{
	ltt_write(s, LTT_EV_TRACE_START, 0, ts, sizeof(*ts), false, NULL);
}

/**
 * ltt_log_heartbeat() - write a HEARTBEAT record on the current CPU
 * @s: the session
 *
 * What the periodic timer writes; test mode writes the same through here.
 * Must be called with preemption disabled.
 */
void notrace ltt_log_heartbeat(struct ltt_session *s)
{
	ltt_write(s, LTT_EV_HEARTBEAT, 0, NULL, 0, false, NULL);
}
NOKPROBE_SYMBOL(ltt_log_heartbeat);

/**
 * ltt_test_age_base() - move the current CPU's prev 2^27 units back
 * @s: the session
 *
 * Test mode only: the CPU's next record, or the close of its open block,
 * then needs a heartbeat first, as after 2^27 clock units of idleness.
 * Must be called with preemption disabled.
 */
void ltt_test_age_base(struct ltt_session *s)
{
	struct ltt_cpu *c = this_cpu_ptr(s->cpus);
	unsigned long flags;

	if (c->cpu >= ltt_ncpus)
		return;
	local_irq_save(flags);
	if (!c->nesting && c->wr >= 0 && c->last > LTT_LONG_DELTA_MAX + 1)
		c->last -= LTT_LONG_DELTA_MAX + 1;
	local_irq_restore(flags);
}

static enum hrtimer_restart notrace ltt_heartbeat_fn(struct hrtimer *t)
{
	struct ltt_session *s = container_of(t, struct ltt_cpu, heartbeat)->sess;

	if (!READ_ONCE(s->active))
		return HRTIMER_NORESTART;
	ltt_log_heartbeat(s);
	hrtimer_forward_now(t, ns_to_ktime(s->hb_period_ns));
	return HRTIMER_RESTART;
}
NOKPROBE_SYMBOL(ltt_heartbeat_fn);

/*
 * May @s make work on @cpu that nothing there asked for (a heartbeat
 * timer, a snapshot's IPI)? A restricted session leaves nohz_full and
 * isolated CPUs (isolcpus, the housekeeping masks) alone: an unprivileged
 * user must not disturb the workload the administrator keeps there.
 */
static bool ltt_cpu_disturbable(const struct ltt_session *s, int cpu)
{
	return !s->restricted || (housekeeping_cpu(cpu, HK_TYPE_TICK) &&
				  housekeeping_cpu(cpu, HK_TYPE_DOMAIN));
}

static bool ltt_heartbeat_cond(int cpu, void *arg)
{
	return ltt_cpu_disturbable(arg, cpu);
}

static void ltt_heartbeat_start_one(void *arg)
{
	struct ltt_session *s = arg;
	struct ltt_cpu *c = this_cpu_ptr(s->cpus);

	if (c->cpu < ltt_ncpus)
		hrtimer_start(&c->heartbeat, ns_to_ktime(s->hb_period_ns),
			      HRTIMER_MODE_REL_PINNED_HARD);
}

/**
 * ltt_heartbeat_start() - start the periodic heartbeat on every online CPU
 * @s: the session
 * @period_ns: interval between heartbeats
 *
 * Process context. The heartbeat shows time passing on idle CPUs and keeps
 * deltas small; a record whose delta would overflow gets one anyway, so a
 * CPU without the timer (a restricted session's on an isolated CPU:
 * ltt_cpu_disturbable()) still writes correct deltas.
 */
void ltt_heartbeat_start(struct ltt_session *s, u64 period_ns)
{
	s->hb_period_ns = period_ns;
	on_each_cpu_cond(ltt_heartbeat_cond, ltt_heartbeat_start_one, s, 1);
}

/**
 * ltt_heartbeat_stop() - cancel the heartbeat timers and wait for them
 * @s: the session
 */
void ltt_heartbeat_stop(struct ltt_session *s)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(s->cpus, cpu)->heartbeat);
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
 * @s: the session
 * @stop: the time STOP was asked; the FINAL blocks end there (or at their
 *        last record, if that is later), not when STOP got round to them
 *
 * Called by STOP once no event can be written any more (callback
 * unregistered, heartbeats cancelled). A CPU whose two buffers both wait
 * for the reader gets its FINAL block when the reader frees one.
 */
void ltt_buffers_finish(struct ltt_session *s, u64 stop)
{
	unsigned int cpu;

	s->stop_time = stop;
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(s, cpu);

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
	if (c->sess->run.overwrite &&
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
		ltt_finish_cpu(c, c->sess->stop_time);
}

/**
 * ltt_buffers_read() - copy ready blocks of @s to user space
 * @s:     the session
 * @ubuf:  destination
 * @count: its size
 *
 * s->rr is the CPU to look at first, advanced so CPUs are served in turn.
 *
 * Copies as many whole READY blocks as fit, oldest first within a CPU.
 * Process context; the caller serializes readers against buffer freeing.
 *
 * Return: bytes copied (0: none ready), -EINVAL if the first ready block
 * is larger than @count, -EFAULT if nothing could be copied.
 */
ssize_t ltt_buffers_read(struct ltt_session *s, char __user *ubuf,
			 size_t count)
{
	unsigned int *rr = &s->rr;
	unsigned int i, n = ltt_ncpus;
	size_t done = 0;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		struct ltt_cpu *c = ltt_cpu_state(s, (*rr + i) % n);
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
		if (c->sess->run.overwrite && READ_ONCE(c->snap) &&
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
 * @s: the session
 *
 * Return: true if some CPU has a READY block (or a FINAL block to write).
 * A hint for poll and the read wait; read() itself takes the blocks.
 */
bool ltt_buffers_ready(struct ltt_session *s)
{
	unsigned int cpu;

	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(s, cpu);

		if (!c)
			continue;
		if (s->run.overwrite) {
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
 * @s: the session
 * @lc: destination; ncpus, total, per_cpu[] and recorded[] are set
 */
void ltt_buffers_lost(struct ltt_session *s, struct ltt_lost_counts *lc)
{
	unsigned int cpu;

	lc->ncpus = ltt_ncpus;
	lc->total = 0;
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(s, cpu);

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
 * @s: the session
 * @lc: destination: per_cpu[] and total count the events overwritten in
 *      overwrite mode, recorded[] as ltt_buffers_lost()
 */
void ltt_buffers_overwritten(struct ltt_session *s, struct ltt_lost_counts *lc)
{
	unsigned int cpu;

	ltt_buffers_lost(s, lc);
	lc->total = 0;
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(s, cpu);

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
	u64 now = ltt_clock(&c->sess->run);

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
 * @s: a session tracing in overwrite mode
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
int ltt_buffers_snapshot(struct ltt_session *s)
{
	unsigned long flags;
	unsigned int cpu;

	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(s, cpu);

		if (c && READ_ONCE(c->snap))
			return -EBUSY;
	}
	cpus_read_lock();
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(s, cpu);

		if (!c || !ltt_cpu_disturbable(s, cpu))
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
 * @s: the session
 * @start: timestamp no record of the new trace may precede (the anchor)
 *
 * Process context, with no event path running (callback unregistered or
 * never registered, heartbeats stopped).
 */
void ltt_buffers_reset(struct ltt_session *s, u64 start)
{
	unsigned int cpu;

	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(s, cpu);

		if (!c)
			continue;
		c->buf[0].state = LTT_BUF_FREE;
		c->buf[1].state = LTT_BUF_FREE;
		c->wr = -1;
		c->data = NULL;
		c->off = 0;
		c->end = s->run.buffer_size - LTT_HB_REC - LTT_END_REC;
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
 * @s: the session
 *
 * Process context, with no event path and no reader running.
 */
void ltt_buffers_free(struct ltt_session *s)
{
	unsigned int cpu;
	int i;

	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(s, cpu);

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
 * @s: the session
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
int ltt_buffers_alloc(struct ltt_session *s, u32 size)
{
	unsigned int cpu;
	u64 total = 0;
	int i;

	if (s->run.buffer_size == size &&
	    per_cpu_ptr(s->cpus, cpumask_first(cpu_possible_mask))->buf[0].data)
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
		struct ltt_cpu *c = ltt_cpu_state(s, cpu);

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
	ltt_buffers_free(s);
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(s, cpu);

		if (!c)
			continue;
		for (i = 0; i < 2; i++) {
			c->buf[i].data = c->spare[i];
			c->spare[i] = NULL;
		}
	}
	s->run.buffer_size = size;
	return 0;

err_free_spares:
	for (cpu = 0; cpu < ltt_ncpus; cpu++) {
		struct ltt_cpu *c = ltt_cpu_state(s, cpu);

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
 * ltt_session_buffers_init() - allocate and initialize @s's per-CPU state
 * @s: a new session
 *
 * Return: 0 or -ENOMEM. The buffers themselves come with START.
 */
int ltt_session_buffers_init(struct ltt_session *s)
{
	unsigned int cpu;

	s->cpus = alloc_percpu_gfp(struct ltt_cpu, GFP_KERNEL_ACCOUNT);
	if (!s->cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct ltt_cpu *c = ltt_cpu_state(s, cpu);

		c->sess = s;
		c->cpu = cpu;
		c->wr = -1;
		/* Hard: a writer, it expires with interrupts off on RT too. */
		ltt_hrtimer_setup(&c->heartbeat, ltt_heartbeat_fn,
				  HRTIMER_MODE_REL_PINNED_HARD);
	}
	return 0;
}

/**
 * ltt_session_buffers_destroy() - free @s's buffers and per-CPU state
 * @s: a session no event path and no reader can reach any more
 */
void ltt_session_buffers_destroy(struct ltt_session *s)
{
	if (!s->cpus)
		return;
	ltt_buffers_free(s);
	free_percpu(s->cpus);
	s->cpus = NULL;
}
