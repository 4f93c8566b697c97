// SPDX-License-Identifier: GPL-2.0
/*
 * In-guest test and benchmark program for the trace module (/dev/tracer).
 * Built static, copied into the QEMU initramfs, run as root.
 *
 *   ltt_modtest check      every functional check; prints "ok - NAME" or
 *                          "FAIL - NAME: why" per check, then a summary
 *   ltt_modtest quick      the delivery checks only (for other clocks)
 *   ltt_modtest gap        a CPU idle for longer than 32-bit deltas reach
 *                          (load the module with heartbeat_ms=0 clock=local)
 *   ltt_modtest hold       open, start a core-event trace and read it until
 *                          killed (for the unload-under-load test)
 *   ltt_modtest load N     N iterations of a syscall-heavy loop
 *   ltt_modtest toggle N   N START/STOP cycles (run it under load)
 *   ltt_modtest bench      ns per logged event (1 and 2 CPUs) and the
 *                          slowdown of a syscall loop traced vs untraced
 *                          ($LTT_BASELINE_NS: the loop without the module)
 *   ltt_modtest syscalls   median ns per getppid(), for that baseline
 *   ltt_modtest vars MASK  median ns per getppid() while a system-call
 *                          trace runs with the kernel-state variables MASK
 *                          (LTT_IOC_SET_VARS_MASK), for their cost
 *   ltt_modtest idle       the loop again with the module loaded and idle,
 *                          tracing, stopped, closed; checks the idle loops
 *                          cost at most $LTT_IDLE_MAX (1.02) x the baseline
 *   ltt_modtest fuzz N     N random ioctls, then a trace that must count
 *                          exactly ($LTT_FUZZ_SEED: the generator's seed)
 *   ltt_modtest hotplug    a CPU taken offline and online during a trace
 *   ltt_modtest count FILE test-mode events and lost events in a trace
 *                          file tracedaemon wrote (whole blocks must be
 *                          valid; a cut last block is reported)
 *   ltt_modtest one CHECK  one check of `check` on its own: close-idle,
 *                          start-enomem, open-policy, v2-records or
 *                          sessions
 *
 * No check depends on how long something takes: waits have generous
 * timeouts only so a broken module cannot hang the suite.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ltt/abi.h>
#include <ltt/format.h>
#include <ltt/module_events.h>
#include <libltt/block_codec.h>

static const char *dev = "/dev/tracer";
static const char *prefix = ""; /* $LTT_TEST_PREFIX, before every check name */
static int passed, failed;
static unsigned int ncpus_online;

