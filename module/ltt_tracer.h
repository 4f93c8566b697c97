/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ltt trace module: declarations shared by ltt_buffer.c (per-CPU double
 * buffers, block framing), ltt_main.c (/dev/tracer, sessions,
 * configuration, filtering) and ltt_test.c (test mode, user events). The
 * buffer protocol is described at the top of ltt_buffer.c, the sessions
 * at the top of ltt_main.c.
 */
#ifndef LTT_TRACER_H
#define LTT_TRACER_H

#include <linux/types.h>
#include <linux/spinlock.h>
#include <linux/hrtimer.h>
#include <linux/timekeeping.h>
#include <linux/atomic.h>
#include <linux/uidgid.h>
#include <linux/irq_work.h>
#include <linux/jump_label.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/rcupdate.h>
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
/*
 * Events the module records: the facility's (events.h) and those of its
 * own that it implements (module_events.h).
 */
#define LTT_MOD_MASK                                        \
	(LTT_EV_MASK_ALL | LTT_EV_MASK_MOUNT_LOCK | LTT_EV_BIT(LTT_EV_MAP) | \
	 LTT_EV_BIT(LTT_EV_STACK))
/*
 * Those it records on this kernel: a mask may select any of LTT_MOD_MASK,
 * but MAP records nothing on PREEMPT_RT (ltt_compat.h says why).
 */
#ifdef CONFIG_PREEMPT_RT
#define LTT_REC_MASK (LTT_MOD_MASK & ~LTT_EV_BIT(LTT_EV_MAP))
#else
#define LTT_REC_MASK LTT_MOD_MASK
#endif
/* Largest details the module stores: a custom event with a full payload. */
#define LTT_DETAILS_MAX (LTT_EV_CUSTOM_FIXED + LTT_CUSTOM_MAX)

/**
 * struct ltt_vars_cpu - a CPU's last recorded kernel-state variables, one
 * per session and CPU (ltt_vars.c)
 * @known: LTT_VAR_BIT()s whose @last value the session's trace holds
 * @gen:   the session's run.vars_gen this CPU last saw
 * @last:  the values, by enum ltt_var
 */
struct ltt_vars_cpu {
	u32 known;
	u32 gen;
	u64 last[LTT_VAR_COUNT];
};

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
 * @sess:         the session these buffers belong to
 * @cpu:          the CPU this is
 * @vars:         the session's last variables recorded on this CPU
 * @overwritten:  overwrite mode: events of blocks overwritten (writer)
 * @snap:         overwrite mode: the READY blocks up to @snap_last belong
 *                to a snapshot the reader has not finished; set by the
 *                CPU itself (SNAPSHOT's IPI), cleared by the reader
 * @snap_last:    sequence of the snapshot's last (FINAL) block
 * @ctx_pid:      the task the session's trace shows current on this CPU
 *                (its last block's pid, SCHEDCHANGE's in, CONTEXT's pid;
 *                0 for a task a restricted session may not see), kept
 *                with LTT_FILTER_CONTEXT
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
	struct ltt_session *sess;
	unsigned int cpu;
	struct ltt_vars_cpu vars;
	u64 overwritten;
	bool snap;
	u32 snap_last;
	s32 ctx_pid;
};

/**
 * struct ltt_run - what the event path reads of a session; while it
 * traces only the masks, filters and variables change, each field with
 * one store (ltt_apply_config() in ltt_main.c)
 * @event_mask:   events selected (structure events are always recorded)
 * @details_mask: events whose details are recorded
 * @filters:      LTT_FILTER_* in effect, LTT_FILTER_OWNER for a
 *                restricted session, LTT_FILTER_VARS with variables
 * @pid:          tracked PID (thread or thread group)
 * @pgrp:         tracked process group
 * @uid:          tracked effective UID
 * @gid:          tracked effective GID
 * @owner:        a restricted session's user: it sees only events of
 *                that user's tasks as ptrace would let it read them
 *                (ltt_task_owned() in ltt_main.c)
 * @buffer_size:  bytes of each buffer
 * @fallback:     timestamps are CLOCK_MONOTONIC ns instead of TSC ticks
 * @size_max:     detail bytes stored of each event: 0 when its details are
 *                masked, else LTT_DETAILS_MAX
 * @vars_mask:    variables recorded after each event (enum ltt_var)
 * @vars_gen:     changes of @vars_mask while tracing: a CPU that has not
 *                seen the latest records every variable in its next VARS
 *                record (ltt_vars_compose())
 * @overwrite:    flight recorder: a full ring overwrites its oldest block
 * @trigger_signals: bit n-1: a task of the session dying of signal n
 *                sets the session's triggered flag (EPOLLPRI)
 */
