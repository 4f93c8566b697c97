/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * The private protocol between libltt-user (user/) and tracedaemon
 * (daemon/src/user_server.cpp): the layout of a process's shared memory
 * and the messages on the daemon's Unix socket. Not a public API: both
 * sides are built from this one header and the daemon refuses any other
 * version. docs/user-events.md tells the whole story.
 *
 * Shared memory: one memfd per process, sealed against shrinking and
 * growing (the daemon maps it and must never take a SIGBUS), laid out as
 *
 *   struct ltt_user_shm_header
 *   struct ltt_user_shm_type   types[LTT_USER_SHM_TYPES]
 *   struct ltt_user_shm_ring   rings[LTT_USER_SHM_RINGS]
 *
 * Types: the process takes an id with an atomic add on `ntypes`, fills
 * the entry, then stores `ready` = 1 (release). The daemon reads an entry
 * only once `ready` is 1 and checks every field it copies.
 *
 * Rings: single producer (the thread whose id is in `tid`, claimed with a
 * compare-and-swap from 0), single consumer (the daemon). `head` and
 * `tail` count bytes since the ring was claimed; the producer alone
 * writes `head`, the daemon alone writes `tail`. A record is written at
 * head % LTT_USER_RING_BYTES (wrapping around the end), then `head`
 * advances past it (release). A record that does not fit in the free
 * space is not written: `lost` counts it (the producer never blocks and
 * never overwrites). Events of a thread that finds no free ring count in
 * the header's `lost_no_ring`.
 *
 * A record: struct ltt_user_rec, then the field values packed as
 * ltt_ev_user's data (module_events.h), the whole rounded up to 8 bytes.
 */
#ifndef LTT_USER_SHM_H
#define LTT_USER_SHM_H

#include <stdint.h>

#include "module_events.h"

#define LTT_USER_SHM_MAGIC 0x4c54545553484d31ULL /* "LTTUSHM1" */
#define LTT_USER_SHM_VERSION 1
#define LTT_USER_SHM_TYPES 256
#define LTT_USER_SHM_RINGS 32
#define LTT_USER_RING_BYTES 65536 /* a power of two */

struct ltt_user_shm_header {
	uint64_t magic;   /* LTT_USER_SHM_MAGIC */
	uint32_t version; /* LTT_USER_SHM_VERSION */
	uint32_t size;    /* bytes of the whole memfd */
	uint32_t ntypes;  /* ids taken (some may not be ready yet) */
	uint32_t enabled; /* written by the daemon: 1 while it traces us */
	uint64_t lost_no_ring; /* events of threads that found no free ring */
	uint64_t reserved[4];
};

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
	uint32_t reserved0;
	uint64_t head;     /* producer: bytes written */
	uint64_t lost;     /* producer: events that did not fit */
	uint64_t reserved1[5]; /* keeps tail on a cache line of its own */
	uint64_t tail;     /* daemon: bytes consumed */
	uint64_t reserved2[7];
	uint8_t data[LTT_USER_RING_BYTES];
};

struct ltt_user_rec {
	uint16_t size;     /* bytes of the record, a multiple of 8 */
	uint16_t reserved; /* zero */
	uint32_t type;     /* a declared type id */
	uint64_t tsc;      /* rdtsc when the event was logged */
};

#define LTT_USER_REC_MAX (sizeof(struct ltt_user_rec) + LTT_USER_PAYLOAD_MAX)
#define LTT_USER_SHM_TYPES_OFF sizeof(struct ltt_user_shm_header)
#define LTT_USER_SHM_RINGS_OFF                                                 \
	(LTT_USER_SHM_TYPES_OFF +                                              \
	 LTT_USER_SHM_TYPES * sizeof(struct ltt_user_shm_type))
#define LTT_USER_SHM_SIZE                                                      \
	(LTT_USER_SHM_RINGS_OFF +                                              \
	 LTT_USER_SHM_RINGS * sizeof(struct ltt_user_shm_ring))

/*
 * Socket messages (SOCK_SEQPACKET: one message per send). REGISTER carries
 * the memfd (SCM_RIGHTS); ENABLE and DISABLE go from the daemon to the
 * process, which mirrors them in its enabled word; SNAPSHOT asks the
 * daemon for a flight-recorder snapshot, `text` saying why.
 */
enum ltt_user_msg_kind {
	LTT_USER_MSG_REGISTER = 1,
	LTT_USER_MSG_ENABLE = 2,
	LTT_USER_MSG_DISABLE = 3,
	LTT_USER_MSG_SNAPSHOT = 4,
};

#define LTT_USER_MSG_MAGIC 0x4c545455 /* "UTTL" */
#define LTT_USER_MSG_TEXT 128

struct ltt_user_msg {
	uint32_t magic;   /* LTT_USER_MSG_MAGIC */
	uint16_t version; /* LTT_USER_SHM_VERSION */
	uint16_t kind;    /* enum ltt_user_msg_kind */
	char text[LTT_USER_MSG_TEXT]; /* SNAPSHOT: why, NUL-terminated */
};

LTT_STATIC_ASSERT(sizeof(struct ltt_user_shm_header) == 64, "shm header");
LTT_STATIC_ASSERT(sizeof(struct ltt_user_shm_type) ==
			  24 + (LTT_USER_FIELDS_MAX + 1) * LTT_USER_NAME_MAX,
		  "shm type");
LTT_STATIC_ASSERT(sizeof(struct ltt_user_shm_ring) ==
			  128 + LTT_USER_RING_BYTES, "shm ring");
LTT_STATIC_ASSERT(sizeof(struct ltt_user_rec) == 16, "user record");
LTT_STATIC_ASSERT(sizeof(struct ltt_user_msg) == 8 + LTT_USER_MSG_TEXT,
		  "user message");

#endif /* LTT_USER_SHM_H */
