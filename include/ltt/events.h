/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * ltt event ABI: event ids, subtypes, the record header and every event's
 * detail structure. Shared verbatim by the kernel patch series (as
 * include/linux/ltt-events.h), the trace module and the user-space tools;
 * tests/kernel/abi-sync fails when the kernel's copy differs from this file.
 * See include/ltt/abi.h for the ioctls and the file header, and
 * docs/trace-format.md for the format as a whole.
 */
#ifndef LTT_EVENTS_H
#define LTT_EVENTS_H

/* Fixed-width __u8..__u64 types, the same in the kernel and user space. */
#include <linux/types.h>

#define LTT_MAX_CPUS 64
#define LTT_NAME_MAX 256 /* file names in exec/open details, with the NUL */
#define LTT_CUSTOM_MAX 1024 /* payload bytes of one custom event */
#define LTT_RECORD_ALIGN 8

/* ------------------------------------------------------------------------
 * Event types (paper Figure 2, plus the trace's own structure events).
 * The numbers are ABI: never renumber, only append before LTT_EV_MAX.
 * The kernel patch's <linux/ltt.h> carries the same numbers; the test
 * `tests/kernel/abi-sync` fails if the two differ.
 * ---------------------------------------------------------------------- */
enum ltt_event_id {
	LTT_EV_TRACE_START = 0,   /* struct ltt_ev_trace_start */
	LTT_EV_SYSCALL_ENTRY = 1, /* struct ltt_ev_syscall_entry */
	LTT_EV_SYSCALL_EXIT = 2,  /* struct ltt_ev_syscall_exit */
	LTT_EV_TRAP_ENTRY = 3,    /* struct ltt_ev_trap_entry */
	LTT_EV_TRAP_EXIT = 4,     /* no details */
	LTT_EV_IRQ_ENTRY = 5,     /* struct ltt_ev_irq_entry */
	LTT_EV_IRQ_EXIT = 6,      /* no details */
	LTT_EV_SCHEDCHANGE = 7,   /* struct ltt_ev_schedchange */
	LTT_EV_KERNEL_TIMER = 8,  /* no details */
	LTT_EV_SOFT_IRQ = 9,      /* enum ltt_softirq_sub, struct ltt_ev_soft_irq */
	LTT_EV_PROCESS = 10,      /* enum ltt_process_sub, struct ltt_ev_process */
	LTT_EV_FILE_SYSTEM = 11,  /* enum ltt_fs_sub, struct ltt_ev_file_system */
	LTT_EV_TIMER = 12,        /* enum ltt_timer_sub, struct ltt_ev_timer */
	LTT_EV_MEMORY = 13,       /* enum ltt_memory_sub, struct ltt_ev_memory */
	LTT_EV_SOCKET = 14,       /* enum ltt_socket_sub, struct ltt_ev_socket */
	LTT_EV_IPC = 15,          /* enum ltt_ipc_sub, struct ltt_ev_ipc */
	LTT_EV_NETWORK = 16,      /* enum ltt_network_sub, struct ltt_ev_network */
	LTT_EV_BLOCK_START = 17,  /* struct ltt_block_start */
	LTT_EV_BLOCK_END = 18,    /* struct ltt_block_end */
	LTT_EV_HEARTBEAT = 19,    /* struct ltt_ev_heartbeat */
	LTT_EV_LOST = 20,         /* struct ltt_ev_lost */
	LTT_EV_CUSTOM = 21,       /* struct ltt_ev_custom (user events) */
	LTT_EV_MAX = 22
};

/* Event and details masks are bit sets over enum ltt_event_id. */
#define LTT_EV_BIT(ev) (1ULL << (ev))
/* The paper's "core" events: those of Figure 2 without subtypes. */
#define LTT_EV_MASK_CORE                                                      \
	(LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY) | LTT_EV_BIT(LTT_EV_SYSCALL_EXIT) | \
	 LTT_EV_BIT(LTT_EV_TRAP_ENTRY) | LTT_EV_BIT(LTT_EV_TRAP_EXIT) |       \
	 LTT_EV_BIT(LTT_EV_IRQ_ENTRY) | LTT_EV_BIT(LTT_EV_IRQ_EXIT) |         \
	 LTT_EV_BIT(LTT_EV_SCHEDCHANGE) | LTT_EV_BIT(LTT_EV_KERNEL_TIMER) |   \
	 LTT_EV_BIT(LTT_EV_SOFT_IRQ))