struct ltt_run {
	u64 event_mask;
	u64 details_mask;
	u32 filters;
	s32 pid;
	s32 pgrp;
	kuid_t uid;
	kgid_t gid;
	kuid_t owner;
	u32 buffer_size;
	bool fallback;
	u16 size_max[LTT_EV_COUNT];
	u32 vars_mask;
	u32 vars_gen;
	bool overwrite;
	u64 trigger_signals;
};

/* Not an ABI filter: the session is restricted to its owner's tasks. */
#define LTT_FILTER_OWNER 0x80000000u
/*
 * Not a filter either: the session records variables (@vars_mask), so its
 * events take the same branch out of the direct path as filtered ones,
 * and a session without either pays a single test.
 */
#define LTT_FILTER_VARS 0x40000000u
/*
 * Nor this: the session's trace must say which task is current where
 * scheduling changes alone do not (its mask leaves SCHEDCHANGE or its
 * details out, a filter or its restriction hides some switches). Before
 * each event its CPU's task is compared with the one the trace shows,
 * and a CONTEXT record written when they differ (ltt_context() in
 * ltt_buffer.c); a session without filters that records scheduling
 * changes pays nothing.
 */
#define LTT_FILTER_CONTEXT 0x20000000u

/* The LTT_FILTER_CONTEXT a session of @filters and masks needs. */
static inline u32 ltt_context_filter(u32 filters, u64 event_mask,
				     u64 details_mask)
{
	u64 sched = LTT_EV_BIT(LTT_EV_SCHEDCHANGE);

	if ((filters & ~(LTT_FILTER_VARS | LTT_FILTER_CONTEXT)) ||
	    !(event_mask & details_mask & sched))
		return LTT_FILTER_CONTEXT;
	return 0;
}

enum ltt_state { LTT_IDLE, LTT_TRACING, LTT_STOPPED };

struct ltt_emitter;

/**
 * struct ltt_session - one open of /dev/tracer (file->private_data)
 * @run:      what the event path reads; first, for the hot path
 * @cpus:     the session's per-CPU buffer pairs
 * @active:   tracing: test mode and the heartbeat may write
 * @notify:   wakes this session's readers, raises its SIGIO
 * @lock:     serializes the session's ioctls, read and release
 * @state:    enum ltt_state, also read locklessly by poll and read's wait
 * @cfg:      configuration for the next START (what the SET ioctls change)
 * @uid:      @cfg.uid mapped into the kernel's ids when it was set
 * @gid:      @cfg.gid likewise
 * @info:     the running or last trace, for GET_TRACE_INFO
 * @readq:    readers waiting for a block
 * @fasync:   SIGIO subscribers
 * @rr:       the CPU read() serves first
 * @stop_time: when STOP was asked: the FINAL blocks' end
 * @hb_period_ns: heartbeat interval of the running trace
 * @restricted: opened without CAP_PERFMON (module parameter unprivileged):
 *            sees only its owner's tasks
 * @id:       session number, unique while the module is loaded
 * @vars_cfg: LTT_VAR_BIT()s for the next START (LTT_IOC_SET_VARS_MASK)
 * @emitters: test mode's per-CPU work items (ltt_test.c), or NULL
 * @emit_lock: one TEST_EMIT of this session at a time
 * @emit_pending: emitters not finished
 * @emit_wq:  TEST_EMIT and STOP wait there for the emitters
 * @emit_abort: the TEST_EMIT caller was killed: emitters stop early
 * @overwrite_cfg: flight-recorder mode for the next START
 * @trigger_cfg: exit-signal triggers for the next START
 * @triggered: a trigger fired since the last SNAPSHOT
 * @pinned:   a restricted session's buffer bytes, counted against its
 *            owner's locked-memory budget (sessions lock)
 * @rl_stamp: rate limit of a restricted session's START, STOP, SNAPSHOT
 *            and changes while tracing: when @rl_tokens was last refilled
 * @rl_tokens: operations it may still do at once
 * @adding:   event bits a change while tracing is adding, between its
 *            two steps (ltt_apply_config()): their probes stay attached
 *            whatever other sessions stop meanwhile (sessions lock)
 */
