/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ltt trace module: every difference between the kernels the module
 * builds for (Debian's 6.1, 6.12 and 6.12-rt, and the newest 7.x), in one
 * place.
 *
 * What a kernel offers is decided by what its headers declare, never by
 * its version number: a stable update may add a tracepoint (6.1.192 got
 * the tasklet ones), and a distribution may backport an API. The tests
 * come from two places:
 *
 *  - compile probes, module/compat/NAME.c, which Kbuild compiles against
 *    the kernel's headers before the module (LTT_HAVE_NAME in the
 *    generated ltt_compat_config.h; each file says what it detects);
 *  - a macro the kernel defines, tested here with #ifdef.
 * A header that moved is a probe as well (sparse has no __has_include).
 *
 * The differences, and how each is met:
 *
 *  - <asm/unaligned.h> became <linux/unaligned.h> (6.12): the one that
 *    exists is included, below (LTT_HAVE_LINUX_UNALIGNED_H).
 *  - The page fault tracepoints' header moved from <asm/trace/exceptions.h>
 *    to <trace/events/exceptions.h> (7.x): ltt_tp.c includes the one that
 *    exists (LTT_HAVE_TRACE_EVENTS_EXCEPTIONS_H).
 *  - no_llseek is gone (6.12): not used. /dev/tracer is opened with
 *    stream_open(), which clears FMODE_LSEEK, so every kernel answers
 *    lseek() with -ESPIPE without a .llseek method.
 *  - files_lookup_fd_rcu() is gone (6.12): files_lookup_fd_raw(), which
 *    every kernel has, is called under rcu_read_lock() as the former was.
 *  - WEXITED and P_PGID are no longer reached through the headers the
 *    tracepoint backend includes (6.12): it includes <uapi/linux/wait.h>,
 *    where every kernel defines them.
 *  - timer:timer_start lost its expires and flags arguments
 *    (LTT_HAVE_TP_TIMER_START_FLAGS): ltt_tp.c registers the probe that
 *    matches, and reads the expiry from the timer when it is not passed.
 *  - timer:hrtimer_expire_entry passes the time by value, no longer by
 *    pointer (LTT_HAVE_TP_HRTIMER_EXPIRE_NOW_PTR), and
 *    sched:sched_process_exit gained a group_dead argument
 *    (LTT_HAVE_TP_PROCESS_EXIT_GROUP_DEAD): the probe of the prototype the
 *    headers declare is built; neither uses the argument.
 *  - irq:tasklet_entry/exit exist on some kernels only
 *    (LTT_HAVE_TP_TASKLET): TASKLET records only where they exist.
 *  - hrtimer_init() gave way to hrtimer_setup() (LTT_HAVE_HRTIMER_SETUP):
 *    ltt_hrtimer_setup() below.
 *  - is_endbr() changed its argument and is no longer exported: not used.
 *    ltt_tp.c compares the instruction before a kprobe's address with
 *    ENDBR64 (LTT_ENDBR64) itself.
 *  - The syscall tracepoints became faultable (DECLARE_TRACE_SYSCALL
 *    defined): their probes run with preemption enabled, under RCU tasks
 *    trace. The module's probes on sys_enter/sys_exit disable preemption
 *    themselves there (ltt_sys_probe_begin()/end() below), as every writer
 *    must, and cost nothing more where the tracepoint already does it.
 *  - A task's dumpability moved from its mm's flags (get_dumpable()) to
 *    task->exec_state (LTT_HAVE_TASK_EXEC_STATE), with
 *    task_exec_state_get_dumpable() not exported: ltt_current_dumpable()
 *    and ltt_task_dumpable() below read whichever holds it.
 *  - PREEMPT_RT (CONFIG_PREEMPT_RT): spinlock_t and seqlock readers may
 *    sleep. The event path takes no lock but RCU read sections, disables
 *    interrupts for the per-CPU writer (local_irq_save(), real on RT as
 *    everywhere), and its timers are hard (HRTIMER_MODE_*_HARD: they
 *    expire in hard interrupt context on RT too); the notification
 *    irq_work is a normal one, which RT runs in a thread, where
 *    kill_fasync()'s lock may sleep. MAP is the exception: d_path() may
 *    take the rename and mount seqlocks' spinlocks, which sleep on RT, and
 *    the syscall exit it runs at is atomic, so RT kernels do not offer MAP
 *    (LTT_MOD_MASK leaves it out: selecting it records nothing).
 *
 * A LINUX_VERSION_CODE test belongs here only where no declaration can
 * decide, with the reason beside it. There is none today.
 */
