/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * Events the trace module records itself, beyond those the kernel's trace
 * facility delivers (events.h, which the kernel patch carries byte for
 * byte and so stays as the facility defines it). They share the record
 * framing, the event and details masks (bits LTT_EV_MAX and up of the
 * 64-bit masks) and the details rules of events.h; a kernel never sees
 * them. The numbers continue events.h's and are ABI: never renumber, only
 * append before LTT_EV_COUNT.
 *
 * A reader that does not know an id below LTT_EV_COUNT shows the event as
 * "Unknown" with its bytes, as for any id of a newer format.
 */
#ifndef LTT_MODULE_EVENTS_H
#define LTT_MODULE_EVENTS_H

#include "events.h"

enum ltt_module_event_id {
	LTT_EV_VARS = 22,  /* kernel-state variables that changed */
	LTT_EV_MOUNT = 23, /* mount and umount */
	LTT_EV_LOCK = 24,  /* lock contention */
	LTT_EV_MAP = 25,   /* an executable file mapped into a process */
	LTT_EV_USER = 26,  /* an application event (user blocks, below) */
	LTT_EV_CONFIG = 27, /* the masks or filters changed while tracing */
	LTT_EV_CONTEXT = 28, /* the task now current on the CPU (below) */
	LTT_EV_STACK = 29,   /* stacks of a task that blocks (below) */
	/* 30..31: reserved */
	LTT_EV_COUNT = 32  /* ids of both headers are below this */
};

/* ------------------------------------------------------------------------
 * VARS: kernel-state variables (Ktrace's variable mask, Table 3.2, for
 * today's kernel). LTT_IOC_SET_VARS_MASK selects them; the TRACE_START
 * record's vars_mask says which were selected, so a reader tells "not
 * recorded" from "unchanged".
 *
 * After every event that passes the masks and filters, the module writes
 * a VARS record on the same CPU, with interrupts still off (so nothing
 * comes between the two), holding the selected variables whose values
 * changed since that CPU last recorded them; none changed, no record.
 * The last values are per CPU: a reader keeps one set per CPU and applies
 * each VARS record to its CPU's. A VARS record that could not be stored
 * (its block full) makes the CPU record every selected variable again in
 * its next one. VARS records are not counted as events (they are never
 * reported lost: their event is).
 *
 * Details: struct ltt_ev_vars cut after its last value. Each bit set in
 * `changed` contributes one __u64 to values[], in ascending bit order,
 * except LTT_VAR_ARGS, which contributes `subtype` values (0..6): the
 * arguments of the system call whose entry the record follows, as many
 * as that call takes. ARGS is written after every SYSCALL_ENTRY (the
 * arguments are not compared with the last ones), PREV and NEXT after
 * every SCHEDCHANGE only; the others after any event, when changed.
 * ----------------------------------------------------------------------
 */
enum ltt_var {
	LTT_VAR_ARGS = 0,      /* system-call arguments (Ktrace's "registers") */
	LTT_VAR_PID = 1,       /* current's thread id */
	LTT_VAR_PPID = 2,      /* current's parent's thread-group id */
	LTT_VAR_PGID = 3,      /* current's process group */
	LTT_VAR_FREEMEM = 4,   /* free memory of the system, pages */
	LTT_VAR_TOTALMEM = 5,  /* total memory of the system, pages */
	LTT_VAR_PGFAULT = 6,   /* page faults on this CPU (vm_event PGFAULT) */
	LTT_VAR_PGPGIN = 7,    /* KiB paged in on this CPU (PGPGIN) */
	LTT_VAR_PGPGOUT = 8,   /* KiB paged out on this CPU (PGPGOUT) */
	LTT_VAR_PSWPIN = 9,    /* pages swapped in on this CPU (PSWPIN) */
	LTT_VAR_PSWPOUT = 10,  /* pages swapped out on this CPU (PSWPOUT) */
	LTT_VAR_PREV = 11,     /* outgoing task of a SCHEDCHANGE */
	LTT_VAR_NEXT = 12,     /* incoming task of a SCHEDCHANGE */
	LTT_VAR_SIGPENDING = 13, /* current's pending signals 1..64, bit n-1 */
	LTT_VAR_UID = 14,      /* current's effective UID (initial namespace) */
	LTT_VAR_MINFLT = 15,   /* current's minor faults (getrusage ru_minflt) */
	LTT_VAR_MAJFLT = 16,   /* current's major faults */
	LTT_VAR_NVCSW = 17,    /* current's voluntary context switches */
	LTT_VAR_NIVCSW = 18,   /* current's involuntary context switches */
	LTT_VAR_LOADAVG = 19,  /* 1-minute load average, fixed point 11 bits */
	LTT_VAR_COUNT = 20
};
#define LTT_VAR_BIT(v) (1U << (v))
#define LTT_VAR_MASK_ALL (LTT_VAR_BIT(LTT_VAR_COUNT) - 1)
#define LTT_VAR_ARGS_MAX 6
#define LTT_VAR_FSHIFT 11 /* LOADAVG: value / 2^11 is the load */