/* Events a user can select; the structure events are always recorded. */
#define LTT_EV_MASK_ALL                                                  \
	(LTT_EV_MASK_CORE | LTT_EV_BIT(LTT_EV_PROCESS) |                 \
	 LTT_EV_BIT(LTT_EV_FILE_SYSTEM) | LTT_EV_BIT(LTT_EV_TIMER) |     \
	 LTT_EV_BIT(LTT_EV_MEMORY) | LTT_EV_BIT(LTT_EV_SOCKET) |         \
	 LTT_EV_BIT(LTT_EV_IPC) | LTT_EV_BIT(LTT_EV_NETWORK) |           \
	 LTT_EV_BIT(LTT_EV_CUSTOM))
#define LTT_EV_MASK_STRUCTURE                                             \
	(LTT_EV_BIT(LTT_EV_TRACE_START) | LTT_EV_BIT(LTT_EV_BLOCK_START) | \
	 LTT_EV_BIT(LTT_EV_BLOCK_END) | LTT_EV_BIT(LTT_EV_HEARTBEAT) |     \
	 LTT_EV_BIT(LTT_EV_LOST))

/* Subtypes. Events without subtypes use subtype 0. */
enum ltt_softirq_sub {
	LTT_SOFTIRQ_ENTRY = 0, /* softirq vector handler starts; id = vec_nr */
	LTT_SOFTIRQ_EXIT = 1,
	LTT_TASKLET_ENTRY = 2, /* id = low 32 bits of the callback address */
	LTT_TASKLET_EXIT = 3,
	LTT_SOFTIRQ_MAX = 4
};

enum ltt_process_sub {
	LTT_PROCESS_KTHREAD = 0, /* pid = new kthread, arg = start address */
	LTT_PROCESS_FORK = 1,    /* pid = child, arg = clone flags */
	LTT_PROCESS_EXIT = 2,    /* pid = exiting task, arg = exit code */
	LTT_PROCESS_WAIT = 3,    /* pid = waited on (-1: any child) */
	LTT_PROCESS_SIGNAL = 4,  /* pid = destination, arg = signal number */
	LTT_PROCESS_WAKEUP = 5,  /* pid = woken, arg = state before the wakeup */
	LTT_PROCESS_MAX = 6
};

enum ltt_fs_sub {
	LTT_FS_BUF_WAIT_START = 0, /* I/O wait starts (io_schedule_prepare) */
	LTT_FS_BUF_WAIT_END = 1,
	LTT_FS_EXEC = 2,   /* name = file executed */
	LTT_FS_OPEN = 3,   /* fd, name */
	LTT_FS_CLOSE = 4,  /* fd */
	LTT_FS_READ = 5,   /* fd, arg = bytes read (the return value, >= 0) */
	LTT_FS_WRITE = 6,  /* fd, arg = bytes written (the return value) */
	LTT_FS_SEEK = 7,   /* fd, arg = offset, aux = whence */
	LTT_FS_IOCTL = 8,  /* fd, arg = command */
	LTT_FS_SELECT = 9, /* fd = highest fd + 1, arg = timeout ns (-1 none) */
	LTT_FS_POLL = 10,  /* fd = number of fds, arg = timeout ns (-1 none) */
	LTT_FS_MAX = 11
};

enum ltt_timer_sub {
	LTT_TIMER_EXPIRED = 0,     /* arg = which (ITIMER_*) */
	LTT_TIMER_SETITIMER = 1,   /* aux = which, arg = interval ns */
	LTT_TIMER_SETTIMEOUT = 2,  /* arg = timeout in jiffies */
	LTT_TIMER_MAX = 3
};

enum ltt_memory_sub {
	LTT_MEM_PAGE_ALLOC = 0, /* arg = order */
	LTT_MEM_PAGE_FREE = 1,  /* arg = order */
	LTT_MEM_SWAP_IN = 2,    /* address = page address / swap entry */
	LTT_MEM_SWAP_OUT = 3,
	LTT_MEM_PAGE_WAIT_START = 4,
	LTT_MEM_PAGE_WAIT_END = 5,
	LTT_MEMORY_MAX = 6
};

