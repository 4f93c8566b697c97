/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * ltt ABI: the one contract between the trace module (/dev/tracer), the
 * daemon that writes .trace files and libltt that reads them.
 *
 * Everything here is plain C with fixed-width types so the kernel module and
 * the C++ tools compile the very same definitions. All multi-byte fields are
 * little-endian on disk (x86_64 native); readers check the file header's
 * endianness marker. Structures are laid out with explicit padding so there
 * is no compiler-inserted padding anywhere; the size asserts at the end of
 * this file hold in C and C++ alike.
 *
 * Layout of a trace, in short (docs/trace-format.md is the full text):
 *
 *   struct ltt_file_header                       written by the daemon
 *   block, block, block ...                      appended as produced
 *
 *   block := BLOCK_START record (struct ltt_block_start)
 *            [LOST record if the block's lost count is non-zero]
 *            record*
 *            BLOCK_END record (struct ltt_block_end)
 *
 *   record := version 2 (what the module writes): a 32-bit header word
 *             (code and delta, include/ltt/format.h), then the fields
 *             the code fixes; LTT_CODE_EXT records carry the event, its
 *             subtype, their size and the event's detail structure as in
 *             version 1 (details absent when the event's bit is clear in
 *             the details mask); 4-byte aligned.
 *             version 1 (older files): struct ltt_record_header, then
 *             `size - 8` bytes of details, size a multiple of 8.
 *
 * Version 2: the time of a record is the previous record's time plus its
 * delta (BLOCK_START's start_tsc for the first); a HEARTBEAT carries its
 * time whole. Version 1: base + delta, where base is the block's start_tsc
 * until a HEARTBEAT record sets a new base (its tsc field).
 */
#ifndef LTT_ABI_H
#define LTT_ABI_H

#include "events.h"
#ifdef __KERNEL__
#include <linux/ioctl.h>
#else
#include <sys/ioctl.h>
#endif

/*
 * ABI version: bump LTT_ABI_MAJOR for any incompatible change of the ioctls,
 * the record layout or an event's detail structure; bump LTT_ABI_MINOR for
 * additions old readers can ignore. LTT_IOC_GET_ABI_VERSION returns
 * LTT_ABI_VERSION; the daemon refuses a module with another major.
 */
#define LTT_ABI_MAJOR 2
#define LTT_ABI_MINOR 6
#define LTT_ABI_VERSION ((LTT_ABI_MAJOR << 16) | LTT_ABI_MINOR)

/* ------------------------------------------------------------------------
 * ioctl interface of /dev/tracer
 *
 * Every open is a session of its own (ABI 2.3; before, a second open got
 * EBUSY): its own configuration, buffers, trace, lost counts. Openers
 * need CAP_PERFMON; with the module parameter unprivileged=1 any other
 * gets a restricted session that sees only its own tasks
 * (LTT_TRACE_F_RESTRICTED, module/README.md).
 *
 * Call sequence of the daemon:
 *   fd = open("/dev/tracer", O_RDONLY);          EUSERS past the session
 *                                                limits
 *   ioctl(fd, LTT_IOC_GET_ABI_VERSION, &v);      refuse another major
 *   ioctl(fd, LTT_IOC_SET_*, ...);               EBUSY while tracing, except
 *                                                the masks, filters and
 *                                                variables (2.4: a CONFIG
 *                                                record, module_events.h)
 *   fcntl(fd, F_SETOWN, getpid()); fcntl(fd, F_SETFL, O_ASYNC)  -> SIGIO
 *   ioctl(fd, LTT_IOC_START);                    ENOMEM: no buffers; EBUSY:
 *                                                another module holds the
 *                                                kernel's trace facility
 *   ioctl(fd, LTT_IOC_GET_TRACE_INFO, &info);    for the file header
 *   loop: read(fd, buf, n) returns whole blocks only (n >= one block);
 *         EAGAIN with O_NONBLOCK when none is ready; poll() works
 *   ioctl(fd, LTT_IOC_STOP);                     flushes partial blocks
 *   read until 0 (end of trace), then close.
 *
 * Flight recorder (ABI 2.4): SET_OVERWRITE(1) before START makes a full
 * CPU ring overwrite its oldest block instead of losing events;
 * read() then returns nothing (EAGAIN; 0 once stopped) until
 *   ioctl(fd, LTT_IOC_SNAPSHOT);                 closes every CPU's open
 *                                                block (flag FINAL) and
 *                                                hands over its ring
 *   read until EAGAIN: each CPU's blocks, oldest first, its last FINAL;
 *   recording goes on meanwhile (overwriting only once they are read).
 * SNAPSHOT: EINVAL unless tracing in overwrite mode, EBUSY while the
 * previous snapshot's blocks are not all read. poll() reports EPOLLPRI
 * when a task the session sees died of a signal of
 * SET_TRIGGER_SIGNALS's mask (needs LTT_EV_PROCESS in the event mask);
 * SNAPSHOT clears it.
 * ----------------------------------------------------------------------
 */
#define LTT_IOC_MAGIC 0xB7

#define LTT_FILTER_PID 0x1
#define LTT_FILTER_PGRP 0x2
#define LTT_FILTER_UID 0x4
#define LTT_FILTER_GID 0x8

struct ltt_addr_range {
	__u64 lower; /* inclusive */
	__u64 upper; /* exclusive; lower == upper == 0 disables the range */
};

/* The configuration in effect; returned in struct ltt_trace_info. */
struct ltt_config {
	__u64 event_mask;
	__u64 details_mask;
	__u32 buffer_size;   /* bytes of each buffer of a CPU's pair */
	__u32 record_cpuid;  /* 0/1; CPU is always in the block header */
	__u32 filters;       /* LTT_FILTER_* in effect */
	__s32 pid;
	__s32 pgrp;
	__u32 uid;
	__u32 gid;
	__u32 syscall_depth; /* 0: the IP at the syscall instruction */
	struct ltt_addr_range syscall_range;
};

#define LTT_TRACE_F_TSC_RELIABLE 0x1 /* constant, nonstop, stable TSC */
#define LTT_TRACE_F_CLOCK_FALLBACK 0x2 /* timestamps are kernel-clock ns */
#define LTT_TRACE_F_TRACEPOINTS 0x4 /* LTT_BACKEND_TRACEPOINTS, see below */
/* A session without CAP_PERFMON: only the opener's own tasks (ABI 2.3). */
#define LTT_TRACE_F_RESTRICTED 0x8
/* File header only (ABI 2.4): a flight-recorder snapshot, see above. */
#define LTT_TRACE_F_SNAPSHOT 0x10
/*
 * ABI 2.5: the trace says which task is current on each CPU at every
 * record, whatever its event mask (CONTEXT records, module_events.h).
 */
#define LTT_TRACE_F_CONTEXT 0x20
struct ltt_trace_info {
	__u32 abi_version;
	__u32 ncpus;         /* possible CPUs: block cpu < ncpus */
	__u64 tsc_khz;       /* 1000000 when LTT_TRACE_F_CLOCK_FALLBACK */
	__u64 anchor_tsc;    /* taken at START, same instant as ... */
	__u64 anchor_realtime_ns; /* ... this CLOCK_REALTIME value */
	__u64 anchor_monotonic_ns;
	__u32 flags;         /* LTT_TRACE_F_* */
	__u32 max_block;     /* largest block read() can return */
	struct ltt_config config;
};

/*
 * Where the module gets its events from. The TRACE_START record the module
 * writes is struct ltt_ev_trace_start_ext: events.h's struct (which the
 * kernel patch shares byte for byte) followed by the backend, and since
 * ABI 2.3 the variables its VARS records hold and the session's id (a
 * reader of an older, shorter record takes them as zero). A TRACE_START
 * that ends at details_mask (traces written before the backend field
 * existed) comes from the patched kernel's facility. GET_TRACE_INFO and
 * the file header say the same with LTT_TRACE_F_TRACEPOINTS.
 */
#define LTT_BACKEND_FACILITY 0    /* the patched kernel's hooks (CONFIG_LTT) */
#define LTT_BACKEND_TRACEPOINTS 1 /* an unmodified kernel's tracepoints */
struct ltt_ev_trace_start_ext {
	struct ltt_ev_trace_start start;
	__u32 backend;   /* LTT_BACKEND_* */
	__u32 vars_mask; /* LTT_VAR_BIT()s recorded in VARS records */
	__u32 session;   /* the session's id */
	__u32 reserved;  /* zero */
};

struct ltt_lost_counts {
	__u32 ncpus;      /* out: entries filled in */
	__u32 reserved;
	__u64 total;      /* out */
	__u64 per_cpu[LTT_MAX_CPUS]; /* out: events lost per CPU */
	__u64 recorded[LTT_MAX_CPUS]; /* out: events stored per CPU */
};

/*
 * Test mode: every online CPU selected in cpu_mask emits `count` CUSTOM
 * events with id LTT_TEST_EVENT_ID whose payload is
 * struct ltt_test_payload, then the ioctl returns. Tracing must be started.
 *
 * With LTT_TEST_F_HEARTBEAT the CPUs write `count` HEARTBEAT records
 * through the periodic heartbeat's own path instead (payload must be 0).
 * With LTT_TEST_F_AGE each selected CPU then moves the time of its last
 * record 2^27 clock units back, as if it had been idle that long, so that
 * the next record's delta does not fit and it, or the block's close, needs
 * a heartbeat first: the tests reach the long-idle path without waiting
 * for it.
 */
#define LTT_TEST_EVENT_ID 0x7e57
#define LTT_TEST_F_HEARTBEAT 0x1u
#define LTT_TEST_F_AGE 0x2u
#define LTT_TEST_F_ALL (LTT_TEST_F_HEARTBEAT | LTT_TEST_F_AGE)
struct ltt_test_emit {
	__u64 count;    /* per CPU */
	__u64 cpu_mask; /* 0: all online CPUs */
	__u32 payload;  /* payload bytes, >= sizeof(struct ltt_test_payload) */
	__u32 flags;    /* LTT_TEST_F_*, other bits must be zero */
};
struct ltt_test_payload {
	__u64 seq; /* 0 .. count-1, per CPU */
	__u32 cpu;
	__u32 reserved;
};

/*
 * LTT_IOC_GET_CLOCK_PAIR: `trace` (the session's clock: TSC ticks, or
 * kernel-clock ns with LTT_TRACE_F_CLOCK_FALLBACK) read between two
 * CLOCK_MONOTONIC reads (ns) with interrupts off; `monotonic` is their
 * midpoint and `window_ns` their distance, the pair's uncertainty.
 */
struct ltt_clock_pair {
	__u64 trace;
	__u64 monotonic;
	__u32 window_ns;
	__u32 cpu;
};

struct ltt_user_event {
	__u32 id;
	__u32 length;   /* payload bytes, <= LTT_CUSTOM_MAX */
	__u64 data;     /* user pointer to the payload */
};

#define LTT_IOC_GET_ABI_VERSION _IOR(LTT_IOC_MAGIC, 0x00, __u32)
#define LTT_IOC_START _IO(LTT_IOC_MAGIC, 0x01)
#define LTT_IOC_STOP _IO(LTT_IOC_MAGIC, 0x02)
#define LTT_IOC_RESET _IO(LTT_IOC_MAGIC, 0x03)
#define LTT_IOC_SET_BUFFER_SIZE _IOW(LTT_IOC_MAGIC, 0x10, __u32)
#define LTT_IOC_SET_EVENT_MASK _IOW(LTT_IOC_MAGIC, 0x11, __u64)
#define LTT_IOC_SET_DETAILS_MASK _IOW(LTT_IOC_MAGIC, 0x12, __u64)
#define LTT_IOC_SET_CPUID _IOW(LTT_IOC_MAGIC, 0x13, __u32)
#define LTT_IOC_TRACK_PID _IOW(LTT_IOC_MAGIC, 0x14, __s32)  /* -1: off */
#define LTT_IOC_TRACK_PGRP _IOW(LTT_IOC_MAGIC, 0x15, __s32) /* -1: off */
#define LTT_IOC_TRACK_GID _IOW(LTT_IOC_MAGIC, 0x16, __s64)  /* -1: off */
#define LTT_IOC_TRACK_UID _IOW(LTT_IOC_MAGIC, 0x17, __s64)  /* -1: off */
#define LTT_IOC_SET_SYSCALL_DEPTH _IOW(LTT_IOC_MAGIC, 0x18, __u32)
#define LTT_IOC_SET_SYSCALL_RANGE \
	_IOW(LTT_IOC_MAGIC, 0x19, struct ltt_addr_range)
/* Kernel-state variables (module_events.h, enum ltt_var); default none. */
#define LTT_IOC_SET_VARS_MASK _IOW(LTT_IOC_MAGIC, 0x1c, __u32)
/* Flight recorder (ABI 2.4): 1 overwrite mode, 0 off (the default). */
#define LTT_IOC_SET_OVERWRITE _IOW(LTT_IOC_MAGIC, 0x1d, __u32)
/* Bit n-1: a task dying of signal n raises EPOLLPRI; 0: none. */
#define LTT_IOC_SET_TRIGGER_SIGNALS _IOW(LTT_IOC_MAGIC, 0x1e, __u64)
#define LTT_IOC_GET_TRACE_INFO _IOR(LTT_IOC_MAGIC, 0x20, struct ltt_trace_info)
#define LTT_IOC_GET_LOST _IOR(LTT_IOC_MAGIC, 0x21, struct ltt_lost_counts)
#define LTT_IOC_SNAPSHOT _IO(LTT_IOC_MAGIC, 0x22)
/*
 * The events overwritten in overwrite mode, in struct ltt_lost_counts:
 * per_cpu[] and total count overwritten events (recorded, then lost to a
 * newer block), recorded[] as GET_LOST. Events lost for any other reason
 * (the ring held by an unread snapshot, NMIs) stay in GET_LOST.
 */
#define LTT_IOC_GET_OVERWRITTEN _IOR(LTT_IOC_MAGIC, 0x23, struct ltt_lost_counts)
/*
 * The trace clock and CLOCK_MONOTONIC read together (ABI 2.5), while
 * tracing (EINVAL otherwise): tracedaemon places application events
 * stamped with CLOCK_MONOTONIC on a fallback-clock trace with it.
 */
#define LTT_IOC_GET_CLOCK_PAIR _IOR(LTT_IOC_MAGIC, 0x24, struct ltt_clock_pair)
#define LTT_IOC_TEST_EMIT _IOW(LTT_IOC_MAGIC, 0x30, struct ltt_test_emit)
#define LTT_IOC_USER_EVENT _IOW(LTT_IOC_MAGIC, 0x31, struct ltt_user_event)

/* Limits the module enforces (EINVAL outside them). */
#define LTT_BUFFER_MIN 4096
#define LTT_BUFFER_MAX (64u << 20)
#define LTT_BUFFER_DEFAULT (1u << 20)
#define LTT_SYSCALL_DEPTH_MAX 16

/* ------------------------------------------------------------------------
 * The .trace file header, written once by the daemon at offset 0.
 * ----------------------------------------------------------------------
 */
#define LTT_FILE_MAGIC "LTTRACE\x01" /* 8 bytes, no NUL */
#define LTT_FILE_VERSION 2
#define LTT_ENDIAN_MARK 0x01020304u

struct ltt_file_header {
	char magic[8];         /* LTT_FILE_MAGIC */
	__u32 endian;          /* LTT_ENDIAN_MARK as written by the producer */
	__u16 version;         /* LTT_FILE_VERSION */
	__u16 header_size;     /* sizeof(struct ltt_file_header): blocks start here */
	__u32 abi_version;     /* LTT_ABI_VERSION of the producer */
	__u32 ncpus;
	__u64 tsc_khz;
	__u64 anchor_tsc;
	__u64 anchor_realtime_ns;
	__u64 anchor_monotonic_ns;
	__u32 flags;           /* LTT_TRACE_F_* */
	__u32 max_block;
	struct ltt_config config; /* masks and filters in effect */
	char sysname[16];      /* "Linux" */
	char release[64];      /* uname -r of the traced kernel */
	char hostname[64];
	char producer[32];     /* e.g. "tracedaemon 0.1", "ltt-synth 0.1" */
	__u8 reserved[16];     /* zero */
};

/* Size asserts (LTT_STATIC_ASSERT comes from events.h). */
LTT_STATIC_ASSERT(sizeof(struct ltt_addr_range) == 16, "addr range");
LTT_STATIC_ASSERT(sizeof(struct ltt_config) == 64, "config");
LTT_STATIC_ASSERT(sizeof(struct ltt_trace_info) == 112, "trace info");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_trace_start_ext) == 56,
		  "trace start ext");
LTT_STATIC_ASSERT(sizeof(struct ltt_lost_counts) == 16 + 2 * 8 * LTT_MAX_CPUS,
		  "lost counts");
LTT_STATIC_ASSERT(sizeof(struct ltt_test_emit) == 24, "test emit");
LTT_STATIC_ASSERT(sizeof(struct ltt_test_payload) == 16, "test payload");
LTT_STATIC_ASSERT(sizeof(struct ltt_user_event) == 16, "user event");
LTT_STATIC_ASSERT(sizeof(struct ltt_file_header) == 320, "file header");

#endif /* LTT_ABI_H */
