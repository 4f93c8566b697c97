// SPDX-License-Identifier: GPL-2.0
/*
 * ltt trace module: MAP records (include/ltt/module_events.h), the files
 * mapped executable into the traced processes while the trace runs.
 *
 * A system call entry records the user address it was made from; the
 * analysis turns that into binary!function+offset with the process's
 * executable mappings. The daemon's .proc snapshot lists those of the
 * processes alive at START; this file records the ones made afterwards,
 * at the exit of the system calls that make them:
 *
 *  - mmap() with PROT_EXEC: the mappings in [result, result + length);
 *  - mprotect() adding PROT_EXEC: those in [addr, addr + length);
 *  - execve() and execveat() that succeeded: every executable file
 *    mapping of the new image, which at that point are the executable and
 *    its interpreter (the dynamic loader maps the libraries later, with
 *    mmap(), and is recorded then).
 *
 * The arguments and the result come from the current task's saved user
 * registers (orig_ax is the system call number, ax its result, di/si/dx
 * its first three arguments), which the syscall exit path leaves intact.
 * Both backends call ltt_map_syscall_exit() from ltt_callback() for every
 * SYSCALL_EXIT they deliver while a session selects MAP, so MAP needs no
 * hook of its own; the tracepoint backend registers its sys_exit probe
 * when MAP is selected. The test sits behind a static key (ltt_map_key)
 * that ltt_map_select() patches in only while a session that selects MAP
 * traces: without one, every event pays a nop for it.
 *
 * This runs in the syscall exit path with preemption disabled, so it must
 * not sleep, allocate or wait: the path is built by d_path() into a per-CPU
 * scratch buffer, and the mappings are read under mmap_read_trylock() (its
 * unlock may wake a writer that queued meanwhile: safe here, in process
 * context with no scheduler lock held). A
 * record that cannot be written without waiting (the lock is contended) or
 * whose path does not fit is skipped and counted; the counts are the
 * read-only module parameters map_contended and map_skipped.
 */
#include <linux/atomic.h>
#include <linux/compat.h>
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <asm/unistd.h>

#include "ltt_probe.h"

/* Per-CPU scratch: the record being built and d_path()'s buffer. */
struct ltt_map_scratch {
	struct ltt_ev_map rec;
	char path[PATH_MAX];
};
static DEFINE_PER_CPU(struct ltt_map_scratch, ltt_map_scratch);

static atomic_long_t ltt_map_contended = ATOMIC_LONG_INIT(0);
static atomic_long_t ltt_map_skipped = ATOMIC_LONG_INIT(0);

static int ltt_map_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(kp->arg));
}

static const struct kernel_param_ops ltt_map_count_ops = {
	.get = ltt_map_param_get,
};
module_param_cb(map_contended, &ltt_map_count_ops, &ltt_map_contended, 0444);
MODULE_PARM_DESC(map_contended,
		 "MAP records skipped because the mappings' lock was held");
module_param_cb(map_skipped, &ltt_map_count_ops, &ltt_map_skipped, 0444);
MODULE_PARM_DESC(map_skipped,
		 "MAP records skipped because the path was unavailable or too long");

/* Write the MAP record of @vma (file-backed, VM_EXEC). */
static void notrace ltt_map_emit(struct vm_area_struct *vma, u8 subtype)
{
	struct ltt_map_scratch *s = this_cpu_ptr(&ltt_map_scratch);
	char *p;
	size_t n;

	p = d_path(&vma->vm_file->f_path, s->path, sizeof(s->path));
	if (IS_ERR(p)) {
		atomic_long_inc(&ltt_map_skipped);
		return;
	}
	n = strlen(p);
	if (n >= LTT_MAP_PATH_MAX) {
		atomic_long_inc(&ltt_map_skipped);
		return;
	}
	s->rec.start = vma->vm_start;
	s->rec.length = vma->vm_end - vma->vm_start;
	s->rec.offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
	s->rec.reserved0 = 0;
	s->rec.reserved1 = 0;
	memcpy(s->rec.path, p, n + 1);
	ltt_log_extra(LTT_EV_MAP, subtype, &s->rec, LTT_EV_MAP_FIXED + n + 1);
}
NOKPROBE_SYMBOL(ltt_map_emit);

/**
 * ltt_map_syscall_exit() - record the executable mappings a system call made
 *
 * Called by ltt_callback() for every SYSCALL_EXIT while a tracing session
 * selects MAP, before the mask test of the SYSCALL_EXIT itself,
 * with preemption disabled, in the task whose system call returns. Writes
 * one MAP record per executable file mapping made by a successful mmap(),
 * mprotect(), execve() or execveat(), through ltt_log_extra(): every
 * tracing session whose masks, filters and owner rules take current gets
 * it, with its details when that session records MAP's. Does nothing for
 * any other call, or when no session selects MAP.
 */
void notrace ltt_map_syscall_exit(void)
{
	struct pt_regs *regs;
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	unsigned long start, end, ret;
	u8 subtype;

	if (in_compat_syscall() || (current->flags & PF_KTHREAD))
		return;
	regs = task_pt_regs(current);
	ret = regs->ax;
	if (IS_ERR_VALUE(ret))
		return;
	switch (regs->orig_ax) {
	case __NR_mmap:
		if (!(regs->dx & PROT_EXEC))
			return;
		subtype = LTT_MAP_MMAP;
		start = ret;
		end = start + regs->si;
		break;
	case __NR_mprotect:
		if (!(regs->dx & PROT_EXEC))
			return;
		subtype = LTT_MAP_MPROTECT;
		start = regs->di;
		end = start + regs->si;
		break;
	case __NR_execve:
	case __NR_execveat:
		subtype = LTT_MAP_EXEC;
		start = 0;
		end = TASK_SIZE;
		break;
	default:
		return;
	}
	if (end <= start)
		return;
	mm = current->mm;
	if (!mm)
		return;
	if (!mmap_read_trylock(mm)) {
		atomic_long_inc(&ltt_map_contended);
		return;
	}
	{
		VMA_ITERATOR(vmi, mm, start);

		for_each_vma_range(vmi, vma, end)
			if ((vma->vm_flags & VM_EXEC) && vma->vm_file)
				ltt_map_emit(vma, subtype);
	}
	mmap_read_unlock(mm);
}
NOKPROBE_SYMBOL(ltt_map_syscall_exit);

DEFINE_STATIC_KEY_FALSE(ltt_map_key);

/**
 * ltt_map_select() - patch ltt_callback()'s MAP test in or out
 * @mask: the union of the event masks of the sessions that trace, or are
 *        about to
 *
 * Called with the sessions lock held, before a session is published and
 * after one is withdrawn; may sleep (text patching). The test behind the
 * key checks ltt_live_mask again, so a key that is on a moment longer
 * than needed records nothing.
 */
void ltt_map_select(u64 mask)
{
	if (mask & LTT_EV_BIT(LTT_EV_MAP))
		static_branch_enable(&ltt_map_key);
	else
		static_branch_disable(&ltt_map_key);
}
