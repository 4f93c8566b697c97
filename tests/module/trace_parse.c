// SPDX-License-Identifier: GPL-2.0
/* Strict block reader for the module tests; see trace_parse.h. */
#include "trace_parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int fail(struct tp_result *res, size_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (res->error[0])
		return -1;
	n = snprintf(res->error, sizeof(res->error), "offset %zu: ", off);
	va_start(ap, fmt);
	vsnprintf(res->error + n, sizeof(res->error) - n, fmt, ap);
	va_end(ap);
	return -1;
}

int tp_parse(const uint8_t *buf, size_t len, unsigned int ncpus,
	     uint64_t anchor, tp_record_fn fn, void *arg,
	     struct tp_result *res)
{
	uint32_t next_seq[LTT_MAX_CPUS] = { 0 };
	uint64_t last_tsc[LTT_MAX_CPUS] = { 0 };
	size_t off = 0;

	memset(res, 0, sizeof(*res));
	while (off < len) {
		const struct ltt_record_header *h = (const void *)(buf + off);
		const struct ltt_block_start *bs = (const void *)(h + 1);
		const struct ltt_block_end *be;
		uint64_t base, tsc, prev;
		uint32_t events = 0;
		size_t pos, end;
		unsigned int cpu;
		int32_t pid;

		if (len - off < 72)
			return fail(res, off, "truncated block");
		if (h->event != LTT_EV_BLOCK_START || h->delta != 0 ||
		    h->size != 48)
			return fail(res, off, "first record is not BLOCK_START");
		if (bs->magic != LTT_BLOCK_MAGIC)
			return fail(res, off, "bad magic %#x", bs->magic);
		if (bs->length < 72 || bs->length % 8 || bs->length > len - off)
			return fail(res, off, "bad length %u", bs->length);
		if (bs->cpu >= ncpus || bs->cpu >= LTT_MAX_CPUS)
			return fail(res, off, "bad cpu %u", bs->cpu);
		if (bs->reserved || (bs->flags & ~LTT_BLOCK_F_FINAL))
			return fail(res, off, "reserved bits set");
		cpu = bs->cpu;
		if (res->final_blocks[cpu])
			return fail(res, off, "cpu %u: block after FINAL", cpu);
		if (bs->sequence != next_seq[cpu])
			return fail(res, off, "cpu %u: sequence %u, want %u",
				    cpu, bs->sequence, next_seq[cpu]);
		next_seq[cpu]++;
		res->nblocks[cpu]++;
		if (bs->flags & LTT_BLOCK_F_FINAL)
			res->final_blocks[cpu]++;
		if (bs->start_tsc < anchor || bs->start_tsc < last_tsc[cpu])
			return fail(res, off, "cpu %u: start_tsc goes back", cpu);
		res->blocks++;
		res->lost[cpu] += bs->lost;
		res->lost_total += bs->lost;
		base = prev = bs->start_tsc;
		pid = bs->pid;
		end = off + bs->length;
		pos = off;
		be = NULL;
		while (pos < end) {
			const struct ltt_record_header *r = (const void *)(buf + pos);
			const void *d = r + 1;
			struct tp_record rec;

			if (end - pos < 8)
				return fail(res, pos, "record header cut");
			if (r->size < 8 || r->size % 8 || r->size > end - pos)
				return fail(res, pos, "bad record size %u",
					    r->size);
			if (be)
				return fail(res, pos, "record after BLOCK_END");
			events++;
			res->records++;
			tsc = base + r->delta;
			if (r->event == LTT_EV_HEARTBEAT) {
				const struct ltt_ev_heartbeat *hb = d;

				if (r->size != 16 || (uint32_t)(hb->tsc - base) !=
							     r->delta)
					return fail(res, pos, "bad heartbeat");
				tsc = base = hb->tsc;
				res->heartbeats[cpu]++;
			}
			if (tsc < prev)
				return fail(res, pos, "time goes back");
			prev = tsc;
			if (pos == off + 48 && bs->lost) {
				const struct ltt_ev_lost *l = d;

				if (r->event != LTT_EV_LOST || r->size != 24 ||
				    l->count != bs->lost)
					return fail(res, pos, "LOST record missing");
				if (!l->first_tsc || l->first_tsc > bs->start_tsc)
					return fail(res, pos, "LOST first_tsc %llu",
						    (unsigned long long)l->first_tsc);
				res->lost_records++;
			} else if (pos != off && r->event == LTT_EV_LOST) {
				return fail(res, pos, "misplaced LOST");
			}
			if (pos != off && r->event == LTT_EV_BLOCK_START)
				return fail(res, pos, "BLOCK_START inside block");
			if (r->event == LTT_EV_TRACE_START) {
				if (bs->sequence != 0 || pos != off + 48 ||
				    res->trace_start_seen)
					return fail(res, pos, "misplaced TRACE_START");
				res->trace_start_seen = 1;
			}
			if (r->event == LTT_EV_BLOCK_END) {
				be = d;
				if (r->size != 24)
					return fail(res, pos, "bad BLOCK_END");
			}
			if (r->event == LTT_EV_SCHEDCHANGE && r->size >= 16)
				pid = ((const struct ltt_ev_schedchange *)d)->in;
			rec.cpu = cpu;
			rec.tsc = tsc;
			rec.pid = pid;
			rec.hdr = r;
			rec.details = d;
			if (r->event == LTT_EV_SCHEDCHANGE && r->size >= 16)
				rec.pid = ((const struct ltt_ev_schedchange *)d)->out;
			if (fn && pos != off && r->event != LTT_EV_BLOCK_END &&
			    r->event != LTT_EV_HEARTBEAT && r->event != LTT_EV_LOST)
				fn(&rec, arg);
			pos += r->size;
		}
		if (!be)
			return fail(res, off, "no BLOCK_END");
		if (be->events != events)
			return fail(res, off, "events %u, counted %u", be->events,
				    events);
		if (be->end_tsc < prev)
			return fail(res, off, "end_tsc before last record");
		if (be->reserved)
			return fail(res, off, "BLOCK_END reserved set");
		last_tsc[cpu] = be->end_tsc;
		off = end;
	}
	return 0;
}
