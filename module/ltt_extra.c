// SPDX-License-Identifier: GPL-2.0
/*
 * ltt trace module: Ktrace's events that Figure 2 of the LTT paper lacks,
 * recorded the same way with either backend (the patched kernel's facility
 * or an unmodified kernel's tracepoints), since both kernels have the
 * tracepoints used here:
 *
 *  - MOUNT: mount(2) and umount2(2) with their paths and result, derived
 *    at the system call's exit from a probe on the sys_exit tracepoint
 *    (the facility has no hook for them, and at the exit the result is
 *    known). The paths are copied from the caller's memory without
 *    faulting (the call has just read them, so they are resident); one
 *    that cannot be copied is recorded empty.
 *  - LOCK: a task starts and stops waiting for a contended kernel lock,
 *    from lock:contention_begin/end. Opt-in (not in LTT_EV_MASK_ALL): a
 *    busy system contends thousands of times a second.
 *
 * A probe is registered while some tracing session's event mask selects
 * its event, as ltt_tp.c does with its own: a START registers what the
 * new union of the masks needs, a STOP removes what it no longer needs;
 * the tracepoints are found by name with for_each_kernel_tracepoint().
 * The sys_exit probe is registered with a priority above the default, so
 * it runs before the tracepoint backend's own sys_exit probe, whichever
 * was registered first: a MOUNT record precedes its SYSCALL_EXIT.
 *
 * The probes run with preemption disabled in any context the tracepoints
 * sit in (a spinlock's slow path, NMI included, where the writer counts
 * the event as lost), and only fill a structure on the stack and hand it
 * to ltt_log_extra(): they never sleep, fault, allocate or wake anything
 * up. Each tracing session applies its own masks and task filters, and a
 * restricted session its owner rules (the event is current's: a MOUNT of
 * another user's task or a LOCK in an interrupt never reaches it, and a
 * LOCK's address is zeroed); no VARS record follows their events.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/compat.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

/* The tracepoints' declarations: the probes are checked against them. */
#include <trace/events/lock.h>
#include <trace/events/syscalls.h>

#include "ltt_probe.h"

/**
 * ltt_user_name() - copy a user string without faulting
 * @dst: LTT_NAME_MAX bytes
 * @src: the user string
 *
 * Copy the NUL-terminated user string at @src into @dst (LTT_NAME_MAX
 * bytes), page by page so that a string ending before an unmapped page
 * is still read. A longer name is cut, as the patched kernel cuts it.
 * Used by every probe that records a path.
 *
 * Return: its length; 0 (an empty name) when it cannot be read without
 * faulting.
 */
size_t notrace ltt_user_name(char *dst, const char __user *src)
{
	unsigned long addr = (unsigned long)src;
	size_t len = 0;

	while (len < LTT_NAME_MAX - 1) {
		size_t chunk = min_t(size_t, LTT_NAME_MAX - 1 - len,
				     PAGE_SIZE - offset_in_page(addr + len));
		char *nul;

		if (copy_from_user_nofault(dst + len, src + len, chunk))
			break;
		nul = memchr(dst + len, 0, chunk);
		if (nul)
			return nul - dst;
		len += chunk;
	}
	dst[len] = 0;
	return len;
}
NOKPROBE_SYMBOL(ltt_user_name);

static void notrace ltt_extra_sys_exit(void *data, struct pt_regs *regs,
				       long ret)
{
	struct ltt_ev_mount ev;
	unsigned long args[6];
	size_t len;
	long nr;
	u8 sub;

	if (in_compat_syscall())
		return;
	nr = syscall_get_nr(current, regs);
	if (nr == __NR_mount)
		sub = LTT_MOUNT_MOUNT;
	else if (nr == __NR_umount2)
		sub = LTT_MOUNT_UMOUNT;
	else
		return;
	ltt_sys_probe_begin();
	syscall_get_arguments(current, regs, args);
	ev.ret = ret;
	/* mount(source, target, type, flags, data); umount2(target, flags) */
	ev.flags = sub == LTT_MOUNT_MOUNT ? args[3] : args[1];
	len = ltt_user_name(ev.names, (const char __user *)args[sub ? 0 : 1]);
	if (sub == LTT_MOUNT_MOUNT)
		len += 1 + ltt_user_name(ev.names + len + 1,
					 (const char __user *)args[0]);
	len++;
	ltt_log_extra(LTT_EV_MOUNT, sub, &ev, LTT_EV_MOUNT_FIXED + len);
	ltt_sys_probe_end();
}
NOKPROBE_SYMBOL(ltt_extra_sys_exit);

static void notrace ltt_extra_contention_begin(void *data, void *lock,
					       unsigned int flags)
{
	struct ltt_ev_lock ev = { .lock = (unsigned long)lock, .flags = flags };

	ltt_log_extra(LTT_EV_LOCK, LTT_LOCK_CONTENDED, &ev, sizeof(ev));
}
NOKPROBE_SYMBOL(ltt_extra_contention_begin);

