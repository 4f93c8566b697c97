/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ltt trace module, probe layer: where events come from. The backend
 * (one of two, built by Kbuild: ltt_fac.c, the patched kernel's trace
 * facility, or ltt_tp.c and ltt_tp_sys.c, the tracepoints of an
 * unmodified kernel), the probes of both backends' extra events
 * (ltt_extra.c: MOUNT and LOCK; ltt_map.c: MAP; ltt_stack.c: STACK), and
 * the backends' callback (ltt_probe.c). They build each event's details
 * and hand them to the event layer (ltt_event.h); the session layer
 * attaches and detaches them.
 */
#ifndef LTT_PROBE_H
#define LTT_PROBE_H

#include <linux/types.h>
#include <linux/jump_label.h>

#include "ltt_event.h"

struct pt_regs;
struct task_struct;

/*
 * ltt_probe.c: the callback of both backends. The facility calls it for
 * every event (ltt_fac.c registers it), the tracepoint probes for theirs.
 * It runs the hooks of the events other probes follow (MAP after a
 * system call, STACK before a schedchange, the flight recorder's exit
 * triggers), each behind a static key, then ltt_dispatch() inlined.
 */
void ltt_callback(u8 event, u8 subtype, const void *details, u16 size,
		  struct task_struct *task);

/*
 * The event source, one of two built by Kbuild: ltt_fac.c, the patched
 * kernel's trace facility (CONFIG_LTT), or ltt_tp.c, the tracepoints of an
 * unmodified kernel. Both hand every event to ltt_callback().
 *
 * ltt_backend_attach() starts delivering the events of @cfg->event_mask,
 * the union of the tracing sessions' masks, and with @policy applies
 * @cfg's syscall IP policy; called again while attached, it adds what the
 * new union needs without interrupting the events already delivered.
 * ltt_backend_trim() stops delivering what @mask no longer needs, without
 * waiting. ltt_backend_detach() stops everything and returns once no CPU
 * is inside ltt_callback() any more. All sleep and run under the sessions
 * lock. ltt_backend is the LTT_BACKEND_* value the TRACE_START record
 * carries.
 */
extern const u32 ltt_backend;
int ltt_backend_attach(const struct ltt_config *cfg, bool policy);
void ltt_backend_detach(void);
void ltt_backend_trim(u64 mask);

/* ltt_tp_sys.c: events the tracepoint backend derives from system calls */
void ltt_sys_derive_entry(struct pt_regs *regs, long nr);
void ltt_sys_derive_exit(struct pt_regs *regs, long ret);

/*
 * ltt_extra.c: MOUNT (from the system call exit tracepoint) and LOCK (the
 * lock contention tracepoints), for both backends. Like the backend's,
 * the probes follow the union of the tracing sessions' masks:
 * ltt_extra_attach() registers those @mask needs and are not yet
 * registered, ltt_extra_trim() removes those @mask no longer needs without
 * waiting, ltt_extra_detach() removes all and returns once no CPU runs one
 * of them. All sleep and run under the sessions lock. The probes hand
 * their events to ltt_log_extra().
 */
int ltt_extra_attach(u64 mask);
void ltt_extra_trim(u64 mask);
void ltt_extra_detach(void);
size_t ltt_user_name(char *dst, const char __user *src);

/* ltt_map.c: MAP records at the exit of mmap, mprotect and execve */
DECLARE_STATIC_KEY_FALSE(ltt_map_key);
void ltt_map_syscall_exit(void);
void ltt_map_select(u64 mask);

/* ltt_stack.c: STACK records of the tasks that block */
DECLARE_STATIC_KEY_FALSE(ltt_stack_key);
void ltt_stack_switch(const void *details, u16 size);
void ltt_stack_select(u64 mask);

#endif /* LTT_PROBE_H */