struct ltt_ev_vars {
	__u32 changed;  /* LTT_VAR_BIT() of the values that follow */
	__u32 nr;       /* with LTT_VAR_ARGS: the system call; else 0 */
	__u64 values[LTT_VAR_COUNT - 1 + LTT_VAR_ARGS_MAX];
};
#define LTT_EV_VARS_FIXED 8 /* bytes before values[] */

/* ------------------------------------------------------------------------
 * MOUNT: a mount(2) or umount2(2), recorded at the system call's exit with
 * its result. names[] holds the target path, NUL, and for MOUNT the
 * source, NUL (each cut at LTT_NAME_MAX - 1 bytes); the record ends after
 * the last NUL (aligned). A path the module could not read without
 * faulting (not resident) is empty.
 * ----------------------------------------------------------------------
 */
enum ltt_mount_sub {
	LTT_MOUNT_MOUNT = 0,  /* flags = mount flags (MS_*) */
	LTT_MOUNT_UMOUNT = 1, /* flags = umount2 flags (MNT_*) */
	LTT_MOUNT_MAX = 2
};

struct ltt_ev_mount {
	__s64 ret;   /* the system call's return value */
	__u64 flags;
	char names[2 * LTT_NAME_MAX];
};
#define LTT_EV_MOUNT_FIXED 16 /* bytes before names[] */

/* ------------------------------------------------------------------------
 * LOCK: a task starts or stops waiting for a contended kernel lock (the
 * kernel's lock:contention_begin/end tracepoints). Opt-in: not in
 * LTT_EV_MASK_ALL, because a busy system contends thousands of times a
 * second.
 * ----------------------------------------------------------------------
 */
enum ltt_lock_sub {
	LTT_LOCK_CONTENDED = 0, /* flags = the kernel's LCB_F_* */
	LTT_LOCK_ACQUIRED = 1,  /* ret = 0, or the error the wait ended with */
	LTT_LOCK_MAX = 2
};
/* The kernel's LCB_F_* values (include/trace/events/lock.h). */
#define LTT_LOCK_F_SPIN 0x01
#define LTT_LOCK_F_READ 0x02
#define LTT_LOCK_F_WRITE 0x04
#define LTT_LOCK_F_RT 0x08
#define LTT_LOCK_F_PERCPU 0x10
#define LTT_LOCK_F_MUTEX 0x20

struct ltt_ev_lock {
	__u64 lock;  /* the lock's address */
	__u32 flags; /* CONTENDED: LTT_LOCK_F_* */
	__s32 ret;   /* ACQUIRED: 0 or a negative errno */
};

/* The events of this header a user selects in the event mask. */
#define LTT_EV_MASK_MOUNT_LOCK \
	(LTT_EV_BIT(LTT_EV_MOUNT) | LTT_EV_BIT(LTT_EV_LOCK))

LTT_STATIC_ASSERT(sizeof(struct ltt_ev_vars) == 8 + 8 * 25, "vars");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_mount) == 16 + 2 * LTT_NAME_MAX,
		  "mount");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_lock) == 16, "lock");

/*
 * MAP (25): a file mapped executable into the current task's process, so
 * that the user instruction pointers of its events (the system call
 * entries' ip) can be turned into binary!function+offset at analysis time.
 * The .proc snapshot lists the mappings that exist when tracing starts;
 * MAP records add those made during the trace. The subtype says what made
 * the mapping:
 */
