// SPDX-License-Identifier: GPL-2.0
/*
 * LTT_HAVE_TP_HRTIMER_EXPIRE_NOW_PTR: timer:hrtimer_expire_entry passes
 * the time as a pointer, (hrtimer, ktime_t *now), as 6.1's and 6.12's do;
 * later kernels pass the value.
 */
#include <linux/hrtimer.h>
#include <trace/events/timer.h>

static void probe(void *data, struct hrtimer *t, ktime_t *now)
{
}

static void __maybe_unused check(void)
{
	check_trace_callback_type_hrtimer_expire_entry(probe);
}
