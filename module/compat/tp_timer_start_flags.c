// SPDX-License-Identifier: GPL-2.0
/*
 * LTT_HAVE_TP_TIMER_START_FLAGS: timer:timer_start passes (timer, expires,
 * flags), as 6.1's does; later kernels (6.12 and on) pass (timer,
 * bucket_expiry), and the expiry is read from the timer itself.
 */
#include <linux/timer.h>
#include <trace/events/timer.h>

static void probe(void *data, struct timer_list *timer, unsigned long expires,
		  unsigned int flags)
{
}

static void __maybe_unused check(void)
{
	check_trace_callback_type_timer_start(probe);
}
