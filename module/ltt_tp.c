// SPDX-License-Identifier: GPL-2.0
/*
 * ltt trace module: the event source of an unmodified kernel, its
 * tracepoints.
 *
 * A kernel without the ltt patches (no CONFIG_LTT) still has tracepoints
 * at most of the places the patches hook. At START this file finds them by
 * name (for_each_kernel_tracepoint()) and registers a probe on each one an
 * event of the event mask needs; STOP unregisters them and waits until no
 * CPU runs a probe (tracepoint_synchronize_unregister()). So a loaded
 * module with no trace running costs nothing: with no probe a tracepoint's
 * static key is off, and the syscall tracepoints' per-thread work flag is
 * clear, exactly as with no module.
 *
 * Every probe turns its tracepoint into the record the patched kernel's
 * hook writes (same event, subtype and detail structure, include/ltt/
 * events.h) and hands it to ltt_callback(), which masks, filters and
 * stores it like an event of the facility. The table of
 * docs/kernel-facility.md says where each event comes from here and what
 * this backend cannot record.
 *
 * Probes run with preemption disabled, in any context the tracepoint sits
 * in (hardirq, under the runqueue lock, NMI for page faults): they only
 * fill a structure on the stack and never sleep, fault, allocate or wake
 * anything up. They are notrace and NOKPROBE, as the rest of the event
 * path. The probes' prototypes are checked against the kernel headers'
 * TP_PROTO at build time (check_trace_callback_type_*()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/binfmts.h>
#include <linux/compat.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <uapi/linux/wait.h>
#include <asm/irq_regs.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "ltt_compat.h"

/* The tracepoints' declarations: the probes are checked against them. */
#include <trace/events/irq.h>
#include <trace/events/kmem.h>
#include <trace/events/net.h>
#include <trace/events/sched.h>
#include <trace/events/signal.h>
#include <trace/events/syscalls.h>
#include <trace/events/timer.h>
#ifdef LTT_HAVE_TRACE_EVENTS_EXCEPTIONS_H
#include <trace/events/exceptions.h>
#else
#include <asm/trace/exceptions.h>
#endif
#include <asm/trace/irq_vectors.h>

#include "ltt_probe.h"

const u32 ltt_backend = LTT_BACKEND_TRACEPOINTS;

/* The syscall IP policy of the trace (paper section 3.1), fixed at START. */
static unsigned int ltt_ip_depth __read_mostly;
static unsigned long ltt_ip_lower __read_mostly;
static unsigned long ltt_ip_upper __read_mostly;

/* A user stack frame of code built with frame pointers. */
struct ltt_user_frame {
	unsigned long next_fp;
	unsigned long ret_ip;
};

/*
 * The user IP the syscall entry records, as the facility chooses it: the
 * syscall instruction's, the one ltt_ip_depth frames up the user stack,
 * or the first one on the walk inside [lower, upper). Frames are read
 * with copy_from_user_nofault(): a bad or paged-out frame ends the walk.
 */
static unsigned long notrace ltt_syscall_ip(struct pt_regs *regs)
{
	unsigned int depth = READ_ONCE(ltt_ip_depth);
	unsigned long lower = READ_ONCE(ltt_ip_lower);
	unsigned long upper = READ_ONCE(ltt_ip_upper);
	unsigned long ip = instruction_pointer(regs);
	unsigned long fp = regs->bp, last = ip;
	bool range = lower < upper;
	struct ltt_user_frame frame;
	unsigned int i;

	if (likely(!depth && !range) || !user_64bit_mode(regs))
		return ip;
	if (range) {
		if (ip >= lower && ip < upper)
			return ip;
		depth = LTT_SYSCALL_DEPTH_MAX;
	}
	for (i = 0; i < depth; i++) {
		if (!fp || !IS_ALIGNED(fp, sizeof(long)))
			break;
		if (copy_from_user_nofault(&frame, (const void __user *)fp,
					   sizeof(frame)))
			break;
		if (!frame.ret_ip)
			break;
		if (range && frame.ret_ip >= lower && frame.ret_ip < upper)
			return frame.ret_ip;
		last = frame.ret_ip;
		if (frame.next_fp <= fp)
			break;
		fp = frame.next_fp;
	}
	return range ? ip : last;
}
NOKPROBE_SYMBOL(ltt_syscall_ip);

