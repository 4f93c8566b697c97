/* SPDX-License-Identifier: MIT */
/*
 * The LTTng-UST 2.13 tracepoint of user-bench (make bench-user): the same
 * three fields as its ltt event type "bench" (seq:i64 tag:str ratio:f64).
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ltt_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./user-bench-tp.h"

#if !defined(USER_BENCH_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define USER_BENCH_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(ltt_bench, event,
	LTTNG_UST_TP_ARGS(int64_t, seq, const char *, tag, double, ratio),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int64_t, seq, seq)
		lttng_ust_field_string(tag, tag)
		lttng_ust_field_float(double, ratio, ratio)
	)
)

#endif /* USER_BENCH_TP_H */

#include <lttng/tracepoint-event.h>