static void check(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		passed++;
		printf("ok - %s%s\n", prefix, name);
	} else {
		failed++;
		printf("FAIL - %s%s: ", prefix, name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	fflush(stdout);
}

static void note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* ioctl returning -errno (or 0). */
static int xioctl(int fd, unsigned long cmd, const void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

static int set_u32(int fd, unsigned long cmd, uint32_t v)
{
	return xioctl(fd, cmd, &v);
}

static int set_u64(int fd, unsigned long cmd, uint64_t v)
{
	return xioctl(fd, cmd, &v);
}

static int set_s32(int fd, unsigned long cmd, int32_t v)
{
	return xioctl(fd, cmd, &v);
}

static int set_s64(int fd, unsigned long cmd, int64_t v)
{
	return xioctl(fd, cmd, &v);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ---------------------------------------------------------- trace data */

struct trace {
	uint8_t *buf;
	size_t len, cap;
	struct ltt_trace_info info;
};

static void trace_free(struct trace *t)
{
	free(t->buf);
	memset(t, 0, sizeof(*t));
}

/* Read whole blocks until EOF (the trace must be stopped) or error. */
static int read_all(int fd, struct trace *t)
{
	for (;;) {
		ssize_t n;

		if (t->cap - t->len < (1u << 20) + t->info.max_block) {
			t->cap = t->cap * 2 + (2u << 20) + t->info.max_block;
			t->buf = realloc(t->buf, t->cap);
			if (!t->buf)
				return -ENOMEM;
		}
		n = read(fd, t->buf + t->len, t->cap - t->len);
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		t->len += n;
	}
}

/* STOP, then read to the end. */
static int stop_and_collect(int fd, struct trace *t)
{
	int r = xioctl(fd, LTT_IOC_STOP, NULL);

	if (r)
		return r;
	return read_all(fd, t);
}

/* Per-CPU bookkeeping of test-mode events. */
struct test_seen {
	uint64_t count[LTT_MAX_CPUS];
	uint64_t next[LTT_MAX_CPUS];   /* expected seq when none is lost */
	int64_t last[LTT_MAX_CPUS];    /* last seq seen */
	uint64_t out_of_order, gaps, bad_cpu, bad_size, other;
	uint32_t payload;
};

static void on_test_record(const struct ltt_checked_record *r, void *arg)
{
	struct test_seen *s = arg;
	const struct ltt_ev_custom *c = r->details;
	const struct ltt_test_payload *p;

	if (r->event != LTT_EV_CUSTOM) {
		if (r->event != LTT_EV_TRACE_START)
			s->other++;
		return;
	}
	if (r->size < 8 + 8 + 16 || c->id != LTT_TEST_EVENT_ID) {
		s->other++;
		return;
	}
	if (c->length != s->payload ||
	    r->stored != 16 + ((s->payload + 3) & ~3u))
		s->bad_size++;
	p = (const void *)c->data;
	if (p->cpu != r->cpu)
		s->bad_cpu++;
	if ((int64_t)p->seq <= s->last[r->cpu])
		s->out_of_order++;
	if (p->seq != s->next[r->cpu])
		s->gaps++;
	s->last[r->cpu] = p->seq;
	s->next[r->cpu] = p->seq + 1;
	s->count[r->cpu]++;
}

static void test_seen_init(struct test_seen *s, uint32_t payload)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < LTT_MAX_CPUS; i++)
		s->last[i] = -1;
	s->payload = payload;
}

/* Test-mode events seen on all CPUs together. */
static uint64_t test_seen_total(const struct test_seen *s)
{
	uint64_t n = 0;

	for (int i = 0; i < LTT_MAX_CPUS; i++)
		n += s->count[i];
	return n;
}

/* Events the module says it recorded, all CPUs together. */
static uint64_t lost_counts_recorded(const struct ltt_lost_counts *lc)
{
	uint64_t n = 0;

	for (int i = 0; i < LTT_MAX_CPUS; i++)
		n += lc->recorded[i];
	return n;
}

static int open_dev(void)
{
	int fd = open(dev, O_RDONLY);

	if (fd < 0)
		note("open %s: %s", dev, strerror(errno));
	return fd;
}

/* RESET and apply a configuration; -errno of the first failure. */
static int configure(int fd, uint64_t events, uint64_t details, uint32_t bufsz)
{
	int r = xioctl(fd, LTT_IOC_RESET, NULL);

	if (!r)
		r = set_u64(fd, LTT_IOC_SET_EVENT_MASK, events);
	if (!r)
		r = set_u64(fd, LTT_IOC_SET_DETAILS_MASK, details);
	if (r)
		return r;
	return set_u32(fd, LTT_IOC_SET_BUFFER_SIZE, bufsz);
}

static int start(int fd, struct trace *t)
{
	int r = xioctl(fd, LTT_IOC_START, NULL);

	if (!r)
		r = xioctl(fd, LTT_IOC_GET_TRACE_INFO, &t->info);
	return r;
}

static int emit(int fd, uint64_t count, uint64_t mask, uint32_t payload)
{
	struct ltt_test_emit te = { .count = count, .cpu_mask = mask,
				    .payload = payload };

	return xioctl(fd, LTT_IOC_TEST_EMIT, &te);
}

static int user_event(int fd, uint32_t id, const void *data, uint32_t len)
{
	struct ltt_user_event ue = { .id = id, .length = len,
				     .data = (uintptr_t)data };

	return xioctl(fd, LTT_IOC_USER_EVENT, &ue);
}

/* ------------------------------------------------------ ioctl checks */

static void check_ioctls(int fd)
{
	struct ltt_trace_info info;
	struct ltt_addr_range rg;
	struct ltt_lost_counts lc;
	struct trace t = { 0 };
	struct stat st = { 0 };
	uint32_t v = 0;
	char small[16];
	int fd2, r;

	check(stat(dev, &st) == 0 && S_ISCHR(st.st_mode) &&
		      (st.st_mode & 0777) == 0666,
	      "device node is a 0666 char device", "mode %o", st.st_mode);
	fd2 = open(dev, O_RDONLY);
	check(fd2 >= 0, "second open is a session of its own",
	      "fd %d errno %d", fd2, errno);
	if (fd2 >= 0) {
		r = xioctl(fd2, LTT_IOC_GET_TRACE_INFO, &info);
		check(!r && !(info.flags & LTT_TRACE_F_RESTRICTED),
		      "root's session is not restricted", "r %d flags %#x", r,
		      info.flags);
		close(fd2);
	}
	r = xioctl(fd, LTT_IOC_GET_ABI_VERSION, &v);
	check(!r && v == LTT_ABI_VERSION, "GET_ABI_VERSION", "r %d v %#x", r, v);
	check(xioctl(fd, _IO(LTT_IOC_MAGIC, 0x7f), NULL) == -ENOTTY,
	      "unknown ioctl number gets ENOTTY", " ");
	check(xioctl(fd, _IO('T', 0x01), NULL) == -ENOTTY,
	      "foreign ioctl magic gets ENOTTY", " ");
	check(xioctl(fd, _IOW(LTT_IOC_MAGIC, 0x11, uint32_t), &v) == -ENOTTY,
	      "wrong argument size gets ENOTTY", " ");

	/* Invalid arguments. */
	xioctl(fd, LTT_IOC_RESET, NULL);
	check(set_u32(fd, LTT_IOC_SET_BUFFER_SIZE, LTT_BUFFER_MIN - 8) == -EINVAL,
	      "buffer size below minimum: EINVAL", " ");
	check(set_u32(fd, LTT_IOC_SET_BUFFER_SIZE, LTT_BUFFER_MAX + 8) == -EINVAL,
	      "buffer size above maximum: EINVAL", " ");
	check(set_u32(fd, LTT_IOC_SET_BUFFER_SIZE, 8192 + 4) == -EINVAL,
	      "buffer size not a multiple of 8: EINVAL", " ");
	check(set_u64(fd, LTT_IOC_SET_EVENT_MASK, 1ULL << LTT_EV_MAX) == -EINVAL &&
		      set_u64(fd, LTT_IOC_SET_EVENT_MASK, 1ULL << 63) == -EINVAL,
	      "event mask with unknown ids: EINVAL", " ");
	check(set_u64(fd, LTT_IOC_SET_DETAILS_MASK, 1ULL << 40) == -EINVAL,
	      "details mask with unknown ids: EINVAL", " ");
	/*
	 * The module's own events: MOUNT (23), LOCK (24) and MAP (25) are
	 * selectable; the reserved ids from 26 on are not.
	 */
	check(set_u64(fd, LTT_IOC_SET_EVENT_MASK, 7ULL << 23) == 0 &&
		      set_u64(fd, LTT_IOC_SET_EVENT_MASK, 1ULL << 26) == -EINVAL,
	      "event mask: MOUNT, LOCK and MAP accepted, other module ids EINVAL",
	      " ");
	/* Variables: bits 0..19 (module_events.h), nothing above. */
	check(set_u32(fd, LTT_IOC_SET_VARS_MASK, 0xfffff) == 0 &&
		      set_u32(fd, LTT_IOC_SET_VARS_MASK, 1u << 20) == -EINVAL &&
		      set_u32(fd, LTT_IOC_SET_VARS_MASK, 0) == 0,
	      "vars mask: the 20 variables accepted, unknown bits EINVAL", " ");
	check(set_u32(fd, LTT_IOC_SET_CPUID, 2) == -EINVAL, "cpuid 2: EINVAL",
	      " ");
	check(set_s32(fd, LTT_IOC_TRACK_PID, -2) == -EINVAL &&
		      set_s32(fd, LTT_IOC_TRACK_PGRP, -5) == -EINVAL,
	      "negative pid/pgrp other than -1: EINVAL", " ");
	check(set_s64(fd, LTT_IOC_TRACK_UID, -2) == -EINVAL &&
		      set_s64(fd, LTT_IOC_TRACK_UID, 1LL << 32) == -EINVAL &&
		      set_s64(fd, LTT_IOC_TRACK_UID, 0xffffffffLL) == -EINVAL &&
		      set_s64(fd, LTT_IOC_TRACK_GID, -3) == -EINVAL &&
		      set_s64(fd, LTT_IOC_TRACK_GID, 1LL << 40) == -EINVAL,
	      "invalid uid/gid: EINVAL", " ");
	check(set_u32(fd, LTT_IOC_SET_SYSCALL_DEPTH, LTT_SYSCALL_DEPTH_MAX + 1) ==
		      -EINVAL,
	      "syscall depth above maximum: EINVAL", " ");
	rg = (struct ltt_addr_range){ 0x2000, 0x1000 };
	r = xioctl(fd, LTT_IOC_SET_SYSCALL_RANGE, &rg);
	rg = (struct ltt_addr_range){ 0x1000, 0x1000 };
	check(r == -EINVAL && xioctl(fd, LTT_IOC_SET_SYSCALL_RANGE, &rg) == -EINVAL,
	      "empty or inverted syscall range: EINVAL", " ");
	check(xioctl(fd, LTT_IOC_SET_EVENT_MASK, NULL) == -EFAULT &&
		      xioctl(fd, LTT_IOC_GET_TRACE_INFO, (void *)8) == -EFAULT &&
		      xioctl(fd, LTT_IOC_GET_LOST, (void *)8) == -EFAULT,
	      "bad pointers: EFAULT", " ");
	check(xioctl(fd, LTT_IOC_STOP, NULL) == -EINVAL, "STOP without trace: EINVAL",
	      " ");
	check(emit(fd, 1, 0, 16) == -EINVAL, "TEST_EMIT without trace: EINVAL",
	      " ");
	check(user_event(fd, 1, "x", 1) == -EINVAL,
	      "USER_EVENT without trace: EINVAL", " ");
	check(read(fd, small, sizeof(small)) == 0, "read without trace: EOF", " ");

	/* Valid configuration is reflected in GET_TRACE_INFO. */
	rg = (struct ltt_addr_range){ 0x400000, 0x500000 };
	r = set_u32(fd, LTT_IOC_SET_BUFFER_SIZE, 65536) ||
	    set_u64(fd, LTT_IOC_SET_EVENT_MASK, LTT_EV_BIT(LTT_EV_CUSTOM)) ||
	    set_u64(fd, LTT_IOC_SET_DETAILS_MASK, LTT_EV_MASK_CORE) ||
	    set_u32(fd, LTT_IOC_SET_CPUID, 0) ||
	    set_s32(fd, LTT_IOC_TRACK_PID, 1234) ||
	    set_s32(fd, LTT_IOC_TRACK_PGRP, 99) ||
	    set_s64(fd, LTT_IOC_TRACK_UID, 1000) ||
	    set_s64(fd, LTT_IOC_TRACK_GID, 100) ||
	    set_u32(fd, LTT_IOC_SET_SYSCALL_DEPTH, 3) ||
	    xioctl(fd, LTT_IOC_SET_SYSCALL_RANGE, &rg);
	memset(&info, 0xa5, sizeof(info));
	r = r || xioctl(fd, LTT_IOC_GET_TRACE_INFO, &info);
	check(!r && info.config.buffer_size == 65536 &&
		      info.config.event_mask == LTT_EV_BIT(LTT_EV_CUSTOM) &&
		      info.config.details_mask == LTT_EV_MASK_CORE &&
		      info.config.record_cpuid == 0 &&
		      info.config.filters == (LTT_FILTER_PID | LTT_FILTER_PGRP |
					      LTT_FILTER_UID | LTT_FILTER_GID) &&
		      info.config.pid == 1234 && info.config.pgrp == 99 &&
		      info.config.uid == 1000 && info.config.gid == 100 &&
		      info.config.syscall_depth == 3 &&
		      info.config.syscall_range.lower == 0x400000 &&
		      info.config.syscall_range.upper == 0x500000 &&
		      info.max_block == 65536 && info.abi_version == LTT_ABI_VERSION,
	      "valid configuration accepted and reported", "r %d", r);
	r = set_s32(fd, LTT_IOC_TRACK_PID, -1) || set_s32(fd, LTT_IOC_TRACK_PGRP, -1) ||
	    set_s64(fd, LTT_IOC_TRACK_UID, -1) || set_s64(fd, LTT_IOC_TRACK_GID, -1);
	r = r || xioctl(fd, LTT_IOC_GET_TRACE_INFO, &info);
	check(!r && info.config.filters == 0, "filters switched off with -1",
	      "filters %#x", info.config.filters);

	/* While tracing. */
	r = start(fd, &t);
	check(!r, "START", "r %d", r);
	check(xioctl(fd, LTT_IOC_START, NULL) == -EBUSY, "START twice: EBUSY", " ");
	rg = (struct ltt_addr_range){ 0, 0 };
	check(set_u32(fd, LTT_IOC_SET_BUFFER_SIZE, 8192) == -EBUSY &&
		      set_u32(fd, LTT_IOC_SET_CPUID, 1) == -EBUSY &&
		      set_u32(fd, LTT_IOC_SET_SYSCALL_DEPTH, 1) == -EBUSY &&
		      xioctl(fd, LTT_IOC_SET_SYSCALL_RANGE, &rg) == -EBUSY,
	      "buffer, cpuid and syscall IP settings while tracing: EBUSY", " ");
	/*
	 * Masks, filters and variables change while tracing (the same values
	 * again here: the checks below expect this configuration).
	 */
	check(set_u64(fd, LTT_IOC_SET_EVENT_MASK, t.info.config.event_mask) == 0 &&
		      set_u64(fd, LTT_IOC_SET_DETAILS_MASK,
			      t.info.config.details_mask) == 0 &&
		      set_s32(fd, LTT_IOC_TRACK_PID, -1) == 0 &&
		      set_s32(fd, LTT_IOC_TRACK_PGRP, -1) == 0 &&
		      set_s64(fd, LTT_IOC_TRACK_UID, -1) == 0 &&
		      set_s64(fd, LTT_IOC_TRACK_GID, -1) == 0 &&
		      set_u32(fd, LTT_IOC_SET_VARS_MASK, 0) == 0 &&
		      set_u64(fd, LTT_IOC_SET_EVENT_MASK, 1ull << 63) == -EINVAL &&
		      set_s32(fd, LTT_IOC_TRACK_PID, -2) == -EINVAL,
	      "masks, filters and variables while tracing: applied", " ");
	info = t.info;
	check(info.abi_version == LTT_ABI_VERSION && info.ncpus >= ncpus_online &&
		      info.ncpus <= LTT_MAX_CPUS && info.tsc_khz != 0 &&
		      info.anchor_tsc != 0 && info.anchor_realtime_ns != 0 &&
		      info.anchor_monotonic_ns != 0 && info.max_block == 65536 &&
		      (!(info.flags & LTT_TRACE_F_CLOCK_FALLBACK) ||
		       (info.tsc_khz == 1000000 &&
			!(info.flags & LTT_TRACE_F_TSC_RELIABLE))),
	      "GET_TRACE_INFO while tracing", "ncpus %u khz %llu flags %#x",
	      info.ncpus, (unsigned long long)info.tsc_khz, info.flags);
	note("clock: tsc_khz %llu flags %#x (%s)", (unsigned long long)info.tsc_khz,
	     info.flags,
	     info.flags & LTT_TRACE_F_CLOCK_FALLBACK ? "kernel clock fallback" :
	     info.flags & LTT_TRACE_F_TSC_RELIABLE ? "reliable TSC" : "TSC");
	{
		int fl = fcntl(fd, F_GETFL);
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
		n = read(fd, small, sizeof(small));
		check(n < 0 && errno == EAGAIN,
		      "O_NONBLOCK read with no block ready: EAGAIN", "n %zd errno %d",
		      n, errno);
		fcntl(fd, F_SETFL, fl);
		check(poll(&p, 1, 0) == 0, "poll with no block ready: not readable",
		      "revents %#x", p.revents);
	}
	{
		struct ltt_test_emit te = { .count = 1, .payload = 8 };

		r = xioctl(fd, LTT_IOC_TEST_EMIT, &te);
		te.payload = LTT_CUSTOM_MAX + 8;
		r = r == -EINVAL && xioctl(fd, LTT_IOC_TEST_EMIT, &te) == -EINVAL;
		te.payload = 16;
		te.flags = 0x80000000u;
		r = r && xioctl(fd, LTT_IOC_TEST_EMIT, &te) == -EINVAL;
		te.flags = LTT_TEST_F_HEARTBEAT;
		r = r && xioctl(fd, LTT_IOC_TEST_EMIT, &te) == -EINVAL;
		te.flags = 0;
		te.cpu_mask = 1ULL << 63;
		r = r && xioctl(fd, LTT_IOC_TEST_EMIT, &te) == -EINVAL;
		check(r, "TEST_EMIT bad payload/flags/cpu mask: EINVAL", " ");
	}
	{
		char big[LTT_CUSTOM_MAX + 1] = { 0 };

		r = user_event(fd, 1, big, sizeof(big)) == -EINVAL &&
		    user_event(fd, 1, (void *)8, 16) == -EFAULT &&
		    xioctl(fd, LTT_IOC_USER_EVENT, (void *)8) == -EFAULT;
		check(r, "USER_EVENT too long: EINVAL, bad pointers: EFAULT", " ");
	}
	r = emit(fd, 10, 0, 16);
	check(!r, "TEST_EMIT", "r %d", r);
	r = xioctl(fd, LTT_IOC_STOP, NULL);
	check(!r && xioctl(fd, LTT_IOC_STOP, NULL) == 0,
	      "STOP, and STOP again is a no-op", "r %d", r);
	{
		ssize_t n = read(fd, small, sizeof(small));

		check(n < 0 && errno == EINVAL,
		      "read smaller than a block: EINVAL", "n %zd errno %d", n,
		      errno);
	}
	{
		struct pollfd p = { .fd = fd, .events = POLLIN };

		check(poll(&p, 1, 0) == 1 && (p.revents & POLLIN),
		      "poll after STOP: readable", "revents %#x", p.revents);
	}
	r = read_all(fd, &t);
	{
		struct ltt_blocks_result res;
		struct test_seen s;

		test_seen_init(&s, 16);
		int pr = ltt_blocks_check(t.buf, t.len, LTT_FORMAT_V2, t.info.ncpus,
					  t.info.anchor_tsc, 0, on_test_record,
					  &s, &res);
		uint64_t total = test_seen_total(&s);

		check(!r && !pr && res.trace_start_seen && total == 10 * ncpus_online,
		      "blocks after STOP valid, TRACE_START present, all events there",
		      "r %d parse '%s' events %llu", r, res.error,
		      (unsigned long long)total);
		bool finals = true;

		for (unsigned int c = 0; c < t.info.ncpus; c++)
			if (res.final_blocks[c] != 1)
				finals = false;
		check(finals, "one FINAL block per CPU", " ");
	}
	check(read(fd, small, sizeof(small)) == 0, "read after the last block: EOF",
	      " ");
	r = xioctl(fd, LTT_IOC_GET_LOST, &lc);
	check(!r && lc.ncpus == t.info.ncpus && lc.total == 0,
	      "GET_LOST after a lossless trace", "r %d", r);
	trace_free(&t);

	/* RESET and fsync restore the defaults. */
	set_u32(fd, LTT_IOC_SET_BUFFER_SIZE, 8192);
	r = xioctl(fd, LTT_IOC_RESET, NULL);
	r = r || xioctl(fd, LTT_IOC_GET_TRACE_INFO, &info);
	check(!r && info.config.buffer_size == LTT_BUFFER_DEFAULT &&
		      info.config.event_mask == LTT_EV_MASK_ALL && info.anchor_tsc == 0,
	      "RESET restores the default configuration", " ");
	set_u32(fd, LTT_IOC_SET_BUFFER_SIZE, 8192);
	r = fsync(fd) < 0 ? -errno : 0;
	r = r || xioctl(fd, LTT_IOC_GET_TRACE_INFO, &info);
	check(!r && info.config.buffer_size == LTT_BUFFER_DEFAULT, "fsync resets",
	      " ");
	/* START after STOP begins a new trace. */
	configure(fd, 0, 0, 8192);
	r = start(fd, &t) || stop_and_collect(fd, &t) || start(fd, &t);
	check(!r, "START after STOP begins a new trace", "r %d", r);
	xioctl(fd, LTT_IOC_RESET, NULL);
	trace_free(&t);
	/* The largest buffers: allocated, or ENOMEM without a kernel splat. */
	configure(fd, 0, 0, LTT_BUFFER_MAX);
	r = start(fd, &t);
	check(r == 0 || r == -ENOMEM, "largest buffers: START works or ENOMEM",
	      "r %d", r);
	note("START with %u-byte buffers: %s", LTT_BUFFER_MAX, strerror(-r));
	xioctl(fd, LTT_IOC_RESET, NULL);
}

/* ------------------------------------------------ test-mode delivery */

/*
 * Emit @n events per CPU with no reader; check what comes back. When
 * @lossless the buffers hold everything and every event must be there in
 * order; otherwise recorded + lost must equal emitted, exactly.
 */
static void check_emit(int fd, const char *name, uint64_t n, uint32_t bufsz,
		       uint32_t payload, bool lossless)
{
	struct trace t = { 0 };
	struct ltt_lost_counts lc = { 0 };
	struct ltt_blocks_result res;
	struct test_seen s;
	uint64_t recorded, lc_rec;
	char nm[160];
	int r, pr;

	test_seen_init(&s, payload);
	r = configure(fd, LTT_EV_BIT(LTT_EV_CUSTOM), LTT_EV_MASK_ALL, bufsz);
	r = r || start(fd, &t);
	r = r || emit(fd, n, 0, payload);
	r = r || stop_and_collect(fd, &t);
	r = r || xioctl(fd, LTT_IOC_GET_LOST, &lc);
	pr = ltt_blocks_check(t.buf, t.len, LTT_FORMAT_V2, t.info.ncpus,
			      t.info.anchor_tsc, 0, on_test_record, &s, &res);
	snprintf(nm, sizeof(nm), "%s: blocks valid", name);
	check(!r && !pr, nm, "r %d parse '%s'", r, res.error);
	recorded = test_seen_total(&s);
	lc_rec = lost_counts_recorded(&lc);
	note("%s: %llu emitted, %llu recorded, %llu lost, %llu blocks", name,
	     (unsigned long long)(n * ncpus_online), (unsigned long long)recorded,
	     (unsigned long long)res.lost_total, (unsigned long long)res.blocks);
	snprintf(nm, sizeof(nm), "%s: recorded + lost == emitted", name);
	check(recorded + res.lost_total == n * ncpus_online && s.other == 0, nm,
	      "recorded %llu lost %llu emitted %llu other %llu",
	      (unsigned long long)recorded, (unsigned long long)res.lost_total,
	      (unsigned long long)(n * ncpus_online), (unsigned long long)s.other);
	snprintf(nm, sizeof(nm), "%s: GET_LOST agrees with the blocks", name);
	check(lc.total == res.lost_total && lc_rec == recorded, nm,
	      "ioctl lost %llu recorded %llu", (unsigned long long)lc.total,
	      (unsigned long long)lc_rec);
	{
		bool finals = !pr;

		for (unsigned int c = 0; c < t.info.ncpus && finals; c++)
			finals = res.final_blocks[c] == 1;
		snprintf(nm, sizeof(nm), "%s: every CPU ends with one FINAL block",
			 name);
		check(finals, nm, " ");
	}
	snprintf(nm, sizeof(nm), "%s: in order, right CPU and size", name);
	check(!s.out_of_order && !s.bad_cpu && !s.bad_size, nm,
	      "out of order %llu bad cpu %llu bad size %llu",
	      (unsigned long long)s.out_of_order, (unsigned long long)s.bad_cpu,
	      (unsigned long long)s.bad_size);
	if (lossless) {
		bool all = true;

		for (unsigned int c = 0; c < ncpus_online; c++)
			if (s.count[c] != n)
				all = false;
		snprintf(nm, sizeof(nm), "%s: every event of every CPU, no gap",
			 name);
		check(all && !s.gaps && res.lost_total == 0, nm, "gaps %llu lost %llu blocks %llu",
		      (unsigned long long)s.gaps,
		      (unsigned long long)res.lost_total,
		      (unsigned long long)res.blocks);
	} else {
		snprintf(nm, sizeof(nm), "%s: events were lost and reported", name);
		check(res.lost_total > 0 && res.lost_records > 0, nm,
		      "lost %llu", (unsigned long long)res.lost_total);
	}
	trace_free(&t);
}

/* A reader process draining the device while events are emitted. */
static void check_emit_with_reader(int fd)
{
	struct trace t = { 0 };
	struct ltt_blocks_result res;
	struct test_seen s;
	uint64_t n = 100000, recorded;
	int pipefd[2], r, rr, pr, st;
	pid_t pid;

	test_seen_init(&s, 16);
	r = configure(fd, LTT_EV_BIT(LTT_EV_CUSTOM), LTT_EV_MASK_ALL, 16384);
	r = r || start(fd, &t);
	if (r || pipe(pipefd)) {
		check(false, "concurrent reader: setup", "r %d", r);
		return;
	}
	pid = fork();
	if (pid == 0) {
		/* Child: read blocks as they come, send them up the pipe. */
		static uint8_t buf[1 << 20];

		close(pipefd[0]);
		for (;;) {
			ssize_t k = read(fd, buf, sizeof(buf)), w = 0;

			if (k <= 0)
				_exit(k < 0 ? 1 : 0);
			while (w < k) {
				ssize_t x = write(pipefd[1], buf + w, k - w);

				if (x <= 0)
					_exit(2);
				w += x;
			}
		}
	}
	close(pipefd[1]);
	r = emit(fd, n, 0, 16);
	r = r || xioctl(fd, LTT_IOC_STOP, NULL);
	rr = read_all(pipefd[0], &t); /* always: the child ends at EOF */
	r = r ? r : rr;
	close(pipefd[0]);
	waitpid(pid, &st, 0);
	pr = ltt_blocks_check(t.buf, t.len, LTT_FORMAT_V2, t.info.ncpus,
			      t.info.anchor_tsc, 0, on_test_record, &s, &res);
	recorded = test_seen_total(&s);
	note("concurrent reader: %llu recorded, %llu lost, %llu blocks",
	     (unsigned long long)recorded, (unsigned long long)res.lost_total,
	     (unsigned long long)res.blocks);
	check(!r && !pr && WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
		      recorded + res.lost_total == n * ncpus_online &&
		      !s.out_of_order && !s.bad_cpu,
	      "concurrent reader: valid blocks, recorded + lost == emitted",
	      "r %d parse '%s' status %#x recorded %llu lost %llu", r, res.error,
	      st, (unsigned long long)recorded, (unsigned long long)res.lost_total);
	trace_free(&t);
}

/*
 * STOP, then RESET, while another process sharing the file is inside an
 * endless TEST_EMIT: the emitters stop, the ioctl returns, the blocks are
 * whole and account for every event stored.
 */
static void check_stop_during_emit(int fd)
{
	for (int mode = 0; mode < 2; mode++) {
		const char *what = mode ? "RESET" : "STOP";
		struct ltt_lost_counts lc;
		struct trace t = { 0 };
		struct ltt_blocks_result res;
		struct test_seen s;
		uint64_t recorded = 0, lc_rec = 0;
		int pipefd[2], r, st, pr = 0;
		char nm[128], c;
		pid_t pid;

		test_seen_init(&s, 16);
		r = configure(fd, LTT_EV_BIT(LTT_EV_CUSTOM), LTT_EV_MASK_ALL, 65536);
		r = r || start(fd, &t);
		if (r || pipe(pipefd)) {
			check(false, "stop during TEST_EMIT: setup", "r %d", r);
			return;
		}
		pid = fork();
		if (pid == 0) {
			write(pipefd[1], "e", 1);
			r = emit(fd, 1ULL << 40, 0, 16);
			/* 0: ended by the STOP; EINVAL: it came first. */
			_exit(r == 0 || r == -EINVAL ? 0 : 1);
		}
		read(pipefd[0], &c, 1);
		usleep(200000); /* only makes it likely the emitters run */
		r = xioctl(fd, mode ? LTT_IOC_RESET : LTT_IOC_STOP, NULL);
		waitpid(pid, &st, 0);
		snprintf(nm, sizeof(nm), "%s during an endless TEST_EMIT ends it",
			 what);
		check(!r && WIFEXITED(st) && WEXITSTATUS(st) == 0, nm,
		      "r %d status %#x", r, st);
		if (!mode) {
			r = read_all(fd, &t) || xioctl(fd, LTT_IOC_GET_LOST, &lc);
			if (!r)
				pr = ltt_blocks_check(t.buf, t.len, LTT_FORMAT_V2,
						      t.info.ncpus,
						      t.info.anchor_tsc, 0,
						      on_test_record, &s, &res);
			recorded = test_seen_total(&s);
			lc_rec = r ? 0 : lost_counts_recorded(&lc);
			check(!r && !pr && recorded == lc_rec && !s.out_of_order &&
				      res.lost_total == lc.total,
			      "STOP during TEST_EMIT: whole blocks, counts agree",
			      "r %d parse '%s' recorded %llu/%llu", r,
			      pr ? res.error : "", (unsigned long long)recorded,
			      (unsigned long long)lc_rec);
		}
		trace_free(&t);
		close(pipefd[0]);
		close(pipefd[1]);
	}
	xioctl(fd, LTT_IOC_RESET, NULL);
}

/* ------------------------------------------------------- notification */

static void check_notify(int fd)
{
	struct trace t = { 0 };
	struct timespec to = { .tv_sec = 60 };
	sigset_t set;
	siginfo_t si;
	int r, sig, fl;

	sigemptyset(&set);
	sigaddset(&set, SIGIO);
	sigprocmask(SIG_BLOCK, &set, NULL);
	r = configure(fd, LTT_EV_BIT(LTT_EV_CUSTOM), LTT_EV_MASK_ALL, 4096);
	fl = fcntl(fd, F_GETFL);
	r = r || fcntl(fd, F_SETOWN, getpid()) < 0 ||
	    fcntl(fd, F_SETFL, fl | O_ASYNC) < 0;
	r = r || start(fd, &t);
	/* 200 events of 32 bytes overflow one 4 KiB buffer on CPU 0. */
	r = r || emit(fd, 200, 1, 16);
	sig = r ? -1 : sigtimedwait(&set, &si, &to);
	check(sig == SIGIO, "SIGIO when a buffer fills", "r %d sig %d", r, sig);
	{
		struct pollfd p = { .fd = fd, .events = POLLIN };

		check(poll(&p, 1, 60000) == 1 && (p.revents & POLLIN),
		      "poll readable when a buffer fills", "revents %#x",
		      p.revents);
	}
	fcntl(fd, F_SETFL, fl);
	r = stop_and_collect(fd, &t);
	check(!r, "read after SIGIO", "r %d", r);
	trace_free(&t);
	/* Drain any SIGIO left pending. */
	to.tv_sec = 0;
	while (sigtimedwait(&set, &si, &to) == SIGIO)
		;
	sigprocmask(SIG_UNBLOCK, &set, NULL);

	/* A blocked read() returns once the trace stops. */
	r = configure(fd, LTT_EV_BIT(LTT_EV_CUSTOM), LTT_EV_MASK_ALL, 65536);
	r = r || start(fd, &t);
	if (!r) {
		int pipefd[2], st;
		pid_t pid;
		char c;

		if (pipe(pipefd))
			return;
		pid = fork();
		if (pid == 0) {
			static uint8_t buf[1 << 17];
			ssize_t n;

			write(pipefd[1], "r", 1);
			n = read(fd, buf, sizeof(buf)); /* blocks: nothing ready */
			_exit(n > 0 ? 0 : 1);
		}
		read(pipefd[0], &c, 1);
		usleep(100000); /* only makes it likely the child sleeps in read */
		r = xioctl(fd, LTT_IOC_STOP, NULL);
		waitpid(pid, &st, 0);
		check(!r && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "blocked read returns the final blocks at STOP", "st %#x", st);
		close(pipefd[0]);
		close(pipefd[1]);
	}
	xioctl(fd, LTT_IOC_RESET, NULL);
}

/* -------------------------------------------------------------- filters */

struct filter_seen {
	uint64_t by_id[8]; /* user events by id 0..7 */
	uint64_t size8;    /* custom records without details */
	uint64_t bad_payload;
};

static void on_filter_record(const struct ltt_checked_record *r, void *arg)
{
	struct filter_seen *f = arg;
	const struct ltt_ev_custom *c = r->details;

	if (r->event != LTT_EV_CUSTOM)
		return;
	if (r->size == 8) {
		f->size8++;
		return;
	}
	if (c->id < 8)
		f->by_id[c->id]++;
	if (c->length != 5 || memcmp(c->data, "hello", 5) ||
	    r->size != 8 + 8 + 8 || c->data[5] || c->data[6] || c->data[7])
		f->bad_payload++;
}

/*
 * Run one filter scenario: a child that becomes (setpgid, setgid, setuid
 * as asked) a distinct process writes user event 1, the parent writes
 * user event 2; @setup configures the filter knowing the child's pid.
 */
enum { CH_PGRP = 1, CH_UID = 2, CH_GID = 4 };

static int filter_run(int fd, int child_flags, uint64_t events, uint64_t details,
		      int (*setup)(int fd, pid_t child), struct filter_seen *f)
{
	int to_child[2], to_parent[2], r, st;
	struct trace t = { 0 };
	struct ltt_blocks_result res;
	pid_t pid;
	char c;

	memset(f, 0, sizeof(*f));
	if (pipe(to_child) || pipe(to_parent))
		return -errno;
	pid = fork();
	if (pid == 0) {
		if (child_flags & CH_PGRP)
			setpgid(0, 0);
		if (child_flags & CH_GID)
			setresgid(2000, 2000, 2000);
		if (child_flags & CH_UID)
			setresuid(1000, 1000, 1000);
		write(to_parent[1], "r", 1);
		if (read(to_child[0], &c, 1) != 1)
			_exit(1);
		r = user_event(fd, 1, "hello", 5);
		write(to_parent[1], r ? "e" : "d", 1);
		_exit(0);
	}
	read(to_parent[0], &c, 1);
	r = configure(fd, events, details, 65536);
	r = r || setup(fd, pid);
	r = r || start(fd, &t);
	write(to_child[1], "g", 1);
	read(to_parent[0], &c, 1);
	if (c != 'd')
		r = r ? r : -EIO;
	r = r || user_event(fd, 2, "hello", 5);
	waitpid(pid, &st, 0);
	r = r || stop_and_collect(fd, &t);
	if (!r && ltt_blocks_check(t.buf, t.len, LTT_FORMAT_V2, t.info.ncpus,
				   t.info.anchor_tsc, 0, on_filter_record, f,
				   &res))
		r = -EPROTO;
	trace_free(&t);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
	return r;
}

static int setup_none(int fd, pid_t child)
{
	return 0;
}

static int setup_pid(int fd, pid_t child)
{
	return set_s32(fd, LTT_IOC_TRACK_PID, child);
}

static int setup_pgrp(int fd, pid_t child)
{
	return set_s32(fd, LTT_IOC_TRACK_PGRP, child);
}

static int setup_uid(int fd, pid_t child)
{
	return set_s64(fd, LTT_IOC_TRACK_UID, 1000);
}

static int setup_gid(int fd, pid_t child)
{
	return set_s64(fd, LTT_IOC_TRACK_GID, 2000);
}

static int setup_pid_uid0(int fd, pid_t child)
{
	return set_s32(fd, LTT_IOC_TRACK_PID, child) ||
	       set_s64(fd, LTT_IOC_TRACK_UID, 0);
}

static int setup_parent(int fd, pid_t child)
{
	return set_s32(fd, LTT_IOC_TRACK_PID, getpid());
}

static void check_filters(int fd)
{
	const uint64_t custom = LTT_EV_BIT(LTT_EV_CUSTOM);
	struct filter_seen f;
	int r;

	r = filter_run(fd, 0, custom, custom, setup_none, &f);
	check(!r && f.by_id[1] == 1 && f.by_id[2] == 1 && !f.bad_payload,
	      "no filter: user events of both processes, payload intact",
	      "r %d child %llu parent %llu bad %llu", r,
	      (unsigned long long)f.by_id[1], (unsigned long long)f.by_id[2],
	      (unsigned long long)f.bad_payload);
	r = filter_run(fd, 0, LTT_EV_MASK_ALL & ~custom, custom, setup_none, &f);
	check(!r && !f.by_id[1] && !f.by_id[2] && !f.size8,
	      "event mask without CUSTOM: no user event", "r %d", r);
	r = filter_run(fd, 0, custom, LTT_EV_MASK_ALL & ~custom, setup_none, &f);
	check(!r && f.size8 == 2 && !f.by_id[1] && !f.by_id[2],
	      "details mask without CUSTOM: records of size 8", "r %d size8 %llu",
	      r, (unsigned long long)f.size8);
	r = filter_run(fd, 0, custom, custom, setup_pid, &f);
	check(!r && f.by_id[1] == 1 && !f.by_id[2], "PID filter: only the child",
	      "r %d child %llu parent %llu", r, (unsigned long long)f.by_id[1],
	      (unsigned long long)f.by_id[2]);
	r = filter_run(fd, 0, custom, custom, setup_parent, &f);
	check(!r && !f.by_id[1] && f.by_id[2] == 1, "PID filter: only the parent",
	      "r %d child %llu parent %llu", r, (unsigned long long)f.by_id[1],
	      (unsigned long long)f.by_id[2]);
	r = filter_run(fd, CH_PGRP, custom, custom, setup_pgrp, &f);
	check(!r && f.by_id[1] == 1 && !f.by_id[2],
	      "PGRP filter: only the child's process group",
	      "r %d child %llu parent %llu", r, (unsigned long long)f.by_id[1],
	      (unsigned long long)f.by_id[2]);
	r = filter_run(fd, CH_UID, custom, custom, setup_uid, &f);
	check(!r && f.by_id[1] == 1 && !f.by_id[2], "UID filter: only uid 1000",
	      "r %d child %llu parent %llu", r, (unsigned long long)f.by_id[1],
	      (unsigned long long)f.by_id[2]);
	r = filter_run(fd, CH_GID, custom, custom, setup_gid, &f);
	check(!r && f.by_id[1] == 1 && !f.by_id[2], "GID filter: only gid 2000",
	      "r %d child %llu parent %llu", r, (unsigned long long)f.by_id[1],
	      (unsigned long long)f.by_id[2]);
	r = filter_run(fd, CH_UID, custom, custom, setup_pid_uid0, &f);
	check(!r && !f.by_id[1] && !f.by_id[2],
	      "PID and UID filters must both match", "r %d child %llu parent %llu",
	      r, (unsigned long long)f.by_id[1], (unsigned long long)f.by_id[2]);
}

/* ---------------------------------------------- kernel events, filtered */

struct kernel_seen {
	pid_t child;
	uint64_t syscalls_child, getppid_child, syscalls_other;
	uint64_t sched_with_child, sched_without_child;
	uint64_t other_pid_events, events;
	uint64_t sched_size8, sched_full;
};

static void on_kernel_record(const struct ltt_checked_record *r, void *arg)
{
	struct kernel_seen *k = arg;
	const struct ltt_checked_record *h = r;

	if (h->event == LTT_EV_TRACE_START)
		return;
	/*
	 * A CONTEXT record names the task current when a kept event came:
	 * the parent, when it wakes the tracked child. Not an event of it.
	 */
	if (h->event == LTT_EV_CONTEXT)
		return;
	k->events++;
	if (h->event == LTT_EV_SCHEDCHANGE) {
		if (h->size == 8) {
			k->sched_size8++;
			return;
		}
		const struct ltt_ev_schedchange *s = r->details;

		k->sched_full++;
		if (s->in == k->child || s->out == k->child)
			k->sched_with_child++;
		else
			k->sched_without_child++;
		return;
	}
	if (h->event == LTT_EV_PROCESS && h->size >= 16 &&
	    ((const struct ltt_ev_process *)r->details)->pid == k->child)
		return; /* concerns the child */
	if (r->pid != k->child) {
		k->other_pid_events++;
		return;
	}
	if (h->event == LTT_EV_SYSCALL_ENTRY) {
		k->syscalls_child++;
		if (h->size >= 16 &&
		    ((const struct ltt_ev_syscall_entry *)r->details)->nr ==
			    SYS_getppid)
			k->getppid_child++;
	}
}

/* A child doing 100 getppid() and a few sleeps; trace it with @setup. */
static int kernel_run(int fd, uint64_t events, uint64_t details, bool filter,
		      struct kernel_seen *k)
{
	struct trace t = { 0 };
	struct ltt_blocks_result res;
	int to_child[2], to_parent[2], r, st;
	pid_t pid;
	char c;

	memset(k, 0, sizeof(*k));
	if (pipe(to_child) || pipe(to_parent))
		return -errno;
	pid = fork();
	if (pid == 0) {
		if (read(to_child[0], &c, 1) != 1)
			_exit(1);
		for (int i = 0; i < 100; i++)
			syscall(SYS_getppid);
		for (int i = 0; i < 5; i++)
			usleep(1000);
		write(to_parent[1], "d", 1);
		_exit(0);
	}
	k->child = pid;
	r = configure(fd, events, details, 1 << 20);
	if (filter)
		r = r || set_s32(fd, LTT_IOC_TRACK_PID, pid);
	r = r || start(fd, &t);
	write(to_child[1], "g", 1);
	read(to_parent[0], &c, 1);
	for (int i = 0; i < 50; i++)
		syscall(SYS_getppid); /* the parent's own: filtered out */
	waitpid(pid, &st, 0);
	r = r || stop_and_collect(fd, &t);
	if (!r && ltt_blocks_check(t.buf, t.len, LTT_FORMAT_V2, t.info.ncpus,
				   t.info.anchor_tsc, 0, on_kernel_record, k,
				   &res)) {
		note("parse: %s", res.error);
		r = -EPROTO;
	}
	if (!r && res.lost_total)
		note("kernel events: %llu lost", (unsigned long long)res.lost_total);
	trace_free(&t);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
	return r;
}

/* Return false when the facility delivered no kernel event at all. */
static bool check_kernel_events(int fd)
{
	const uint64_t ev = LTT_EV_MASK_CORE | LTT_EV_BIT(LTT_EV_PROCESS);
	struct kernel_seen k;
	int r;

	r = kernel_run(fd, ev, LTT_EV_MASK_ALL, true, &k);
	note("pid filter: %llu events, child syscalls %llu (getppid %llu), sched with child %llu, without %llu, other-pid events %llu",
	     (unsigned long long)k.events, (unsigned long long)k.syscalls_child,
	     (unsigned long long)k.getppid_child,
	     (unsigned long long)k.sched_with_child,
	     (unsigned long long)k.sched_without_child,
	     (unsigned long long)k.other_pid_events);
	if (!r && k.syscalls_child == 0) {
		printf("skip - kernel events: the facility delivered no syscall\n");
		return false;
	}
	check(!r && k.getppid_child >= 100,
	      "kernel events: every getppid of the tracked child recorded",
	      "r %d getppid %llu", r, (unsigned long long)k.getppid_child);
	check(!r && k.sched_with_child > 0 && k.sched_without_child == 0,
	      "kernel events: schedchanges in/out of the tracked task kept, no other",
	      "with %llu without %llu", (unsigned long long)k.sched_with_child,
	      (unsigned long long)k.sched_without_child);
	check(!r && k.other_pid_events == 0,
	      "kernel events: nothing attributed to an untracked task",
	      "%llu", (unsigned long long)k.other_pid_events);
	r = kernel_run(fd, ev & ~(LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY) |
				  LTT_EV_BIT(LTT_EV_SYSCALL_EXIT)),
		       LTT_EV_MASK_ALL & ~LTT_EV_BIT(LTT_EV_SCHEDCHANGE), true, &k);
	check(!r && k.syscalls_child == 0 && k.sched_size8 > 0 && k.sched_full == 0,
	      "kernel events: event mask drops syscalls, details mask trims schedchange",
	      "r %d syscalls %llu size8 %llu full %llu", r,
	      (unsigned long long)k.syscalls_child,
	      (unsigned long long)k.sched_size8, (unsigned long long)k.sched_full);
	return true;
}