/* ------------------------------------------------------------ core events */

/* Events whose records the syscall probes derive (ltt_tp_sys.c). */
#define LTT_TP_SYS_DERIVED                                              \
	(LTT_EV_BIT(LTT_EV_FILE_SYSTEM) | LTT_EV_BIT(LTT_EV_SOCKET) | \
	 LTT_EV_BIT(LTT_EV_IPC))

static void notrace ltt_tp_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct ltt_ev_syscall_entry ev;

	ltt_sys_probe_begin();
	ev = (struct ltt_ev_syscall_entry){
		.ip = ltt_syscall_ip(regs),
		.nr = (u32)id,
	};
	ltt_callback(LTT_EV_SYSCALL_ENTRY, 0, &ev, sizeof(ev), NULL);
	if (READ_ONCE(ltt_live_mask) & LTT_TP_SYS_DERIVED)
		ltt_sys_derive_entry(regs, id);
	ltt_sys_probe_end();
}
NOKPROBE_SYMBOL(ltt_tp_sys_enter);

static void notrace ltt_tp_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct ltt_ev_syscall_exit ev = { .ret = ret };

	ltt_sys_probe_begin();
	if (READ_ONCE(ltt_live_mask) & LTT_TP_SYS_DERIVED)
		ltt_sys_derive_exit(regs, ret);
	ltt_callback(LTT_EV_SYSCALL_EXIT, 0, &ev, sizeof(ev), NULL);
	ltt_sys_probe_end();
}
NOKPROBE_SYMBOL(ltt_tp_sys_exit);

/*
 * A page fault: 6.1 has a tracepoint as the fault is taken, none when its
 * handling ends, so TRAP_EXIT follows at once (the time spent handling
 * the fault is not measured). The other traps have no tracepoint.
 */
static void notrace ltt_tp_page_fault(void *data, unsigned long address,
				      struct pt_regs *regs,
				      unsigned long error_code)
{
	struct ltt_ev_trap_entry ev = {
		.ip = instruction_pointer(regs),
		.address = address,
		.trap = LTT_TRAP_PAGE_FAULT,
		.error_code = (u32)error_code,
	};

	ltt_callback(LTT_EV_TRAP_ENTRY, 0, &ev, sizeof(ev), NULL);
	ltt_callback(LTT_EV_TRAP_EXIT, 0, NULL, 0, NULL);
}
NOKPROBE_SYMBOL(ltt_tp_page_fault);

static void notrace ltt_irq_entry(unsigned int irq, u32 flags,
				  struct pt_regs *regs)
{
	struct ltt_ev_irq_entry ev = { .irq = irq, .flags = flags };

	if (regs && !user_mode(regs))
		ev.flags |= LTT_IRQ_IN_KERNEL;
	ltt_callback(LTT_EV_IRQ_ENTRY, 0, &ev, sizeof(ev), NULL);
}
NOKPROBE_SYMBOL(ltt_irq_entry);

/*
 * A device interrupt: once per handler (a shared line that runs two
 * handlers gives two pairs), where the patched kernel records the
 * interrupt once. common_interrupt() has set the irq regs.
 */
static void notrace ltt_tp_irq_entry(void *data, int irq,
				     struct irqaction *action)
{
	ltt_irq_entry(irq, 0, get_irq_regs());
}
NOKPROBE_SYMBOL(ltt_tp_irq_entry);

static void notrace ltt_tp_irq_exit(void *data, int irq,
				    struct irqaction *action, int ret)
{
	ltt_callback(LTT_EV_IRQ_EXIT, 0, NULL, 0, NULL);
}
NOKPROBE_SYMBOL(ltt_tp_irq_exit);

/*
 * A system vector (APIC timer, IPIs, irq_work). @data is non-NULL for the
 * vectors whose handler sets the irq regs, the only ones where the
 * interrupted mode (LTT_IRQ_IN_KERNEL) is known.
 */
static void notrace ltt_tp_vector_entry(void *data, int vector)
{
	ltt_irq_entry(vector, LTT_IRQ_VECTOR, data ? get_irq_regs() : NULL);
}
NOKPROBE_SYMBOL(ltt_tp_vector_entry);

