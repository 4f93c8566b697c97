/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ltt trace module, session layer: a session (one open of /dev/tracer),
 * its configuration, START, STOP, changes while tracing, and what the
 * sessions share (the live set, the attached event sources, the limits);
 * ltt_session.c. It calls the probe layer (attach and detach), the event
 * layer (the traces it publishes) and the buffer layer. The device
 * (ltt_dev.c) decodes the ioctls into calls here; the test module
 * (ltt_test.ko) plugs in through struct ltt_test_ops.
 */
#ifndef LTT_SESSION_H
#define LTT_SESSION_H

#include <linux/types.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/atomic.h>
#include <linux/uidgid.h>

#include "ltt_probe.h"

enum ltt_state { LTT_IDLE, LTT_TRACING, LTT_STOPPED };

struct fasync_struct;
struct module;

/**
 * struct ltt_session - one open of /dev/tracer (file->private_data)
 * @tr:       what the event path sees: settings, buffers; first, for the
 *            hot path
 * @lock:     serializes the session's ioctls, read and release
 * @state:    enum ltt_state, also read locklessly by poll and read's wait
 * @cfg:      configuration for the next START (what the SET ioctls change)
 * @uid:      @cfg.uid mapped into the kernel's ids when it was set
 * @gid:      @cfg.gid likewise
 * @info:     the running or last trace, for GET_TRACE_INFO
 * @readq:    readers waiting for a block
 * @fasync:   SIGIO subscribers
 * @restricted: opened without CAP_PERFMON (module parameter unprivileged):
 *            sees only its owner's tasks
 * @id:       session number, unique while the module is loaded
 * @vars_cfg: LTT_VAR_BIT()s for the next START (LTT_IOC_SET_VARS_MASK)
 * @writers:  writers outside the event path that may still write to
 *            @tr.chan (test mode's emitters, ltt_test.ko): each is counted
 *            in before it is started, under @lock while the session
 *            traces, and tests @tr.chan.active with acquire before each
 *            write; STOP and close wait until none is left
 * @writers_wq: where they wait, woken by the last writer leaving
 * @overwrite_cfg: flight-recorder mode for the next START
 * @trigger_cfg: exit-signal triggers for the next START
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
	struct ltt_trace tr;
	struct mutex lock;
	enum ltt_state state;
	struct ltt_config cfg;
	kuid_t uid;
	kgid_t gid;
	struct ltt_trace_info info;
	wait_queue_head_t readq;
	struct fasync_struct *fasync;
	bool restricted;
	u32 id;
	u32 vars_cfg;
	atomic_t writers;
	wait_queue_head_t writers_wq;
	bool overwrite_cfg;
	u64 trigger_cfg;
	u64 pinned;
	unsigned long rl_stamp;
	unsigned int rl_tokens;
	u64 adding;
};

/*
 * An unprivileged user may hold LTT_USER_SESSIONS of the
 * LTT_MAX_SESSIONS sessions (ltt_event.h), all unprivileged users
 * together LTT_RESTRICTED_SESSIONS, so root always has the rest.
 */
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

/* ltt_session.c */
struct ltt_session *ltt_session_open(bool restricted);
void ltt_session_close(struct ltt_session *s);
int ltt_start(struct ltt_session *s);
int ltt_stop(struct ltt_session *s);
void ltt_reset(struct ltt_session *s);
int ltt_apply_config(struct ltt_session *s, u8 what);
int ltt_ratelimit(struct ltt_session *s);
bool ltt_choose_clock(struct ltt_trace_info *info);
int ltt_session_init(void);
void ltt_session_exit(void);

/**
 * struct ltt_test_ops - what a test module adds to the sessions
 * @owner:  the module (held while @emit runs)
 * @emit:   LTT_IOC_TEST_EMIT of a privileged session, called without its
 *          lock (it takes it itself, and must not hold it while waiting)
 * @attach: called before each attach of the event sources, sessions lock
 *          held: an error fails the attach as the sources' own would
 *          (fault injection)
 */
struct ltt_test_ops {
	struct module *owner;
	long (*emit)(struct ltt_session *s, void __user *uarg);
	int (*attach)(void);
};

int ltt_test_register(const struct ltt_test_ops *ops);
void ltt_test_unregister(const struct ltt_test_ops *ops);
long ltt_test_emit(struct ltt_session *s, void __user *uarg);

#endif /* LTT_SESSION_H */