static void notrace ltt_extra_contention_end(void *data, void *lock, int ret)
{
	struct ltt_ev_lock ev = { .lock = (unsigned long)lock, .ret = ret };

	ltt_log_extra(LTT_EV_LOCK, LTT_LOCK_ACQUIRED, &ev, sizeof(ev));
}
NOKPROBE_SYMBOL(ltt_extra_contention_end);

struct ltt_extra_tp {
	const char *name;
	void *probe;
	u64 events;
	int prio;
	struct tracepoint *tp;
	bool on;
};

/* The sizeof() only makes the build fail when @fn does not match. */
#define LTT_EXTRA_TP(tpname, fn, ev, pr)                           \
	{                                                          \
		.name = #tpname, .probe = fn, .prio = pr,          \
		.events = LTT_EV_BIT(ev) + 0 * sizeof((            \
			check_trace_callback_type_##tpname(fn), 0)) \
	}

static struct ltt_extra_tp ltt_extra_tps[] = {
	LTT_EXTRA_TP(sys_exit, ltt_extra_sys_exit, LTT_EV_MOUNT,
		     TRACEPOINT_DEFAULT_PRIO + 1),
	LTT_EXTRA_TP(contention_begin, ltt_extra_contention_begin,
		     LTT_EV_LOCK, TRACEPOINT_DEFAULT_PRIO),
	LTT_EXTRA_TP(contention_end, ltt_extra_contention_end, LTT_EV_LOCK,
		     TRACEPOINT_DEFAULT_PRIO),
};

static bool ltt_extra_found;
/* A probe was removed since the last wait for the CPUs running them. */
static bool ltt_extra_unsynced;

static void ltt_extra_find(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ltt_extra_tps); i++)
		if (!ltt_extra_tps[i].tp &&
		    !strcmp(tp->name, ltt_extra_tps[i].name))
			ltt_extra_tps[i].tp = tp;
}

/* Unregister @t's probe if registered, without waiting. */
static void ltt_extra_remove(struct ltt_extra_tp *t)
{
	if (!t->on)
		return;
	WARN_ON_ONCE(tracepoint_probe_unregister(t->tp, t->probe, NULL));
	t->on = false;
	ltt_extra_unsynced = true;
}

/**
 * ltt_extra_attach() - register the probes @mask needs that are not yet
 * registered
 * @mask: the union of the tracing sessions' event masks, the starting
 *        session's included
 *
 * Return: 0, -ENOENT when the kernel lacks a tracepoint a selected event
 * needs, or tracepoint_probe_register_prio()'s error. On an error the
 * probes registered before the call stay, the others are removed.
 */
int ltt_extra_attach(u64 mask)
{
	bool was[ARRAY_SIZE(ltt_extra_tps)];
	unsigned int i;
	int ret;

	/* The kernel's own tracepoints never go away: look them up once. */
	if (!ltt_extra_found) {
		for_each_kernel_tracepoint(ltt_extra_find, NULL);
		ltt_extra_found = true;
	}
	for (i = 0; i < ARRAY_SIZE(ltt_extra_tps); i++)
		was[i] = ltt_extra_tps[i].on;
	for (i = 0; i < ARRAY_SIZE(ltt_extra_tps); i++) {
		struct ltt_extra_tp *t = &ltt_extra_tps[i];

		if (t->on || !(mask & t->events))
			continue;
		ret = t->tp ? tracepoint_probe_register_prio(t->tp, t->probe,
							     NULL, t->prio) :
			      -ENOENT;
		if (ret) {
			pr_warn("cannot register a probe on %s (%d)\n", t->name,
				ret);
			for (i = 0; i < ARRAY_SIZE(ltt_extra_tps); i++)
				if (!was[i])
					ltt_extra_remove(&ltt_extra_tps[i]);
			return ret;
		}
		t->on = true;
	}
	return 0;
}

/**
 * ltt_extra_trim() - remove the probes @mask no longer needs
 * @mask: the union of the tracing sessions' event masks
 *
 * Does not wait for CPUs still running them: the caller's grace period
 * covers the sessions, ltt_extra_detach() the module's code.
 */
void ltt_extra_trim(u64 mask)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ltt_extra_tps); i++)
		if (!(mask & ltt_extra_tps[i].events))
			ltt_extra_remove(&ltt_extra_tps[i]);
}

/**
 * ltt_extra_detach() - remove every probe
 *
 * Returns once no CPU runs one of them any more, including those an
 * earlier ltt_extra_trim() removed.
 */
void ltt_extra_detach(void)
{
	ltt_extra_trim(0);
	if (ltt_extra_unsynced) {
		tracepoint_synchronize_unregister();
		ltt_extra_unsynced = false;
	}
}