static void notrace ltt_tp_vector_exit(void *data, int vector)
{
	ltt_callback(LTT_EV_IRQ_EXIT, 0, NULL, 0, NULL);
}
NOKPROBE_SYMBOL(ltt_tp_vector_exit);

static void notrace ltt_soft_irq(unsigned int sub, u64 id)
{
	struct ltt_ev_soft_irq ev = { .id = id };

	ltt_callback(LTT_EV_SOFT_IRQ, sub, &ev, sizeof(ev), NULL);
}
NOKPROBE_SYMBOL(ltt_soft_irq);

static void notrace ltt_tp_softirq_entry(void *data, unsigned int vec_nr)
{
	ltt_soft_irq(LTT_SOFTIRQ_ENTRY, vec_nr);
}
NOKPROBE_SYMBOL(ltt_tp_softirq_entry);

static void notrace ltt_tp_softirq_exit(void *data, unsigned int vec_nr)
{
	ltt_soft_irq(LTT_SOFTIRQ_EXIT, vec_nr);
}
NOKPROBE_SYMBOL(ltt_tp_softirq_exit);

#ifdef LTT_HAVE_TP_TASKLET
/* Tasklets are identified by the low 32 bits of their function. */
static void notrace ltt_tp_tasklet_entry(void *data, struct tasklet_struct *t,
					 void *func)
{
	ltt_soft_irq(LTT_TASKLET_ENTRY, (u32)(unsigned long)func);
}
NOKPROBE_SYMBOL(ltt_tp_tasklet_entry);

static void notrace ltt_tp_tasklet_exit(void *data, struct tasklet_struct *t,
					void *func)
{
	ltt_soft_irq(LTT_TASKLET_EXIT, (u32)(unsigned long)func);
}
NOKPROBE_SYMBOL(ltt_tp_tasklet_exit);
#endif

static void notrace ltt_fs_wait(unsigned int sub, struct task_struct *task)
{
	struct ltt_ev_file_system ev = { .fd = -1 };

	ltt_callback(LTT_EV_FILE_SYSTEM, sub, &ev, LTT_EV_FS_FIXED, task);
}
NOKPROBE_SYMBOL(ltt_fs_wait);

/*
 * sched_switch gives SCHEDCHANGE, and the I/O waits the patched kernel
 * records in io_schedule_prepare()/io_schedule_finish(): a task switched
 * out with in_iowait set starts one (before the switch, as the task that
 * waits), a task switched in with in_iowait set ends it (after the
 * switch, as the task that waited), so starts and ends pair up. A wait
 * that does not block is not seen; a task preempted inside the wait
 * window shows one wait more.
 */
static void notrace ltt_tp_sched_switch(void *data, bool preempt,
					struct task_struct *prev,
					struct task_struct *next,
					unsigned int prev_state)
{
	struct ltt_ev_schedchange ev = {
		.in = task_pid_nr(next),
		.out = task_pid_nr(prev),
		/* A preempted task is still runnable, whatever __state says. */
		.out_state = preempt ? TASK_RUNNING : prev_state,
	};

	if (prev->in_iowait)
		ltt_fs_wait(LTT_FS_BUF_WAIT_START, NULL);
	ltt_callback(LTT_EV_SCHEDCHANGE, 0, &ev, sizeof(ev), next);
	if (next->in_iowait)
		ltt_fs_wait(LTT_FS_BUF_WAIT_END, next);
}
NOKPROBE_SYMBOL(ltt_tp_sched_switch);

/* --------------------------------------------------------- process events */

static void notrace ltt_process(unsigned int sub, pid_t pid, u64 arg,
				struct task_struct *task)
{
	struct ltt_ev_process ev = { .pid = pid, .arg = arg };

	ltt_callback(LTT_EV_PROCESS, sub, &ev, sizeof(ev), task);
}
NOKPROBE_SYMBOL(ltt_process);

/*
 * The clone flags of the fork that made @child, which sched_process_fork
 * does not pass: those of the parent's system call when it is one of the
 * fork family, else (kernel threads, user-mode helpers) the sharing the
 * two tasks show.
 */
