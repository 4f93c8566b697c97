/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ltt trace module, buffer layer: the fast-path writer, static inline so
 * that the event layer's callback inlines it (as lttng-modules shares its
 * ring buffer's fast path through frontend_api.h). ltt_write() stores one
 * record on the current CPU: an open block, a delta that fits 27 bits and
 * a record that fits take no call at all; everything else goes to
 * ltt_write_slow() in ltt_buffer.c, which owns the blocks. The record
 * encodings are include/ltt/format.h's; the protocol, room and lost-event
 * rules are described at the top of ltt_buffer.c.
 */
#ifndef LTT_WRITE_H
#define LTT_WRITE_H

#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/irqflags.h>
#include <linux/string.h>

#include "ltt_buffer.h"

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


/*
 * ltt_write_slow() returns LTT_W_NOTIFY when the caller must notify the
 * reader (a block became READY), with LTT_W_STORED when the record was
 * written (a value, not a pointer: the fast path keeps its flag in a
 * register).
 */
#define LTT_W_NOTIFY 0x1
#define LTT_W_STORED 0x2
unsigned int ltt_write_slow(struct ltt_cpu *c, u64 now, u8 event, u8 subtype,
			    const void *details, u16 size, bool counted,
			    struct task_struct *task);
void ltt_drop(struct ltt_cpu *c);

/*
 * Store one record on the current CPU. The fast path: an open block, a
 * delta that fits 27 bits, a compact record (or an EXT one) that fits.
 * A CPU that is not traced (id >= ltt_ncpus) has no open block: its
 * events take the slow path, which ignores them. Return true when the
 * record was stored.
 */
static __always_inline bool ltt_write(struct ltt_chan *ch, u8 event,
				      u8 subtype, const void *details,
				      u16 size, bool counted,
				      struct task_struct *task)
{
	struct ltt_cpu *c = this_cpu_ptr(ch->cpus);
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
	now = ltt_clock(ch);
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
		irq_work_queue(&ch->notify);
	return stored;
}

#endif /* LTT_WRITE_H */
