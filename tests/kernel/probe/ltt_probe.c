// SPDX-License-Identifier: GPL-2.0
/*
 * ltt_probe - a counting probe for the LTT trace facility (test tool).
 *
 * On load it registers an ltt callback that counts events per event id and
 * subtype, checks each event's detail size, and exercises the registration
 * rules (a second registration must get -EBUSY, unregistering another
 * callback -EINVAL). Everything is exposed in debugfs, ltt_probe/:
 *
 *   counts     "EVENT SUBTYPE COUNT" for every pair seen
 *   bad        events whose size or subtype was out of range, one line
 *              per problem kind with a count and the last offender
 *   selftest   "register=R second=S wrong_unregister=W"
 *   kick       write anything: schedules a tasklet and starts a kthread,
 *              which nothing else does reliably in a small guest
 *   ip_policy  write "DEPTH LOWER UPPER" (hex addresses): sets the syscall
 *              IP policy
 *   warn       write anything: WARN() once, to test that the QEMU harness
 *              fails a run whose console shows a kernel warning
 *   watch_pid  write a pid: remember the IP of its getppid() entries
 *   last_ip    the IP of the watched pid's last getppid() entry (hex)
 *
 * The callback runs in any context (NMI included): it only does atomic
 * increments and plain stores.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/interrupt.h>
#include <linux/kthread.h>
#include <linux/ltt.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/unistd.h>

#define PROBE_SUBTYPES 16

static atomic64_t counts[LTT_EV_MAX][PROBE_SUBTYPES];
static atomic64_t bad_size, bad_subtype, bad_task;
static unsigned long last_bad;
static int selftest_register, selftest_second, selftest_wrong;
static pid_t watch_pid = -1;
static u64 last_ip;
static struct dentry *dir;

/* The detail size each event must carry (-1: variable, checked apart). */
static int expected_size(u8 event, u8 subtype)
{
	switch (event) {
	case LTT_EV_SYSCALL_ENTRY: return sizeof(struct ltt_ev_syscall_entry);
	case LTT_EV_SYSCALL_EXIT: return sizeof(struct ltt_ev_syscall_exit);
	case LTT_EV_TRAP_ENTRY: return sizeof(struct ltt_ev_trap_entry);
	case LTT_EV_IRQ_ENTRY: return sizeof(struct ltt_ev_irq_entry);
	case LTT_EV_SCHEDCHANGE: return sizeof(struct ltt_ev_schedchange);
	case LTT_EV_SOFT_IRQ: return sizeof(struct ltt_ev_soft_irq);
	case LTT_EV_PROCESS: return sizeof(struct ltt_ev_process);
	case LTT_EV_FILE_SYSTEM:
		if (subtype == LTT_FS_EXEC || subtype == LTT_FS_OPEN)
			return -1;
		return LTT_EV_FS_FIXED;
	case LTT_EV_TIMER: return sizeof(struct ltt_ev_timer);
	case LTT_EV_MEMORY: return sizeof(struct ltt_ev_memory);
	case LTT_EV_SOCKET: return sizeof(struct ltt_ev_socket);
	case LTT_EV_IPC: return sizeof(struct ltt_ev_ipc);
	case LTT_EV_NETWORK: return sizeof(struct ltt_ev_network);
	default: return 0;
	}
}

static const u8 subtype_max[LTT_EV_MAX] = {
	[LTT_EV_SOFT_IRQ] = LTT_SOFTIRQ_MAX,
	[LTT_EV_PROCESS] = LTT_PROCESS_MAX,
	[LTT_EV_FILE_SYSTEM] = LTT_FS_MAX,
	[LTT_EV_TIMER] = LTT_TIMER_MAX,
	[LTT_EV_MEMORY] = LTT_MEMORY_MAX,
	[LTT_EV_SOCKET] = LTT_SOCKET_MAX,
	[LTT_EV_IPC] = LTT_IPC_MAX,
	[LTT_EV_NETWORK] = LTT_NETWORK_MAX,
};

static bool needs_task(u8 event, u8 subtype)
{
	if (event == LTT_EV_SCHEDCHANGE)
		return true;
	return event == LTT_EV_PROCESS &&
	       (subtype == LTT_PROCESS_KTHREAD || subtype == LTT_PROCESS_FORK ||
		subtype == LTT_PROCESS_WAKEUP || subtype == LTT_PROCESS_SIGNAL);
}

static void probe_cb(u8 event, u8 subtype, const void *details, u16 size,
		     struct task_struct *task)
{
	int want;

	if (event >= LTT_EV_MAX || subtype >= PROBE_SUBTYPES ||
	    (subtype && subtype >= subtype_max[event])) {
		atomic64_inc(&bad_subtype);
		WRITE_ONCE(last_bad, event << 8 | subtype);
		return;
	}
	atomic64_inc(&counts[event][subtype]);

	want = expected_size(event, subtype);
	if (want < 0) {
		const struct ltt_ev_file_system *fs = details;

		want = LTT_EV_FS_FIXED + strnlen(fs->name, LTT_NAME_MAX - 1) + 1;
	}
	if (size != want) {
		atomic64_inc(&bad_size);
		WRITE_ONCE(last_bad, event << 8 | subtype);
	}
	if (needs_task(event, subtype) != !!task) {
		atomic64_inc(&bad_task);
		WRITE_ONCE(last_bad, event << 8 | subtype);
	}
	if (event == LTT_EV_SYSCALL_ENTRY &&
	    current->pid == READ_ONCE(watch_pid)) {
		const struct ltt_ev_syscall_entry *se = details;

		if (se->nr == __NR_getppid)
			WRITE_ONCE(last_ip, se->ip);
	}
}

