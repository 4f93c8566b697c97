/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * Events the trace module records itself, beyond those the kernel's trace
 * facility delivers (events.h, which the kernel patch carries byte for
 * byte and so stays as the facility defines it). They share the record
 * framing, the event and details masks (bits LTT_EV_MAX and up of the
 * 64-bit masks) and the details rules of events.h; a kernel never sees
 * them. The numbers continue events.h's and are ABI: never renumber, only
 * append before LTT_EV_COUNT.
 *
 * A reader that does not know an id below LTT_EV_COUNT shows the event as
 * "Unknown" with its bytes, as for any id of a newer format.
 */
#ifndef LTT_MODULE_EVENTS_H
#define LTT_MODULE_EVENTS_H

#include "events.h"

enum ltt_module_event_id {
	LTT_EV_VARS = 22,  /* kernel-state variables that changed */
	LTT_EV_MOUNT = 23, /* mount and umount */
	LTT_EV_LOCK = 24,  /* lock contention */
	LTT_EV_MAP = 25,   /* an executable file mapped into a process */
	/* 26..31: reserved for application events */
	LTT_EV_COUNT = 32  /* ids of both headers are below this */
};

#endif /* LTT_MODULE_EVENTS_H */