enum ltt_socket_sub {
	LTT_SOCKET_CALL = 0,    /* call = syscall number, id = fd */
	LTT_SOCKET_CREATE = 1,  /* type = family<<16 | type, id = fd */
	LTT_SOCKET_SEND = 2,    /* type = socket type, size = bytes sent */
	LTT_SOCKET_RECEIVE = 3, /* type = socket type, size = bytes received */
	LTT_SOCKET_MAX = 4
};

enum ltt_ipc_sub {
	LTT_IPC_CALL = 0,       /* call = syscall number, id = first argument */
	LTT_IPC_MSG_CREATE = 1, /* id = msqid, flags = msgflg */
	LTT_IPC_SEM_CREATE = 2, /* id = semid, flags = semflg */
	LTT_IPC_SHM_CREATE = 3, /* id = shmid, flags = shmflg */
	LTT_IPC_MAX = 4
};

enum ltt_network_sub {
	LTT_NET_PACKET_IN = 0,  /* protocol = ETH_P_* (host order) */
	LTT_NET_PACKET_OUT = 1,
	LTT_NETWORK_MAX = 2
};

/* Trap ids: the x86 exception vector (X86_TRAP_*); 14 is a page fault. */
#define LTT_TRAP_PAGE_FAULT 14

/* Task states in schedchange/wakeup details: the kernel's __state bits. */
#define LTT_TASK_RUNNING 0x0000
#define LTT_TASK_INTERRUPTIBLE 0x0001
#define LTT_TASK_UNINTERRUPTIBLE 0x0002
#define LTT_TASK_STOPPED 0x0004
#define LTT_TASK_TRACED 0x0008
#define LTT_TASK_DEAD 0x0080 /* as exit_state EXIT_DEAD */
#define LTT_TASK_ZOMBIE 0x0020
#define LTT_TASK_IDLE 0x0402 /* TASK_NOLOAD | TASK_UNINTERRUPTIBLE */

/* ------------------------------------------------------------------------
 * Records
 * ---------------------------------------------------------------------- */

/*
 * Every record starts with this header. `size` is the whole record in bytes
 * including the header, a multiple of LTT_RECORD_ALIGN; a record whose
 * details were masked out has size 8. `delta` is TSC ticks since the current
 * base (block start, or the last heartbeat in the block).
 */
struct ltt_record_header {
	__u32 delta;
	__u8 event;   /* enum ltt_event_id */
	__u8 subtype; /* per-event subtype enum, 0 if none */
	__u16 size;
};

/*
 * BLOCK_START: first record of every block, delta 0. The module fills in
 * `length` when it closes the block. A block holds events of one CPU only.
 */
#define LTT_BLOCK_MAGIC 0x4B4C4254u /* "TBLK" little-endian */
struct ltt_block_start {
	__u32 magic;      /* LTT_BLOCK_MAGIC */
	__u32 length;     /* bytes of the whole block, both ends included */
	__u64 start_tsc;  /* TSC at the block's start: the first delta base */
	__u64 lost;       /* events lost on this CPU since the previous block */
	__u32 sequence;   /* per-CPU block sequence number, from 0 */
	__u16 cpu;
	__u16 flags;      /* LTT_BLOCK_F_* */
	__s32 pid;        /* task current on this CPU at block start (0: idle) */
	__u32 reserved;   /* zero */
};
#define LTT_BLOCK_F_FINAL 0x0001 /* last block of this CPU (trace stopped) */

/* BLOCK_END: last record of every block. */
struct ltt_block_end {
	__u64 end_tsc;  /* TSC when the block was closed */
	__u32 events;   /* records in the block, BLOCK_START/END included */
	__u32 reserved; /* zero */
};

/*
 * TRACE_START: first record of the first block of the CPU that started the
 * trace. The same values are in the file header; the record marks the
 * instant in the event stream.
 */
struct ltt_ev_trace_start {
	__u64 tsc_khz;
	__u64 anchor_tsc;
	__u64 anchor_realtime_ns;
	__u64 event_mask;
	__u64 details_mask;
};

/* HEARTBEAT: full TSC, and the new base for the following deltas. */
struct ltt_ev_heartbeat {
	__u64 tsc;
};