static u64 notrace ltt_clone_flags(struct task_struct *parent,
				   struct task_struct *child)
{
	struct pt_regs *regs = task_pt_regs(parent);
	u64 flags = 0;

	if (!(parent->flags & PF_KTHREAD) && !in_compat_syscall()) {
		switch (syscall_get_nr(parent, regs)) {
		case __NR_clone:
			return lower_32_bits(regs->di) & ~CSIGNAL;
		case __NR_fork:
			return 0;
		case __NR_vfork:
			return CLONE_VFORK | CLONE_VM;
		case __NR_clone3:
			if (!copy_from_user_nofault(&flags,
						    (void __user *)regs->di,
						    sizeof(flags)))
				return flags;
			flags = 0;
			break;
		}
	}
	if (child->mm == parent->mm)
		flags |= CLONE_VM;
	if (child->files == parent->files)
		flags |= CLONE_FILES;
	if (child->fs == parent->fs)
		flags |= CLONE_FS;
	if (child->sighand == parent->sighand)
		flags |= CLONE_SIGHAND;
	if (same_thread_group(child, parent))
		flags |= CLONE_THREAD;
	if (child->flags & PF_KTHREAD)
		flags |= CLONE_UNTRACED;
	return flags;
}
NOKPROBE_SYMBOL(ltt_clone_flags);

static void notrace ltt_tp_fork(void *data, struct task_struct *parent,
				struct task_struct *child)
{
	ltt_process(LTT_PROCESS_FORK, task_pid_nr(child),
		    ltt_clone_flags(parent, child), child);
}
NOKPROBE_SYMBOL(ltt_tp_fork);

/* do_exit() has stored the exit code in the task before the tracepoint. */
#ifdef LTT_HAVE_TP_PROCESS_EXIT_GROUP_DEAD
static void notrace ltt_tp_exit(void *data, struct task_struct *p,
				bool group_dead)
#else
static void notrace ltt_tp_exit(void *data, struct task_struct *p)
#endif
{
	ltt_process(LTT_PROCESS_EXIT, task_pid_nr(p), p->exit_code, NULL);
}
NOKPROBE_SYMBOL(ltt_tp_exit);

/*
 * do_wait(): the tracepoint passes the pid waited on (NULL: any child);
 * whether it names a process or a process group, and the options, come
 * from the wait4() or waitid() call, as waitpid() would put them: -1 any
 * child, -pgid a process group.
 */
static void notrace ltt_tp_wait(void *data, struct pid *pid)
{
	struct pt_regs *regs = task_pt_regs(current);
	long nr = syscall_get_nr(current, regs);
	u64 options = 0;
	pid_t p = -1;

	if (nr == __NR_wait4)
		options = (u32)regs->dx | WEXITED;
	else if (nr == __NR_waitid)
		options = (u32)regs->r10;
	if (pid) {
		p = pid_nr(pid);
		if ((nr == __NR_wait4 && (int)regs->di <= 0) ||
		    (nr == __NR_waitid && regs->di == P_PGID))
			p = -p;
	}
	ltt_process(LTT_PROCESS_WAIT, p, options, NULL);
}
NOKPROBE_SYMBOL(ltt_tp_wait);

static void notrace ltt_tp_signal(void *data, int sig,
				  struct kernel_siginfo *info,
				  struct task_struct *task, int group,
				  int result)
{
	ltt_process(LTT_PROCESS_SIGNAL, task_pid_nr(task), sig, task);
}
NOKPROBE_SYMBOL(ltt_tp_signal);

/* sched_waking: __state still holds the state the task is woken from. */
static void notrace ltt_tp_waking(void *data, struct task_struct *p)
{
	ltt_process(LTT_PROCESS_WAKEUP, task_pid_nr(p), READ_ONCE(p->__state),
		    p);
}
NOKPROBE_SYMBOL(ltt_tp_waking);

static void notrace ltt_tp_exec(void *data, struct task_struct *p,
				pid_t old_pid, struct linux_binprm *bprm)
{
	struct ltt_ev_file_system ev = { .fd = -1 };
	ssize_t len;

	len = strscpy(ev.name, bprm->filename, sizeof(ev.name));
	if (len < 0)
		len = sizeof(ev.name) - 1;
	/* The record ends right after the name's NUL. */
	ltt_callback(LTT_EV_FILE_SYSTEM, LTT_FS_EXEC, &ev,
		     LTT_EV_FS_FIXED + len + 1, NULL);
}
NOKPROBE_SYMBOL(ltt_tp_exec);