/*
 * Syscall IP policy (paper 3.1), applied by the facility with what START
 * passes it. ip_caller(), in its own section, calls ip_leaf(), which makes
 * the syscalls through libc's frameless syscall(): the syscall
 * instruction's IP is in libc, one frame up is ip_caller(). The binary is
 * built with frame pointers and without sibling calls.
 */
extern char __start_ltt_ip_test[], __stop_ltt_ip_test[];

__attribute__((noinline)) static void ip_leaf(int n)
{
	for (int i = 0; i < n; i++)
		syscall(SYS_getppid);
}

__attribute__((noinline, section("ltt_ip_test"))) void ip_caller(int n)
{
	ip_leaf(n);
	__asm__ volatile("" ::: "memory");
}

struct ip_seen {
	pid_t child;
	uint64_t in_section, outside, zero;
};

static void on_ip_record(const struct ltt_checked_record *r, void *arg)
{
	struct ip_seen *s = arg;
	const struct ltt_ev_syscall_entry *e = r->details;

	if (r->event != LTT_EV_SYSCALL_ENTRY || r->size < 24 ||
	    r->pid != s->child || e->nr != SYS_getppid)
		return;
	if (!e->ip)
		s->zero++;
	else if (e->ip >= (uintptr_t)__start_ltt_ip_test &&
		 e->ip < (uintptr_t)__stop_ltt_ip_test)
		s->in_section++;
	else
		s->outside++;
}

static int ip_run(int fd, uint32_t depth, bool range, struct ip_seen *s)
{
	struct ltt_addr_range rg = { (uintptr_t)__start_ltt_ip_test,
				     (uintptr_t)__stop_ltt_ip_test };
	int to_child[2], to_parent[2], r, st;
	struct trace t = { 0 };
	struct ltt_blocks_result res;
	pid_t pid;
	char c;

	memset(s, 0, sizeof(*s));
	if (pipe(to_child) || pipe(to_parent))
		return -errno;
	pid = fork();
	if (pid == 0) {
		if (read(to_child[0], &c, 1) != 1)
			_exit(1);
		ip_caller(20);
		write(to_parent[1], "d", 1);
		_exit(0);
	}
	s->child = pid;
	r = configure(fd, LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY) |
				  LTT_EV_BIT(LTT_EV_SCHEDCHANGE),
		      LTT_EV_MASK_ALL, 1 << 20);
	r = r || set_s32(fd, LTT_IOC_TRACK_PID, pid);
	r = r || set_u32(fd, LTT_IOC_SET_SYSCALL_DEPTH, depth);
	if (range)
		r = r || xioctl(fd, LTT_IOC_SET_SYSCALL_RANGE, &rg);
	r = r || start(fd, &t);
	write(to_child[1], "g", 1);
	read(to_parent[0], &c, 1);
	waitpid(pid, &st, 0);
	r = r || stop_and_collect(fd, &t);
	if (!r && ltt_blocks_check(t.buf, t.len, LTT_FORMAT_V2, t.info.ncpus,
				   t.info.anchor_tsc, 0, on_ip_record, s, &res))
		r = -EPROTO;
	trace_free(&t);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
	return r;
}

static void check_syscall_ip(int fd)
{
	struct ip_seen s;
	int r;

	r = ip_run(fd, 0, false, &s);
	check(!r && s.outside == 20 && !s.in_section && !s.zero,
	      "syscall IP, depth 0: the syscall instruction (in libc)",
	      "r %d outside %llu inside %llu zero %llu", r,
	      (unsigned long long)s.outside, (unsigned long long)s.in_section,
	      (unsigned long long)s.zero);
	r = ip_run(fd, 1, false, &s);
	check(!r && s.in_section == 20 && !s.outside,
	      "syscall IP, depth 1: the caller one frame up",
	      "r %d outside %llu inside %llu", r, (unsigned long long)s.outside,
	      (unsigned long long)s.in_section);
	r = ip_run(fd, 0, true, &s);
	check(!r && s.in_section == 20 && !s.outside,
	      "syscall IP, address range: the first frame inside it",
	      "r %d outside %llu inside %llu", r, (unsigned long long)s.outside,
	      (unsigned long long)s.in_section);
}

/* -------------------------------------------- format version 2 records */

static void syscall_loop(long n);

/* What a mixed trace shows: the codes, and values against the hook's. */
struct v2_seen {
	pid_t self;
	long ppid;
	int in_getppid;          /* the last entry of self was getppid */
	uint64_t codes[32];      /* records by code */
	uint64_t getppid_exits, getppid_bad, read_ok, read_bad, sys_bytes,
		sys_records;
	int64_t read_fd;
	uint64_t far_lo, far_hi;  /* the far system call stub's page */
	uint64_t far_ok, far_bad; /* its entries: ip in the page, nr right */
};

/* A system call instruction far (> 2^31 bytes) from the program's. */
#define V2_FAR_STUB 0x7e0000000000ull
#define V2_NR_HIGH 600 /* no such system call: -ENOSYS; nr >= 512 */

static void on_v2_record(const struct ltt_checked_record *r, void *arg)
{
	struct v2_seen *v = arg;

	v->codes[r->code & 31]++;
	if (r->event == LTT_EV_SYSCALL_ENTRY || r->event == LTT_EV_SYSCALL_EXIT) {
		v->sys_bytes += r->stored;
		v->sys_records++;
	}
	if (r->pid != v->self)
		return;
	if (r->event == LTT_EV_SYSCALL_ENTRY && r->size >= 24) {
		const struct ltt_ev_syscall_entry *e = r->details;

		v->in_getppid = e->nr == SYS_getppid;
		if (e->ip >= v->far_lo && e->ip < v->far_hi) {
			if (e->nr == V2_NR_HIGH || e->nr == SYS_getppid)
				v->far_ok++;
			else
				v->far_bad++;
		}
	} else if (r->event == LTT_EV_SYSCALL_EXIT && r->size >= 16 &&
		   v->in_getppid) {
		v->getppid_exits++;
		v->getppid_bad +=
			((const struct ltt_ev_syscall_exit *)r->details)->ret !=
			v->ppid;
		v->in_getppid = 0;
	} else if (r->event == LTT_EV_FILE_SYSTEM && r->subtype == LTT_FS_READ &&
		   r->size >= 8 + LTT_EV_FS_FIXED) {
		const struct ltt_ev_file_system *f = r->details;

		if (f->fd == v->read_fd) {
			if (f->arg == 300 && !f->aux)
				v->read_ok++;
			else
				v->read_bad++;
		}
	}
}

/*
 * A trace of every event with a getppid() loop, reads of 300 bytes, page
 * faults, a fork and sleeps: every compact code the kernel's events reach
 * here appears, the values decoded from them are the hook's (getppid()'s
 * return, read()'s byte count), and the system calls of the loop take at
 * most 8 bytes per event (LTTng's 10.1 is the bar).
 */
