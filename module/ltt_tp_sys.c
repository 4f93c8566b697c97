// SPDX-License-Identifier: GPL-2.0
/*
 * ltt trace module, tracepoint backend: the events an unmodified kernel
 * has no tracepoint for but a system call's arguments and result tell.
 *
 * The patched kernel hooks the file system, socket and IPC code itself.
 * Here the raw_syscalls probes (ltt_tp.c) derive the same records from the
 * system call: at entry from its number and arguments (SOCKET and IPC
 * CALL, FS SELECT and POLL, which the patched kernel records as the call
 * starts), at exit from the arguments, still in the saved user registers
 * on x86-64, and the return value (FS OPEN, CLOSE, READ, WRITE, SEEK,
 * IOCTL, SOCKET CREATE, SEND, RECEIVE, IPC *_CREATE), written just before
 * the SYSCALL_EXIT record, where the patched kernel's hooks put them in
 * the stream. Only the x86-64 system calls are decoded (not those of
 * 32-bit tasks), and only the calls whose kernel path holds the hook in
 * the patch (docs/kernel-facility.md lists the differences).
 *
 * Names (the file an open() names) are copied from user memory with
 * copy_from_user_nofault(): a probe must not fault pages in or sleep. A
 * name that is not resident is recorded empty.
 */
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/kprobes.h>
#include <linux/net.h>
#include <linux/fdtable.h>
#include <linux/ipc.h>
#include <linux/uaccess.h>
#include <linux/time64.h>
#include <linux/compat.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "ltt_probe.h"

/* The six arguments of the x86-64 system call whose registers are @regs. */
#define LTT_ARG0(regs) ((regs)->di)
#define LTT_ARG1(regs) ((regs)->si)
#define LTT_ARG2(regs) ((regs)->dx)
#define LTT_ARG3(regs) ((regs)->r10)
#define LTT_ARG4(regs) ((regs)->r8)

static void notrace ltt_fs(unsigned int sub, int fd, u32 aux, s64 arg)
{
	struct ltt_ev_file_system ev;

	ev.fd = fd;
	ev.aux = aux;
	ev.arg = arg;
	ltt_callback(LTT_EV_FILE_SYSTEM, sub, &ev, LTT_EV_FS_FIXED, NULL);
}
NOKPROBE_SYMBOL(ltt_fs);

static void notrace ltt_fs_open(int fd, const char __user *name)
{
	struct ltt_ev_file_system ev;
	size_t len;

	ev.fd = fd;
	ev.aux = 0;
	ev.arg = 0;
	len = ltt_user_name(ev.name, name);
	/* The record ends right after the name's NUL. */
	ltt_callback(LTT_EV_FILE_SYSTEM, LTT_FS_OPEN, &ev,
		     LTT_EV_FS_FIXED + len + 1, NULL);
}
NOKPROBE_SYMBOL(ltt_fs_open);

/* The socket @fd of the current task refers to, or NULL. */
static struct socket *notrace ltt_fd_socket(unsigned long fd)
{
	struct socket *sock = NULL;
	struct file *file;

	if (fd > INT_MAX)
		return NULL;
	rcu_read_lock();
	file = files_lookup_fd_raw(current->files, fd);
	if (file)
		sock = sock_from_file(file);
	rcu_read_unlock();
	return sock;
}
NOKPROBE_SYMBOL(ltt_fd_socket);

/*
 * SOCKET SEND or RECEIVE of @ret bytes (or an error) on the socket @fd,
 * as sock_sendmsg()/sock_recvmsg() record it in the patched kernel.
 */
static void notrace ltt_socket_io(unsigned int sub, unsigned long fd, long ret)
{
	struct ltt_ev_socket ev = { .id = -1, .size = ret };
	struct socket *sock;

	if (!(READ_ONCE(ltt_live_mask) & LTT_EV_BIT(LTT_EV_SOCKET)))
		return;
	/*
	 * The type is read under RCU; the socket outlives the call that is
	 * returning on it, which holds the file.
	 */
	sock = ltt_fd_socket(fd);
	if (!sock)
		return;
	ev.type = READ_ONCE(sock->type);
	ltt_callback(LTT_EV_SOCKET, sub, &ev, sizeof(ev), NULL);
}
NOKPROBE_SYMBOL(ltt_socket_io);