/* ----------------------------------------------------------- timer events */

static void notrace ltt_timer(unsigned int sub, u32 aux, s64 arg)
{
	struct ltt_ev_timer ev = { .arg = arg, .aux = aux };

	ltt_callback(LTT_EV_TIMER, sub, &ev, sizeof(ev), NULL);
}
NOKPROBE_SYMBOL(ltt_timer);

static void notrace ltt_tp_itimer_expire(void *data, int which,
					 struct pid *pid,
					 unsigned long long now)
{
	ltt_timer(LTT_TIMER_EXPIRED, 0, which);
}
NOKPROBE_SYMBOL(ltt_tp_itimer_expire);

static void notrace ltt_tp_itimer_state(void *data, int which,
					const struct itimerspec64 *const value,
					unsigned long long expires)
{
	ltt_timer(LTT_TIMER_SETITIMER, which,
		  timespec64_to_ns(&value->it_interval));
}
NOKPROBE_SYMBOL(ltt_tp_itimer_state);

/*
 * Two kernel functions whose timers stand for patched events: the tick
 * (the tick's hrtimer function, which calls update_process_times(), where
 * the patch records KERNEL_TIMER: tick_sched_timer() in 6.1, renamed
 * tick_nohz_highres_handler() and then merged into tick_nohz_handler() by
 * later kernels, 6.12 among them; 6.1's tick_nohz_handler() is the
 * low-resolution mode's clockevent handler, hence the order of the
 * lookup) and
 * schedule_timeout()'s wakeup
 * (process_timeout(), armed where the patch records SETTIMEOUT). They are
 * static: their addresses are looked up once, by name, through a kprobe
 * that is registered disabled (so no code is patched) and unregistered.
 */
static unsigned long ltt_tick_fn __read_mostly;
static unsigned long ltt_timeout_fn __read_mostly;

static unsigned long ltt_symbol(const char *name)
{
	struct kprobe kp = { .symbol_name = name, .flags = KPROBE_FLAG_DISABLED };
	unsigned long addr;

	if (register_kprobe(&kp))
		return 0;
	addr = (unsigned long)kp.addr - kp.offset;
	unregister_kprobe(&kp);
	/*
	 * With IBT a kprobe skips the function's ENDBR, but a timer holds the
	 * function's start. ENDBR32's encoding differs from ENDBR64's in one
	 * bit, which the kernel's own test ignores too.
	 */
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT) && addr) {
		u32 insn;

		if (!copy_from_kernel_nofault(&insn, (void *)(addr - 4),
					      sizeof(insn)) &&
		    (insn & ~0x01000000u) == LTT_ENDBR64)
			addr -= 4;
	}
	return addr;
}

#ifdef LTT_HAVE_TP_HRTIMER_EXPIRE_NOW_PTR
static void notrace ltt_tp_hrtimer_expire(void *data, struct hrtimer *timer,
					  ktime_t *now)
#else
static void notrace ltt_tp_hrtimer_expire(void *data, struct hrtimer *timer,
					  ktime_t now)
#endif
{
	if (ltt_tick_fn &&
	    (unsigned long)READ_ONCE(timer->function) == ltt_tick_fn)
		ltt_callback(LTT_EV_KERNEL_TIMER, 0, NULL, 0, NULL);
}
NOKPROBE_SYMBOL(ltt_tp_hrtimer_expire);

#ifdef LTT_HAVE_TP_TIMER_START_FLAGS
static void notrace ltt_tp_timer_start(void *data, struct timer_list *timer,
				       unsigned long expires,
				       unsigned int flags)
#else
/* The expiry is the timer's own; @bucket_expiry is the wheel's rounding. */
static void notrace ltt_tp_timer_start(void *data, struct timer_list *timer,
				       unsigned long bucket_expiry)
