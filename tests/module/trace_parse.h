/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A strict reader of the blocks /dev/tracer produces, for the module tests:
 * it checks every rule of docs/trace-format.md section 2.3 and hands each
 * record, with its CPU, full timestamp and current PID, to a callback.
 */
#ifndef LTT_TRACE_PARSE_H
#define LTT_TRACE_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <ltt/abi.h>

struct tp_record {
	unsigned int cpu;
	uint64_t tsc;
	int32_t pid; /* task current on the CPU when the record was written */
	const struct ltt_record_header *hdr;
	const void *details; /* hdr->size - 8 bytes */
};

typedef void (*tp_record_fn)(const struct tp_record *r, void *arg);

struct tp_result {
	uint64_t blocks;
	uint64_t records;       /* every record, structure records included */
	uint64_t lost[LTT_MAX_CPUS];
	uint64_t lost_total;
	uint64_t lost_records;  /* LOST records seen */
	uint64_t heartbeats[LTT_MAX_CPUS];
	uint32_t final_blocks[LTT_MAX_CPUS];
	uint32_t nblocks[LTT_MAX_CPUS];
	int trace_start_seen;
	char error[256];        /* first violation, empty if none */
};

/*
 * Parse @len bytes of concatenated blocks. Returns 0 when every block is
 * valid, -1 otherwise (res->error says where and why).
 * @anchor: no record may be older; @ncpus: blocks' cpu must be below it.
 */
int tp_parse(const uint8_t *buf, size_t len, unsigned int ncpus,
	     uint64_t anchor, tp_record_fn fn, void *arg,
	     struct tp_result *res);

#endif