/* A timeout in ns from a user struct timespec64 or timeval; -1: none. */
static s64 notrace ltt_user_timeout(const void __user *p, bool timeval)
{
	struct __kernel_timespec ts;
	struct __kernel_old_timeval tv;

	if (!p)
		return -1;
	if (timeval) {
		if (copy_from_user_nofault(&tv, p, sizeof(tv)))
			return -1;
		return max_t(s64, 0, tv.tv_sec * NSEC_PER_SEC +
					     tv.tv_usec * NSEC_PER_USEC);
	}
	if (copy_from_user_nofault(&ts, p, sizeof(ts)))
		return -1;
	return max_t(s64, 0, ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec);
}
NOKPROBE_SYMBOL(ltt_user_timeout);

static void notrace ltt_call(u8 event, u8 sub, u32 nr, s32 id)
{
	/* struct ltt_ev_socket and ltt_ev_ipc start alike: call, id. */
	struct ltt_ev_socket sev = { .call = nr, .id = id };
	struct ltt_ev_ipc iev = { .call = nr, .id = id };

	if (event == LTT_EV_SOCKET)
		ltt_callback(event, sub, &sev, sizeof(sev), NULL);
	else
		ltt_callback(event, sub, &iev, sizeof(iev), NULL);
}
NOKPROBE_SYMBOL(ltt_call);

/**
 * ltt_sys_derive_entry() - the events a system call's entry implies
 * @regs: the user registers
 * @nr:   the system call number
 *
 * Called by the sys_enter probe after the SYSCALL_ENTRY record.
 */
void notrace ltt_sys_derive_entry(struct pt_regs *regs, long nr)
{
	if (in_compat_syscall())
		return;
	switch (nr) {
	case __NR_socket:
	case __NR_socketpair:
		ltt_call(LTT_EV_SOCKET, LTT_SOCKET_CALL, nr, -1);
		return;
	case __NR_bind:
	case __NR_connect:
	case __NR_listen:
	case __NR_accept:
	case __NR_accept4:
	case __NR_getsockname:
	case __NR_getpeername:
	case __NR_sendto:
	case __NR_recvfrom:
	case __NR_shutdown:
	case __NR_setsockopt:
	case __NR_getsockopt:
	case __NR_sendmsg:
	case __NR_recvmsg:
	case __NR_sendmmsg:
	case __NR_recvmmsg:
		ltt_call(LTT_EV_SOCKET, LTT_SOCKET_CALL, nr,
			 (int)LTT_ARG0(regs));
		return;
	case __NR_msgget:
	case __NR_msgsnd:
	case __NR_msgrcv:
	case __NR_msgctl:
	case __NR_semget:
	case __NR_semop:
	case __NR_semtimedop:
	case __NR_semctl:
	case __NR_shmget:
	case __NR_shmat:
	case __NR_shmdt:
	case __NR_shmctl:
		ltt_call(LTT_EV_IPC, LTT_IPC_CALL, nr, (int)LTT_ARG0(regs));
		return;
	case __NR_select:
		ltt_fs(LTT_FS_SELECT, (int)LTT_ARG0(regs), 0,
		       ltt_user_timeout((void __user *)LTT_ARG4(regs), true));
		return;
	case __NR_pselect6:
		ltt_fs(LTT_FS_SELECT, (int)LTT_ARG0(regs), 0,
		       ltt_user_timeout((void __user *)LTT_ARG4(regs), false));
		return;
	case __NR_poll:
		ltt_fs(LTT_FS_POLL, (int)LTT_ARG1(regs), 0,
		       (int)LTT_ARG2(regs) < 0 ?
			       -1 :
			       (s64)(int)LTT_ARG2(regs) * NSEC_PER_MSEC);
		return;
	case __NR_ppoll:
		ltt_fs(LTT_FS_POLL, (int)LTT_ARG1(regs), 0,
		       ltt_user_timeout((void __user *)LTT_ARG2(regs), false));
		return;
	}
}
NOKPROBE_SYMBOL(ltt_sys_derive_entry);

