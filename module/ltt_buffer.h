/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ltt trace module, buffer layer: a channel's per-CPU double buffers,
 * block framing, the reader side and the heartbeat (ltt_buffer.c; the
 * protocol is described at its top), and the trace clock. The fast-path
 * writer that stores one record is in ltt_write.h, inlined into the
 * event path. This layer knows nothing of sessions, masks or filters:
 * its client (ltt_event.h) owns a struct ltt_chan and hands it records.
 */
#ifndef LTT_BUFFER_H
#define LTT_BUFFER_H

#include <linux/types.h>
#include <linux/spinlock.h>
#include <linux/hrtimer.h>
#include <linux/timekeeping.h>
#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/jump_label.h>
#include <linux/sched/clock.h>
#include <asm/msr.h>
#include <ltt/abi.h>
#include <ltt/format.h>
#include <ltt/module_events.h>

#include "ltt_compat.h"

struct task_struct;

/* Sizes of the structure records (EXT records), header included. */
#define LTT_EXT_HDR 8u /* header word and struct ltt_ext_header */
#define LTT_START_REC (LTT_EXT_HDR + (u32)sizeof(struct ltt_block_start))
#define LTT_END_REC (LTT_EXT_HDR + (u32)sizeof(struct ltt_block_end))
#define LTT_LOST_REC (LTT_EXT_HDR + (u32)sizeof(struct ltt_ev_lost))
#define LTT_HB_REC 16u /* LTT_CODE_HEARTBEAT: header word, zero, u64 tsc */

/* State of one buffer of a CPU's pair. */
enum ltt_buf_state {
	LTT_BUF_FREE,    /* empty, may receive the next block */
	LTT_BUF_WRITING, /* holds the CPU's open block */
	LTT_BUF_READY,   /* holds a closed block waiting for read() */
	LTT_BUF_READING, /* read() is copying it out */
};

struct ltt_buf {
	void *data;
	enum ltt_buf_state state;
	u32 len;      /* bytes of the closed block */
	u32 sequence; /* block sequence number, orders READY blocks */
	u64 rec_start; /* the CPU's recorded count when the block opened */
	u64 nrec;     /* events (counted ones) the closed block holds */
};

struct ltt_chan;

/**
 * struct ltt_cpu - one CPU's buffer pair and counters
 *
 * Written only by the CPU itself with interrupts off while a trace runs
 * (the buffer states also by the reader, see ltt_buffer.c); by STOP and
 * the reader once no event path runs any more.
 *
 * @buf:          the double buffer
 * @wr:           index in @buf of the buffer holding the open block, or -1
 * @data:         that buffer's data
 * @off:          write offset in the open block
 * @end:          the largest offset a record may end at: the buffer size
 *                less the room to close the block (a heartbeat, BLOCK_END)
 * @events:       records written in the open block so far
 * @last:         prev: the time of the last record written, the base of
 *                the next delta; later timestamps are clamped to it
 * @last_ip:      the ip of the last system call entry of the open block
 * @next_seq:     sequence number of the next block
 * @lost:         events lost since the last block was opened
 * @first_lost:   timestamp of the first of them
 * @lost_total:   events lost during the whole trace (written path)
 * @recorded:     events stored during the whole trace
 * @cur_pid:      task current on this CPU after the last event that took
 *                the slow path (see ltt_write_slow())
 * @final_pending: the FINAL block could not be written at stop (both
 *                buffers full); the reader writes it when it frees one
 * @nesting:      recursion guard, only touched with interrupts off
 * @nmi_lost:     events dropped without writing (NMI, recursion),
 *                folded into @lost when the next block opens
 * @nmi_first:    timestamp of the first of them (0: none)
 * @heartbeat:    periodic per-CPU heartbeat timer
 * @spare:        buffers being allocated for the next trace, moved to @buf
 *                only once every CPU's are allocated
 * @chan:         the channel these buffers belong to
 * @cpu:          the CPU this is
 * @overwritten:  overwrite mode: events of blocks overwritten (writer)
 * @snap:         overwrite mode: the READY blocks up to @snap_last belong
 *                to a snapshot the reader has not finished; set by the
 *                CPU itself (SNAPSHOT's IPI), cleared by the reader
 * @snap_last:    sequence of the snapshot's last (FINAL) block
 * @ctx_pid:      the task the trace shows current on this CPU: its last
 *                block's pid (ltt_chan's @task_pid), or what the client
 *                stored since (the event layer's CONTEXT records)
 */
