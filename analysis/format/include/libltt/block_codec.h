/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C interface to libltt's block codec (block_codec.hpp), for C programs that
 * check what /dev/tracer produces (the module's in-guest test program).
 *
 * ltt_blocks_check() checks a run of blocks of format version 1 or 2 as the
 * module must write them: every rule of docs/trace-format.md section 2 that
 * TraceReader applies (frames and records, through the codec), and the
 * producer's rules a reader need not rely on: sequences from 0 without gaps,
 * nothing after a CPU's FINAL block, time that never goes back (from the
 * anchor on), heartbeats whose delta matches their time, a LOST record
 * exactly where the block's lost count says, TRACE_START only at the start
 * of a CPU's first block, reserved fields zero, and in version 2 every
 * record written with the code the producer's choice rules pick (a compact
 * code whenever one fits). Records are handed out decoded: a version 2
 * compact record as the version 1 record of the same event. Built into
 * static programs with g++ (C++ runtime).
 */
#ifndef LTT_BLOCK_CODEC_H
#define LTT_BLOCK_CODEC_H

#include <ltt/abi.h>
#include <ltt/format.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ltt_checked_record {
	unsigned int cpu;
	uint64_t tsc;
	int32_t pid;          /* task current on the CPU when it was written */
	uint8_t event;        /* enum ltt_event_id, expanded from the code */
	uint8_t subtype;
	uint16_t size;        /* 8 + expanded details bytes, as a v1 record */
	uint16_t stored;      /* bytes the record takes in the block */
	uint8_t code;         /* v2: enum ltt_code; v1: 0 */
	const void *details;  /* size - 8 bytes, expanded */
	uint32_t block_length; /* of the block that holds the record */
};

typedef void (*ltt_record_fn)(const struct ltt_checked_record *r, void *arg);

struct ltt_blocks_result {
	uint64_t blocks;
	uint64_t records; /* every record, structure records included */
	uint64_t lost[LTT_MAX_CPUS];
	uint64_t lost_total;
	uint64_t lost_records; /* LOST records seen */
	uint64_t heartbeats[LTT_MAX_CPUS];
	uint32_t final_blocks[LTT_MAX_CPUS];
	uint32_t nblocks[LTT_MAX_CPUS];
	int trace_start_seen;
	uint64_t bytes_by_code[32]; /* v2: bytes stored per code; v1: unused */
	char error[256]; /* "offset N: what", the first violation; empty if none */
};

/* Hand BLOCK_START, LOST, HEARTBEAT and BLOCK_END records to @fn too. */
#define LTT_CHECK_ALL_RECORDS 0x1u

/*
 * Check @len bytes of concatenated blocks of format @version (LTT_FORMAT_V1
 * or LTT_FORMAT_V2). Returns 0 when every block is valid, -1 otherwise
 * (res->error says where and why). @ncpus: every block's cpu is below it;
 * @anchor: no record is older. @fn (may be NULL) sees every event record of
 * the valid blocks in file order.
 */
int ltt_blocks_check(const uint8_t *buf, size_t len, unsigned int version,
		     unsigned int ncpus, uint64_t anchor, unsigned int flags,
		     ltt_record_fn fn, void *arg, struct ltt_blocks_result *res);

/*
 * Bytes of the leading whole blocks of @buf (format @version): blocks
 * follow each other by their declared length while it stays inside @len
 * (the rest is a cut tail). 0 for a version other than 1 and 2.
 */
size_t ltt_blocks_whole(const uint8_t *buf, size_t len, unsigned int version);

#ifdef __cplusplus
}
#endif

#endif /* LTT_BLOCK_CODEC_H */