struct ltt_session {
	struct ltt_run run;
	struct ltt_cpu __percpu *cpus;
	bool active;
	struct irq_work notify;
	struct mutex lock;
	enum ltt_state state;
	struct ltt_config cfg;
	kuid_t uid;
	kgid_t gid;
	struct ltt_trace_info info;
	wait_queue_head_t readq;
	struct fasync_struct *fasync;
	unsigned int rr;
	u64 stop_time;
	u64 hb_period_ns;
	bool restricted;
	u32 id;
	u32 vars_cfg;
	struct ltt_emitter *emitters;
	struct mutex emit_lock;
	atomic_t emit_pending;
	wait_queue_head_t emit_wq;
	bool emit_abort;
	bool overwrite_cfg;
	u64 trigger_cfg;
	bool triggered;
	u64 pinned;
	unsigned long rl_stamp;
	unsigned int rl_tokens;
	u64 adding;
};

/*
 * At most this many sessions are open at once (more: -EUSERS); an
 * unprivileged user may hold LTT_USER_SESSIONS of them, all unprivileged
 * users together LTT_RESTRICTED_SESSIONS, so root always has the rest.
 */
#define LTT_MAX_SESSIONS 8
#define LTT_USER_SESSIONS 2
#define LTT_RESTRICTED_SESSIONS 4
/* The largest buffer an unprivileged session may ask for. */
#define LTT_RESTRICTED_BUFFER_MAX LTT_BUFFER_DEFAULT
/*
 * A restricted session's START, STOP, SNAPSHOT and changes while tracing
 * (each patches code, walks every task or interrupts every CPU): this
 * many a second, in bursts of up to LTT_RESTRICTED_BURST.
 */
#define LTT_RESTRICTED_RATE 10
#define LTT_RESTRICTED_BURST 20
/*
 * The locked memory a user's restricted sessions may hold: RLIMIT_MEMLOCK
 * and, as perf allows by default (perf_event_mlock_kb), 516 KiB per
 * online CPU.
 */
#define LTT_MLOCK_ALLOWANCE_KB 516

/**
 * struct ltt_live - the tracing sessions, as the event path sees them
 * @n:    entries of @s in use
 * @rcu:  freed after a grace period once replaced
 * @s:    the sessions, in the order they started
 *
 * Replaced (RCU) whenever a session starts or stops; the event path reads
 * it with preemption disabled.
 */
struct ltt_live {
	unsigned int n;
	struct rcu_head rcu;
	struct ltt_session *s[LTT_MAX_SESSIONS];
};

extern struct ltt_live __rcu *ltt_live;
/* The tracing session when exactly one traces, else NULL (ltt_live). */
extern struct ltt_session __rcu *ltt_solo;
extern unsigned int ltt_ncpus;
/* The union of the tracing sessions' event masks, 0 when none traces. */
extern u64 ltt_live_mask;

/* ltt_buffer.c */
int ltt_session_buffers_init(struct ltt_session *s);
void ltt_session_buffers_destroy(struct ltt_session *s);
int ltt_buffers_alloc(struct ltt_session *s, u32 size);
void ltt_buffers_free(struct ltt_session *s);
void ltt_buffers_reset(struct ltt_session *s, u64 start);
void ltt_log(u8 event, u8 subtype, const void *details, u16 size);
void ltt_log_session(struct ltt_session *s, u8 event, u8 subtype,
		     const void *details, u16 size);
void ltt_log_trace_start(struct ltt_session *s,
			 const struct ltt_ev_trace_start_ext *ts);
void ltt_log_heartbeat(struct ltt_session *s);
void ltt_test_age_base(struct ltt_session *s);
void ltt_heartbeat_start(struct ltt_session *s, u64 period_ns);
void ltt_heartbeat_stop(struct ltt_session *s);
void ltt_buffers_finish(struct ltt_session *s, u64 stop);
ssize_t ltt_buffers_read(struct ltt_session *s, char __user *ubuf,
			 size_t count);
bool ltt_buffers_ready(struct ltt_session *s);
int ltt_buffers_snapshot(struct ltt_session *s);
void ltt_buffers_overwritten(struct ltt_session *s,
			     struct ltt_lost_counts *lc);
void ltt_buffers_lost(struct ltt_session *s, struct ltt_lost_counts *lc);

void ltt_callback(u8 event, u8 subtype, const void *details, u16 size,
		  struct task_struct *task);
void ltt_log_extra(u8 event, u8 subtype, const void *details, u16 size);
void ltt_callback_restricted(u8 event, u8 subtype, const void *details,
			     u16 size);
void ltt_log_stack(u8 subtype, const void *details, u16 size);

