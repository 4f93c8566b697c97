/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * ltt trace format version 2: the compact record encoding the module
 * writes and libltt reads. docs/trace-format.md section 2.2 is normative
 * for meaning; this header for bit positions. Version 1 records (struct
 * ltt_record_header, 8-byte aligned) are described in events.h.
 *
 * A version 2 record starts with one little-endian 32-bit word:
 *
 *   bits 0..4    code   (enum ltt_code; 0 is never a record)
 *   long codes:  bits 5..31   delta (27 bits)
 *   short codes: bits 5..13   arg   (9 bits)
 *                bits 14..31  delta (18 bits)
 *
 * `delta` is clock units since the previous record of the block (the
 * BLOCK_START's start_tsc for the first record after it). A HEARTBEAT
 * carries its time whole and writes delta 0. Records are 4-byte aligned;
 * each code fixes its record's size (LTT_CODE_SIZE()), except
 * LTT_CODE_EXT whose second word is { u8 event, u8 subtype, u16 size }
 * followed by the event's version 1 detail structure cut at `size` -- the
 * same bytes as a version 1 record whose first word holds the code and
 * delta.
 *
 * The compact codes hold the fields of one detail structure, narrowed; a
 * reader expands them back to that structure (reserved fields zero). A
 * producer uses a compact code only when the event's details were recorded
 * whole and every field fits; otherwise it writes LTT_CODE_EXT.
 */
#ifndef LTT_FORMAT_H
#define LTT_FORMAT_H

#include "events.h"

#define LTT_FORMAT_V1 1
#define LTT_FORMAT_V2 2
#define LTT_V2_RECORD_ALIGN 4

#define LTT_CODE_BITS 5
#define LTT_CODE_MASK 0x1fu
#define LTT_LONG_DELTA_BITS 27
#define LTT_SHORT_ARG_BITS 9
#define LTT_SHORT_DELTA_BITS 18
#define LTT_LONG_DELTA_MAX ((1u << LTT_LONG_DELTA_BITS) - 1)
#define LTT_SHORT_DELTA_MAX ((1u << LTT_SHORT_DELTA_BITS) - 1)
#define LTT_SHORT_ARG_MAX ((1u << LTT_SHORT_ARG_BITS) - 1)

/* Header word of a long code: delta < 2^27. */
#define LTT_LONG_WORD(code, delta) ((__u32)(code) | ((__u32)(delta) << 5))
/*
 * Header word of a short code: arg < 2^9 (two's complement for signed
 * args), delta < 2^18.
 */
#define LTT_SHORT_WORD(code, arg, delta)                                \
	((__u32)(code) | (((__u32)(arg) & LTT_SHORT_ARG_MAX) << 5) |    \
	 ((__u32)(delta) << 14))

#define LTT_WORD_CODE(w) ((w) & LTT_CODE_MASK)
#define LTT_WORD_LONG_DELTA(w) ((w) >> 5)
#define LTT_WORD_SHORT_ARG(w) (((w) >> 5) & LTT_SHORT_ARG_MAX)
#define LTT_WORD_SHORT_DELTA(w) ((w) >> 14)

/*
 * Codes. Sizes are of the whole record, header word included. "s" marks
 * short codes. The numbers are format: never renumber.
 *
 * A code's low two bits give its record's size, so that a reader learns
 * where the next record starts from the header word alone:
 * 4 * ((code & 3) + 1) bytes (LTT_CODE_SIZE()), except for the two codes
 * with (code & 0x1d) == 1: EXT (the size in its second word) and
 * TRAP_ENTRY (24 bytes). The short codes are the 4-byte codes from 16 on.
 * Numbers that are no code (LTT_CODE_VALID() false) are corruption.
 */
enum ltt_code {
	LTT_CODE_INVALID = 0,     /* zeros are never a record */
	LTT_CODE_EXT = 1,         /* u8 event, u8 subtype, u16 size, details */
	LTT_CODE_SYS_ENTRY_NEAR = 2, /* u32 nr, s32 ip - last_ip (12) */
	/* u32 trap | error_code << 8, u64 ip, u64 address (24) */
	LTT_CODE_TRAP_ENTRY = 3,
	LTT_CODE_TRAP_EXIT = 4,   /* (4) */
	LTT_CODE_SYS_ENTRY_SAME = 5, /* u32 nr; ip == last_ip (8) */
	LTT_CODE_SYS_EXIT = 6,    /* s64 ret (12) */
	LTT_CODE_SYS_ENTRY = 7,   /* u32 nr, u64 ip (16) */
	LTT_CODE_IRQ_EXIT = 8,    /* (4) */
	LTT_CODE_SYS_EXIT_MID = 9, /* s32 ret (8) */
	LTT_CODE_SCHED = 10,      /* u64 in | out << 22 | out_state << 44 (12) */
	/* u32 zero, u64 tsc: this record's time, whole (16) */
	LTT_CODE_HEARTBEAT = 11,
	LTT_CODE_KERNEL_TIMER = 12, /* (4) */
	LTT_CODE_IRQ_ENTRY = 13,  /* u32 irq | flags << 24 (8) */
	LTT_CODE_WAKEUP = 14,     /* u32 pid, u32 state (12) */
	LTT_CODE_SYS_ENTRY_SHORT = 16, /* s: arg = nr; ip == last_ip (4) */
	LTT_CODE_FS_CLOSE = 17,   /* s32 fd (8) */
	LTT_CODE_FS_READ = 18,    /* s32 fd, s32 bytes (12) */
	LTT_CODE_SYS_EXIT_SHORT = 20, /* s: arg = ret, signed 9 bits (4) */
	LTT_CODE_FS_WRITE = 22,   /* s32 fd, s32 bytes (12) */
	LTT_CODE_SOFTIRQ_ENTRY = 24, /* s: arg = vector (4) */
	LTT_CODE_PAGE_ALLOC = 26, /* u64 address | order (12) */
	LTT_CODE_SOFTIRQ_EXIT = 28,  /* s: arg = vector (4) */
	LTT_CODE_PAGE_FREE = 30,  /* u64 address | order (12) */
};

/* The codes in use; 0, 15, 19, 21, 23, 25, 27, 29 and 31 are no record. */
#define LTT_CODE_VALID_MASK 0x55577ffeu
#define LTT_CODE_VALID(code) ((LTT_CODE_VALID_MASK >> ((code) & 31)) & 1)
/* Whether a code is short (its word holds an arg). */
#define LTT_CODE_SHORT(code) (((code) & 0x13u) == 0x10)
/* Whether a code's size is not 4 * ((code & 3) + 1): EXT, TRAP_ENTRY. */
#define LTT_CODE_SIZE_APART(code) (((code) & 0x1du) == 1)
/* Bytes of a record of a valid code other than EXT. */
#define LTT_CODE_SIZE(code)                                              \
	((code) == LTT_CODE_TRAP_ENTRY ? 24u : 4 * (((code) & 3u) + 1))

/* Second word of an LTT_CODE_EXT record. */
struct ltt_ext_header {
	__u8 event;   /* enum ltt_event_id */
	__u8 subtype;
	__u16 size;   /* whole record, both words included: >= 8, % 4 == 0 */
};

/* Narrowing limits of the compact codes. */
#define LTT_SCHED_PID_BITS 22   /* in, out: 0 <= pid < 2^22 (PID_MAX_LIMIT) */
#define LTT_SCHED_STATE_BITS 20 /* out_state < 2^20 */
#define LTT_TRAP_ERROR_BITS 24  /* error_code < 2^24; trap < 2^8 */
#define LTT_IRQ_NUMBER_BITS 24  /* irq < 2^24; flags < 2^8 */
#define LTT_PAGE_ORDER_MASK 0xfffull /* address is page aligned */

LTT_STATIC_ASSERT(sizeof(struct ltt_ext_header) == 4, "ext header");

#endif /* LTT_FORMAT_H */