/* IPC *_CREATE for a msgget/semget/shmget that returned @id. */
static void notrace ltt_ipc_create(unsigned int sub, struct pt_regs *regs,
				   long id, unsigned long flg_reg)
{
	struct ltt_ev_ipc ev = { .id = id, .flags = (u32)flg_reg };

	/*
	 * The call creates the object for IPC_PRIVATE or IPC_CREAT; with
	 * IPC_CREAT alone an existing one may be returned instead, which
	 * the result does not tell.
	 */
	if (id < 0 || ((key_t)LTT_ARG0(regs) != IPC_PRIVATE &&
		       !(flg_reg & IPC_CREAT)))
		return;
	ltt_callback(LTT_EV_IPC, sub, &ev, sizeof(ev), NULL);
}
NOKPROBE_SYMBOL(ltt_ipc_create);

/**
 * ltt_sys_derive_exit() - the events a system call's result implies
 * @regs: the user registers (the arguments are still there)
 * @ret:  the return value
 *
 * Called by the sys_exit probe before the SYSCALL_EXIT record.
 */
void notrace ltt_sys_derive_exit(struct pt_regs *regs, long ret)
{
	long nr = syscall_get_nr(current, regs);
	unsigned long fd = LTT_ARG0(regs);

	if (in_compat_syscall())
		return;
	switch (nr) {
	case __NR_open:
	case __NR_creat:
		if (ret >= 0)
			ltt_fs_open(ret, (const char __user *)LTT_ARG0(regs));
		return;
	case __NR_openat:
	case __NR_openat2:
		if (ret >= 0)
			ltt_fs_open(ret, (const char __user *)LTT_ARG1(regs));
		return;
	case __NR_close:
		/* Recorded as close_fd() starts, whatever it returns. */
		ltt_fs(LTT_FS_CLOSE, (int)fd, 0, 0);
		return;
	case __NR_read:
		ltt_socket_io(LTT_SOCKET_RECEIVE, fd, ret);
		if (ret >= 0)
			ltt_fs(LTT_FS_READ, (int)fd, 0, ret);
		return;
	case __NR_write:
		ltt_socket_io(LTT_SOCKET_SEND, fd, ret);
		if (ret >= 0)
			ltt_fs(LTT_FS_WRITE, (int)fd, 0, ret);
		return;
	case __NR_lseek:
		/* Recorded once the file is found. */
		if (ret != -EBADF)
			ltt_fs(LTT_FS_SEEK, (int)fd, (u32)LTT_ARG2(regs),
			       (s64)LTT_ARG1(regs));
		return;
	case __NR_ioctl:
		if (ret != -EBADF)
			ltt_fs(LTT_FS_IOCTL, (int)fd, 0, (u32)LTT_ARG1(regs));
		return;
	case __NR_socket:
		if (ret >= 0) {
			struct ltt_ev_socket ev = {
				.id = ret,
				.type = (u32)LTT_ARG0(regs) << 16 |
					((u32)LTT_ARG1(regs) & SOCK_TYPE_MASK),
			};

			ltt_callback(LTT_EV_SOCKET, LTT_SOCKET_CREATE, &ev,
				     sizeof(ev), NULL);
		}
		return;
	case __NR_sendto:
	case __NR_sendmsg:
		ltt_socket_io(LTT_SOCKET_SEND, fd, ret);
		return;
	case __NR_recvfrom:
	case __NR_recvmsg:
		ltt_socket_io(LTT_SOCKET_RECEIVE, fd, ret);
		return;
	case __NR_msgget:
		ltt_ipc_create(LTT_IPC_MSG_CREATE, regs, ret, LTT_ARG1(regs));
		return;
	case __NR_semget:
		ltt_ipc_create(LTT_IPC_SEM_CREATE, regs, ret, LTT_ARG2(regs));
		return;
	case __NR_shmget:
		ltt_ipc_create(LTT_IPC_SHM_CREATE, regs, ret, LTT_ARG2(regs));
		return;
	}
}
NOKPROBE_SYMBOL(ltt_sys_derive_exit);