enum ltt_map_sub {
	LTT_MAP_MMAP = 0,     /* mmap() with PROT_EXEC of a file, at its exit */
	LTT_MAP_MPROTECT = 1, /* mprotect() adding PROT_EXEC to file pages */
	LTT_MAP_EXEC = 2,     /* execve(): the executable and its interpreter */
};

#define LTT_MAP_PATH_MAX 992 /* bytes of `path`, with the NUL */

/*
 * One executable file mapping: [start, start + length) maps the file at
 * `path` from byte `offset` on. `path` is NUL-terminated and the record is
 * trimmed to its end (rounded up to the record alignment), as the
 * FILE_SYSTEM names are; a path longer than LTT_MAP_PATH_MAX - 1 bytes is
 * not recorded. A mapping of a deleted file carries the kernel's
 * " (deleted)" suffix.
 */
struct ltt_ev_map {
	__u64 start;
	__u64 length;
	__u64 offset;
	__u32 reserved0; /* zero */
	__u32 reserved1; /* zero */
	char path[LTT_MAP_PATH_MAX];
};
#define LTT_EV_MAP_FIXED 32 /* bytes before `path` */

LTT_STATIC_ASSERT(sizeof(struct ltt_ev_map) ==
			  LTT_EV_MAP_FIXED + LTT_MAP_PATH_MAX, "map");

/* ------------------------------------------------------------------------
 * USER (26): events that applications log through libltt-user (<ltt/user.h>)
 * and ltt-mark. The module never writes them. Each producing thread has a
 * ring in shared memory that tracedaemon drains; the daemon writes what it
 * drains in blocks of their own, user blocks, among the CPU blocks:
 *
 *   BLOCK_START.flags has LTT_BLOCK_F_USER; `cpu` is the user stream's
 *   number (one stream per producing thread, numbered by the daemon from 0,
 *   independent of the CPU numbers); `pid` is the thread's id, the same in
 *   every block of the stream; `sequence` counts the stream's blocks from 0;
 *   `lost` counts the stream's events lost since its previous block (a full
 *   ring) and a LOST record says so as in CPU blocks; the stream's last
 *   block has LTT_BLOCK_F_FINAL.
 *
 * Times are the clock of the CPU blocks and never go back within a
 * stream. In TSC traces (LTT_TRACE_F_TSC_RELIABLE, or one CPU) the
 * application read the TSC; in LTT_TRACE_F_CLOCK_FALLBACK traces it read
 * CLOCK_MONOTONIC and the daemon moved each time onto the trace clock
 * (kernel-clock ns) with the module's clock pairs (LTT_IOC_GET_CLOCK_PAIR):
 * such streams' blocks have LTT_BLOCK_F_USER_MONOTONIC, and their times
 * stand among the kernel's within the bound docs/user-events.md states. Records are version 2 LTT_CODE_EXT records of
 * event LTT_EV_USER, and HEARTBEATs where a delta would not fit.
 *
 * A type is declared (LTT_USER_DECLARE) in a stream before the first event
 * of that type in the stream. Type ids belong to the process (tgid): the
 * same id means the same type in every stream of one process.
 * ----------------------------------------------------------------------
 */
#define LTT_BLOCK_F_USER 0x0002 /* a user stream's block (USER records) */
/* A user block whose times the daemon placed from CLOCK_MONOTONIC (above). */
#define LTT_BLOCK_F_USER_MONOTONIC 0x0004

enum ltt_user_sub {
	LTT_USER_EVENT = 0,   /* struct ltt_ev_user */
	LTT_USER_DECLARE = 1, /* struct ltt_ev_user_decl */
	LTT_USER_MAX = 2
};

/* Field types of an application event. */
enum ltt_user_field {
	LTT_USER_I64 = 1, /* 8 bytes, signed */
	LTT_USER_U64 = 2, /* 8 bytes, unsigned */
	LTT_USER_F64 = 3, /* 8 bytes, IEEE 754 binary64 */
	LTT_USER_STR = 4, /* __u16 length, then that many bytes (no NUL) */
};