/*
 * The event source, one of two built by Kbuild: ltt_fac.c, the patched
 * kernel's trace facility (CONFIG_LTT), or ltt_tp.c, the tracepoints of an
 * unmodified kernel. Both hand every event to ltt_callback().
 *
 * ltt_backend_attach() starts delivering the events of @cfg->event_mask,
 * the union of the tracing sessions' masks, and with @policy applies
 * @cfg's syscall IP policy; called again while attached, it adds what the
 * new union needs without interrupting the events already delivered. ltt_backend_trim() stops delivering what @mask no longer
 * needs, without waiting. ltt_backend_detach() stops everything and
 * returns once no CPU is inside ltt_callback() any more. All sleep and
 * run under the sessions lock. ltt_backend is the LTT_BACKEND_* value the
 * TRACE_START record carries.
 */
extern const u32 ltt_backend;
int ltt_backend_attach(const struct ltt_config *cfg, bool policy);
void ltt_backend_detach(void);
void ltt_backend_trim(u64 mask);

/* ltt_tp_sys.c: events the tracepoint backend derives from system calls */
struct pt_regs;
void ltt_sys_derive_entry(struct pt_regs *regs, long nr);
void ltt_sys_derive_exit(struct pt_regs *regs, long ret);

/* ltt_vars.c: kernel-state variables (struct ltt_vars_cpu above). */
long ltt_vars_set_mask(u32 *cfg, u32 __user *uarg, bool tracing);
u32 ltt_vars_start(struct ltt_session *s);
u32 ltt_vars_selected(const struct ltt_session *s);
void ltt_vars_cpu_reset(struct ltt_vars_cpu *vc);
u16 ltt_vars_compose(struct ltt_vars_cpu *vc, const struct ltt_run *r,
		     u8 event, const void *details, u16 size,
		     struct task_struct *task, struct ltt_ev_vars *out,
		     u8 *nargs);

/*
 * ltt_extra.c: MOUNT (from the system call exit tracepoint) and LOCK (the
 * lock contention tracepoints), for both backends. Like the backend's,
 * the probes follow the union of the tracing sessions' masks:
 * ltt_extra_attach() registers those @mask needs and are not yet
 * registered, ltt_extra_trim() removes those @mask no longer needs without
 * waiting, ltt_extra_detach() removes all and returns once no CPU runs one
 * of them. All sleep and run under the sessions lock. The probes hand
 * their events to ltt_log_extra().
 */
int ltt_extra_attach(u64 mask);
void ltt_extra_trim(u64 mask);
void ltt_extra_detach(void);
size_t ltt_user_name(char *dst, const char __user *src);

/* ltt_map.c: MAP records at the exit of mmap, mprotect and execve */
DECLARE_STATIC_KEY_FALSE(ltt_map_key);
void ltt_map_syscall_exit(void);
void ltt_map_select(u64 mask);

/* ltt_stack.c: STACK records of the tasks that block */
DECLARE_STATIC_KEY_FALSE(ltt_stack_key);
void ltt_stack_switch(const void *details, u16 size);
void ltt_stack_select(u64 mask);

/* ltt_main.c */
bool ltt_task_match(const struct ltt_run *r, struct task_struct *t);
bool ltt_task_owned(const struct ltt_run *r, struct task_struct *t);
DECLARE_STATIC_KEY_FALSE(ltt_exit_key);
void ltt_exit_trigger(const void *details, u16 size, struct task_struct *task);

/* ltt_test.c: LTT_IOC_TEST_EMIT and LTT_IOC_USER_EVENT */
long ltt_ioc_test_emit(struct ltt_session *s,
		       struct ltt_test_emit __user *uarg);
long ltt_ioc_user_event(struct ltt_session *s,
			struct ltt_user_event __user *uarg);
void ltt_test_quiesce(struct ltt_session *s);
void ltt_test_free(struct ltt_session *s);

/*
 * The trace clock: TSC ticks, or CLOCK_MONOTONIC ns in fallback mode. The
 * key is on while a session with the fallback clock traces (ltt_main.c
 * counts them), so a TSC clock costs one nop for the choice. The TSC is
 * read as sched_clock() (ftrace's and perf's clock) reads it, without a
 * fence: the read may move by a few cycles among the instructions around
 * it, far less than separates two events, and the writer clamps a CPU's
 * times so that they never go back.
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
static __always_inline u64 ltt_clock(const struct ltt_run *r)
{
	if (static_branch_unlikely(&ltt_fallback_clock) && r->fallback)
		return ktime_get_mono_fast_ns();
	return rdtsc();
}

#endif /* LTT_TRACER_H */
