// SPDX-License-Identifier: GPL-2.0
/*
 * LTT_HAVE_HRTIMER_SETUP: hrtimer_setup() sets a timer up with its
 * function (6.13); hrtimer_init() went away after it.
 */
#include <linux/hrtimer.h>

static enum hrtimer_restart fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

static void __maybe_unused check(struct hrtimer *t)
{
	hrtimer_setup(t, fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
}