#define LTT_USER_FIELDS_MAX 16
#define LTT_USER_NAME_MAX 64       /* bytes of a name, with its NUL */
#define LTT_USER_PAYLOAD_MAX 1024  /* bytes of one event's field values */

/*
 * DECLARE: names[] holds the event's name, NUL, then each field's name,
 * NUL (names are at most LTT_USER_NAME_MAX bytes with the NUL); the record
 * ends after the last NUL, aligned.
 */
struct ltt_ev_user_decl {
	__u32 type;   /* the type's id in its process, from 0 */
	__u32 tgid;   /* the process */
	__u8 nfields; /* <= LTT_USER_FIELDS_MAX */
	__u8 field[LTT_USER_FIELDS_MAX]; /* enum ltt_user_field, in order */
	__u8 reserved[7]; /* zero */
	char names[(LTT_USER_FIELDS_MAX + 1) * LTT_USER_NAME_MAX];
};
#define LTT_EV_USER_DECL_FIXED 32 /* bytes before names[] */

/*
 * EVENT: the fields' values in declaration order, packed (no padding
 * between them; read them with memcpy), as enum ltt_user_field says; the
 * record ends after the last value, aligned.
 */
struct ltt_ev_user {
	__u32 type; /* a type declared earlier in the stream */
	__u32 tgid;
	__u8 data[LTT_USER_PAYLOAD_MAX];
};
#define LTT_EV_USER_FIXED 8 /* bytes before data[] */

LTT_STATIC_ASSERT(sizeof(struct ltt_ev_user_decl) ==
			  LTT_EV_USER_DECL_FIXED +
				  (LTT_USER_FIELDS_MAX + 1) * LTT_USER_NAME_MAX,
		  "user decl");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_user) ==
			  LTT_EV_USER_FIXED + LTT_USER_PAYLOAD_MAX, "user");

/* ------------------------------------------------------------------------
 * CONFIG (27): the session's event mask, details mask, filters or
 * variables changed while it traces (the LTT_IOC_SET_EVENT_MASK,
 * SET_DETAILS_MASK, TRACK_* and SET_VARS_MASK ioctls, ABI 2.4). The module
 * writes one record, on the CPU that made the ioctl, holding the complete
 * new configuration; the subtype says which part changed. The TRACE_START
 * record and the file header hold the configuration the trace began with.
 *
 * From when a change holds: events before the record's time passed the old
 * event mask, events after it the new one, on every CPU (a bit being
 * removed is removed on every CPU before the record is written, a bit
 * being added is added only after). The details mask, filters and
 * variables of the new configuration hold on every CPU from the record's
 * time at the latest; an event up to one RCU grace period earlier may
 * already have been taken by them.
 *
 * Not counted as an event; the event mask never removes it.
 * ----------------------------------------------------------------------
 */
enum ltt_config_sub {
	LTT_CONFIG_EVENTS = 0,  /* event_mask changed */
	LTT_CONFIG_DETAILS = 1, /* details_mask changed */
	LTT_CONFIG_PID = 2,     /* the PID filter (LTT_FILTER_PID, pid) */
	LTT_CONFIG_PGRP = 3,    /* the process-group filter */
	LTT_CONFIG_UID = 4,     /* the UID filter */
	LTT_CONFIG_GID = 5,     /* the GID filter */
	LTT_CONFIG_VARS = 6,    /* vars_mask changed */
	LTT_CONFIG_MAX = 7
};

struct ltt_ev_config {
	__u64 event_mask;   /* events recorded from now on */
	__u64 details_mask; /* events whose details are recorded */
	__u32 filters;      /* LTT_FILTER_* in effect (abi.h) */
	__s32 pid;          /* with LTT_FILTER_PID, else 0 */
	__s32 pgrp;         /* with LTT_FILTER_PGRP, else 0 */
	__u32 uid;          /* with LTT_FILTER_UID, else 0 */
	__u32 gid;          /* with LTT_FILTER_GID, else 0 */
	__u32 vars_mask;    /* LTT_VAR_BIT()s recorded (VARS above) */
};

LTT_STATIC_ASSERT(sizeof(struct ltt_ev_config) == 40, "config record");