static void check_v2_records(int fd)
{
	static const uint8_t want[] = { LTT_CODE_EXT, LTT_CODE_HEARTBEAT,
		LTT_CODE_SYS_ENTRY, LTT_CODE_SYS_ENTRY_NEAR,
		LTT_CODE_SYS_ENTRY_SAME, LTT_CODE_SYS_ENTRY_SHORT,
		LTT_CODE_SYS_EXIT, LTT_CODE_SYS_EXIT_MID,
		LTT_CODE_SYS_EXIT_SHORT, LTT_CODE_TRAP_ENTRY,
		LTT_CODE_TRAP_EXIT, LTT_CODE_IRQ_ENTRY, LTT_CODE_IRQ_EXIT,
		LTT_CODE_SCHED, LTT_CODE_KERNEL_TIMER,
		LTT_CODE_SOFTIRQ_ENTRY, LTT_CODE_SOFTIRQ_EXIT,
		LTT_CODE_WAKEUP, LTT_CODE_FS_READ, LTT_CODE_FS_WRITE,
		LTT_CODE_FS_CLOSE, LTT_CODE_PAGE_ALLOC, LTT_CODE_PAGE_FREE };
	struct v2_seen v = { .self = getpid(), .ppid = getppid() };
	struct ltt_blocks_result res = { 0 };
	struct ltt_test_emit te = { .count = 3, .flags = LTT_TEST_F_HEARTBEAT };
	struct trace t = { 0 };
	char missing[200] = "", buf[300];
	int r, pr = -1, tmp;
	double per_event = 0;

	r = configure(fd, LTT_EV_MASK_ALL, LTT_EV_MASK_ALL, 1 << 20);
	r = r || start(fd, &t);
	tmp = open("/proc/self/exe", O_RDONLY);
	v.read_fd = tmp;
	for (int i = 0; !r && i < 20; i++) {
		char *m = malloc(1 << 20);

		if (read(tmp, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			r = -EIO;
		if (write(1, "", 0) < 0)
			r = -EIO;
		if (m)
			memset(m, i, 1 << 20); /* page faults, page allocations */
		free(m);
		syscall_loop(1000);
		if (fork() == 0)
			_exit(0);
		wait(NULL);
		usleep(1000);
	}
	close(tmp);
	/*
	 * System calls from a stub mapped far away: the first from there
	 * needs the full ip (SYS_ENTRY), and so does the next from the
	 * program; a number >= 512 from the stub's ip right after takes
	 * SYS_ENTRY_SAME.
	 */
	if (!r) {
		static const uint8_t stub[] = { 0x48, 0x89, 0xf8, /* mov %rdi,%rax */
						0x0f, 0x05,       /* syscall */
						0xc3 };           /* ret */
		void *m = mmap((void *)(uintptr_t)V2_FAR_STUB, 4096,
			       PROT_READ | PROT_WRITE | PROT_EXEC,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			       -1, 0);

		if (m == MAP_FAILED) {
			r = -errno;
		} else {
			long (*far)(long) = (long (*)(long))m;

			memcpy(m, stub, sizeof(stub));
			v.far_lo = (uintptr_t)m;
			v.far_hi = v.far_lo + sizeof(stub);
			for (int i = 0; i < 10; i++) {
				far(SYS_getppid);
				far(V2_NR_HIGH);
				syscall(SYS_getppid);
			}
			munmap(m, 4096);
		}
	}
	r = r || xioctl(fd, LTT_IOC_TEST_EMIT, &te);
	r = r || stop_and_collect(fd, &t);
	if (!r)
		pr = ltt_blocks_check(t.buf, t.len, LTT_FORMAT_V2, t.info.ncpus,
				      t.info.anchor_tsc, LTT_CHECK_ALL_RECORDS,
				      on_v2_record, &v, &res);
	for (size_t i = 0; i < sizeof(want); i++)
		if (!v.codes[want[i]])
			snprintf(missing + strlen(missing),
				 sizeof(missing) - strlen(missing), " %u",
				 want[i]);
	check(!r && !pr && !missing[0],
	      "v2: every compact code the module writes here appears",
	      "r %d parse '%s' missing:%s", r, pr ? res.error : "", missing);
	check(!pr && v.getppid_exits >= 20000 && !v.getppid_bad,
	      "v2: getppid() returns decode to the hook's value",
	      "%llu exits, %llu wrong", (unsigned long long)v.getppid_exits,
	      (unsigned long long)v.getppid_bad);
	check(!pr && v.read_ok == 20 && !v.read_bad,
	      "v2: read() records decode to the hook's fd and byte count",
	      "%llu right, %llu wrong", (unsigned long long)v.read_ok,
	      (unsigned long long)v.read_bad);
	check(!pr && v.far_ok == 20 && !v.far_bad,
	      "v2: far, same-ip and high-number entries decode to the hook's ip and number",
	      "%llu right, %llu wrong", (unsigned long long)v.far_ok,
	      (unsigned long long)v.far_bad);
	note("v2 mixed trace: %zu bytes, %llu records, %.2f bytes/record",
	     t.len, (unsigned long long)res.records,
	     res.records ? (double)t.len / res.records : 0.0);
	trace_free(&t);

	/* The getppid() loop alone: system call records only. */
	memset(&v, 0, sizeof(v));
	v.self = getpid();
	v.ppid = getppid();
	memset(&res, 0, sizeof(res));
	r = configure(fd, LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY) |
				  LTT_EV_BIT(LTT_EV_SYSCALL_EXIT),
		      LTT_EV_MASK_ALL, 1 << 20);
	r = r || set_s32(fd, LTT_IOC_TRACK_PID, getpid());
	r = r || start(fd, &t);
	if (!r)
		syscall_loop(100000);
	r = r || stop_and_collect(fd, &t);
	pr = -1;
	if (!r)
		pr = ltt_blocks_check(t.buf, t.len, LTT_FORMAT_V2, t.info.ncpus,
				      t.info.anchor_tsc, 0, on_v2_record, &v,
				      &res);
	if (v.sys_records)
		per_event = (double)v.sys_bytes / v.sys_records;
	note("v2 getppid loop: %llu system call records, %.2f bytes/event, whole trace %.2f bytes/event",
	     (unsigned long long)v.sys_records, per_event,
	     v.sys_records ? (double)t.len / v.sys_records : 0.0);
	check(!r && !pr && v.sys_records >= 200000 && per_event <= 8,
	      "v2: getppid loop takes <= 8 bytes per event",
	      "r %d parse '%s' %llu records, %.2f bytes/event", r,
	      pr ? res.error : "", (unsigned long long)v.sys_records,
	      per_event);
	trace_free(&t);
	xioctl(fd, LTT_IOC_RESET, NULL);
}

/* A trace left idle shows heartbeats on every online CPU. */
static void check_heartbeat(int fd)
{
	struct trace t = { 0 };
	struct ltt_blocks_result res;
	bool all = true;
	int r;

	r = configure(fd, 0, 0, 65536);
	r = r || start(fd, &t);
	sleep(3); /* the default heartbeat is 250 ms */
	r = r || stop_and_collect(fd, &t);
	r = r || ltt_blocks_check(t.buf, t.len, LTT_FORMAT_V2,
				  t.info.ncpus, t.info.anchor_tsc,
				  0, NULL, NULL, &res);
	for (unsigned int c = 0; c < ncpus_online; c++)
		if (!res.heartbeats[c])
			all = false;
	check(!r && all, "heartbeats on every CPU of an idle trace", "r %d", r);
	trace_free(&t);
}

/* -------------------------------------------------- reader killed */

static void check_sigkill(void)
{
	int pipefd[2], st, fd, r;
	struct trace t = { 0 };
	struct ltt_blocks_result res;
	struct test_seen s;
	pid_t pid;
	char c;

	for (int mode = 0; mode < 2; mode++) {
		if (pipe(pipefd))
			return;
		pid = fork();
		if (pid == 0) {
			static uint8_t buf[1 << 16];

			fd = open_dev();
			if (fd < 0 || configure(fd, LTT_EV_MASK_ALL, LTT_EV_MASK_ALL, 8192) ||
			    start(fd, &t))
				_exit(1);
			write(pipefd[1], "s", 1);
			if (mode == 0)
				emit(fd, 1ULL << 40, 0, 16); /* until killed */
			for (;;)
				read(fd, buf, sizeof(buf));
		}
		close(pipefd[1]);
		r = read(pipefd[0], &c, 1);
		close(pipefd[0]);
		usleep(200000); /* let it trace a little; not a condition */
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		check(r == 1 && WIFSIGNALED(st),
		      mode ? "reader killed in read()" : "reader killed in TEST_EMIT",
		      "r %d st %#x", r, st);
		fd = open_dev();
		test_seen_init(&s, 16);
		r = fd < 0 ? -EBUSY :
			     configure(fd, LTT_EV_BIT(LTT_EV_CUSTOM), LTT_EV_MASK_ALL,
				       65536);
		r = r || start(fd, &t) || emit(fd, 1000, 0, 16) ||
		    stop_and_collect(fd, &t);
		r = r || ltt_blocks_check(t.buf, t.len, LTT_FORMAT_V2, t.info.ncpus,
					  t.info.anchor_tsc, 0, on_test_record,
					  &s, &res);
		uint64_t total = test_seen_total(&s);

		check(!r && total == 1000 * ncpus_online && !s.gaps,
		      mode ? "new trace after a reader killed in read()" :
			     "new trace after a reader killed in TEST_EMIT",
		      "r %d events %llu", r, (unsigned long long)total);
		trace_free(&t);
		if (fd >= 0)
			close(fd);
	}
}

/* ------------------------------------------- hardening: block close */

/*
 * What the blocks of a trace show about closes (a record callback of
 * ltt_blocks_check with every record): the largest block, and for @cpu its
 * largest block and whether each of its blocks ended HEARTBEAT, BLOCK_END
 * (a close that needed a heartbeat).
 */
struct close_seen {
	unsigned int cpu;         /* the CPU looked at */
	uint32_t max_len;         /* largest block of any CPU */
	uint32_t cpu_max_len;     /* largest block of the CPU looked at */
	unsigned int hb_closes;   /* its blocks closed by HEARTBEAT, BLOCK_END */
	uint8_t last;             /* event of the record before, in its block */
};

static void on_close_record(const struct ltt_checked_record *r, void *arg)
{
	struct close_seen *s = arg;
	uint8_t ev = r->event;

	if (ev == LTT_EV_BLOCK_START) {
		if (r->block_length > s->max_len)
			s->max_len = r->block_length;
		if (r->cpu == s->cpu && r->block_length > s->cpu_max_len)
			s->cpu_max_len = r->block_length;
	} else if (ev == LTT_EV_BLOCK_END && r->cpu == s->cpu &&
		   s->last == LTT_EV_HEARTBEAT) {
		s->hb_closes++;
	}
	s->last = ev;
}

/*
 * A CPU whose block has been filled by heartbeats and then sits idle for
 * 2^32 clock units must still close that block inside its buffer: the
 * close writes a heartbeat and BLOCK_END, and room for both must have been
 * kept. Test mode writes N heartbeats on one CPU and ages its delta base
 * (as 2^32 idle units would), then STOP closes the block. N runs over the
 * counts around a full block, for two buffer sizes whose room left after
 * the last heartbeat differs by 8 bytes.
 */
static void check_close_after_idle(int fd)
{
	unsigned int target = ncpus_online > 1 ? 1 : 0;
	/* Room left after the last 16-byte heartbeat: 0 and 8 bytes. */
	const uint32_t sizes[] = { LTT_BUFFER_MIN, LTT_BUFFER_MIN + 8 };
	unsigned int runs = 0, failures = 0, hb_closes = 0, full = 0;
	uint32_t worst = 0, worst_size = 0;
	char why[400] = "";
	cpu_set_t set, old;

	/* START's TRACE_START goes to CPU 0; the heartbeats to the target. */
	sched_getaffinity(0, sizeof(old), &old);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (unsigned int k = 0; k < 2; k++) {
		uint32_t b = sizes[k];
		uint32_t nfull = (b - 8 - sizeof(struct ltt_block_start)) / 16;

		for (uint32_t n = nfull - 6; n <= nfull + 2; n++) {
			struct ltt_test_emit te = { .count = n,
						    .cpu_mask = 1ULL << target,
						    .flags = LTT_TEST_F_HEARTBEAT |
							     LTT_TEST_F_AGE };
			struct trace t = { 0 };
			struct ltt_blocks_result res = { 0 };
			struct close_seen s = { .cpu = target };
			int r, pr = -1;

			r = configure(fd, 0, 0, b);
			r = r || start(fd, &t);
			r = r || xioctl(fd, LTT_IOC_TEST_EMIT, &te);
			r = r || stop_and_collect(fd, &t);
			if (!r)
				pr = ltt_blocks_check(t.buf, t.len, LTT_FORMAT_V2, t.info.ncpus,
						      t.info.anchor_tsc,
						      LTT_CHECK_ALL_RECORDS,
						      on_close_record, &s, &res);
			runs++;
			if (s.max_len > worst) {
				worst = s.max_len;
				worst_size = b;
			}
			hb_closes += s.hb_closes > 0;
			full += s.cpu_max_len + 24 >= b;
			if (r || pr || s.max_len > b) {
				if (!failures++)
					snprintf(why, sizeof(why),
						 "size %u n %u: r %d parse '%s' block %u bytes",
						 b, n, r, pr ? res.error : "",
						 s.max_len);
			}
			trace_free(&t);
		}
	}
	sched_setaffinity(0, sizeof(old), &old);
	xioctl(fd, LTT_IOC_RESET, NULL);
	check(!failures, "close after a long idle stays inside the buffer",
	      "%u of %u runs: %s (largest block %u of %u bytes)", failures, runs,
	      why, worst, worst_size);
	/* The runs must really have reached the case: full blocks closed late. */
	check(hb_closes == runs && full > 0,
	      "close after a long idle: heartbeat before BLOCK_END, full blocks reached",
	      "%u of %u runs closed with a heartbeat, %u reached a full block",
	      hb_closes, runs, full);
	note("close after idle: %u runs, largest block %u bytes", runs, worst);
}

/* ------------------------------------------- hardening: failed START */

/* Touch @bytes of anonymous memory in a child and keep it until killed. */
static pid_t hog_memory(size_t bytes)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		volatile char *m = malloc(bytes);

		/* Stores through volatile: the compiler may not drop them. */
		for (size_t i = 0; m && i < bytes; i += 4096)
			m[i] = 1;
		c = m ? 'y' : 'n';
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1 || c != 'y') {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		pid = -1;
	}
	close(p[0]);
	return pid;
}

static long mem_available_kib(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long kib = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/*
 * START after STOP with buffers the machine cannot afford: START fails
 * with ENOMEM and the device is IDLE with nothing to read (the stopped
 * trace's blocks are gone, as after any START), read() returns 0, poll()
 * says readable, a START with affordable buffers works, close() works.
 * Memory is made short by a child that holds all but 200 MiB.
 */
static void check_start_enomem(void)
{
	uint8_t *buf = malloc(LTT_BUFFER_MAX);
	struct trace t = { 0 };
	struct ltt_blocks_result res = { 0 };
	struct test_seen s;
	struct pollfd p;
	long avail = mem_available_kib();
	pid_t hog = -1;
	ssize_t n = -1;
	int fd = open_dev(), r, pr = -1, pl = -1;

	r = fd < 0 || !buf || avail < 0 ? -ENODEV : 0;
	r = r || configure(fd, 0, 0, 65536) || start(fd, &t) ||
	    emit(fd, 100, 0, 16) || xioctl(fd, LTT_IOC_STOP, NULL);
	r = r || set_u32(fd, LTT_IOC_SET_BUFFER_SIZE, LTT_BUFFER_MAX);
	if (!r && avail > 300 * 1024) {
		hog = hog_memory((size_t)(avail - 200 * 1024) * 1024);
		note("START without memory: %ld MiB available, %ld MiB held", avail / 1024,
		     hog > 0 ? (avail - 200 * 1024) / 1024 : 0);
	}
	if (r || hog < 0) {
		check(false, "START that fails after STOP: setup", "r %d hog %d", r, hog);
		goto out;
	}
	r = xioctl(fd, LTT_IOC_START, NULL);
	check(r == -ENOMEM, "START without memory after STOP: ENOMEM", "r %d", r);
	if (!r)
		xioctl(fd, LTT_IOC_STOP, NULL); /* read() must not wait */
	n = read(fd, buf, LTT_BUFFER_MAX);
	check(n == 0, "read after a failed START: EOF, nothing of the old trace",
	      "read %zd (%s)", n, n < 0 ? strerror(errno) : "data");
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	pl = poll(&p, 1, 1000);
	check(pl == 1 && (p.revents & POLLIN) && read(fd, buf, 65536) == 0,
	      "poll after a failed START: readable, then EOF", "poll %d revents %#x",
	      pl, p.revents);
	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);
	hog = -1;
	trace_free(&t);
	r = set_u32(fd, LTT_IOC_SET_BUFFER_SIZE, 65536) || start(fd, &t) ||
	    emit(fd, 100, 0, 16) || stop_and_collect(fd, &t);
	test_seen_init(&s, 16);
	if (!r)
		pr = ltt_blocks_check(t.buf, t.len, LTT_FORMAT_V2, t.info.ncpus,
				      t.info.anchor_tsc, 0, on_test_record, &s,
				      &res);
	check(!r && !pr && test_seen_total(&s) == 100 * ncpus_online,
	      "a trace after the failed START", "r %d parse '%s' events %llu", r,
	      pr ? res.error : "", (unsigned long long)test_seen_total(&s));
out:
	if (hog > 0) {
		kill(hog, SIGKILL);
		waitpid(hog, NULL, 0);
	}
	check(fd >= 0 && close(fd) == 0, "close after a failed START", " ");
	trace_free(&t);
	free(buf);
}

/* ------------------------------------------- hardening: who may open */

/*
 * In a forked child: drop to @uid (group @uid), no supplementary groups,
 * and be dumpable again, as the user's own process after an exec is (the
 * change of credentials made it non-dumpable, and a restricted session
 * sees only what ptrace would).
 */
static int become(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid) || prctl(PR_SET_DUMPABLE, 1))
		return -errno;
	return 0;
}

/*
 * Anyone may open the 0666 node; an opener without CAP_PERFMON gets a
 * restricted session: LTT_TRACE_F_RESTRICTED, buffers of at most 1 MiB
 * (EPERM above), LTT_USER_SESSIONS (2) sessions per user (EUSERS past).
 */
static void check_open_policy(void)
{
	int res[6] = { -1, -1, -1, -1, -1, -1 };
	int p[2];
	pid_t pid;

	if (pipe(p))
		return;
	pid = fork();
	if (pid == 0) {
		struct ltt_trace_info info;
		int v[6] = { 0 }, fd, fd2, fd3;

		v[0] = become(1000);
		fd = open(dev, O_RDONLY);
		v[1] = fd < 0 ? errno : 0;
		if (fd >= 0 && !xioctl(fd, LTT_IOC_GET_TRACE_INFO, &info))
			v[2] = !!(info.flags & LTT_TRACE_F_RESTRICTED);
		v[3] = fd < 0 ? -1 : -set_u32(fd, LTT_IOC_SET_BUFFER_SIZE,
					      2u << 20);
		fd2 = open(dev, O_RDONLY);
		fd3 = open(dev, O_RDONLY);
		v[4] = fd2 < 0 ? errno : 0;
		v[5] = fd3 < 0 ? errno : 0;
		if (write(p[1], v, sizeof(v)) != sizeof(v))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], res, sizeof(res)) != sizeof(res))
		res[0] = -2;
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	check(res[0] == 0 && res[1] == 0, "uid 1000 opens /dev/tracer",
	      "become %d errno %d", res[0], res[1]);
	check(res[2] == 1, "uid 1000's session is restricted", "flag %d",
	      res[2]);
	check(res[3] == EPERM, "uid 1000: buffers above 1 MiB get EPERM",
	      "errno %d", res[3]);
	check(res[4] == 0 && res[5] == EUSERS,
	      "uid 1000: a second session, a third gets EUSERS",
	      "errno %d %d", res[4], res[5]);
}

/* ------------------------------------------------- concurrent sessions */

/* Per-session bookkeeping of a workload trace. */
struct sess_seen {
	pid_t own;          /* the restricted session's workload pid, or 0 */
	uint64_t getppid;   /* getppid() entries */
	uint64_t custom[3]; /* user events by id 0..2 */
	uint64_t test_events;
	uint64_t records;
	uint64_t foreign;   /* records naming a pid other than 0 and @own */
	uint64_t kaddr;     /* records holding a kernel address */
	uint64_t kthread;
	int32_t bad_pid;
};

static bool kernel_addr(uint64_t a)
{
	return a >= 0x800000000000ULL;
}

static void sess_foreign(struct sess_seen *s, int32_t pid)
{
	if (s->own && pid != 0 && pid != s->own) {
		s->foreign++;
		s->bad_pid = pid;
	}
}

static void on_sess_record(const struct ltt_checked_record *r, void *arg)
{
	struct sess_seen *s = arg;
	const void *d = r->details;
	size_t n = r->size - 8;

	s->records++;
	sess_foreign(s, r->pid);
	switch (r->event) {
	case LTT_EV_SYSCALL_ENTRY: {
		const struct ltt_ev_syscall_entry *e = d;

		if (n >= sizeof(*e) && e->nr == SYS_getppid)
			s->getppid++;
		if (n >= 8 && kernel_addr(e->ip))
			s->kaddr++;
		break;
	}
	case LTT_EV_TRAP_ENTRY: {
		const struct ltt_ev_trap_entry *e = d;

		if (n >= 16 && (kernel_addr(e->ip) || kernel_addr(e->address)))
			s->kaddr++;
		break;
	}
	case LTT_EV_SCHEDCHANGE: {
		const struct ltt_ev_schedchange *e = d;

		if (n >= 8) {
			sess_foreign(s, e->in);
			sess_foreign(s, e->out);
		}
		break;
	}
	case LTT_EV_SOFT_IRQ: {
		const struct ltt_ev_soft_irq *e = d;

		if (n >= 8 && r->subtype >= LTT_TASKLET_ENTRY && e->id)
			s->kaddr++;
		break;
	}
	case LTT_EV_PROCESS: {
		const struct ltt_ev_process *e = d;

		if (r->subtype == LTT_PROCESS_KTHREAD)
			s->kthread++;
		if (n >= 4 && r->subtype != LTT_PROCESS_WAIT)
			sess_foreign(s, e->pid);
		break;
	}
	case LTT_EV_MEMORY: {
		const struct ltt_ev_memory *e = d;

		if (n >= 8 && e->address)
			s->kaddr++;
		break;
	}
	case LTT_EV_CUSTOM: {
		const struct ltt_ev_custom *c = d;

		if (n >= 8 && c->id < 3)
			s->custom[c->id]++;
		else if (n >= 8 && c->id == LTT_TEST_EVENT_ID)
			s->test_events++;
		break;
	}
	}
}

static int sess_collect(int fd, struct trace *t, struct sess_seen *s)
{
	struct ltt_blocks_result res;
	int r = stop_and_collect(fd, t);

	if (!r && ltt_blocks_check(t->buf, t->len, LTT_FORMAT_V2, t->info.ncpus,
				   t->info.anchor_tsc, 0, on_sess_record, s,
				   &res)) {
		note("blocks: %s", res.error);
		r = -EPROTO;
	}
	trace_free(t);
	return r;
}

enum { SESS_N_USER = 5000, SESS_N_ROOT = 3000, SESS_EVENTS = 7 };

/*
 * The workload of one uid: @n getppid() calls and SESS_EVENTS user events
 * of id @id written through @fd. Returns 0 or -errno.
 */
static int sess_work(int fd, long n, uint32_t id)
{
	int r = 0;

	syscall_loop(n);
	for (int i = 0; i < SESS_EVENTS && !r; i++)
		r = user_event(fd, id, "hello", 5);
	return r;
}

/*
 * Two root sessions with different masks and a restricted one of uid 1000
 * trace the same workload at once: uid 1000 makes SESS_N_USER getppid()
 * calls and user events id 1 through its own session, root SESS_N_ROOT
 * calls and user events id 2 through session B. A (system calls and
 * schedchanges) counts every getppid() and no user event; B (user events
 * and process events only) root's user events, none of those uid 1000
 * logged through its restricted session, and no system call; U (every
 * event) exactly its own user's, and no record of U names another task
 * or holds a kernel address.
 */