/* Never called: only its address is used to test the registration rules. */
static void other_cb(u8 event, u8 subtype, const void *details, u16 size,
		     struct task_struct *task)
{
}

static int counts_show(struct seq_file *m, void *v)
{
	int e, s;

	for (e = 0; e < LTT_EV_MAX; e++)
		for (s = 0; s < PROBE_SUBTYPES; s++) {
			s64 n = atomic64_read(&counts[e][s]);

			if (n)
				seq_printf(m, "%d %d %lld\n", e, s, n);
		}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(counts);

static int bad_show(struct seq_file *m, void *v)
{
	seq_printf(m, "size %lld\nsubtype %lld\ntask %lld\nlast 0x%lx\n",
		   atomic64_read(&bad_size), atomic64_read(&bad_subtype),
		   atomic64_read(&bad_task), READ_ONCE(last_bad));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(bad);

static int selftest_show(struct seq_file *m, void *v)
{
	seq_printf(m, "register=%d second=%d wrong_unregister=%d\n",
		   selftest_register, selftest_second, selftest_wrong);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(selftest);

static int last_ip_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%llx\n", READ_ONCE(last_ip));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(last_ip);

static void probe_tasklet_fn(struct tasklet_struct *t)
{
}
static DECLARE_TASKLET(probe_tasklet, probe_tasklet_fn);

static int probe_thread_fn(void *data)
{
	return 0;
}

static ssize_t kick_write(struct file *file, const char __user *buf,
			  size_t len, loff_t *ppos)
{
	struct task_struct *t;

	tasklet_schedule(&probe_tasklet);
	t = kthread_run(probe_thread_fn, NULL, "ltt_probe_kick");
	if (IS_ERR(t))
		return PTR_ERR(t);
	return len;
}

static const struct file_operations kick_fops = {
	.owner = THIS_MODULE,
	.write = kick_write,
};

static ssize_t warn_write(struct file *file, const char __user *buf,
			  size_t len, loff_t *ppos)
{
	WARN(1, "ltt_probe: warning requested through debugfs\n");
	return len;
}

static const struct file_operations warn_fops = {
	.owner = THIS_MODULE,
	.write = warn_write,
};

static ssize_t ip_policy_write(struct file *file, const char __user *buf,
			       size_t len, loff_t *ppos)
{
	char kbuf[80];
	unsigned int depth;
	unsigned long lower, upper;

	if (len >= sizeof(kbuf))
		return -EINVAL;
	if (copy_from_user(kbuf, buf, len))
		return -EFAULT;
	kbuf[len] = '\0';
	if (sscanf(kbuf, "%u %lx %lx", &depth, &lower, &upper) != 3)
		return -EINVAL;
	ltt_set_syscall_ip_policy(depth, lower, upper);
	return len;
}

static const struct file_operations ip_policy_fops = {
	.owner = THIS_MODULE,
	.write = ip_policy_write,
};

static ssize_t watch_pid_write(struct file *file, const char __user *buf,
			       size_t len, loff_t *ppos)
{
	int pid, ret;

	ret = kstrtoint_from_user(buf, len, 10, &pid);
	if (ret)
		return ret;
	WRITE_ONCE(last_ip, 0);
	WRITE_ONCE(watch_pid, pid);
	return len;
}

static const struct file_operations watch_pid_fops = {
	.owner = THIS_MODULE,
	.write = watch_pid_write,
};

static int __init ltt_probe_init(void)
{
	selftest_register = ltt_register_callback(probe_cb);
	if (selftest_register)
		return selftest_register;
	selftest_second = ltt_register_callback(other_cb);
	selftest_wrong = ltt_unregister_callback(other_cb);

	dir = debugfs_create_dir("ltt_probe", NULL);
	debugfs_create_file("counts", 0400, dir, NULL, &counts_fops);
	debugfs_create_file("bad", 0400, dir, NULL, &bad_fops);
	debugfs_create_file("selftest", 0400, dir, NULL, &selftest_fops);
	debugfs_create_file("last_ip", 0400, dir, NULL, &last_ip_fops);
	debugfs_create_file("kick", 0200, dir, NULL, &kick_fops);
	debugfs_create_file("warn", 0200, dir, NULL, &warn_fops);
	debugfs_create_file("ip_policy", 0200, dir, NULL, &ip_policy_fops);
	debugfs_create_file("watch_pid", 0200, dir, NULL, &watch_pid_fops);
	return 0;
}

static void __exit ltt_probe_exit(void)
{
	debugfs_remove_recursive(dir);
	ltt_set_syscall_ip_policy(0, 0, 0);
	WARN_ON(ltt_unregister_callback(probe_cb));
	tasklet_kill(&probe_tasklet);
}

module_init(ltt_probe_init);
module_exit(ltt_probe_exit);
MODULE_DESCRIPTION("LTT facility test probe: counts events per id and subtype");
MODULE_LICENSE("GPL");