/* ------------------------------------------------------------------------
 * CONTEXT (ABI 2.5): the task current on the record's CPU from now on, in
 * a trace whose file header has LTT_TRACE_F_CONTEXT. Such a trace says
 * which task is current on every CPU at every record: the block's pid at
 * its start, then the `in` of each SCHEDCHANGE and the `pid` of each
 * CONTEXT record. The module writes a CONTEXT record where the session
 * would otherwise not see the change, just before the session's first
 * record after it: after a context switch it does not record (its event
 * mask leaves SCHEDCHANGE or its details out, or a filter dropped the
 * schedchange: SWITCH), and in a restricted session when the current
 * task became the owner's without a switch (OWNED: su's setuid and exec,
 * any credential change) or stopped being it (HIDDEN: pid 0, as for any
 * task the session may not see). Written whatever the event mask, never
 * counted among the events recorded or lost (when one cannot be stored
 * the next block's header gives the task).
 * ----------------------------------------------------------------------
 */
enum ltt_context_sub {
	LTT_CONTEXT_SWITCH = 0, /* a context switch not recorded as SCHEDCHANGE */
	LTT_CONTEXT_OWNED = 1,  /* restricted: current became the owner's */
	LTT_CONTEXT_HIDDEN = 2, /* restricted: current stopped being the owner's */
};

struct ltt_ev_context {
	__s32 pid;  /* thread now current; 0: idle, or a task not shown */
	__s32 tgid; /* its thread group (0 with pid 0) */
};

LTT_STATIC_ASSERT(sizeof(struct ltt_ev_context) == 8, "context record");

/* ------------------------------------------------------------------------
 * STACK (29, ABI 2.6): where a task blocked, for off-CPU profiles. Opt-in:
 * selected in the event mask (and its details in the details mask), not
 * part of LTT_EV_MASK_ALL. When a task switches out without being
 * runnable (a SCHEDCHANGE whose out_state is neither LTT_TASK_RUNNING nor
 * LTT_TASK_DEAD), the module writes, on the same CPU and just before that
 * SCHEDCHANGE, up to two records of the outgoing task:
 *
 *   KERNEL: its kernel stack, saved with stack_trace_save() in the switch
 *           hook. The innermost frames belong to the hook that saw the
 *           switch (the tracepoint's iterator, the facility's logger; the
 *           module's own frames are left out); a reader drops those above
 *           the scheduler's entry (__schedule). Only privileged sessions
 *           get it: a restricted session never records a kernel address.
 *   USER:   its user stack, walked by frame pointers from the registers
 *           saved at its entry into the kernel, best effort: each frame is
 *           read without faulting (a page not resident ends the walk), a
 *           frame pointer that does not move up the stack ends it, code
 *           built without frame pointers gives wrong frames past its
 *           first. The first frame is the user instruction pointer. None
 *           for kernel threads or 32-bit tasks.
 *
 * Frames are innermost first; the record ends after ip[nr - 1]. A walk
 * that stopped at LTT_STACK_DEPTH_MAX frames sets LTT_STACK_F_TRUNCATED.
 * STACK records are counted as events and lost like any other; a STACK
 * record without the SCHEDCHANGE that follows it (lost, or filtered out)
 * still says where its task blocked, at its own time.
 * ----------------------------------------------------------------------
 */
enum ltt_stack_sub {
	LTT_STACK_KERNEL = 0,
	LTT_STACK_USER = 1,
	LTT_STACK_MAX = 2
};

#define LTT_STACK_DEPTH_MAX 64
#define LTT_STACK_F_TRUNCATED 0x1 /* the walk stopped at the depth bound */

struct ltt_ev_stack {
	__s32 pid;   /* the task that blocks (current when written) */
	__u16 nr;    /* frames in ip[] */
	__u16 flags; /* LTT_STACK_F_* */
	__u64 ip[LTT_STACK_DEPTH_MAX]; /* return addresses, innermost first */
};
#define LTT_EV_STACK_FIXED 8 /* bytes before ip[] */

LTT_STATIC_ASSERT(sizeof(struct ltt_ev_stack) ==
			  LTT_EV_STACK_FIXED + 8 * LTT_STACK_DEPTH_MAX, "stack");

#endif /* LTT_MODULE_EVENTS_H */
