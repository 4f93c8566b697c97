/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * The private protocol between libltt-user (user/) and tracedaemon
 * (daemon/src/user_server.cpp): the layout of a process's shared memory
 * and the messages on the daemon's Unix socket. Not a public API: both
 * sides are built from this one header and the daemon refuses any other
 * version; it is never installed (the CMake target ltt_user_protocol
 * gives its folder to the two sides). docs/user-events.md tells the whole
 * story.
 *
 * Shared memory: one memfd per process, sealed against shrinking and
 * growing (the daemon maps it and must never take a SIGBUS), laid out as
 *
 *   struct ltt_user_shm_header
 *   struct ltt_user_shm_type   types[LTT_USER_SHM_TYPES]
 *   LTT_USER_SHM_RINGS times: struct ltt_user_shm_ring, then its
 *     `ring_bytes` bytes of data (the header's ring_bytes, a power of two
 *     from LTT_USER_RING_MIN to LTT_USER_RING_MAX, chosen by the process
 *     when it creates the memfd; the memfd is sparse, so pages cost
 *     memory only once a ring has reached them)
 *
 * Types: the process takes an id with an atomic add on `ntypes`, fills
 * the entry, then stores `ready` = 1 (release). The daemon reads an entry
 * only once `ready` is 1 and checks every field it copies.
 *
 * Rings: single producer (the thread whose id is in `tid`, claimed with a
 * compare-and-swap from 0), single consumer (the daemon). `head` and
 * `tail` count bytes since the ring was claimed; the producer alone
 * writes `head`, the daemon alone writes `tail`. A record is written at
 * head % ring_bytes (wrapping around the end), then `head` advances past
 * it (release). A record that does not fit in the free space is not
 * written: `lost` counts it (the producer never blocks and never
 * overwrites). Events of a thread that finds no free ring count in the
 * header's `lost_no_ring`.
 *
 * Wakeup: REGISTER may carry a second descriptor, an eventfd. A producer
 * whose record takes its ring's use from below half the ring to half or
 * more writes 1 to it (once per crossing); the daemon polls it besides
 * its periodic drain and drains that process's rings.
 *
 * A ring is given back when its thread exits: the thread stores `closing`
 * = 1 (release; its head is final) and writes the eventfd. The daemon
 * drains the ring to its head, ends the thread's stream with a final
 * block, zeroes head, tail, lost and closing, and stores `tid` = 0
 * (release) last; the next thread to claim the ring is a new stream.
 * While no daemon is connected the library frees the ring itself.
 *
 * A record: struct ltt_user_rec, then the field values packed as
 * ltt_ev_user's data (module_events.h), the whole rounded up to 8 bytes.
 */
#ifndef LTT_USER_SHM_H
#define LTT_USER_SHM_H

#include <stdint.h>

#include <ltt/module_events.h>

#define LTT_USER_SHM_MAGIC 0x4c54545553484d31ULL /* "LTTUSHM1" */
#define LTT_USER_SHM_VERSION 2
#define LTT_USER_SHM_TYPES 256
#define LTT_USER_SHM_RINGS 32
#define LTT_USER_RING_DEFAULT (16u << 20) /* bytes of data a ring holds */
#define LTT_USER_RING_MIN (4u << 10)
#define LTT_USER_RING_MAX (16u << 20)

struct ltt_user_shm_header {
	uint64_t magic;   /* LTT_USER_SHM_MAGIC */
	uint32_t version; /* LTT_USER_SHM_VERSION */
	uint32_t size;    /* bytes of the whole memfd */
	uint32_t ntypes;  /* ids taken (some may not be ready yet) */
	uint32_t enabled; /* written by the daemon: 1 while it traces us */
	uint64_t lost_no_ring; /* events of threads that found no free ring */
	uint32_t ring_bytes; /* data bytes of each ring, a power of two */
	uint32_t clocks;  /* the process: LTT_USER_CLOCK_F_* it can stamp with */
	uint32_t clock;   /* the daemon, before ENABLE: enum ltt_user_clock */
	uint32_t reserved0;
	uint64_t reserved[2];
};

/*
 * The clock a record's `tsc` is read from, chosen by the daemon: the TSC
 * when the trace's clock is a TSC every CPU shares, else CLOCK_MONOTONIC,
 * which the daemon places on the trace's clock (LTT_IOC_GET_CLOCK_PAIR).
 * A library that leaves `clocks` 0 stamps with the TSC only: the daemon
 * enables it only in TSC traces.
 */