#endif
{
	if (ltt_timeout_fn &&
	    (unsigned long)READ_ONCE(timer->function) == ltt_timeout_fn)
		ltt_timer(LTT_TIMER_SETTIMEOUT, 0,
			  (long)(READ_ONCE(timer->expires) - jiffies));
}
NOKPROBE_SYMBOL(ltt_tp_timer_start);

/* ---------------------------------------------------------- memory events */

static void notrace ltt_memory(unsigned int sub, struct page *page, u64 arg)
{
	struct ltt_ev_memory ev = { .arg = arg };

	if (!page)
		return;
	ev.address = (unsigned long)page_to_virt(page);
	ltt_callback(LTT_EV_MEMORY, sub, &ev, sizeof(ev), NULL);
}
NOKPROBE_SYMBOL(ltt_memory);

static void notrace ltt_tp_page_alloc(void *data, struct page *page,
				      unsigned int order, gfp_t gfp_flags,
				      int migratetype)
{
	ltt_memory(LTT_MEM_PAGE_ALLOC, page, order);
}
NOKPROBE_SYMBOL(ltt_tp_page_alloc);

static void notrace ltt_tp_page_free(void *data, struct page *page,
				     unsigned int order)
{
	ltt_memory(LTT_MEM_PAGE_FREE, page, order);
}
NOKPROBE_SYMBOL(ltt_tp_page_free);

/* --------------------------------------------------------- network events */

static void notrace ltt_network(unsigned int sub, struct sk_buff *skb)
{
	struct ltt_ev_network ev = { .protocol = ntohs(skb->protocol) };

	ltt_callback(LTT_EV_NETWORK, sub, &ev, sizeof(ev), NULL);
}
NOKPROBE_SYMBOL(ltt_network);

/* __dev_queue_xmit(), where the patch records an outgoing packet. */
static void notrace ltt_tp_net_queue(void *data, struct sk_buff *skb)
{
	ltt_network(LTT_NET_PACKET_OUT, skb);
}
NOKPROBE_SYMBOL(ltt_tp_net_queue);

static void notrace ltt_tp_net_receive(void *data, struct sk_buff *skb)
{
	ltt_network(LTT_NET_PACKET_IN, skb);
}
NOKPROBE_SYMBOL(ltt_tp_net_receive);

/* ----------------------------------------------------------- registration */

/**
 * struct ltt_tp - one tracepoint and its probe
 * @name:   the tracepoint's name
 * @probe:  the probe registered on it
 * @events: the events that need it: the probe is registered at START only
 *          when the event mask selects one of them
 * @data:   the probe's data argument
 * @tp:     the kernel's tracepoint, NULL until found (or absent)
 * @on:     the probe is registered
 */
struct ltt_tp {
	const char *name;
	void *probe;
	u64 events;
	void *data;
	struct tracepoint *tp;
	bool on;
};

/*
 * An entry of the table. The sizeof() is never evaluated: it only makes
 * the build fail when @fn does not match the tracepoint's TP_PROTO.
 */