struct ltt_cpu {
	struct ltt_buf buf[2];
	int wr;
	void *data;
	u32 off;
	u32 end;
	u32 events;
	u64 last;
	u64 last_ip;
	u32 next_seq;
	u64 lost;
	u64 first_lost;
	u64 lost_total;
	u64 recorded;
	s32 cur_pid;
	bool final_pending;
	int nesting;
	atomic_long_t nmi_lost;
	atomic64_t nmi_first;
	struct hrtimer heartbeat;
	void *spare[2];
	struct ltt_chan *chan;
	unsigned int cpu;
	u64 overwritten;
	bool snap;
	u32 snap_last;
	s32 ctx_pid;
};

/**
 * struct ltt_chan - one trace's buffers: what the writer and the reader
 * share, owned by the client (the event layer's struct ltt_trace)
 * @cpus:     the per-CPU buffer pairs; first, for the writer
 * @fallback: timestamps are CLOCK_MONOTONIC ns instead of TSC ticks
 * @overwrite: flight recorder: a full ring overwrites its oldest block
 * @active:   tracing: the heartbeat (and writers outside the event path,
 *            which test it with acquire) may write
 * @quiet:    leave nohz_full and isolated CPUs alone (no heartbeat timer,
 *            no snapshot IPI there): set for an unprivileged user's trace
 * @size:     bytes of each buffer (0: none allocated)
 * @task_pid: the pid a block may show for a task, or NULL for its pid;
 *            called in the slow path of a write (a block opens), so it
 *            must be notrace and NOKPROBE and run in any context
 * @notify:   queued when a block becomes READY (wakes the reader later)
 * @rr:       the CPU read() serves first
 * @stop_time: when STOP was asked: the FINAL blocks' end
 * @hb_period_ns: heartbeat interval of the running trace
 */
struct ltt_chan {
	struct ltt_cpu __percpu *cpus;
	bool fallback;
	bool overwrite;
	bool active;
	bool quiet;
	u32 size;
	s32 (*task_pid)(const struct ltt_chan *ch, struct task_struct *t);
	struct irq_work notify;
	unsigned int rr;
	u64 stop_time;
	u64 hb_period_ns;
};

/* CPUs traced: 0..ltt_ncpus-1 (at most LTT_MAX_CPUS), set at load. */
extern unsigned int ltt_ncpus;

/*
 * The trace clock: TSC ticks, or CLOCK_MONOTONIC ns in fallback mode. The
 * key is on while a channel with the fallback clock traces (the session
 * layer counts them), so a TSC clock costs one nop for the choice. The
 * TSC is read as sched_clock() (ftrace's and perf's clock) reads it,
 * without a fence: the read may move by a few cycles among the
 * instructions around it, far less than separates two events, and the
 * writer clamps a CPU's times so that they never go back.
 *
 * The fallback is ktime_get_mono_fast_ns() (LTTng's clock): one clocksource
 * for every CPU, so events of different CPUs order as they happened, and
 * safe in NMI and inside timekeeping. local_clock() is cheaper but, with an
 * unstable TSC, each CPU's value is clamped to a tick past its last tick:
 * on a CPU whose tick comes late it stands still, and a wakeup on one CPU
 * got the same time as, and sorted after, the woken task's run on another
 * (the latency witness suite saw it). Applications read the same clock
 * (CLOCK_MONOTONIC), so their events need no conversion.
 */
DECLARE_STATIC_KEY_FALSE(ltt_fallback_clock);
static __always_inline u64 ltt_clock(const struct ltt_chan *ch)
{
	if (static_branch_unlikely(&ltt_fallback_clock) && ch->fallback)
		return ktime_get_mono_fast_ns();
	return rdtsc();
}

/* ltt_buffer.c */
int ltt_chan_init(struct ltt_chan *ch, void (*notify)(struct irq_work *));
void ltt_chan_destroy(struct ltt_chan *ch);
int ltt_buffers_alloc(struct ltt_chan *ch, u32 size);
void ltt_buffers_free(struct ltt_chan *ch);
void ltt_buffers_reset(struct ltt_chan *ch, u64 start);
void ltt_log_chan(struct ltt_chan *ch, u8 event, u8 subtype,
		  const void *details, u16 size);
void ltt_log_trace_start(struct ltt_chan *ch,
			 const struct ltt_ev_trace_start_ext *ts);
void ltt_log_heartbeat(struct ltt_chan *ch);
void ltt_heartbeat_start(struct ltt_chan *ch, u64 period_ns);
void ltt_heartbeat_stop(struct ltt_chan *ch);
void ltt_buffers_finish(struct ltt_chan *ch, u64 stop);
ssize_t ltt_buffers_read(struct ltt_chan *ch, char __user *ubuf,
			 size_t count);
bool ltt_buffers_ready(struct ltt_chan *ch);
int ltt_buffers_snapshot(struct ltt_chan *ch);
void ltt_buffers_overwritten(struct ltt_chan *ch,
			     struct ltt_lost_counts *lc);
void ltt_buffers_lost(struct ltt_chan *ch, struct ltt_lost_counts *lc);

#endif /* LTT_BUFFER_H */