enum ltt_user_clock {
	LTT_USER_CLOCK_TSC = 0,
	LTT_USER_CLOCK_MONOTONIC = 1,
};
#define LTT_USER_CLOCK_F_TSC (1u << LTT_USER_CLOCK_TSC)
#define LTT_USER_CLOCK_F_MONOTONIC (1u << LTT_USER_CLOCK_MONOTONIC)

struct ltt_user_shm_type {
	uint32_t ready;   /* 1 once the rest is written */
	uint8_t nfields;  /* <= LTT_USER_FIELDS_MAX */
	uint8_t field[LTT_USER_FIELDS_MAX]; /* enum ltt_user_field */
	uint8_t reserved[3];
	/* the event's name, then each field's, NUL-terminated in their slot */
	char names[LTT_USER_FIELDS_MAX + 1][LTT_USER_NAME_MAX];
};

struct ltt_user_shm_ring {
	uint32_t tid;      /* producing thread, 0: free */
	uint32_t closing;  /* 1: the thread exited, its head is final */
	uint64_t head;     /* producer: bytes written */
	uint64_t lost;     /* producer: events that did not fit */
	uint64_t reserved1[5]; /* keeps tail on a cache line of its own */
	uint64_t tail;     /* daemon: bytes consumed */
	uint64_t reserved2[7];
	/* then the ring's data, ring_bytes of it */
};

struct ltt_user_rec {
	uint16_t size;     /* bytes of the record, a multiple of 8 */
	uint16_t reserved; /* zero */
	uint32_t type;     /* a declared type id */
	uint64_t tsc;      /* logged at: rdtsc, or CLOCK_MONOTONIC ns */
};

#define LTT_USER_REC_MAX (sizeof(struct ltt_user_rec) + LTT_USER_PAYLOAD_MAX)
#define LTT_USER_SHM_TYPES_OFF sizeof(struct ltt_user_shm_header)
#define LTT_USER_SHM_RINGS_OFF                                                 \
	(LTT_USER_SHM_TYPES_OFF +                                              \
	 LTT_USER_SHM_TYPES * sizeof(struct ltt_user_shm_type))
/* Where ring i starts, and the whole memfd, for rings of `rb` bytes. */
#define LTT_USER_SHM_RING_OFF(i, rb)                                           \
	(LTT_USER_SHM_RINGS_OFF +                                              \
	 (uint64_t)(i) * (sizeof(struct ltt_user_shm_ring) + (rb)))
#define LTT_USER_SHM_SIZE(rb) LTT_USER_SHM_RING_OFF(LTT_USER_SHM_RINGS, rb)

/*
 * Socket messages (SOCK_SEQPACKET: one message per send). REGISTER carries
 * the memfd (SCM_RIGHTS), then the wakeup eventfd; ENABLE and DISABLE go
 * from the daemon to the process, which mirrors them in its enabled word;
 * SNAPSHOT asks the daemon for a flight-recorder snapshot, `text` saying why;
 * REFUSE tells a registered process at once that this daemon will not
 * record its events, `text` saying why (ltt-mark prints it), so that it
 * never waits for an ENABLE that will not come.
 */
enum ltt_user_msg_kind {
	LTT_USER_MSG_REGISTER = 1,
	LTT_USER_MSG_ENABLE = 2,
	LTT_USER_MSG_DISABLE = 3,
	LTT_USER_MSG_SNAPSHOT = 4,
	LTT_USER_MSG_REFUSE = 5,
};

#define LTT_USER_MSG_MAGIC 0x4c545455 /* "UTTL" */
#define LTT_USER_MSG_TEXT 128

struct ltt_user_msg {
	uint32_t magic;   /* LTT_USER_MSG_MAGIC */
	uint16_t version; /* LTT_USER_SHM_VERSION */
	uint16_t kind;    /* enum ltt_user_msg_kind */
	char text[LTT_USER_MSG_TEXT]; /* SNAPSHOT, REFUSE: why, NUL-terminated */
};

LTT_STATIC_ASSERT(sizeof(struct ltt_user_shm_header) == 64, "shm header");
LTT_STATIC_ASSERT(sizeof(struct ltt_user_shm_type) ==
			  24 + (LTT_USER_FIELDS_MAX + 1) * LTT_USER_NAME_MAX,
		  "shm type");
LTT_STATIC_ASSERT(sizeof(struct ltt_user_shm_ring) == 128, "shm ring");
LTT_STATIC_ASSERT(sizeof(struct ltt_user_rec) == 16, "user record");
LTT_STATIC_ASSERT(sizeof(struct ltt_user_msg) == 8 + LTT_USER_MSG_TEXT,
		  "user message");

#endif /* LTT_USER_SHM_H */