#define LTT_TP(tpname, fn, ev, arg)                                    \
	{                                                              \
		.name = #tpname, .probe = fn, .data = arg,             \
		.events = (ev) + 0 * sizeof((                          \
			check_trace_callback_type_##tpname(fn), 0))    \
	}

#define LTT_EV_CORE_SYSCALL                                              \
	(LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY) | LTT_EV_BIT(LTT_EV_SYSCALL_EXIT) | \
	 LTT_TP_SYS_DERIVED)
#define LTT_EV_TRAP (LTT_EV_BIT(LTT_EV_TRAP_ENTRY) | LTT_EV_BIT(LTT_EV_TRAP_EXIT))
#define LTT_EV_IRQ (LTT_EV_BIT(LTT_EV_IRQ_ENTRY) | LTT_EV_BIT(LTT_EV_IRQ_EXIT))
/* STACK records are taken at the switches (ltt_stack.c). */
#define LTT_EV_SCHED                                                  \
	(LTT_EV_BIT(LTT_EV_SCHEDCHANGE) | LTT_EV_BIT(LTT_EV_FILE_SYSTEM) | \
	 LTT_EV_BIT(LTT_EV_STACK))
#define LTT_EV(ev) LTT_EV_BIT(LTT_EV_##ev)
/* The vectors whose handlers set the irq regs (see ltt_tp_vector_entry). */
#define LTT_REGS ((void *)1)

static struct ltt_tp ltt_tps[] = {
	LTT_TP(sys_enter, ltt_tp_sys_enter, LTT_EV_CORE_SYSCALL, NULL),
	LTT_TP(sys_exit, ltt_tp_sys_exit, LTT_EV_CORE_SYSCALL | LTT_EV(MAP), NULL),
	LTT_TP(page_fault_user, ltt_tp_page_fault, LTT_EV_TRAP, NULL),
	LTT_TP(page_fault_kernel, ltt_tp_page_fault, LTT_EV_TRAP, NULL),
	LTT_TP(irq_handler_entry, ltt_tp_irq_entry, LTT_EV_IRQ, NULL),
	LTT_TP(irq_handler_exit, ltt_tp_irq_exit, LTT_EV_IRQ, NULL),
	LTT_TP(local_timer_entry, ltt_tp_vector_entry, LTT_EV_IRQ, LTT_REGS),
	LTT_TP(local_timer_exit, ltt_tp_vector_exit, LTT_EV_IRQ, NULL),
	LTT_TP(x86_platform_ipi_entry, ltt_tp_vector_entry, LTT_EV_IRQ,
	       LTT_REGS),
	LTT_TP(x86_platform_ipi_exit, ltt_tp_vector_exit, LTT_EV_IRQ, NULL),
	LTT_TP(irq_work_entry, ltt_tp_vector_entry, LTT_EV_IRQ, NULL),
	LTT_TP(irq_work_exit, ltt_tp_vector_exit, LTT_EV_IRQ, NULL),
	LTT_TP(reschedule_entry, ltt_tp_vector_entry, LTT_EV_IRQ, NULL),
	LTT_TP(reschedule_exit, ltt_tp_vector_exit, LTT_EV_IRQ, NULL),
	LTT_TP(call_function_entry, ltt_tp_vector_entry, LTT_EV_IRQ, NULL),
	LTT_TP(call_function_exit, ltt_tp_vector_exit, LTT_EV_IRQ, NULL),
	LTT_TP(call_function_single_entry, ltt_tp_vector_entry, LTT_EV_IRQ,
	       NULL),
	LTT_TP(call_function_single_exit, ltt_tp_vector_exit, LTT_EV_IRQ,
	       NULL),
	LTT_TP(sched_switch, ltt_tp_sched_switch, LTT_EV_SCHED, NULL),
	LTT_TP(hrtimer_expire_entry, ltt_tp_hrtimer_expire,
	       LTT_EV(KERNEL_TIMER), NULL),
	LTT_TP(softirq_entry, ltt_tp_softirq_entry, LTT_EV(SOFT_IRQ), NULL),
	LTT_TP(softirq_exit, ltt_tp_softirq_exit, LTT_EV(SOFT_IRQ), NULL),
#ifdef LTT_HAVE_TP_TASKLET
	LTT_TP(tasklet_entry, ltt_tp_tasklet_entry, LTT_EV(SOFT_IRQ), NULL),
	LTT_TP(tasklet_exit, ltt_tp_tasklet_exit, LTT_EV(SOFT_IRQ), NULL),
#endif
	LTT_TP(sched_process_fork, ltt_tp_fork, LTT_EV(PROCESS), NULL),
	LTT_TP(sched_process_exit, ltt_tp_exit, LTT_EV(PROCESS), NULL),
	LTT_TP(sched_process_wait, ltt_tp_wait, LTT_EV(PROCESS), NULL),
	LTT_TP(signal_generate, ltt_tp_signal, LTT_EV(PROCESS), NULL),
	LTT_TP(sched_waking, ltt_tp_waking, LTT_EV(PROCESS), NULL),
	LTT_TP(sched_process_exec, ltt_tp_exec, LTT_EV(FILE_SYSTEM), NULL),
	LTT_TP(itimer_expire, ltt_tp_itimer_expire, LTT_EV(TIMER), NULL),
	LTT_TP(itimer_state, ltt_tp_itimer_state, LTT_EV(TIMER), NULL),
	LTT_TP(timer_start, ltt_tp_timer_start, LTT_EV(TIMER), NULL),
	LTT_TP(mm_page_alloc, ltt_tp_page_alloc, LTT_EV(MEMORY), NULL),
	LTT_TP(mm_page_free, ltt_tp_page_free, LTT_EV(MEMORY), NULL),
	LTT_TP(net_dev_queue, ltt_tp_net_queue, LTT_EV(NETWORK), NULL),
	LTT_TP(netif_receive_skb, ltt_tp_net_receive, LTT_EV(NETWORK), NULL),
};

static bool ltt_tps_found;
static bool ltt_tp_attached; /* some session traces */

static void ltt_tp_find(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ltt_tps); i++)
		if (!ltt_tps[i].tp && !strcmp(tp->name, ltt_tps[i].name))
			ltt_tps[i].tp = tp;
}

