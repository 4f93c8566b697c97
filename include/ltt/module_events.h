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

/*
 * MAP (25): a file mapped executable into the current task's process, so
 * that the user instruction pointers of its events (the system call
 * entries' ip) can be turned into binary!function+offset at analysis time.
 * The .proc snapshot lists the mappings that exist when tracing starts;
 * MAP records add those made during the trace. The subtype says what made
 * the mapping:
 */
enum ltt_map_sub {
	LTT_MAP_MMAP = 0,     /* mmap() with PROT_EXEC of a file, at its exit */
	LTT_MAP_MPROTECT = 1, /* mprotect() adding PROT_EXEC to file pages */
	LTT_MAP_EXEC = 2,     /* execve(): the executable and its interpreter */
};

#define LTT_MAP_PATH_MAX 992 /* bytes of `path`, with the NUL */

/*
 * One executable file mapping: [start, start + length) maps the file at
 * `path` from byte `offset` on. `path` is NUL-terminated and the record is
 * trimmed to its end (rounded up to the record alignment), as the
 * FILE_SYSTEM names are; a path longer than LTT_MAP_PATH_MAX - 1 bytes is
 * not recorded. A mapping of a deleted file carries the kernel's
 * " (deleted)" suffix.
 */
struct ltt_ev_map {
	__u64 start;
	__u64 length;
	__u64 offset;
	__u32 reserved0; /* zero */
	__u32 reserved1; /* zero */
	char path[LTT_MAP_PATH_MAX];
};
#define LTT_EV_MAP_FIXED 32 /* bytes before `path` */

LTT_STATIC_ASSERT(sizeof(struct ltt_ev_map) ==
			  LTT_EV_MAP_FIXED + LTT_MAP_PATH_MAX, "map");

#endif /* LTT_MODULE_EVENTS_H */