/* LOST: right after BLOCK_START when events were lost before the block. */
struct ltt_ev_lost {
	__u64 count;
	__u64 first_tsc; /* TSC of the first event that could not be stored */
};

struct ltt_ev_syscall_entry {
	__u64 ip;     /* user instruction pointer (per the IP depth/range policy) */
	__u32 nr;     /* syscall number (x86_64) */
	__u32 reserved;
};

struct ltt_ev_syscall_exit {
	__s64 ret;    /* return value (negative errno on failure) */
};

struct ltt_ev_trap_entry {
	__u64 ip;
	__u64 address; /* faulting address for page faults (cr2), else 0 */
	__u32 trap;    /* x86 vector */
	__u32 error_code;
};

#define LTT_IRQ_IN_KERNEL 0x1 /* interrupted code was kernel code */
#define LTT_IRQ_VECTOR 0x2    /* irq is an x86 vector (APIC timer, IPI) */
struct ltt_ev_irq_entry {
	__u32 irq;
	__u32 flags; /* LTT_IRQ_* */
};

struct ltt_ev_schedchange {
	__s32 in;        /* pid of the incoming task (0: idle) */
	__s32 out;       /* pid of the outgoing task */
	__u32 out_state; /* LTT_TASK_*: RUNNING when preempted */
	__u32 reserved;
};

struct ltt_ev_soft_irq {
	__u64 id; /* vector number, or tasklet function address */
};

struct ltt_ev_process {
	__s32 pid;
	__u32 reserved;
	__u64 arg; /* see enum ltt_process_sub */
};

/* `name` is present for EXEC and OPEN only, NUL-terminated, record size
 * trimmed to the name's length rounded up to LTT_RECORD_ALIGN. */
struct ltt_ev_file_system {
	__s32 fd;
	__u32 aux;
	__s64 arg;
	char name[LTT_NAME_MAX];
};
#define LTT_EV_FS_FIXED 16 /* bytes before `name` */

struct ltt_ev_timer {
	__s64 arg;
	__u32 aux;
	__u32 reserved;
};

struct ltt_ev_memory {
	__u64 address;
	__u64 arg;
};

struct ltt_ev_socket {
	__u32 call;
	__s32 id;
	__u32 type;
	__u32 reserved;
	__s64 size;
};

struct ltt_ev_ipc {
	__u32 call;
	__s32 id;
	__u32 flags;
	__u32 reserved;
};

struct ltt_ev_network {
	__u32 protocol;
	__u32 reserved;
};

/* CUSTOM: user events written through LTT_IOC_USER_EVENT. */
struct ltt_ev_custom {
	__u32 id;     /* user-chosen event id */
	__u32 length; /* payload bytes that follow */
	char data[LTT_CUSTOM_MAX];
};
#define LTT_EV_CUSTOM_FIXED 8

/* Size asserts: the same layout in C (module) and C++ (tools). */
#ifdef __cplusplus
#define LTT_STATIC_ASSERT(e, m) static_assert(e, m)
#else
#define LTT_STATIC_ASSERT(e, m) _Static_assert(e, m)
#endif

LTT_STATIC_ASSERT(sizeof(struct ltt_record_header) == 8, "record header");
LTT_STATIC_ASSERT(sizeof(struct ltt_block_start) == 40, "block start");
LTT_STATIC_ASSERT(sizeof(struct ltt_block_end) == 16, "block end");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_trace_start) == 40, "trace start");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_heartbeat) == 8, "heartbeat");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_lost) == 16, "lost");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_syscall_entry) == 16, "syscall entry");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_syscall_exit) == 8, "syscall exit");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_trap_entry) == 24, "trap entry");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_irq_entry) == 8, "irq entry");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_schedchange) == 16, "schedchange");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_soft_irq) == 8, "soft irq");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_process) == 16, "process");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_file_system) == 16 + LTT_NAME_MAX,
		  "file system");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_timer) == 16, "timer");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_memory) == 16, "memory");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_socket) == 24, "socket");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_ipc) == 16, "ipc");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_network) == 8, "network");
LTT_STATIC_ASSERT(sizeof(struct ltt_ev_custom) == 8 + LTT_CUSTOM_MAX, "custom");

#endif /* LTT_EVENTS_H */