int ltt_backend_attach(const struct ltt_config *cfg, bool policy)
{
	unsigned int i;
	int ret;

	/* The kernel's own tracepoints never go away: look them up once. */
	if (!ltt_tps_found) {
		for_each_kernel_tracepoint(ltt_tp_find, NULL);
		for (i = 0; i < ARRAY_SIZE(ltt_tps); i++)
			if (!ltt_tps[i].tp)
				pr_info("kernel has no tracepoint %s\n",
					ltt_tps[i].name);
		ltt_tick_fn = ltt_symbol("tick_sched_timer");
		if (!ltt_tick_fn)
			ltt_tick_fn = ltt_symbol("tick_nohz_highres_handler");
		if (!ltt_tick_fn)
			ltt_tick_fn = ltt_symbol("tick_nohz_handler");
		if (!ltt_tick_fn)
			pr_info("no tick hrtimer function found: no KERNEL_TIMER events\n");
		ltt_timeout_fn = ltt_symbol("process_timeout");
		ltt_tps_found = true;
	}
	/*
	 * Another session's START while attached: only the probes the new
	 * union adds are registered; the syscall IP policy changes only when
	 * ltt_session.c asks (a privileged session's START while no other one
	 * traces). A probe reads the three values one by one: a walk racing
	 * the change uses a mix of the two policies, for that one entry.
	 */
	if (policy) {
		WRITE_ONCE(ltt_ip_depth, min_t(u32, cfg->syscall_depth,
					       LTT_SYSCALL_DEPTH_MAX));
		WRITE_ONCE(ltt_ip_lower, cfg->syscall_range.lower);
		WRITE_ONCE(ltt_ip_upper, max(cfg->syscall_range.upper,
					     cfg->syscall_range.lower));
	}

	for (i = 0; i < ARRAY_SIZE(ltt_tps); i++) {
		struct ltt_tp *t = &ltt_tps[i];

		if (!t->tp || t->on || !(cfg->event_mask & t->events))
			continue;
		ret = tracepoint_probe_register(t->tp, t->probe, t->data);
		if (ret) {
			pr_warn("cannot register a probe on %s (%d)\n", t->name,
				ret);
			if (!ltt_tp_attached)
				ltt_backend_detach();
			return ret;
		}
		t->on = true;
	}
	ltt_tp_attached = true;
	return 0;
}

/*
 * Unregister the probes no session of @mask needs any more. No wait: the
 * caller waits for a grace period before it frees what a probe may reach,
 * and a probe still running finds no session that wants its events.
 */
void ltt_backend_trim(u64 mask)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ltt_tps); i++) {
		struct ltt_tp *t = &ltt_tps[i];

		if (!t->on || (mask & t->events))
			continue;
		WARN_ON_ONCE(tracepoint_probe_unregister(t->tp, t->probe,
							 t->data));
		t->on = false;
	}
}

void ltt_backend_detach(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ltt_tps); i++) {
		if (!ltt_tps[i].on)
			continue;
		WARN_ON_ONCE(tracepoint_probe_unregister(ltt_tps[i].tp,
							 ltt_tps[i].probe,
							 ltt_tps[i].data));
		ltt_tps[i].on = false;
	}
	/* After it no CPU runs a probe: the buffers may be closed. */
	tracepoint_synchronize_unregister();
	ltt_tp_attached = false;
	/* The policy holds until no session traces (ltt_session.c). */
	ltt_ip_depth = 0;
	ltt_ip_lower = 0;
	ltt_ip_upper = 0;
}
