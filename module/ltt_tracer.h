/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ltt trace module: declarations shared by ltt_buffer.c (per-CPU double
 * buffers, block framing), ltt_main.c (/dev/tracer, configuration,
 * filtering) and ltt_test.c (test mode, user events). The buffer protocol
 * is described at the top of ltt_buffer.c.
 */
#ifndef LTT_TRACER_H
#define LTT_TRACER_H

#include <linux/types.h>
#include <linux/spinlock.h>
#include <linux/hrtimer.h>
#include <linux/atomic.h>
#include <linux/uidgid.h>
#include <linux/irq_work.h>
#include <linux/sched/clock.h>
#include <asm/msr.h>
#include <ltt/abi.h>
#include <ltt/format.h>
#include <ltt/module_events.h>

struct task_struct;

/* Sizes of the structure records (EXT records), header included. */
#define LTT_EXT_HDR 8u /* header word and struct ltt_ext_header */
#define LTT_START_REC (LTT_EXT_HDR + (u32)sizeof(struct ltt_block_start))
#define LTT_END_REC (LTT_EXT_HDR + (u32)sizeof(struct ltt_block_end))
#define LTT_LOST_REC (LTT_EXT_HDR + (u32)sizeof(struct ltt_ev_lost))
#define LTT_HB_REC 16u /* LTT_CODE_HEARTBEAT: header word, zero, u64 tsc */
/* Largest details the module stores: a custom event with a full payload. */
#define LTT_DETAILS_MAX (LTT_EV_CUSTOM_FIXED + LTT_CUSTOM_MAX)

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
};

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
 * @cpu:          the CPU this is
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
	unsigned int cpu;
};

/**
 * struct ltt_run - what the event path reads; fixed while tracing
 * @event_mask:   events selected (structure events are always recorded)
 * @details_mask: events whose details are recorded
 * @filters:      LTT_FILTER_* in effect
 * @pid:          tracked PID (thread or thread group)
 * @pgrp:         tracked process group
 * @uid:          tracked effective UID
 * @gid:          tracked effective GID
 * @buffer_size:  bytes of each buffer
 * @fallback:     timestamps come from local_clock() instead of the TSC
 * @size_max:     detail bytes stored of each event: 0 when its details are
 *                masked, else LTT_DETAILS_MAX
 * @vars_mask:    variables recorded after each event (enum ltt_var)
 */
struct ltt_run {
	u64 event_mask;
	u64 details_mask;
	u32 filters;
	s32 pid;
	s32 pgrp;
	kuid_t uid;
	kgid_t gid;
	u32 buffer_size;
	bool fallback;
	u16 size_max[LTT_EV_MAX];
	u32 vars_mask;
};

extern struct ltt_run ltt_run;
extern unsigned int ltt_ncpus;
extern bool ltt_active;            /* tracing: the event path may write */
extern u64 ltt_live_mask;          /* ltt_run.event_mask while tracing, else 0 */
extern struct irq_work ltt_notify; /* wakes readers, raises SIGIO */

/* ltt_buffer.c */
int ltt_buffers_alloc(u32 size);
void ltt_buffers_free(void);
void ltt_buffers_reset(u64 start);
void ltt_buffer_init(void);
void ltt_log(u8 event, u8 subtype, const void *details, u16 size);
void ltt_log_trace_start(const struct ltt_ev_trace_start_ext *ts);
void ltt_log_heartbeat(void);
void ltt_test_age_base(void);
void ltt_heartbeat_start(u64 period_ns);
void ltt_heartbeat_stop(void);
void ltt_buffers_finish(u64 stop);
ssize_t ltt_buffers_read(char __user *ubuf, size_t count, unsigned int *rr);
bool ltt_buffers_ready(void);
void ltt_buffers_lost(struct ltt_lost_counts *lc);

void ltt_callback(u8 event, u8 subtype, const void *details, u16 size,
		  struct task_struct *task);

/*
 * The event source, one of two built by Kbuild: ltt_fac.c, the patched
 * kernel's trace facility (CONFIG_LTT), or ltt_tp.c, the tracepoints of an
 * unmodified kernel. Both hand every event to ltt_callback().
 *
 * ltt_backend_attach() starts delivering the events of @cfg->event_mask
 * (and applies the syscall IP policy); ltt_backend_detach() stops them and
 * returns once no CPU is inside ltt_callback() any more. Both sleep and
 * run under the device lock. ltt_backend is the LTT_BACKEND_* value the
 * TRACE_START record carries.
 */
extern const u32 ltt_backend;
int ltt_backend_attach(const struct ltt_config *cfg);
void ltt_backend_detach(void);

/* ltt_tp_sys.c: events the tracepoint backend derives from system calls */
struct pt_regs;
void ltt_sys_derive_entry(struct pt_regs *regs, long nr);
void ltt_sys_derive_exit(struct pt_regs *regs, long ret);

/*
 * ltt_vars.c: kernel-state variables.
 *
 * struct ltt_vars_cpu - a CPU's last recorded values
 * @known: LTT_VAR_BIT()s whose @last value the trace holds
 * @last:  the values, by enum ltt_var
 */
struct ltt_vars_cpu {
	u32 known;
	u64 last[LTT_VAR_COUNT];
};
struct ltt_vars_cpu *ltt_vars_this_cpu(void);
long ltt_vars_set_mask(u32 __user *uarg, bool tracing);
void ltt_vars_reset_config(void);
u32 ltt_vars_start(void);
void ltt_vars_cpu_reset(struct ltt_vars_cpu *vc);
u16 ltt_vars_compose(struct ltt_vars_cpu *vc, u32 mask, u8 event,
		     const void *details, u16 size, struct task_struct *task,
		     struct ltt_ev_vars *out, u8 *nargs);

/*
 * ltt_extra.c: MOUNT (from the system call exit tracepoint) and LOCK (the
 * lock contention tracepoints), for both backends. Attach registers the
 * probes the event mask selects and detach removes them; both sleep and
 * run under the device lock.
 */
int ltt_extra_attach(u64 event_mask);
void ltt_extra_detach(void);
size_t ltt_user_name(char *dst, const char __user *src);

/* ltt_main.c */
bool ltt_task_match(struct task_struct *t);
void ltt_dev_lock(void);
void ltt_dev_unlock(void);
bool ltt_dev_tracing(void);

/* ltt_test.c: LTT_IOC_TEST_EMIT and LTT_IOC_USER_EVENT */
void ltt_test_init(void);
long ltt_ioc_test_emit(struct ltt_test_emit __user *uarg);
long ltt_ioc_user_event(struct ltt_user_event __user *uarg);
void ltt_test_quiesce(void);

/* The trace clock: TSC ticks, or local_clock() ns in fallback mode. */
static __always_inline u64 ltt_clock(void)
{
	if (unlikely(ltt_run.fallback))
		return local_clock();
	return rdtsc_ordered();
}

#endif /* LTT_TRACER_H */