#ifndef LTT_COMPAT_H
#define LTT_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include "ltt_compat_config.h"
#ifdef LTT_HAVE_TASK_EXEC_STATE
#include <linux/sched/exec_state.h>
#else
#include <linux/mm_types.h>
#endif

/* Headers that moved are probed too (sparse has no __has_include). */
#ifdef LTT_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* The ENDBR64 instruction, f3 0f 1e fa, as a little-endian u32. */
#define LTT_ENDBR64 0xfa1e0ff3u

/* Set up @t to call @fn, in hard interrupt context on PREEMPT_RT too. */
static inline void ltt_hrtimer_setup(struct hrtimer *t,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     enum hrtimer_mode mode)
{
#ifdef LTT_HAVE_HRTIMER_SETUP
	hrtimer_setup(t, fn, CLOCK_MONOTONIC, mode);
#else
	hrtimer_init(t, CLOCK_MONOTONIC, mode);
	t->function = fn;
#endif
}

/*
 * Is current dumpable as its owner's (SUID_DUMP_USER, ptrace by uid
 * match)? Preemption disabled (the event path). A task without the state
 * (past exit_mm(), on its way out) answers yes: its credentials decide.
 */
static __always_inline bool ltt_current_dumpable(void)
{
#ifdef LTT_HAVE_TASK_EXEC_STATE
	const struct task_exec_state *es;

	es = rcu_dereference_sched(current->exec_state);
	return !es || es->dumpable == TASK_DUMPABLE_OWNER;
#else
	const struct mm_struct *mm = current->mm;

	return !mm || __get_dumpable(mm->flags) == SUID_DUMP_USER;
#endif
}

/*
 * The same for @t, a task other than current (the incoming task of a
 * schedchange, a woken task, a signal's target, a fork's child), as
 * ptrace_may_access() asks it, but without its task_lock(): the hooks
 * run under the runqueue or pi lock, inside which task_lock() does not
 * nest (and it sleeps on PREEMPT_RT). Preemption disabled.
 *
 * task->exec_state is freed after a grace period, which the caller's
 * preemption-disabled section holds off. An mm is freed at once: t->mm
 * changes only in @t's own context (exec, exit) and holds a reference
 * while set, so it is valid while @t does not run (a schedchange's
 * incoming task, a child not yet woken, a sleeping task), but a task
 * running on another CPU (a signal's target, a task woken before it
 * reached schedule()) may drop it meanwhile. Its flags are therefore
 * read with get_kernel_nofault(): an mm freed under the read gives one
 * stale answer, never a fault, and a read that fails answers no.
 */
static __always_inline bool ltt_task_dumpable(struct task_struct *t)
{
#ifdef LTT_HAVE_TASK_EXEC_STATE
	const struct task_exec_state *es;

	es = rcu_dereference_sched(t->exec_state);
	return !es || es->dumpable == TASK_DUMPABLE_OWNER;
#else
	const struct mm_struct *mm = READ_ONCE(t->mm);
	unsigned long flags;

	if (!mm)
		return true;
	if (get_kernel_nofault(flags, &mm->flags))
		return false;
	return __get_dumpable(flags) == SUID_DUMP_USER;
#endif
}

/*
 * Around the body of a probe on sys_enter or sys_exit: where those
 * tracepoints are faultable, their probes run preemptible, and the event
 * path needs preemption off (the sessions are RCU-sched protected and the
 * buffers per CPU).
 */
#ifdef DECLARE_TRACE_SYSCALL
#define LTT_SYSCALL_TP_FAULTABLE 1
static __always_inline void ltt_sys_probe_begin(void)
{
	preempt_disable_notrace();
}

static __always_inline void ltt_sys_probe_end(void)
{
	preempt_enable_notrace();
}
#else
static __always_inline void ltt_sys_probe_begin(void)
{
}

static __always_inline void ltt_sys_probe_end(void)
{
}
#endif

#endif /* LTT_COMPAT_H */