static void check_sessions_masks(void)
{
	const uint64_t sysmask = LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY) |
				 LTT_EV_BIT(LTT_EV_SYSCALL_EXIT) |
				 LTT_EV_BIT(LTT_EV_SCHEDCHANGE);
	const uint64_t usermask = LTT_EV_BIT(LTT_EV_CUSTOM) |
				  LTT_EV_BIT(LTT_EV_PROCESS);
	struct sess_seen a = { 0 }, b = { 0 }, u = { 0 };
	struct trace ta = { 0 }, tb = { 0 };
	int fa = open_dev(), fb = open_dev(), go[2], rep[2], rdy[2], r = 0;
	int ur = -1;
	pid_t pid = -1;
	char c;

	if (fa < 0 || fb < 0 || pipe(go) || pipe(rep) || pipe(rdy)) {
		check(false, "sessions: setup", "%s", strerror(errno));
		goto out;
	}
	r = configure(fa, sysmask, LTT_EV_MASK_ALL, 1u << 20);
	r = r || configure(fb, usermask, LTT_EV_MASK_ALL, 1u << 20);
	r = r || start(fa, &ta) || start(fb, &tb);
	pid = fork();
	if (pid == 0) {
		struct trace t = { 0 };
		struct sess_seen s = { 0 };
		uint64_t v[10];
		int fu, e;

		close(fa);
		close(fb);
		e = become(1000);
		fu = e ? -1 : open_dev();
		s.own = getpid();
		e = e ? e : fu < 0 ? -errno : configure(fu, LTT_EV_MASK_ALL,
							LTT_EV_MASK_ALL,
							1u << 20);
		e = e ? e : start(fu, &t);
		/* Both users' loops run while all three sessions trace. */
		if (write(rdy[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		e = e ? e : sess_work(fu, SESS_N_USER, 1);
		e = e ? e : sess_collect(fu, &t, &s);
		v[0] = (uint64_t)(int64_t)e;
		v[1] = s.getppid;
		v[2] = s.custom[1];
		v[3] = s.custom[2];
		v[4] = s.foreign;
		v[5] = s.kaddr;
		v[6] = s.kthread;
		v[7] = s.records;
		v[8] = (uint64_t)(int64_t)s.bad_pid;
		v[9] = t.info.flags;
		if (write(rep[1], v, sizeof(v)) != sizeof(v))
			_exit(1);
		_exit(0);
	}
	if (!r && pid > 0) {
		uint64_t v[10] = { 0 };
		pid_t self = getpid();

		/* Root's share, while uid 1000 runs its own. */
		if (read(rdy[0], &c, 1) != 1 || write(go[1], "g", 1) != 1)
			r = -EIO;
		r = r || sess_work(fb, SESS_N_ROOT, 2);
		if (read(rep[0], v, sizeof(v)) != sizeof(v))
			r = r ? r : -EIO;
		ur = (int)(int64_t)v[0];
		u.getppid = v[1];
		u.custom[1] = v[2];
		u.custom[2] = v[3];
		u.foreign = v[4];
		u.kaddr = v[5];
		u.kthread = v[6];
		u.records = v[7];
		u.bad_pid = (int32_t)(int64_t)v[8];
		(void)self;
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	r = r || sess_collect(fa, &ta, &a) || sess_collect(fb, &tb, &b);
	check(!r && a.getppid == SESS_N_USER + SESS_N_ROOT && !a.custom[1] &&
		      !a.custom[2],
	      "sessions: A (system calls) counts every getppid(), no user event",
	      "r %d getppid %llu custom %llu/%llu", r,
	      (unsigned long long)a.getppid, (unsigned long long)a.custom[1],
	      (unsigned long long)a.custom[2]);
	check(!r && !b.getppid && !b.custom[1] && b.custom[2] == SESS_EVENTS,
	      "sessions: B (user events) gets root's events, none of uid 1000's restricted session, no system call",
	      "r %d getppid %llu custom %llu/%llu", r,
	      (unsigned long long)b.getppid, (unsigned long long)b.custom[1],
	      (unsigned long long)b.custom[2]);
	check(!ur && u.getppid == SESS_N_USER && u.custom[1] == SESS_EVENTS &&
		      !u.custom[2],
	      "sessions: uid 1000's session counts exactly its own calls and events",
	      "r %d getppid %llu custom %llu/%llu", ur,
	      (unsigned long long)u.getppid, (unsigned long long)u.custom[1],
	      (unsigned long long)u.custom[2]);
	check(!ur && u.records > 0 && !u.foreign && !u.kaddr && !u.kthread,
	      "sessions: uid 1000's trace names no other task, no kernel address",
	      "r %d records %llu foreign %llu (pid %d) kaddr %llu kthread %llu",
	      ur, (unsigned long long)u.records, (unsigned long long)u.foreign,
	      u.bad_pid, (unsigned long long)u.kaddr,
	      (unsigned long long)u.kthread);
out:
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	close(go[0]);
	close(go[1]);
	close(rep[0]);
	close(rep[1]);
	close(rdy[0]);
	close(rdy[1]);
}

/*
 * LTT_MAX_SESSIONS (8) sessions trace at once, each its own TEST_EMIT
 * count; a 9th open gets EUSERS. Session 0 has small buffers and no
 * reader, so it overflows; a 9th session's owner, killed in TEST_EMIT,
 * takes its session with it. Every other session holds exactly its own
 * events, and session 0 recorded + lost == emitted.
 */
static void check_sessions_many(void)
{
	enum { N = 8 };
	int fd[N], fx = -1, st, r = 0, p[2], bad = 0;
	struct trace t[N];
	char why[160] = "";
	struct test_seen *seen = calloc(N, sizeof(*seen));
	pid_t victim = -1;
	char c;

	memset(t, 0, sizeof(t));
	for (int i = 0; i < N; i++)
		fd[i] = open_dev();
	for (int i = 0; i < N; i++)
		if (fd[i] < 0)
			r = -ENODEV;
	fx = open(dev, O_RDONLY);
	check(!r && fx < 0 && errno == EUSERS,
	      "8 sessions open; a 9th open gets EUSERS", "r %d fd %d errno %d", r,
	      fx, errno);
	if (fx >= 0)
		close(fx);
	for (int i = 0; i < N && !r; i++)
		r = configure(fd[i], LTT_EV_BIT(LTT_EV_CUSTOM), LTT_EV_MASK_ALL,
			      i ? 1u << 20 : 4096) || start(fd[i], &t[i]);
	/*
	 * Half of each count before the victim starts, half after it died:
	 * while it emits, its emitters hold the workqueue's CPUs.
	 */
	for (int i = 0; i < N - 1 && !r; i++)
		r = emit(fd[i], i ? 50 * (i + 1) : 2500, 0, 16);
	/* The victim: the last session, its owner killed while it emits. */
	if (!r && !pipe(p)) {
		victim = fork();
		if (victim == 0) {
			for (int i = 0; i < N - 1; i++)
				close(fd[i]);
			write(p[1], "s", 1);
			emit(fd[N - 1], 1ULL << 40, 0, 16); /* until killed */
			_exit(0);
		}
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			r = -EIO;
		close(p[0]);
	}
	close(fd[N - 1]);
	if (victim > 0) {
		usleep(200000); /* let it emit a little; not a condition */
		kill(victim, SIGKILL);
		waitpid(victim, &st, 0);
		check(WIFSIGNALED(st), "8 sessions: one session's owner killed in TEST_EMIT",
		      "status %#x", st);
	}
	for (int i = 0; i < N - 1 && !r; i++)
		r = emit(fd[i], i ? 50 * (i + 1) : 2500, 0, 16);
	for (int i = 0; i < N - 1; i++) {
		struct ltt_blocks_result res;
		struct ltt_lost_counts lc;
		uint64_t want = (i ? 100ULL * (i + 1) : 5000) * ncpus_online;
		uint64_t got, lost;
		int e = r;

		test_seen_init(&seen[i], 16);
		e = e || stop_and_collect(fd[i], &t[i]);
		e = e || ltt_blocks_check(t[i].buf, t[i].len, LTT_FORMAT_V2,
					  t[i].info.ncpus, t[i].info.anchor_tsc,
					  0, on_test_record, &seen[i], &res);
		e = e || xioctl(fd[i], LTT_IOC_GET_LOST, &lc);
		got = test_seen_total(&seen[i]);
		lost = e ? 0 : res.lost_total;
		if (i == 0)
			check(!e && got + lost == want && lost > 0 &&
				      !seen[i].other,
			      "8 sessions: the overflowing one: recorded + lost == emitted",
			      "r %d got %llu lost %llu want %llu", e,
			      (unsigned long long)got,
			      (unsigned long long)lost,
			      (unsigned long long)want);
		else if (e || got != want || lost || seen[i].other) {
			bad++;
			snprintf(why, sizeof(why),
				 "session %d r %d got %llu lost %llu want %llu",
				 i, e, (unsigned long long)got,
				 (unsigned long long)lost,
				 (unsigned long long)want);
		}
		trace_free(&t[i]);
		close(fd[i]);
	}
	/* (Each TEST_EMIT numbers from 0, so the two halves are not a gap.) */
	check(!r && !bad,
	      "8 sessions: the others hold exactly their own events, none lost",
	      "r %d %d bad, last: %s", r, bad, why);
	free(seen);
}

/* ------------------------------------------------------------ modes */

/*
 * Two events on CPU 0 five seconds apart, no periodic heartbeat, ns clock:
 * the second one's delta exceeds 32 bits, so a heartbeat must precede it.
 */
static int mode_gap(void)
{
	struct trace t = { 0 };
	struct ltt_blocks_result res;
	struct filter_seen f;
	cpu_set_t set;
	int fd = open_dev(), r, pr = -1;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	r = fd < 0 ? -ENODEV : sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
	r = r || configure(fd, LTT_EV_BIT(LTT_EV_CUSTOM), LTT_EV_MASK_ALL, 65536);
	r = r || start(fd, &t) || user_event(fd, 1, "hello", 5);
	if (!r)
		sleep(5);
	r = r || user_event(fd, 2, "hello", 5) || stop_and_collect(fd, &t);
	memset(&f, 0, sizeof(f));
	if (!r)
		pr = ltt_blocks_check(t.buf, t.len, LTT_FORMAT_V2, t.info.ncpus,
				      t.info.anchor_tsc, 0, on_filter_record,
				      &f, &res);
	check(!r && !pr && (t.info.flags & LTT_TRACE_F_CLOCK_FALLBACK),
	      "32-bit delta overflow: blocks valid", "r %d parse '%s' flags %#x",
	      r, pr ? res.error : "", t.info.flags);
	check(!r && !pr && f.by_id[1] == 1 && f.by_id[2] == 1 &&
		      res.heartbeats[0] >= 1,
	      "32-bit delta overflow: a heartbeat precedes the late event",
	      "events %llu/%llu heartbeats %llu", (unsigned long long)f.by_id[1],
	      (unsigned long long)f.by_id[2],
	      (unsigned long long)(pr ? 0 : res.heartbeats[0]));
	trace_free(&t);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

static int mode_quick(void)
{
	int fd = open_dev();

	if (fd < 0) {
		check(false, "open /dev/tracer", "%s", strerror(errno));
	} else {
		struct ltt_trace_info info;

		if (!xioctl(fd, LTT_IOC_GET_TRACE_INFO, &info))
			note("clock: tsc_khz %llu flags %#x",
			     (unsigned long long)info.tsc_khz, info.flags);
		check_emit(fd, "every CPU, buffers suffice", 3000, 65536, 16, true);
		check_emit(fd, "every CPU, small buffers", 20000, 4096, 16, false);
		check_kernel_events(fd);
		check_heartbeat(fd);
		close(fd);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

static int mode_check(void)
{
	int fd = open_dev();

	if (fd < 0) {
		check(false, "open /dev/tracer", "%s", strerror(errno));
		goto out;
	}
	check(true, "open /dev/tracer", " ");
	check_ioctls(fd);
	check_emit(fd, "2 CPUs, buffers suffice", 3000, 65536, 16, true);
	check_emit(fd, "max payload, buffers suffice", 100, 65536, LTT_CUSTOM_MAX,
		   true);
	check_emit(fd, "odd payload, buffers suffice", 1000, 65536, 17, true);
	check_emit(fd, "2 CPUs, small buffers", 20000, 4096, 16, false);
	check_emit(fd, "2 CPUs, 64 KiB buffers", 200000, 65536, 40, false);
	check_emit_with_reader(fd);
	check_stop_during_emit(fd);
	check_notify(fd);
	check_filters(fd);
	if (check_kernel_events(fd))
		check_syscall_ip(fd);
	check_v2_records(fd);
	check_heartbeat(fd);
	check_close_after_idle(fd);
	close(fd);
	check_sigkill();
	check_start_enomem();
	check_open_policy();
	check_sessions_masks();
	check_sessions_many();
out:
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

/* Trace core events and drain until killed. */
static int mode_hold(void)
{
	static uint8_t buf[1 << 20];
	struct trace t = { 0 };
	int fd = open_dev();

	if (fd < 0 || configure(fd, LTT_EV_MASK_ALL, LTT_EV_MASK_ALL, 65536) ||
	    start(fd, &t))
		return 1;
	printf("holding\n");
	fflush(stdout);
	for (;;)
		if (read(fd, buf, sizeof(buf)) < 0 && errno != EINTR)
			return 1;
}

static void syscall_loop(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
}

/*
 * START and STOP @n times, run with a syscall load on every CPU: events
 * race with the start and the teardown of every trace.
 */
static int mode_toggle(long n)
{
	struct trace t = { 0 };
	int fd = open_dev(), r = fd < 0 ? -ENODEV : 0;

	for (long i = 0; i < n && !r; i++) {
		r = configure(fd, LTT_EV_MASK_CORE, LTT_EV_MASK_ALL, 65536);
		r = r || start(fd, &t) || stop_and_collect(fd, &t);
		trace_free(&t);
	}
	check(!r, "START/STOP cycles under load", "r %d", r);
	if (fd >= 0)
		close(fd);
	return r ? 1 : 0;
}

static int mode_load(long n)
{
	syscall_loop(n);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Fork a child that drains @fd until EOF; return its pid. */
static pid_t drain(int fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		static uint8_t buf[4 << 20];

		while (read(fd, buf, sizeof(buf)) > 0)
			;
		_exit(0);
	}
	return pid;
}

static double syscall_median(int reps, long loops);

/* Median ns per getppid() over @reps runs: the baseline, module unloaded. */
static int mode_syscalls(int reps)
{
	printf("%.1f\n", syscall_median(reps, 200000));
	return 0;
}

/* Median ns per getppid() over @reps runs of @loops (after a warm-up). */
static double syscall_median(int reps, long loops)
{
	double v[32];

	if (reps > 32)
		reps = 32;
	syscall_loop(loops);
	for (int i = 0; i < reps; i++) {
		double t0 = now_ns();

		syscall_loop(loops);
		v[i] = (now_ns() - t0) / loops;
	}
	return median(v, reps);
}

/*
 * The getppid() loop while system call entries and exits are traced with
 * the variables of @mask recorded after each event: run under -icount for
 * instructions per event (module/README.md).
 */
static int mode_vars(uint32_t mask, int reps)
{
	const long loops = 200000;
	struct trace t = { 0 };
	double traced = 0;
	pid_t reader;
	int fd = open_dev(), r;

	if (fd < 0)
		return 1;
	r = configure(fd, LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY) |
			  LTT_EV_BIT(LTT_EV_SYSCALL_EXIT), LTT_EV_MASK_ALL,
		      1 << 20);
	r = r || set_u32(fd, LTT_IOC_SET_VARS_MASK, mask);
	r = r || start(fd, &t);
	if (!r) {
		reader = drain(fd);
		traced = syscall_median(reps, loops);
		r = xioctl(fd, LTT_IOC_STOP, NULL);
		waitpid(reader, NULL, 0);
	}
	close(fd);
	if (r) {
		fprintf(stderr, "vars: a trace with variables %#x failed (%d)\n",
			mask, r);
		return 1;
	}
	printf("%.1f\n", traced);
	return 0;
}

/*
 * What the loaded module costs while no trace runs. $LTT_BASELINE_NS is
 * the getppid() loop measured before insmod (ltt_modtest syscalls); the
 * loop is measured again with the module loaded and /dev/tracer closed,
 * while a core-event trace runs, after STOP with the device still open,
 * and after close. With no trace running the hooks must be patched out,
 * so the idle loops may cost at most $LTT_IDLE_MAX (default 1.02) times
 * the baseline. Under QEMU's -icount the guest's clock counts
 * instructions, which makes these ratios reproducible.
 */
static int mode_idle(int reps)
{
	const long loops = 200000;
	const char *base_env = getenv("LTT_BASELINE_NS");
	const char *max_env = getenv("LTT_IDLE_MAX");
	double base = base_env ? atof(base_env) : 0;
	double max = max_env ? atof(max_env) : 1.02;
	double idle, traced = 0, stopped = 0, closed, traced4 = 0;
	struct trace t = { 0 };
	pid_t reader, readers[4];
	int fd, r, fds[4];

	if (base <= 0) {
		check(false, "idle cost: baseline", "LTT_BASELINE_NS not set");
		return 1;
	}
	idle = syscall_median(reps, loops);
	fd = open_dev();
	r = fd < 0 ? -ENODEV : 0;
	r = r || configure(fd, LTT_EV_MASK_CORE, LTT_EV_MASK_ALL, 1 << 20);
	r = r || start(fd, &t);
	if (!r) {
		reader = drain(fd);
		traced = syscall_median(reps, loops);
		r = xioctl(fd, LTT_IOC_STOP, NULL);
		waitpid(reader, NULL, 0);
		stopped = syscall_median(reps, loops);
	}
	if (fd >= 0)
		close(fd);
	/* Four sessions tracing the same events at once, each drained. */
	for (int i = 0; i < 4; i++) {
		fds[i] = open_dev();
		if (!r && fds[i] < 0)
			r = -ENODEV;
		r = r || configure(fds[i], LTT_EV_MASK_CORE, LTT_EV_MASK_ALL,
				   1 << 20);
		r = r || start(fds[i], &t);
		readers[i] = r ? -1 : drain(fds[i]);
	}
	if (!r)
		traced4 = syscall_median(reps, loops);
	for (int i = 0; i < 4; i++) {
		if (fds[i] >= 0) {
			xioctl(fds[i], LTT_IOC_STOP, NULL);
			if (readers[i] > 0)
				waitpid(readers[i], NULL, 0);
			close(fds[i]);
		}
	}
	closed = syscall_median(reps, loops);
	note("getppid loop, %d runs of %ld, medians: no module %.1f ns, loaded idle %.1f (%+.1f%%), tracing core events %.1f (%+.1f%%), stopped %.1f (%+.1f%%), 4 sessions tracing %.1f (%+.1f%%), closed %.1f (%+.1f%%)",
	     reps, loops, base, idle, (idle / base - 1) * 100, traced,
	     (traced / base - 1) * 100, stopped, (stopped / base - 1) * 100,
	     traced4, (traced4 / base - 1) * 100,
	     closed, (closed / base - 1) * 100);
	check(!r, "idle cost: a trace between the idle loops", "r %d", r);
	check(idle <= base * max,
	      "idle cost: loaded, never traced, within limit of no module",
	      "%.1f ns vs %.1f ns (ratio %.3f > %.3f)", idle, base, idle / base,
	      max);
	check(!r && stopped <= base * max,
	      "idle cost: after STOP, within limit of no module",
	      "%.1f ns vs %.1f ns (ratio %.3f > %.3f)", stopped, base,
	      stopped / base, max);
	check(closed <= base * max,
	      "idle cost: after close, within limit of no module",
	      "%.1f ns vs %.1f ns (ratio %.3f > %.3f)", closed, base,
	      closed / base, max);
	/* The loop measures something: tracing it costs visibly more. */
	check(!r && traced > base * 1.10,
	      "idle cost: tracing the loop costs more than 10%",
	      "%.1f ns vs %.1f ns", traced, base);
	check(!r && traced4 > traced,
	      "idle cost: 4 sessions tracing cost more than one",
	      "%.1f ns vs %.1f ns", traced4, traced);
	printf("idle: no module %.1f ns, loaded idle %.1f ns (%.3f), tracing %.1f ns (%.3f), after STOP %.1f ns (%.3f), 4 sessions tracing %.1f ns (%.3f), after close %.1f ns (%.3f)\n",
	       base, idle, idle / base, traced, traced / base, stopped,
	       stopped / base, traced4, traced4 / base, closed, closed / base);
	return failed ? 1 : 0;
}

static int mode_bench(int reps)
{
	enum { NEV = 200000 };
	const long loops = 200000;
	double one[32], two[32], plain[32], traced[32], nosel[32];
	struct trace t = { 0 };
	struct ltt_lost_counts lc;
	uint64_t lost_traced = 0, lost_emit = 0;
	int fd = open_dev(), r = 0;

	if (fd < 0)
		return 1;
	if (reps > 32)
		reps = 32;
	syscall_loop(loops); /* warm up */
	for (int i = 0; i < reps && !r; i++) {
		for (int cpus = 1; cpus <= 2 && !r; cpus++) {
			double t0, t1;

			r = configure(fd, LTT_EV_BIT(LTT_EV_CUSTOM), LTT_EV_MASK_ALL,
				      8 << 20);
			r = r || start(fd, &t);
			t0 = now_ns();
			r = r || emit(fd, NEV, cpus == 1 ? 1 : 3, 16);
			t1 = now_ns();
			r = r || xioctl(fd, LTT_IOC_STOP, NULL) ||
			    xioctl(fd, LTT_IOC_GET_LOST, &lc);
			lost_emit += lc.total;
			(cpus == 1 ? one : two)[i] = (t1 - t0) / NEV;
		}
		{
			double t0 = now_ns();

			syscall_loop(loops);
			plain[i] = (now_ns() - t0) / loops;
		}
		{
			/* Hooks on, callback registered, nothing selected. */
			double t0, t1;

			r = r || configure(fd, 0, 0, 65536) || start(fd, &t);
			t0 = now_ns();
			syscall_loop(loops);
			t1 = now_ns();
			r = r || xioctl(fd, LTT_IOC_STOP, NULL);
			nosel[i] = (t1 - t0) / loops;
		}
		{
			double t0, t1;
			pid_t reader;

			r = r || configure(fd, LTT_EV_MASK_CORE, LTT_EV_MASK_ALL,
					   1 << 20);
			r = r || start(fd, &t);
			reader = drain(fd);
			t0 = now_ns();
			syscall_loop(loops);
			t1 = now_ns();
			r = r || xioctl(fd, LTT_IOC_STOP, NULL);
			waitpid(reader, NULL, 0);
			r = r || xioctl(fd, LTT_IOC_GET_LOST, &lc);
			lost_traced += lc.total;
			traced[i] = (t1 - t0) / loops;
		}
	}
	xioctl(fd, LTT_IOC_RESET, NULL);
	close(fd);
	if (r) {
		printf("bench: failed (%s)\n", strerror(-r));
		return 1;
	}
	double m1 = median(one, reps), m2 = median(two, reps);
	double mp = median(plain, reps), mt = median(traced, reps);
	double mn = median(nosel, reps);

	printf("bench-module: %d repetitions, medians; clock %s\n", reps,
	       t.info.flags & LTT_TRACE_F_CLOCK_FALLBACK ? "CLOCK_MONOTONIC" : "TSC");
	printf("bench-module: test mode, 1 CPU logging : %8.1f ns/event (%d events per run)\n",
	       m1, NEV);
	printf("bench-module: test mode, 2 CPUs logging: %8.1f ns/event per CPU (%d events per CPU per run; %.1f ns per event of the two together)\n",
	       m2, NEV, m2 / 2);
	printf("bench-module: lost in test-mode runs: %llu\n",
	       (unsigned long long)lost_emit);
	const char *base_env = getenv("LTT_BASELINE_NS");
	double base = base_env ? atof(base_env) : 0;

	if (base > 0)
		printf("bench-module: getppid loop, no module   : %8.1f ns/iteration (hooks patched out)\n",
		       base);
	printf("bench-module: getppid loop, not tracing : %8.1f ns/iteration (module loaded, callback returns at once)\n",
	       mp);
	printf("bench-module: getppid loop, no event sel: %8.1f ns/iteration (tracing, every event filtered out)\n",
	       mn);
	printf("bench-module: getppid loop, core events : %8.1f ns/iteration (lost %llu)\n",
	       mt, (unsigned long long)lost_traced);
	if (base > 0)
		printf("bench-module: slowdown core events / no module  : %8.3f (%+.1f%%)\n",
		       mt / base, (mt / base - 1) * 100);
	printf("bench-module: slowdown core events / not tracing: %8.3f (%+.1f%%)\n",
	       mt / mp, (mt / mp - 1) * 100);
	return 0;
}

/* ------------------------------------------------------- fault modes */

/*
 * Random ioctls: every command of the ABI and random ones, with random
 * sizes, directions, values and pointers (NULL, unmapped, kernel, a buffer
 * of random bytes), between non-blocking reads. The module must answer
 * each with 0 or one of the errors it documents, never hang, warn or oops
 * (the harness fails the run on any kernel warning); afterwards a trace
 * must still count exactly.
 */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int mode_fuzz(long n)
{
	static const unsigned long known[] = {
		LTT_IOC_GET_ABI_VERSION, LTT_IOC_START, LTT_IOC_STOP, LTT_IOC_RESET,
		LTT_IOC_SET_BUFFER_SIZE, LTT_IOC_SET_EVENT_MASK, LTT_IOC_SET_DETAILS_MASK,
		LTT_IOC_TRACK_PID, LTT_IOC_TRACK_PGRP, LTT_IOC_TRACK_UID, LTT_IOC_TRACK_GID,
		LTT_IOC_SET_CPUID, LTT_IOC_SET_SYSCALL_DEPTH, LTT_IOC_SET_SYSCALL_RANGE,
		LTT_IOC_GET_TRACE_INFO, LTT_IOC_GET_LOST, LTT_IOC_TEST_EMIT,
		LTT_IOC_USER_EVENT,
	};
	static uint8_t buf[1 << 16] __attribute__((aligned(64)));
	static uint8_t rbuf[LTT_BUFFER_MAX];
	long unexpected = 0, ok = 0, errs = 0;
	char first[160] = "";
	int fd = open_dev();

	if (getenv("LTT_FUZZ_SEED"))
		rng_state = strtoull(getenv("LTT_FUZZ_SEED"), NULL, 0) | 1;
	if (fd < 0) {
		check(false, "ioctl fuzz: open", "%s", strerror(errno));
		goto out;
	}
	for (long i = 0; i < n; i++) {
		uint64_t r = rnd();
		unsigned long cmd;
		void *arg;
		int ret;

		if (r % 5) {
			cmd = known[rnd() % (sizeof(known) / sizeof(known[0]))];
		} else {
			unsigned int dir = rnd() % 4, nr = rnd() % 0x40;
			unsigned int size = rnd() % 4 ? rnd() % 512 : rnd() % (1u << 14);
			unsigned int type = rnd() % 4 ? LTT_IOC_MAGIC : rnd() % 256;

			cmd = _IOC(dir, type, nr, size);
		}
		for (size_t k = 0; k < 512; k += 8) {
			uint64_t v = rnd();

			/* Small values are the interesting ones for sizes and ids. */
			if (v % 3 == 0)
				v %= 1u << 20;
			memcpy(buf + k, &v, 8);
		}
		switch (rnd() % 8) {
		case 0:
			arg = NULL;
			break;
		case 1:
			arg = (void *)8;
			break;
		case 2:
			arg = (void *)0xffffffff81000000UL;
			break;
		default:
			arg = buf;
			break;
		}
		if (arg == buf && cmd == LTT_IOC_TEST_EMIT) {
			struct ltt_test_emit *te = (void *)buf;

			/* Bounded work: a test emit runs until it has emitted. */
			te->count %= 2000;
			if (rnd() % 2)
				te->flags &= LTT_TEST_F_ALL;
		}
		if (arg == buf && cmd == LTT_IOC_USER_EVENT && rnd() % 2) {
			struct ltt_user_event *ue = (void *)buf;

			ue->data = (uintptr_t)(buf + 1024);
			ue->length %= LTT_CUSTOM_MAX + 64;
		}
		if (arg == buf && cmd == LTT_IOC_SET_BUFFER_SIZE && rnd() % 2)
			*(uint32_t *)buf = LTT_BUFFER_MIN + 8 * (rnd() % 8192);
		ret = ioctl(fd, cmd, arg) < 0 ? errno : 0;
		if (!ret) {
			ok++;
		} else if (ret == EINVAL || ret == EFAULT || ret == ENOTTY ||
			   ret == EBUSY || ret == ENOMEM) {
			errs++;
		} else if (!unexpected++) {
			snprintf(first, sizeof(first), "cmd %#lx arg %p: %s", cmd,
				 arg, strerror(ret));
		}
		if (i % 16 == 0) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			/* read() only when poll() says it will not block. */
			if (poll(&p, 1, 0) == 1 && read(fd, rbuf, sizeof(rbuf)) < 0 &&
			    errno != EAGAIN && errno != EINVAL && !unexpected++)
				snprintf(first, sizeof(first), "read: %s", strerror(errno));
		}
	}
	note("ioctl fuzz: %ld calls, %ld succeeded, %ld documented errors", n, ok, errs);
	check(!unexpected, "ioctl fuzz: only documented errors",
	      "%ld unexpected, first: %s", unexpected, first);
	check_emit(fd, "after the ioctl fuzz: counts exact", 3000, 65536, 16, true);
	close(fd);
out:
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

static int set_cpu_online(unsigned int cpu, int on)
{
	char path[64];
	int fd, r = 0;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/online", cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, on ? "1" : "0", 1) != 1)
		r = -errno;
	close(fd);
	return r;
}

/*
 * A CPU taken offline and back online in the middle of a trace, and a CPU
 * offline (for longer than 32-bit deltas reach) when the trace stops:
 * blocks valid, one FINAL block per CPU, recorded + lost == emitted.
 */
static void check_cpu_hotplug(int fd)
{
	unsigned int last = ncpus_online - 1;

	if (ncpus_online < 2) {
		printf("skip - CPU hotplug: one CPU online\n");
		return;
	}
	for (int phase = 0; phase < 2; phase++) {
		const char *nm = phase ? "CPU offline when the trace stops" :
					 "CPU offline and online mid-trace";
		struct ltt_lost_counts lc = { 0 };
		struct trace t = { 0 };
		struct ltt_blocks_result res = { 0 };
		struct test_seen s;
		uint64_t emitted = 0;
		int r, pr = -1, off = -1, on = -1;

		r = configure(fd, 0, 0, 65536) || start(fd, &t);
		r = r || emit(fd, 1000, 0, 16);
		emitted += 1000 * ncpus_online;
		off = r ? -1 : set_cpu_online(last, 0);
		r = r || off || emit(fd, 1000, 0, 16);
		emitted += 1000 * (ncpus_online - 1);
		if (phase == 0) {
			on = r ? -1 : set_cpu_online(last, 1);
			r = r || on || emit(fd, 1000, 0, 16);
			emitted += 1000 * ncpus_online;
		} else if (!r) {
			sleep(5);
		}
		r = r || stop_and_collect(fd, &t);
		if (phase == 1)
			on = set_cpu_online(last, 1);
		r = r || on || xioctl(fd, LTT_IOC_GET_LOST, &lc);
		test_seen_init(&s, 16);
		if (!r)
			pr = ltt_blocks_check(t.buf, t.len, LTT_FORMAT_V2, t.info.ncpus,
					      t.info.anchor_tsc, 0,
					      on_test_record, &s, &res);
		/* Each TEST_EMIT numbers its events from 0: no order check. */
		check(!r && !pr && test_seen_total(&s) + res.lost_total == emitted &&
			      lc.total == res.lost_total && !s.bad_cpu &&
			      !s.bad_size && res.final_blocks[last] == 1 &&
			      res.final_blocks[0] == 1,
		      nm, "r %d (offline %d online %d) parse '%s' seen %llu lost %llu (GET_LOST %llu) emitted %llu finals %u/%u",
		      r, off, on, pr ? res.error : "",
		      (unsigned long long)test_seen_total(&s),
		      (unsigned long long)res.lost_total, (unsigned long long)lc.total,
		      (unsigned long long)emitted, res.final_blocks[0],
		      res.final_blocks[last]);
		trace_free(&t);
	}
	xioctl(fd, LTT_IOC_RESET, NULL);
}

static int mode_hotplug(void)
{
	int fd = open_dev();

	if (fd < 0)
		check(false, "CPU hotplug: open", "%s", strerror(errno));
	else
		check_cpu_hotplug(fd);
	if (fd >= 0)
		close(fd);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

/*
 * Count a trace file written by tracedaemon: its whole blocks must be
 * valid (a cut last block is reported, not an error). Prints
 * "events N lost N blocks N tail N" (test-mode events, lost events, whole
 * blocks, bytes after the last whole block).
 */
static int mode_count(const char *path)
{
	struct ltt_file_header fh;
	struct ltt_blocks_result res = { 0 };
	struct test_seen s;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, whole;
	FILE *f = fopen(path, "rb");
	int pr;

	if (!f) {
		fprintf(stderr, "count: %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (;;) {
		size_t got;

		if (cap - len < 65536) {
			cap = cap * 2 + (1u << 20);
			buf = realloc(buf, cap);
			if (!buf)
				return 1;
		}
		got = fread(buf + len, 1, cap - len, f);
		if (!got)
			break;
		len += got;
	}
	fclose(f);
	if (len < sizeof(fh)) {
		fprintf(stderr, "count: %s: %zu bytes, no file header\n", path, len);
		return 1;
	}
	memcpy(&fh, buf, sizeof(fh));
	if (memcmp(fh.magic, LTT_FILE_MAGIC, 8) || fh.header_size < sizeof(fh) ||
	    fh.header_size > len) {
		fprintf(stderr, "count: %s: bad file header\n", path);
		return 1;
	}
	/* The whole blocks: those whose length stays inside the file. */
	whole = fh.header_size +
		ltt_blocks_whole(buf + fh.header_size, len - fh.header_size,
				 fh.version);
	test_seen_init(&s, 16);
	pr = ltt_blocks_check(buf + fh.header_size, whole - fh.header_size,
			      fh.version, fh.ncpus, fh.anchor_tsc, 0, on_test_record, &s,
			      &res);
	if (pr) {
		fprintf(stderr, "count: %s: %s\n", path, res.error);
		free(buf);
		return 1;
	}
	printf("events %llu lost %llu blocks %llu tail %zu\n",
	       (unsigned long long)test_seen_total(&s),
	       (unsigned long long)res.lost_total, (unsigned long long)res.blocks,
	       len - whole);
	free(buf);
	return 0;
}

/* One hardening check on its own, by name (to show it before a fix). */
/* ------------------------------------------ security: restricted sessions */

/*
 * The attacks on restricted sessions (tests/security/module-security-
 * guest.sh runs them): what uid 1000 may open, see and make the kernel
 * do. "ltt_modtest security default" with the module's default
 * parameters, "ltt_modtest security attacks HELPER" with unprivileged=1;
 * HELPER is tests/security/module-suid.c installed setuid root.
 */

/* What a restricted session recorded of the processes around it. */
struct sec_seen {
	pid_t self;      /* the session's owner, its control loop */
	pid_t target[3]; /* setuid helper, setresuid root, non-dumpable */
	uint64_t self_getppid;
	uint64_t getppid[3], records[3];
	uint64_t maps, shadow, custom;
};

static void on_sec_record(const struct ltt_checked_record *r, void *arg)
{
	struct sec_seen *s = arg;
	const void *d = r->details;
	size_t n = r->size - 8;
	int i;

	if (r->event == LTT_EV_FILE_SYSTEM && r->subtype == LTT_FS_OPEN &&
	    n > LTT_EV_FS_FIXED &&
	    memmem((const char *)d + LTT_EV_FS_FIXED, n - LTT_EV_FS_FIXED,
		   "/etc/shadow", 11))
		s->shadow++;
	if (r->event == LTT_EV_CUSTOM)
		s->custom++;
	if (r->event == LTT_EV_SYSCALL_ENTRY && n >= 12 &&
	    ((const struct ltt_ev_syscall_entry *)d)->nr == SYS_getppid &&
	    r->pid == s->self)
		s->self_getppid++;
	for (i = 0; i < 3; i++) {
		if (!s->target[i] || r->pid != s->target[i])
			continue;
		s->records[i]++;
		if (r->event == LTT_EV_SYSCALL_ENTRY && n >= 12 &&
		    ((const struct ltt_ev_syscall_entry *)d)->nr == SYS_getppid)
			s->getppid[i]++;
		if (r->event == LTT_EV_MAP && i == 0)
			s->maps++;
	}
}

/* STOP, read the trace, hand each record to @fn; the trace is freed. */
static int sec_collect_with(int fd, struct trace *t, ltt_record_fn fn,
			    void *arg)
{
	struct ltt_blocks_result res;
	int r = stop_and_collect(fd, t);

	if (!r && ltt_blocks_check(t->buf, t->len, LTT_FORMAT_V2, t->info.ncpus,
				   t->info.anchor_tsc, 0, fn, arg, &res)) {
		note("blocks: %s", res.error);
		r = -EPROTO;
	}
	trace_free(t);
	return r;
}

static int sec_collect(int fd, struct trace *t, struct sec_seen *s)
{
	return sec_collect_with(fd, t, on_sec_record, s);
}

/* Run @fn in a child as uid 1000; return its exit status (-1: no child). */
static int as_user(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(become(1000) ? 120 : fn(arg));
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* The child's errno (0: success) back through @arg, an int in shared memory. */
static int *shared_ints(int n)
{
	void *p = mmap(NULL, n * sizeof(int), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int try_open(void *arg)
{
	int *v = arg, fd = open(dev, O_RDONLY);

	*v = fd < 0 ? errno : 0;
	return 0;
}

/* Default parameters: only a privileged user may open /dev/tracer. */
static int mode_security_default(void)
{
	int *v = shared_ints(2), fd;
	struct ltt_trace_info info;
	struct stat st;

	if (!v)
		return 1;
	memset(&st, 0, sizeof(st));
	v[0] = stat(dev, &st) ? errno : 0;
	check(!v[0] && (st.st_mode & 0777) == 0600,
	      "security: /dev/tracer is mode 0600 by default",
	      "mode %04o, stat: %s", (unsigned int)(st.st_mode & 07777),
	      strerror(v[0]));
	v[0] = -1;
	as_user(try_open, &v[0]);
	check(v[0] == EACCES, "security: uid 1000 cannot open /dev/tracer by default",
	      "open: %s", v[0] ? strerror(v[0]) : "succeeded");
	/* The node's mode is not the only guard. */
	v[1] = -1;
	if (!chmod(dev, 0666)) {
		as_user(try_open, &v[1]);
		chmod(dev, 0600);
	}
	check(v[1] == EPERM,
	      "security: uid 1000 gets EPERM even when the node is made 0666",
	      "open: %s", v[1] ? strerror(v[1]) : "succeeded");
	fd = open(dev, O_RDONLY);
	check(fd >= 0 && !xioctl(fd, LTT_IOC_GET_TRACE_INFO, &info) &&
		      !(info.flags & LTT_TRACE_F_RESTRICTED),
	      "security: root opens a privileged session", "%s", strerror(errno));
	if (fd >= 0)
		close(fd);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

/* SEC_UNSET: a result no child wrote. */
enum { SEC_LOOP = 1000, SEC_UNSET = -100000 };

/*
 * uid 1000's restricted session, everything selected, traces while the
 * setuid-root HELPER runs from one of its children, a root process with
 * its effective uid set to 1000 runs a getppid() loop, and a child of its
 * own makes itself non-dumpable and does the same. It must record its
 * own loop and nothing of the three.
 */
static void check_sec_owner(const char *helper)
{
	struct sec_seen *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int go[2], done[2], rdy[2], st, hst = -1, rc = -1;
	pid_t u, root;
	char c;

	if (s == MAP_FAILED || pipe(go) || pipe(done) || pipe(rdy))
		return;
	memset(s, 0, sizeof(*s));
	/* The root process: ruid and suid 0, euid 1000. */
	root = fork();
	if (root == 0) {
		if (read(go[0], &c, 1) != 1 || setresuid(0, 1000, 0))
			_exit(1);
		syscall_loop(SEC_LOOP);
		_exit(0);
	}
	s->target[1] = root;
	u = fork();
	if (u == 0) {
		struct trace t = { 0 };
		pid_t h, d;
		int fd, e;

		e = become(1000);
		fd = e ? -1 : open_dev();
		e = e ? e : fd < 0 ? -errno : configure(fd, LTT_EV_MASK_ALL |
							  LTT_EV_BIT(LTT_EV_MAP),
						    LTT_EV_MASK_ALL |
							  LTT_EV_BIT(LTT_EV_MAP),
						    1u << 20);
		e = e ? e : start(fd, &t);
		s->self = getpid();
		if (write(rdy[1], "r", 1) != 1)
			_exit(1);
		h = fork();
		if (h == 0) {
			execl(helper, helper, (char *)NULL);
			_exit(127);
		}
		s->target[0] = h;
		d = fork();
		if (d == 0) {
			if (prctl(PR_SET_DUMPABLE, 0))
				_exit(1);
			syscall_loop(SEC_LOOP);
			_exit(0);
		}
		s->target[2] = d;
		syscall_loop(SEC_LOOP);
		if (h > 0 && waitpid(h, &st, 0) == h && WIFEXITED(st))
			hst = WEXITSTATUS(st);
		if (d > 0)
			waitpid(d, NULL, 0);
		/* The root loop has run meanwhile (the parent waited for it). */
		if (read(done[0], &c, 1) != 1)
			_exit(1);
		e = e ? e : sec_collect(fd, &t, s);
		_exit(e ? 100 : hst < 0 ? 101 : hst);
	}
	if (u > 0 && read(rdy[0], &c, 1) == 1) {
		/* uid 1000 traces: let the root process run, then say so. */
		if (write(go[1], "g", 1) != 1)
			note("security: pipe");
		waitpid(root, NULL, 0);
		if (write(done[1], "d", 1) != 1)
			note("security: pipe");
		if (waitpid(u, &st, 0) == u && WIFEXITED(st))
			rc = WEXITSTATUS(st);
	} else {
		kill(root, SIGKILL);
		waitpid(root, NULL, 0);
		if (u > 0)
			waitpid(u, NULL, 0);
	}
	note("security: helper %d, root %d, non-dumpable %d; session status %d",
	     s->target[0], s->target[1], s->target[2], rc);
	check(rc == 0, "security: the setuid helper ran (opened /etc/shadow, mapped an executable)",
	      "status %d (100: no trace, 1..: the helper failed)", rc);
	check(rc >= 0 && s->self_getppid >= SEC_LOOP,
	      "security: uid 1000's session records its own loop",
	      "%llu getppid entries", (unsigned long long)s->self_getppid);
	/* (Before its exec the helper is uid 1000's own child.) */
	check(rc >= 0 && !s->getppid[0] && !s->shadow && !s->maps,
	      "security: nothing of the setuid-root helper after its exec",
	      "%llu getppid entries, %llu /etc/shadow opens, %llu MAP",
	      (unsigned long long)s->getppid[0],
	      (unsigned long long)s->shadow, (unsigned long long)s->maps);
	check(rc >= 0 && !s->records[1],
	      "security: nothing of a root process with euid 1000 (setresuid(0, 1000, 0))",
	      "%llu records (%llu getppid)", (unsigned long long)s->records[1],
	      (unsigned long long)s->getppid[1]);
	check(rc >= 0 && !s->getppid[2],
	      "security: nothing of uid 1000's process after PR_SET_DUMPABLE 0",
	      "%llu getppid entries", (unsigned long long)s->getppid[2]);
	munmap(s, sizeof(*s));
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
	close(rdy[0]);
	close(rdy[1]);
}

/* What uid 1000's session may not do: results in shared ints. */
static int sec_refusals(void *arg)
{
	struct ltt_test_emit te = { .count = 1000, .payload = 16 };
	struct ltt_trace_info info;
	struct trace t = { 0 };
	int *v = arg, fd = open_dev(), i, again = 0, r;

	if (fd < 0)
		return 1;
	v[0] = configure(fd, LTT_EV_MASK_ALL, LTT_EV_MASK_ALL, 1u << 20);
	v[0] = v[0] ? v[0] : start(fd, &t);
	v[1] = -xioctl(fd, LTT_IOC_TEST_EMIT, &te);
	te.flags = LTT_TEST_F_HEARTBEAT;
	te.payload = 0;
	v[2] = -xioctl(fd, LTT_IOC_TEST_EMIT, &te);
	v[3] = -set_u64(fd, LTT_IOC_SET_EVENT_MASK,
			LTT_EV_MASK_ALL | LTT_EV_BIT(LTT_EV_LOCK));
	xioctl(fd, LTT_IOC_STOP, NULL);
	/*
	 * 40 START/STOP pairs, then 100 SNAPSHOTs (refused: no flight
	 * recorder, but each asked for): the budget runs out, however slow
	 * each STOP is.
	 */
	for (i = 0; i < 80; i++) {
		r = xioctl(fd, i & 1 ? LTT_IOC_STOP : LTT_IOC_START, NULL);
		if (r == -EAGAIN)
			again++;
	}
	for (i = 0; i < 100; i++)
		if (xioctl(fd, LTT_IOC_SNAPSHOT, NULL) == -EAGAIN)
			again++;
	v[4] = again;
	/*
	 * After a pause the budget is back: the STOP (which the loop's last
	 * refusal may have left undone) and a new START both go through.
	 */
	sleep(3);
	xioctl(fd, LTT_IOC_STOP, NULL);
	v[5] = -xioctl(fd, LTT_IOC_START, NULL);
	xioctl(fd, LTT_IOC_STOP, NULL);
	/* RESET keeps the restricted buffer limit. */
	v[6] = -1;
	if (!xioctl(fd, LTT_IOC_RESET, NULL) &&
	    !xioctl(fd, LTT_IOC_GET_TRACE_INFO, &info))
		v[6] = info.max_block;
	close(fd);
	trace_free(&t);
	/* No locked memory left: START is refused, as perf refuses. */
	{
		struct rlimit rl = { 0, 0 };

		fd = open_dev();
		v[7] = fd < 0 || setrlimit(RLIMIT_MEMLOCK, &rl) ? -1 :
			-xioctl(fd, LTT_IOC_START, NULL);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

/* uid 1000 logs user events while root's session takes them. */
static int sec_user_events(void *arg)
{
	struct sec_seen s = { 0 };
	struct trace t = { 0 };
	int *v = arg, fd = open_dev(), e, i;

	if (fd < 0)
		return 1;
	e = configure(fd, LTT_EV_MASK_ALL, LTT_EV_MASK_ALL, 1u << 20);
	e = e ? e : start(fd, &t);
	for (i = 0; i < 5 && !e; i++)
		e = user_event(fd, 1, "hello", 5);
	e = e ? e : sec_collect(fd, &t, &s);
	v[0] = e;
	v[1] = s.custom;
	close(fd);
	return 0;
}

/* Drop every capability, staying uid 0. */
static int drop_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };

	return syscall(SYS_capset, &h, d);
}

/*
 * Restricted opens from another pid namespace (uid 0 without
 * capabilities) or user namespace (uid 1000) are refused. @v[0], @v[1]:
 * the opens' errnos (0: opened), or -errno of an unshare() the kernel
 * refused (a skip); @v[2]: getppid() entries of a root loop outside that
 * the pid namespace's session recorded, when it could open.
 */
static void sec_namespaces(int *v)
{
	pid_t pid, loop;
	int st;

	v[0] = v[1] = SEC_UNSET;
	v[2] = 0;
	loop = fork();
	if (loop == 0) {
		for (;;)
			syscall_loop(SEC_LOOP);
	}
	pid = fork();
	if (pid == 0) {
		pid_t in;

		if (unshare(CLONE_NEWPID)) {
			v[0] = -errno;
			_exit(0);
		}
		in = fork();
		if (in == 0) {
			struct sec_seen s = { 0 };
			struct trace t = { 0 };
			int fd;

			if (drop_caps())
				_exit(1);
			fd = open(dev, O_RDONLY);
			v[0] = fd < 0 ? errno : 0;
			if (fd >= 0 && !configure(fd, LTT_EV_MASK_ALL,
						  LTT_EV_MASK_ALL, 1u << 20) &&
			    !start(fd, &t)) {
				s.target[0] = loop;
				usleep(300000);
				if (!sec_collect(fd, &t, &s))
					v[2] = s.getppid[0];
			}
			_exit(0);
		}
		if (in > 0)
			waitpid(in, NULL, 0);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	kill(loop, SIGKILL);
	waitpid(loop, NULL, 0);
	pid = fork();
	if (pid == 0) {
		if (become(1000) || unshare(CLONE_NEWUSER)) {
			v[1] = -errno;
			_exit(0);
		}
		try_open(&v[1]);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
}

/*
 * Is CONFIG_@opt left out of this kernel by design? Suite 66 passes the
 * options of its checks that the kernel's configuration lacks in
 * $LTT_KCONFIG_ABSENT ("PID_NS,USER_NS,MEMCG" for the patched kernels,
 * tinyconfig plus kernel-patches/config/guest.config, which leave
 * namespaces and cgroups out). A check that needs one of those is then a
 * skip that says why; on a kernel that has them it must run.
 */
static bool kconfig_absent(const char *opt)
{
	const char *l = getenv("LTT_KCONFIG_ABSENT");
	size_t n = strlen(opt);

	while (l && *l) {
		l += strspn(l, " ,");
		if (!strncmp(l, opt, n) && (!l[n] || strchr(" ,", l[n])))
			return true;
		l += strcspn(l, " ,");
	}
	return false;
}

/* A check the kernel cannot run: a skip by design, else a failure. */
static void sec_cannot(const char *opt, const char *name, const char *why)
{
	if (kconfig_absent(opt))
		printf("skip - %s%s: differs by design: this kernel is built without CONFIG_%s (the patched guest kernels have no namespaces or cgroups; the stock kernel runs this check); %s\n",
		       prefix, name, opt, why);
	else
		check(false, name, "CONFIG_%s is set, yet %s", opt, why);
}

/* The memory charged to the cgroup @dir so far, or -1. */
static long long cgroup_memory(const char *dir)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.current", dir);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* In the cgroup of check_sec_memcg(): uid 1000's START, charged there. */
static int sec_memcg_user(void *arg)
{
	long long *v = arg;
	const char *dir = "/sys/fs/cgroup/ltt-security";
	struct trace t = { 0 };
	int fd = open_dev(), e;

	if (fd < 0)
		return 1;
	v[0] = cgroup_memory(dir);
	e = configure(fd, LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY), 0, 1u << 20);
	e = e ? e : start(fd, &t);
	v[1] = cgroup_memory(dir);
	v[2] = e;
	if (!e)
		stop_and_collect(fd, &t);
	trace_free(&t);
	close(fd);
	return 0;
}

/*
 * A restricted session's buffers are charged to the memory cgroup of the
 * user who starts it (__GFP_ACCOUNT), as perf's are: uid 1000 in a cgroup
 * of its own starts a session of 1 MiB buffers, and the cgroup's
 * memory.current grows by most of 2 x 1 MiB x CPUs. A kernel without
 * cgroups (the patched one) is a skip.
 */
static void check_sec_memcg(void)
{
	const char *root = "/sys/fs/cgroup", *dir = "/sys/fs/cgroup/ltt-security";
	long long *v = mmap(NULL, 4 * sizeof(long long), PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long long want = 2ll * (1 << 20) * ncpus_online * 3 / 4;
	char path[256];
	pid_t pid;
	int st = -1;
	FILE *f;

	if (v == MAP_FAILED)
		return;
	v[0] = v[1] = -1;
	v[2] = -1;
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
	if (access(path, F_OK))
		mount("none", root, "cgroup2", 0, NULL);
	f = fopen(path, "w");
	if (!f || fputs("+memory", f) < 0 || fclose(f)) {
		char why[128];

		snprintf(why, sizeof(why), "no memory controller (%s)",
			 strerror(errno));
		sec_cannot("MEMCG",
			   "security: buffers charged to uid 1000's memory cgroup",
			   why);
		munmap(v, 4 * sizeof(long long));
		return;
	}
	mkdir(dir, 0755);
	pid = fork();
	if (pid == 0) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
		f = fopen(path, "w");
		if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f))
			_exit(1);
		_exit(as_user(sec_memcg_user, v));
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	rmdir(dir);
	note("security: uid 1000's cgroup: memory.current %lld before START, %lld after (%d CPUs)",
	     v[0], v[1], ncpus_online);
	check(WIFEXITED(st) && !WEXITSTATUS(st) && !v[2] && v[0] >= 0 &&
		      v[1] - v[0] >= want,
	      "security: buffers charged to uid 1000's memory cgroup",
	      "status %d, START %lld, grew by %lld, want %lld", st, v[2],
	      v[1] - v[0], want);
	munmap(v, 4 * sizeof(long long));
}

/*
 * Records of uid 1000's session that name another task than current:
 * the incoming side of a schedchange, a wakeup's and a signal's task.
 * Child 0 is a dumpable process of uid 1000 (the control), child 1 one
 * that made itself non-dumpable, which ptrace would not let uid 1000
 * read: nothing may name it.
 */
struct sec_named {
	pid_t child[2];
	uint64_t switched_in[2], woken[2], signalled[2];
	int err;
};

static void on_named_record(const struct ltt_checked_record *r, void *arg)
{
	struct sec_named *s = arg;
	size_t n = r->size - 8;
	int i;

	for (i = 0; i < 2; i++) {
		if (r->event == LTT_EV_SCHEDCHANGE &&
		    n >= sizeof(struct ltt_ev_schedchange) &&
		    ((const struct ltt_ev_schedchange *)r->details)->in ==
			    s->child[i])
			s->switched_in[i]++;
		if (r->event != LTT_EV_PROCESS || r->pid == s->child[i] ||
		    n < sizeof(struct ltt_ev_process) ||
		    ((const struct ltt_ev_process *)r->details)->pid !=
			    s->child[i])
			continue;
		if (r->subtype == LTT_PROCESS_WAKEUP)
			s->woken[i]++;
		else if (r->subtype == LTT_PROCESS_SIGNAL)
			s->signalled[i]++;
	}
}

static void sec_on_usr1(int sig)
{
	(void)sig;
}

/*
 * A child of the session's owner: non-dumpable when @hide, then it
 * answers each byte on @in with one on @out, blocked in read() between
 * them, until 'q'.
 */
static void sec_echo(int in, int out, bool hide)
{
	struct sigaction sa = { .sa_handler = sec_on_usr1,
				.sa_flags = SA_RESTART };
	char c;

	if (sigaction(SIGUSR1, &sa, NULL) ||
	    (hide && prctl(PR_SET_DUMPABLE, 0)) || write(out, "r", 1) != 1)
		_exit(1);
	while (read(in, &c, 1) == 1 && c != 'q')
		if (write(out, &c, 1) != 1)
			_exit(1);
	_exit(0);
}

#define SEC_ROUNDS 20

/*
 * As uid 1000: a restricted session, everything selected, traces while
 * its owner wakes each child SEC_ROUNDS times through a pipe (the child
 * blocked in read()) and sends it SIGUSR1 5 times.
 */
static int sec_named_user(void *arg)
{
	struct sec_named *s = arg;
	int to[2][2], from[2][2], fd, e = 0, i, k;
	struct trace t = { 0 };
	char c;

	for (i = 0; i < 2; i++) {
		pid_t pid;

		if (pipe(to[i]) || pipe(from[i]))
			return 1;
		/* Only the parent writes the pid: @s is shared with the child. */
		pid = fork();
		if (pid == 0)
			sec_echo(to[i][0], from[i][1], i == 1);
		s->child[i] = pid;
		if (pid < 0 || read(from[i][0], &c, 1) != 1)
			e = -ECHILD;
	}
	fd = e ? -1 : open_dev();
	e = e ? e : fd < 0 ? -errno : configure(fd, LTT_EV_MASK_ALL,
						 LTT_EV_MASK_ALL, 1u << 20);
	e = e ? e : start(fd, &t);
	for (k = 0; !e && k < SEC_ROUNDS; k++) {
		for (i = 0; !e && i < 2; i++) {
			/* The child is surely blocked in read() by now. */
			usleep(2000);
			if (write(to[i][1], "p", 1) != 1 ||
			    read(from[i][0], &c, 1) != 1)
				e = -EPIPE;
			if (!e && k < 5 && s->child[i] > 0 &&
			    kill(s->child[i], SIGUSR1))
				e = -errno;
		}
	}
	e = e ? e : sec_collect_with(fd, &t, on_named_record, s);
	trace_free(&t);
	for (i = 0; i < 2; i++) {
		if (s->child[i] > 0) {
			if (write(to[i][1], "q", 1) != 1)
				kill(s->child[i], SIGKILL);
			waitpid(s->child[i], NULL, 0);
		}
	}
	if (fd >= 0)
		close(fd);
	s->err = e;
	return 0;
}

/*
 * Wakeups, signals and switches naming a task (not current) follow the
 * owner rule too: uid 1000's session sees those of its dumpable child,
 * and none of the child that called PR_SET_DUMPABLE 0.
 */
static void check_sec_named(void)
{
	struct sec_named *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int rc;

	if (s == MAP_FAILED)
		return;
	memset(s, 0, sizeof(*s));
	s->err = SEC_UNSET;
	rc = as_user(sec_named_user, s);
	note("security: dumpable child %d: %llu switched in, %llu woken, %llu signalled; non-dumpable child %d: %llu, %llu, %llu",
	     s->child[0], (unsigned long long)s->switched_in[0],
	     (unsigned long long)s->woken[0],
	     (unsigned long long)s->signalled[0], s->child[1],
	     (unsigned long long)s->switched_in[1],
	     (unsigned long long)s->woken[1],
	     (unsigned long long)s->signalled[1]);
	check(!rc && !s->err && s->switched_in[0] && s->woken[0] &&
		      s->signalled[0],
	      "security: uid 1000's session sees its dumpable child switched in, woken and signalled",
	      "status %d, error %d; %llu, %llu, %llu", rc, s->err,
	      (unsigned long long)s->switched_in[0],
	      (unsigned long long)s->woken[0],
	      (unsigned long long)s->signalled[0]);
	check(!rc && !s->err && !s->switched_in[1] && !s->woken[1] &&
		      !s->signalled[1],
	      "security: no schedchange, wakeup or signal names uid 1000's non-dumpable process",
	      "status %d, error %d; switched in %llu, woken %llu, signalled %llu",
	      rc, s->err, (unsigned long long)s->switched_in[1],
	      (unsigned long long)s->woken[1],
	      (unsigned long long)s->signalled[1]);
	munmap(s, sizeof(*s));
}

/* Does /proc/@pid/wchan name a function of RCU's grace-period wait? */
static bool in_grace_period(pid_t pid)
{
	char path[64], buf[128] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return strstr(buf, "rcu") != NULL;
}

#define SEC_GP_TRIALS 5

/*
 * A restricted session's STOP, while root traces too (so it is not the
 * last), waits for its grace period without the sessions lock: root's
 * START, which takes that lock, completes while the STOP still waits.
 * uid 1000's process starts and stops its session SEC_GP_TRIALS times;
 * at each STOP, once /proc/PID/wchan shows it waiting for the grace
 * period, root opens and starts a session, then looks again. With the
 * lock held across the wait, root's START could only return after it.
 */
static void check_sec_stop_unlocked(void)
{
	int go[2], ack[2], fd, x, i, seen = 0, overtaken = 0, e;
	struct trace t = { 0 }, tx = { 0 };
	pid_t pid;
	char c;

	if (pipe(go) || pipe(ack))
		return;
	fd = open_dev();
	e = fd < 0 ? -ENODEV : configure(fd, LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY),
					 0, 64u << 10);
	e = e ? e : start(fd, &t);
	pid = e ? -1 : fork();
	if (pid == 0) {
		int u = become(1000) ? -1 : open_dev();

		if (u < 0 || configure(u, LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY), 0,
				       64u << 10))
			_exit(1);
		for (i = 0; i < SEC_GP_TRIALS; i++) {
			if (xioctl(u, LTT_IOC_START, NULL) ||
			    write(ack[1], "s", 1) != 1 ||
			    read(go[0], &c, 1) != 1 ||
			    xioctl(u, LTT_IOC_STOP, NULL) ||
			    write(ack[1], "d", 1) != 1)
				_exit(2);
		}
		_exit(0);
	}
	for (i = 0; pid > 0 && i < SEC_GP_TRIALS; i++) {
		double t0;
		bool waiting = false;

		/* Root's second session, ready to START in the window. */
		x = open_dev();
		if (x < 0 || configure(x, LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY), 0,
				       64u << 10) ||
		    read(ack[0], &c, 1) != 1 || write(go[1], "g", 1) != 1) {
			if (x >= 0)
				close(x);
			break;
		}
		t0 = now_ns();
		while (!(waiting = in_grace_period(pid)) &&
		       now_ns() - t0 < 3e9)
			;
		if (waiting) {
			seen++;
			if (!start(x, &tx) && in_grace_period(pid))
				overtaken++;
			stop_and_collect(x, &tx);
		}
		close(x);
		trace_free(&tx);
		if (read(ack[0], &c, 1) != 1)
			break;
	}
	if (pid > 0) {
		int st = -1;

		waitpid(pid, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			e = -ECHILD;
	}
	if (fd >= 0) {
		stop_and_collect(fd, &t);
		close(fd);
	}
	trace_free(&t);
	note("security: uid 1000's STOP seen waiting for its grace period %d of %d times; root's START done meanwhile %d times",
	     seen, SEC_GP_TRIALS, overtaken);
	check(!e && seen > 0 && overtaken > 0,
	      "security: root's START does not wait for uid 1000's STOP's grace period (no sessions lock held across it)",
	      "error %d; STOP seen waiting %d times, root's START done meanwhile %d",
	      e, seen, overtaken);
	close(go[0]);
	close(go[1]);
	close(ack[0]);
	close(ack[1]);
}

/*
 * The syscall IP policy is root's even when uid 1000 traces first: with
 * uid 1000's session tracing, root's session asks SET_SYSCALL_DEPTH 1
 * and records the caller one frame up (ip_run()), not the system call
 * instruction.
 */
static void check_sec_ip_policy(void)
{
	int go[2], ack[2], fd, r = -ECHILD;
	struct ip_seen s = { 0 };
	pid_t pid;
	char c;

	if (pipe(go) || pipe(ack))
		return;
	pid = fork();
	if (pid == 0) {
		struct trace t = { 0 };
		int u = become(1000) ? -1 : open_dev();

		if (u < 0 || configure(u, LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY), 0,
				       64u << 10) ||
		    start(u, &t) || write(ack[1], "s", 1) != 1 ||
		    read(go[0], &c, 1) != 1)
			_exit(1);
		stop_and_collect(u, &t);
		trace_free(&t);
		_exit(0);
	}
	if (pid > 0 && read(ack[0], &c, 1) == 1) {
		fd = open_dev();
		r = fd < 0 ? -ENODEV : ip_run(fd, 1, false, &s);
		if (fd >= 0)
			close(fd);
	}
	if (pid > 0) {
		if (write(go[1], "g", 1) != 1)
			kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	check(!r && s.in_section == 20 && !s.outside,
	      "security: root sets the syscall IP policy (depth 1) while uid 1000 traces",
	      "r %d outside %llu inside %llu zero %llu", r,
	      (unsigned long long)s.outside, (unsigned long long)s.in_section,
	      (unsigned long long)s.zero);
	close(go[0]);
	close(go[1]);
	close(ack[0]);
	close(ack[1]);
}

/*
 * The test module's (ltt_test.ko) parameter fault_attach: write @v,
 * return what it held.
 */
static long set_fault_attach(long v)
{
	const char *path = "/sys/module/ltt_test/parameters/fault_attach";
	long old = -1;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%ld", &old) != 1)
			old = -1;
		fclose(f);
	}
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%ld\n", v);
		fclose(f);
	}
	return old;
}

/* What a trace of check_sec_config_attach() holds. */
struct attach_seen {
	uint64_t config_mount, config_timer, mounts, timers;
};

static void on_attach_record(const struct ltt_checked_record *r, void *arg)
{
	struct attach_seen *s = arg;

	if (r->event == LTT_EV_CONFIG && r->subtype == LTT_CONFIG_EVENTS &&
	    r->size >= 8 + sizeof(struct ltt_ev_config)) {
		uint64_t m = ((const struct ltt_ev_config *)r->details)->event_mask;

		s->config_mount += !!(m & LTT_EV_BIT(LTT_EV_MOUNT));
		s->config_timer += !!(m & LTT_EV_BIT(LTT_EV_TIMER));
	}
	s->mounts += r->event == LTT_EV_MOUNT;
	s->timers += r->event == LTT_EV_TIMER;
}

/*
 * A change of a tracing session's mask attaches what the added events
 * need first, and only that step may fail (fault_attach makes the Nth
 * attach from now fail, as a failed allocation would). Adding MOUNT
 * with the second attach failing: the change holds, and the CONFIG
 * record that says so is followed by the MOUNT records of 3 mount
 * calls (and their umounts). Adding TIMER with the first attach failing: -ENOMEM,
 * and no CONFIG record claims TIMER.
 */
static void check_sec_config_attach(void)
{
	const char *dir = "/tmp/ltt-attach";
	struct ltt_blocks_result res;
	struct attach_seen s = { 0 };
	uint64_t mask = LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY);
	struct trace t = { 0 };
	int fd = open_dev(), e, r1 = -1, r2 = -1, i;
	long left = -1;

	if (set_fault_attach(0) < 0) {
		check(false, "security: ltt_test.ko's parameter fault_attach exists",
		      "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	mkdir(dir, 0700);
	e = fd < 0 ? -ENODEV : configure(fd, mask, LTT_EV_MASK_ALL, 1u << 20);
	e = e ? e : start(fd, &t);
	if (!e) {
		set_fault_attach(2);
		r1 = set_u64(fd, LTT_IOC_SET_EVENT_MASK,
			     mask | LTT_EV_BIT(LTT_EV_MOUNT));
		left = set_fault_attach(0);
		for (i = 0; i < 3; i++)
			if (!mount("none", dir, "tmpfs", 0, NULL))
				umount(dir);
		set_fault_attach(1);
		r2 = set_u64(fd, LTT_IOC_SET_EVENT_MASK,
			     mask | LTT_EV_BIT(LTT_EV_MOUNT) |
				     LTT_EV_BIT(LTT_EV_TIMER));
		set_fault_attach(0);
		e = stop_and_collect(fd, &t);
	}
	if (!e && ltt_blocks_check(t.buf, t.len, LTT_FORMAT_V2, t.info.ncpus,
				   t.info.anchor_tsc, 0, on_attach_record, &s,
				   &res))
		e = -EPROTO;
	trace_free(&t);
	if (fd >= 0)
		close(fd);
	rmdir(dir);
	note("security: adding MOUNT: %d (attaches left %ld), CONFIG records with MOUNT %llu, MOUNT records %llu; adding TIMER: %d, CONFIG records with TIMER %llu",
	     r1, left, (unsigned long long)s.config_mount,
	     (unsigned long long)s.mounts, r2,
	     (unsigned long long)s.config_timer);
	check(!e && !r1 && s.config_mount == 1 && s.mounts >= 3,
	      "security: a mask change's CONFIG record claims only a mask in force (second attach failing)",
	      "error %d, change %d, CONFIG with MOUNT %llu, MOUNT records %llu (want 3 or more)",
	      e, r1, (unsigned long long)s.config_mount,
	      (unsigned long long)s.mounts);
	check(!e && r2 == -ENOMEM && !s.config_timer,
	      "security: a mask change whose attach fails is refused (ENOMEM), no CONFIG record",
	      "error %d, change %d, CONFIG with TIMER %llu", e, r2,
	      (unsigned long long)s.config_timer);
}

/* With unprivileged=1: the attacks, each held. */
static int mode_security_attacks(const char *helper)
{
	int *v = shared_ints(16), fd, e;
	struct sec_seen s = { 0 };
	struct trace t = { 0 };
	char why[128];

	if (!v)
		return 1;
	check_sec_owner(helper);
	check_sec_named();
	check_sec_stop_unlocked();
	check_sec_ip_policy();
	check_sec_config_attach();

	memset(v, 0xff, 16 * sizeof(int));
	e = as_user(sec_refusals, v);
	check(!e && !v[0], "security: uid 1000 opens and starts a restricted session",
	      "status %d, %s", e, strerror(-v[0]));
	check(!e && v[1] == EPERM && v[2] == EPERM,
	      "security: TEST_EMIT (and its test flags) refused to uid 1000",
	      "errno %d, %d", v[1], v[2]);
	check(!e && v[3] == EPERM, "security: LOCK refused to uid 1000",
	      "errno %d", v[3]);
	check(!e && v[4] > 0 && v[4] < 180,
	      "security: uid 1000's START/STOP/SNAPSHOT loop is rate-limited (EAGAIN)",
	      "%d of 180 refused", v[4]);
	check(!e && v[5] == 0, "security: uid 1000 may START again after a pause",
	      "errno %d", v[5]);
	check(!e && v[6] > 0 && v[6] <= (1 << 20),
	      "security: RESET keeps uid 1000's buffer limit (1 MiB)",
	      "max_block %d", v[6]);
	check(!e && v[7] == EPERM,
	      "security: uid 1000's START past its locked-memory limit gets EPERM",
	      "errno %d", v[7]);

	/* Root's session with user events, while uid 1000 logs some. */
	fd = open_dev();
	e = fd < 0 || configure(fd, LTT_EV_BIT(LTT_EV_CUSTOM),
				LTT_EV_MASK_ALL, 1u << 20) || start(fd, &t);
	memset(v, 0xff, 16 * sizeof(int));
	e = e ? e : as_user(sec_user_events, v);
	e = e ? e : sec_collect(fd, &t, &s);
	if (fd >= 0)
		close(fd);
	check(!e && !v[0] && v[1] == 5,
	      "security: uid 1000's session records its 5 user events",
	      "status %d/%d, %d", e, v[0], v[1]);
	check(!e && !s.custom,
	      "security: none of uid 1000's user events land in root's session",
	      "root's session got %llu", (unsigned long long)s.custom);

	check_sec_memcg();

	memset(v, 0xff, 16 * sizeof(int));
	sec_namespaces(v);
	/* A negative value: unshare()'s errno (the kernel has none). */
	if (v[0] < 0 && v[0] != SEC_UNSET) {
		snprintf(why, sizeof(why), "unshare(CLONE_NEWPID): %s",
			 strerror(-v[0]));
		sec_cannot("PID_NS",
			   "security: uid 0 without capabilities in a pid namespace cannot open",
			   why);
	} else {
		check(v[0] == EPERM,
		      "security: uid 0 without capabilities in a pid namespace cannot open",
		      "open: %s; it saw %d getppid() of a root loop outside",
		      v[0] > 0 ? strerror(v[0]) : v[0] ? "setup failed" :
			"succeeded", v[2]);
	}
	if (v[1] < 0 && v[1] != SEC_UNSET) {
		snprintf(why, sizeof(why),
			 "unshare(CLONE_NEWUSER) as uid 1000: %s",
			 strerror(-v[1]));
		sec_cannot("USER_NS",
			   "security: uid 1000 in a user namespace cannot open",
			   why);
	} else {
		check(v[1] == EPERM,
		      "security: uid 1000 in a user namespace cannot open",
		      "open: %s", v[1] > 0 ? strerror(v[1]) :
			v[1] ? "setup failed" : "succeeded");
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

/*
 * The CPUs the kernel keeps for a workload of their own (isolcpus,
 * nohz_full: /sys/devices/system/cpu/{isolated,nohz_full}), as a mask of
 * the first 64.
 */
static uint64_t isolated_cpus(void)
{
	static const char *const files[] = {
		"/sys/devices/system/cpu/isolated",
		"/sys/devices/system/cpu/nohz_full",
	};
	uint64_t mask = 0;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		char buf[256], *p = buf, *end;
		FILE *f = fopen(files[i], "r");
		unsigned long a, b;

		if (!f)
			continue;
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
		/* A cpulist: "1", "1-3,5"; "(null)" when none. */
		while (*p >= '0' && *p <= '9') {
			a = strtoul(p, &end, 10);
			b = a;
			if (*end == '-')
				b = strtoul(end + 1, &end, 10);
			for (; a <= b && a < 64; a++)
				mask |= 1ull << a;
			p = *end == ',' ? end + 1 : end;
		}
	}
	return mask;
}

/* Function-call IPIs (the CAL row of /proc/interrupts) CPUs in @mask took. */
static uint64_t cal_interrupts(uint64_t mask)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[4096];
	uint64_t n = 0;

	while (f && fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		unsigned int cpu = 0;

		while (*p == ' ')
			p++;
		if (strncmp(p, "CAL:", 4))
			continue;
		p += 4;
		for (;; cpu++) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			if (cpu < 64 && (mask & (1ull << cpu)))
				n += v;
			p = end;
		}
	}
	if (f)
		fclose(f);
	return n;
}

/*
 * Count the blocks of @buf per CPU into @n (LTT_MAX_CPUS): a snapshot's
 * blocks, whose sequence numbers go on from the last snapshot's, so not
 * ltt_blocks_check()'s. -EPROTO when one is not a block.
 */
static int count_blocks(const uint8_t *buf, size_t len, uint64_t *n)
{
	size_t off = 0;

	while (off < len) {
		struct ltt_block_start bs;

		if (len - off < sizeof(struct ltt_record_header) + sizeof(bs))
			return -EPROTO;
		memcpy(&bs, buf + off + sizeof(struct ltt_record_header),
		       sizeof(bs));
		if (bs.magic != LTT_BLOCK_MAGIC || bs.length < sizeof(bs) ||
		    bs.length > len - off || bs.cpu >= LTT_MAX_CPUS)
			return -EPROTO;
		n[bs.cpu]++;
		off += bs.length;
	}
	return 0;
}

/* What uid 1000's sessions left on the isolated CPUs: shared ints. */
enum {
	ISO_ERR,
	ISO_HB_ISO,
	ISO_HB_OTHER,
	ISO_SNAP_ERR,
	ISO_SNAPS,
	ISO_SNAP_BLOCKS,
	ISO_SNAP_OTHER,
	ISO_CAL,
	ISO_VARS_ERR,
	ISO_VARS_CAL,
	ISO_N
};

static int sec_isolated_user(void *arg)
{
	int *v = arg, fd, i, e;
	uint64_t iso = isolated_cpus(), cal, nb[LTT_MAX_CPUS];
	struct ltt_blocks_result res;
	struct trace t = { 0 };

	/* A trace of a second: its heartbeats, CPU by CPU. */
	fd = open_dev();
	e = fd < 0 ? -EBADF : configure(fd, LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY),
					0, 64u << 10);
	e = e ? e : start(fd, &t);
	if (!e) {
		usleep(1200000);
		e = stop_and_collect(fd, &t);
	}
	if (!e && ltt_blocks_check(t.buf, t.len, LTT_FORMAT_V2, t.info.ncpus,
				   t.info.anchor_tsc, 0, NULL, NULL, &res)) {
		note("security: blocks: %s", res.error);
		e = -EPROTO;
	}
	for (i = 0; !e && i < (int)t.info.ncpus && i < 64; i++)
		v[iso & (1ull << i) ? ISO_HB_ISO : ISO_HB_OTHER] +=
			res.heartbeats[i];
	trace_free(&t);
	if (fd >= 0)
		close(fd);
	v[ISO_ERR] = e;
	/* Flight-recorder mode: 5 snapshots, each read whole. */
	fd = open_dev();
	e = fd < 0 ? -EBADF :
		    configure(fd, LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY), 0, 64u << 10);
	e = e ? e : set_u32(fd, LTT_IOC_SET_OVERWRITE, 1);
	e = e ? e : start(fd, &t);
	if (!e && fcntl(fd, F_SETFL, O_NONBLOCK))
		e = -errno;
	cal = cal_interrupts(iso);
	for (i = 0; !e && i < 5; i++) {
		syscall_loop(SEC_LOOP);
		e = xioctl(fd, LTT_IOC_SNAPSHOT, NULL);
		t.len = 0;
		while (!e) {
			int r = read_all(fd, &t);

			if (r == -EAGAIN || (!r && t.len))
				break;
			e = r ? r : -ENODATA;
		}
		memset(nb, 0, sizeof(nb));
		if (!e && count_blocks(t.buf, t.len, nb)) {
			note("security: snapshot %d: not blocks", i + 1);
			e = -EPROTO;
		}
		for (int c = 0; !e && c < (int)t.info.ncpus && c < 64; c++)
			v[iso & (1ull << c) ? ISO_SNAP_BLOCKS :
					      ISO_SNAP_OTHER] += nb[c];
		v[ISO_SNAPS] += !e;
	}
	v[ISO_CAL] = (int)(cal_interrupts(iso) - cal);
	if (fd >= 0) {
		xioctl(fd, LTT_IOC_STOP, NULL);
		close(fd);
	}
	trace_free(&t);
	v[ISO_SNAP_ERR] = e;
	/* 5 changes of the variables while tracing. */
	fd = open_dev();
	e = fd < 0 ? -EBADF : configure(fd, LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY),
					0, 64u << 10);
	e = e ? e : set_u32(fd, LTT_IOC_SET_VARS_MASK, LTT_VAR_BIT(LTT_VAR_PID));
	e = e ? e : start(fd, &t);
	cal = cal_interrupts(iso);
	for (i = 0; !e && i < 5; i++) {
		syscall_loop(100);
		e = set_u32(fd, LTT_IOC_SET_VARS_MASK,
			    LTT_VAR_BIT(LTT_VAR_PID) |
				    (i & 1 ? 0 : LTT_VAR_BIT(LTT_VAR_UID)));
	}
	v[ISO_VARS_CAL] = (int)(cal_interrupts(iso) - cal);
	if (fd >= 0) {
		if (!e)
			e = stop_and_collect(fd, &t);
		close(fd);
	}
	trace_free(&t);
	v[ISO_VARS_ERR] = e;
	return 0;
}

/*
 * With CPUs isolated (isolcpus=domain or nohz_full): uid 1000's session
 * puts no heartbeat timer on them and its snapshots send them no IPI,
 * while root's session, whose choice it is, still has heartbeats there.
 */
static int mode_security_isolated(void)
{
	uint64_t iso = isolated_cpus();
	int *v = shared_ints(ISO_N), fd, e;
	struct ltt_blocks_result res;
	struct trace t = { 0 };
	uint64_t root_hb = 0;

	if (!v)
		return 1;
	if (!iso) {
		printf("skip - %ssecurity: isolated CPUs: none (no isolcpus= or nohz_full= on the kernel's command line)\n",
		       prefix);
		printf("%d passed, %d failed\n", passed, failed);
		return 0;
	}
	note("security: isolated CPUs mask 0x%llx", (unsigned long long)iso);
	fd = open_dev();
	e = fd < 0 ? -EBADF : configure(fd, LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY),
					0, 64u << 10);
	e = e ? e : start(fd, &t);
	memset(v, 0, ISO_N * sizeof(int));
	v[ISO_ERR] = v[ISO_SNAP_ERR] = v[ISO_VARS_ERR] = SEC_UNSET;
	e = e ? e : as_user(sec_isolated_user, v);
	if (!e)
		e = stop_and_collect(fd, &t);
	if (!e && ltt_blocks_check(t.buf, t.len, LTT_FORMAT_V2, t.info.ncpus,
				   t.info.anchor_tsc, 0, NULL, NULL, &res))
		e = -EPROTO;
	for (int c = 0; !e && c < (int)t.info.ncpus && c < 64; c++)
		if (iso & (1ull << c))
			root_hb += res.heartbeats[c];
	trace_free(&t);
	if (fd >= 0)
		close(fd);
	note("security: heartbeats on isolated CPUs: root %llu, uid 1000 %d (%d elsewhere); snapshot blocks there %d (%d elsewhere) in %d snapshots; CAL IPIs there %d",
	     (unsigned long long)root_hb, v[ISO_HB_ISO], v[ISO_HB_OTHER],
	     v[ISO_SNAP_BLOCKS], v[ISO_SNAP_OTHER], v[ISO_SNAPS], v[ISO_CAL]);
	check(!e && !v[ISO_ERR] && !v[ISO_SNAP_ERR],
	      "security: uid 1000 traces and takes snapshots with CPUs isolated",
	      "status %d, uid 1000's trace %d, snapshots %d", e, v[ISO_ERR],
	      v[ISO_SNAP_ERR]);
	check(!e && root_hb > 0,
	      "security: root's session keeps its heartbeats on the isolated CPUs",
	      "%llu heartbeats", (unsigned long long)root_hb);
	check(!v[ISO_ERR] && v[ISO_HB_OTHER] > 0 && !v[ISO_HB_ISO],
	      "security: uid 1000's session has no heartbeat on the isolated CPUs",
	      "%d there, %d on the others", v[ISO_HB_ISO], v[ISO_HB_OTHER]);
	check(!v[ISO_SNAP_ERR] && v[ISO_SNAPS] == 5 && v[ISO_SNAP_OTHER] > 0 &&
		      !v[ISO_SNAP_BLOCKS],
	      "security: uid 1000's snapshots leave the isolated CPUs out",
	      "%d blocks of theirs, %d of the others, in %d snapshots",
	      v[ISO_SNAP_BLOCKS], v[ISO_SNAP_OTHER], v[ISO_SNAPS]);
	check(!v[ISO_SNAP_ERR] && v[ISO_CAL] < 5,
	      "security: uid 1000's 5 snapshots send the isolated CPUs no IPI",
	      "%d function-call interrupts there", v[ISO_CAL]);
	note("security: uid 1000's 5 VARS mask changes: status %d, CAL IPIs on the isolated CPUs %d",
	     v[ISO_VARS_ERR], v[ISO_VARS_CAL]);
	check(!v[ISO_VARS_ERR] && v[ISO_VARS_CAL] < 5,
	      "security: uid 1000's 5 VARS mask changes send the isolated CPUs no IPI",
	      "status %d, %d function-call interrupts there", v[ISO_VARS_ERR],
	      v[ISO_VARS_CAL]);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

/*
 * Without the test module (ltt_test.ko) loaded, test mode is no part of
 * the trace module: TEST_EMIT on a tracing session is -ENOTTY.
 */
static void check_no_test_module(void)
{
	struct trace t = { 0 };
	int fd = open_dev(), r = -ENODEV, e = -ENODEV;

	if (fd >= 0) {
		e = configure(fd, 0, 0, 1u << 20);
		e = e ? e : start(fd, &t);
	}
	if (!e) {
		r = emit(fd, 10, 0, 16);
		e = stop_and_collect(fd, &t);
	}
	check(!e && r == -ENOTTY, "TEST_EMIT without ltt_test.ko: ENOTTY",
	      "setup %d, TEST_EMIT %d", e, r);
	trace_free(&t);
	if (fd >= 0)
		close(fd);
}

static int mode_one(const char *name)
{
	int fd = -1;

	if (!strcmp(name, "close-idle")) {
		fd = open_dev();
		if (fd >= 0)
			check_close_after_idle(fd);
	} else if (!strcmp(name, "start-enomem")) {
		check_start_enomem();
	} else if (!strcmp(name, "open-policy")) {
		check_open_policy();
	} else if (!strcmp(name, "v2-records")) {
		fd = open_dev();
		if (fd >= 0)
			check_v2_records(fd);
	} else if (!strcmp(name, "sessions")) {
		check_sessions_masks();
		check_sessions_many();
	} else if (!strcmp(name, "no-test-module")) {
		check_no_test_module();
	} else {
		fprintf(stderr, "one: unknown check '%s' (close-idle, start-enomem, open-policy, v2-records, sessions, no-test-module)\n",
			name);
		return 2;
	}
	if (fd >= 0)
		close(fd);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "check";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("LTT_DEVICE"))
		dev = getenv("LTT_DEVICE");
	if (getenv("LTT_TEST_PREFIX"))
		prefix = getenv("LTT_TEST_PREFIX");
	ncpus_online = sysconf(_SC_NPROCESSORS_ONLN);
	if (!strcmp(mode, "check"))
		return mode_check();
	if (!strcmp(mode, "quick"))
		return mode_quick();
	if (!strcmp(mode, "gap"))
		return mode_gap();
	if (!strcmp(mode, "hold"))
		return mode_hold();
	if (!strcmp(mode, "toggle"))
		return mode_toggle(argc > 2 ? atol(argv[2]) : 100);
	if (!strcmp(mode, "load"))
		return mode_load(argc > 2 ? atol(argv[2]) : 1000000);
	if (!strcmp(mode, "syscalls"))
		return mode_syscalls(argc > 2 ? atoi(argv[2]) : 7);
	if (!strcmp(mode, "idle"))
		return mode_idle(argc > 2 ? atoi(argv[2]) : 7);
	if (!strcmp(mode, "vars") && argc > 2)
		return mode_vars(strtoul(argv[2], NULL, 0),
				 argc > 3 ? atoi(argv[3]) : 7);
	if (!strcmp(mode, "bench"))
		return mode_bench(argc > 2 ? atoi(argv[2]) : 7);
	if (!strcmp(mode, "fuzz"))
		return mode_fuzz(argc > 2 ? atol(argv[2]) : 10000);
	if (!strcmp(mode, "hotplug"))
		return mode_hotplug();
	if (!strcmp(mode, "count") && argc > 2)
		return mode_count(argv[2]);
	if (!strcmp(mode, "one") && argc > 2)
		return mode_one(argv[2]);
	if (!strcmp(mode, "security") && argc > 2 && !strcmp(argv[2], "default"))
		return mode_security_default();
	if (!strcmp(mode, "security") && argc > 3 && !strcmp(argv[2], "attacks"))
		return mode_security_attacks(argv[3]);
	if (!strcmp(mode, "security") && argc > 2 && !strcmp(argv[2], "isolated"))
		return mode_security_isolated();
	fprintf(stderr, "usage: %s check|quick|gap|hold|toggle N|load N|syscalls|idle [REPS]|vars MASK [REPS]|bench [REPS]|fuzz N|hotplug|count FILE|one CHECK|security default|security attacks HELPER|security isolated\n",
		argv[0]);
	return 2;
}
