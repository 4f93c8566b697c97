/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * libltt-user: applications log typed events into the running ltt traces
 * (docs/user-events.md, libltt-user(3)). Link with -lltt-user.
 *
 *	static struct ltt_user_type *step;
 *
 *	step = ltt_user_declare("step", "count:i64 phase:str ratio:f64");
 *	ltt_user_log(step, (int64_t)n, "warmup", 0.5);
 *	ltt_user_mark("checkpoint reached");
 *
 * An event costs no system call: it goes into a ring of this thread in
 * memory shared with tracedaemon, which drains it into the trace. While no
 * daemon traces the process, ltt_user_log() is one load and one branch.
 * Every function may be called from any thread, before or after a daemon
 * starts; none blocks.
 */
#ifndef LTT_USER_H
#define LTT_USER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ltt_user_type;

/*
 * The most fields an event type has: the trace format's limit
 * (module_events.h defines the same; the library includes both, so the
 * compiler catches any difference).
 */
#define LTT_USER_FIELDS_MAX 16

/*
 * Declares an event type: `name` (at most 63 bytes) and its fields, a
 * space-separated list of NAME:TYPE, TYPE one of i64, u64, f64, str, at
 * most LTT_USER_FIELDS_MAX (16) of them, names at most 63 bytes. Declaring
 * the same name and fields again returns the same type. Returns NULL
 * (errno EINVAL) for a bad declaration, (ENOSPC) when the process has
 * declared 255 types, (ENOMEM) when the shared memory cannot be created.
 */
struct ltt_user_type *ltt_user_declare(const char *name, const char *fields);

/*
 * Nonzero while a daemon records this process's events. The library's
 * thread sets it; read it with a relaxed atomic load, as ltt_user_log()
 * does (one plain load on x86).
 */
extern volatile int ltt_user_active;

/*
 * ltt_user_log(t, values...): logs one event of type `t` (NULL: nothing;
 * a type without fields takes no values) with its values in the
 * declaration's order: int64_t for i64, uint64_t for u64, double for f64,
 * const char * for str (NULL logs ""; longer strings are cut so that the
 * values fit in 1024 bytes). The arguments are not evaluated while no
 * daemon records the process. An event that finds its thread's ring full
 * (or no ring free) is counted lost, never waited for.
 */
#define ltt_user_log(...)                                                      \
	do {                                                                   \
		if (__builtin_expect(__atomic_load_n(&ltt_user_active,        \
						     __ATOMIC_RELAXED),        \
				     0))                                       \
			ltt_user_log_event(__VA_ARGS__);                       \
	} while (0)

/* ltt_user_log() without the check: logs only while active too. */
void ltt_user_log_event(const struct ltt_user_type *t, ...);

/*
 * Logs an event of the built-in type "ltt_mark" (one str field "text").
 * Returns 0, or -EAGAIN while no daemon records the process, -ENOBUFS
 * when the event was lost.
 */
int ltt_user_mark(const char *text);

/*
 * Asks the daemon this process is registered with for a flight-recorder
 * snapshot (one message on its socket). Returns 0 when the request was
 * sent, -ENOTCONN when no daemon is connected.
 */
int ltt_user_snapshot(void);

/*
 * For short-lived programs (ltt-mark): waits up to `timeout_ms` for a
 * daemon to enable the process. Returns 0 when enabled, -ENOENT when no
 * daemon's socket was found, -EPERM at once when the daemon said it will
 * not record this process (ltt_user_refusal() says why), -ETIMEDOUT when
 * a daemon is connected but answered neither way in time.
 */
int ltt_user_wait_enabled(int timeout_ms);

/*
 * Why the connected daemon will not record this process (its filters
 * leave it out, it records no user events), copied into `buf` (`size`
 * bytes, NUL-terminated). Returns 0, -ENOENT when the daemon refused
 * nothing, -EINVAL without a buffer.
 */
int ltt_user_refusal(char *buf, size_t size);

/*
 * Waits up to `timeout_ms` until the daemon has taken every event this
 * process logged so far out of the rings. Returns 0, -ENOTCONN when no
 * daemon records the process, -ETIMEDOUT.
 */
int ltt_user_flush(int timeout_ms);

/* The socket paths the library watches, ':'-separated (static string). */
const char *ltt_user_socket_paths(void);

#ifdef __cplusplus
}
#endif

#endif /* LTT_USER_H */
