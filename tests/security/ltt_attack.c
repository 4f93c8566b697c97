// SPDX-License-Identifier: GPL-2.0
/*
 * ltt-attack: what a local user can send tracedaemon's user-event socket
 * (user/protocol/user_shm.h), for tests/security/daemon-attacks.sh. Each
 * attack prints one line KEY=VALUE... saying what it saw; the script
 * decides whether the daemon held.
 *
 *   ltt-attack SOCKET snapshot-flood N   N SNAPSHOT messages before and
 *                                        N after a REGISTER
 *   ltt-attack SOCKET fd-flood N SECS    N connections, each registered
 *                                        with a memfd and an eventfd, held
 *                                        SECS; how many the daemon closed
 *   ltt-attack SOCKET stream-flood N     N threads' streams (one event
 *                                        each) through 32 rings
 *   ltt-attack SOCKET sparse SECS        a 16 MiB-ring memfd, every ring
 *                                        claiming to be full, held SECS;
 *                                        the bytes it then holds
 *   ltt-attack SOCKET semaphore SECS     a semaphore eventfd, written
 *                                        2^64-2, held SECS
 *   ltt-attack SOCKET ping               a valid registration: whether
 *                                        the daemon enables it in 5 s
 *   ltt-attack SOCKET fuse-flush SECS    (as root) a FUSE file whose
 *                                        flush is never answered, sent
 *                                        by uid 1000 as its memfd; held
 *                                        SECS once the daemon's close of
 *                                        it waits (flush_pending=1), then
 *                                        the file system is torn down
 *                                        (SIGTERM ends the hold early).
 *                                        Exit 3: FUSE cannot be mounted
 *                                        here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <linux/fuse.h>
#include <signal.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "user_shm.h"

static const char *sock_path;

static int connect_daemon(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock_path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

struct shm {
	int fd;
	uint32_t rb;
	size_t size;
	unsigned char *p;
};

static struct ltt_user_shm_ring *ring(struct shm *s, unsigned int i)
{
	return (struct ltt_user_shm_ring *)(s->p +
					    LTT_USER_SHM_RING_OFF(i, s->rb));
}

/* A protocol-conformant memfd of rings of `rb` bytes, one type "attack". */
static int make_shm(struct shm *s, uint32_t rb)
{
	struct ltt_user_shm_header *h;
	struct ltt_user_shm_type *t;

	s->rb = rb;
	s->size = LTT_USER_SHM_SIZE(rb);
	s->fd = memfd_create("ltt-attack", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (s->fd < 0 || ftruncate(s->fd, (off_t)s->size) != 0 ||
	    fcntl(s->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0)
		return -1;
	s->p = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd,
		    0);
	if (s->p == MAP_FAILED)
		return -1;
	h = (struct ltt_user_shm_header *)s->p;
	h->magic = LTT_USER_SHM_MAGIC;
	h->version = LTT_USER_SHM_VERSION;
	h->size = (uint32_t)s->size;
	h->ring_bytes = rb;
	t = (struct ltt_user_shm_type *)(s->p + LTT_USER_SHM_TYPES_OFF);
	t->nfields = 1;
	t->field[0] = LTT_USER_I64;
	strcpy(t->names[0], "attack");
	strcpy(t->names[1], "n");
	t->ready = 1;
	h->ntypes = 1;
	return 0;
}

static int send_msg(int fd, uint16_t kind, const char *text, int memfd,
		    int wake)
{
	struct ltt_user_msg m = { .magic = LTT_USER_MSG_MAGIC,
				  .version = LTT_USER_SHM_VERSION,
				  .kind = kind };
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} c;
	struct iovec iov = { &m, sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fds[2] = { memfd, wake };
	size_t n = wake >= 0 ? 2 : 1;

	if (text)
		snprintf(m.text, sizeof(m.text), "%s", text);
	if (memfd >= 0) {
		struct cmsghdr *cm;

		memset(&c, 0, sizeof(c));
		mh.msg_control = c.buf;
		mh.msg_controllen = CMSG_SPACE(n * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(n * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, n * sizeof(int));
	}
	return sendmsg(fd, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(m) ? 0 : -1;
}

/* Whether ENABLE arrives within `ms`. */
static int enabled(int fd, int ms)
{
	struct pollfd p = { fd, POLLIN, 0 };
	struct ltt_user_msg m;

	return poll(&p, 1, ms) == 1 && recv(fd, &m, sizeof(m), 0) ==
					       (ssize_t)sizeof(m) &&
	       m.kind == LTT_USER_MSG_ENABLE;
}

static void put(struct shm *s, unsigned int r, int64_t v)
{
	struct ltt_user_shm_ring *rg = ring(s, r);
	struct ltt_user_rec h = { 24, 0, 0, 0 };
	uint64_t at = rg->head & (s->rb - 1);
	unsigned int lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	h.tsc = ((uint64_t)hi << 32) | lo;
	rg->tid = (uint32_t)gettid();
	memcpy((unsigned char *)(rg + 1) + at, &h, sizeof(h));
	memcpy((unsigned char *)(rg + 1) + at + sizeof(h), &v, sizeof(v));
	__atomic_store_n(&rg->head, rg->head + 24, __ATOMIC_RELEASE);
}

static int snapshot_flood(int n)
{
	struct shm s;
	int fd = connect_daemon(), i, sent = 0;

	if (fd < 0 || make_shm(&s, LTT_USER_RING_MIN))
		return 1;
	for (i = 0; i < n; i++)
		sent += !send_msg(fd, LTT_USER_MSG_SNAPSHOT, "unregistered", -1,
				  -1);
	send_msg(fd, LTT_USER_MSG_REGISTER, NULL, s.fd, -1);
	for (i = 0; i < n; i++)
		sent += !send_msg(fd, LTT_USER_MSG_SNAPSHOT,
				  "flood \033[2J\n", -1, -1);
	printf("sent=%d\n", sent);
	sleep(1);
	return 0;
}

static int fd_flood(int n, int secs)
{
	int *fds = calloc((size_t)n, sizeof(int)), i, open_ = 0, closed = 0;

	for (i = 0; i < n; i++) {
		struct shm s;
		int wake = eventfd(0, EFD_CLOEXEC);

		fds[i] = connect_daemon();
		if (fds[i] < 0 || wake < 0 || make_shm(&s, LTT_USER_RING_MIN)) {
			if (wake >= 0)
				close(wake);
			continue;
		}
		open_++;
		send_msg(fds[i], LTT_USER_MSG_REGISTER, NULL, s.fd, wake);
		munmap(s.p, s.size);
		close(s.fd);
		close(wake);
	}
	sleep((unsigned int)secs);
	for (i = 0; i < n; i++) {
		char b[sizeof(struct ltt_user_msg)];
		ssize_t r;

		if (fds[i] < 0)
			continue;
		while ((r = recv(fds[i], b, sizeof(b), MSG_DONTWAIT)) > 0)
			;
		/* An end of file, or a reset: the daemon closed it. */
		closed += r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
	}
	printf("connected=%d closed_by_daemon=%d\n", open_, closed);
	return 0;
}

static int stream_flood(int n)
{
	struct shm s;
	int fd = connect_daemon(), done = 0;
	int wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	time_t until = time(NULL) + 300;
	const uint64_t one = 1;

	if (fd < 0 || wake < 0 || make_shm(&s, LTT_USER_RING_MIN) ||
	    send_msg(fd, LTT_USER_MSG_REGISTER, NULL, s.fd, wake) ||
	    !enabled(fd, 5000))
		return 1;
	while (done < n && time(NULL) < until) {
		unsigned int r;

		/* Each round's exits wake the daemon, as a thread's exit does. */
		if (write(wake, &one, sizeof(one)) < 0 && errno != EAGAIN)
			return 1;

		for (r = 0; r < LTT_USER_SHM_RINGS && done < n; r++) {
			struct ltt_user_shm_ring *rg = ring(&s, r);

			if (__atomic_load_n(&rg->tid, __ATOMIC_ACQUIRE))
				continue;
			put(&s, r, done);
			__atomic_store_n(&rg->closing, 1, __ATOMIC_RELEASE);
			done++;
		}
		usleep(1000);
	}
	printf("threads=%d\n", done);
	return done == n ? 0 : 1;
}

static int sparse(int secs)
{
	struct shm s;
	struct stat st;
	int fd = connect_daemon();
	unsigned int r;

	if (fd < 0 || make_shm(&s, LTT_USER_RING_MAX) ||
	    send_msg(fd, LTT_USER_MSG_REGISTER, NULL, s.fd, -1) ||
	    !enabled(fd, 5000))
		return 1;
	for (r = 0; r < LTT_USER_SHM_RINGS; r++) {
		ring(&s, r)->tid = (uint32_t)gettid();
		__atomic_store_n(&ring(&s, r)->head, (uint64_t)LTT_USER_RING_MAX,
				 __ATOMIC_RELEASE);
	}
	sleep((unsigned int)secs);
	if (fstat(s.fd, &st))
		return 1;
	printf("memfd_bytes=%lld\n", (long long)st.st_blocks * 512);
	return 0;
}

static int semaphore(int secs)
{
	struct shm s;
	uint64_t lots = 0xfffffffffffffffeULL;
	int fd = connect_daemon();
	int wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE);

	if (fd < 0 || wake < 0 || make_shm(&s, LTT_USER_RING_MIN) ||
	    send_msg(fd, LTT_USER_MSG_REGISTER, NULL, s.fd, wake))
		return 1;
	usleep(200000);
	printf("written=%d\n", write(wake, &lots, sizeof(lots)) == 8);
	sleep((unsigned int)secs);
	return 0;
}

static int ping(void)
{
	struct shm s;
	int fd = connect_daemon(), on;

	on = fd >= 0 && !make_shm(&s, LTT_USER_RING_MIN) &&
	     !send_msg(fd, LTT_USER_MSG_REGISTER, NULL, s.fd, -1) &&
	     enabled(fd, 5000);
	printf("enabled=%d\n", on);
	return on ? 0 : 1;
}

/* One reply on /dev/fuse: a header and `n` bytes of `arg`. */
static void fuse_reply(int dev, uint64_t unique, int error, const void *arg,
		       size_t n)
{
	struct fuse_out_header h = { (uint32_t)(sizeof(h) + n), error,
				     unique };
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)arg, n } };

	if (writev(dev, iov, n ? 2 : 1) < 0)
		perror("ltt-attack: fuse reply");
}

static void fuse_attr(struct fuse_attr *a, uint64_t ino)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->mode = ino == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0666;
	a->nlink = 1;
	a->size = ino == FUSE_ROOT_ID ? 0 : 4096;
}

/*
 * The file system: a root directory holding one file, "f". A FLUSH is
 * answered when `client` asks it (its own close), never otherwise: each
 * one left waiting is reported with a byte on `report`.
 */
static void fuse_serve(int dev, pid_t client, int report)
{
	static char buf[FUSE_MIN_READ_BUFFER + (1 << 20)];

	for (;;) {
		ssize_t n = read(dev, buf, sizeof(buf));
		struct fuse_in_header *in = (struct fuse_in_header *)buf;
		const char *arg = buf + sizeof(*in);

		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(*in))
			return; /* unmounted, aborted */
		switch (in->opcode) {
		case FUSE_INIT: {
			struct fuse_init_out o = { .major = FUSE_KERNEL_VERSION,
						   .minor = 22,
						   .max_write = 4096 };

			fuse_reply(dev, in->unique, 0, &o,
				   FUSE_COMPAT_22_INIT_OUT_SIZE);
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out o;

			if (in->nodeid != FUSE_ROOT_ID || strcmp(arg, "f")) {
				fuse_reply(dev, in->unique, -ENOENT, NULL, 0);
				break;
			}
			memset(&o, 0, sizeof(o));
			o.nodeid = 2;
			o.generation = 1;
			fuse_attr(&o.attr, 2);
			fuse_reply(dev, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out o;

			memset(&o, 0, sizeof(o));
			fuse_attr(&o.attr, in->nodeid);
			fuse_reply(dev, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_OPEN:
		case FUSE_OPENDIR: {
			struct fuse_open_out o = { .fh = 1 };

			fuse_reply(dev, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_FLUSH:
			if ((pid_t)in->pid == client)
				fuse_reply(dev, in->unique, 0, NULL, 0);
			else if (write(report, "F", 1) != 1)
				return;
			break;
		case FUSE_RELEASE:
		case FUSE_RELEASEDIR:
			fuse_reply(dev, in->unique, 0, NULL, 0);
			break;
		case FUSE_INTERRUPT:
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_DESTROY:
			break; /* no reply */
		default:
			fuse_reply(dev, in->unique, -EOPNOTSUPP, NULL, 0);
		}
	}
}

static void on_term(int sig)
{
	(void)sig; /* ends the hold's sleep: the teardown follows */
}

static int fuse_flush(int secs)
{
	char dir[] = "/tmp/ltt-fuse.XXXXXX", opts[128], path[64], c;
	int go[2], report[2], dev, st, held = 0;
	struct pollfd p;
	pid_t client, server;

	if (!mkdtemp(dir) || chmod(dir, 0755))
		return 1;
	dev = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", dev);
	if (dev < 0 || mount("ltt-attack", dir, "fuse.ltt-attack",
			     MS_NOSUID | MS_NODEV, opts)) {
		printf("mounted=0 (%s)\n", strerror(errno));
		rmdir(dir);
		return 3;
	}
	printf("mounted=1\n");
	fflush(stdout);
	snprintf(path, sizeof(path), "%s/f", dir);
	if (pipe(go) || pipe(report))
		return 1;
	/* uid 1000 sends the file as its memfd, then closes its own. */
	client = fork();
	if (client == 0) {
		struct ltt_user_msg m;
		int fd, sock;

		close(dev);
		if (read(go[0], &c, 1) != 1 || setgroups(0, NULL) ||
		    setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
			_exit(1);
		fd = open(path, O_RDWR);
		sock = connect_daemon();
		if (fd < 0 || sock < 0 ||
		    send_msg(sock, LTT_USER_MSG_REGISTER, NULL, fd, -1))
			_exit(1);
		/* The refusal (or nothing) back: the daemon is done with it. */
		p = (struct pollfd){ sock, POLLIN, 0 };
		if (poll(&p, 1, 5000) == 1)
			(void)!recv(sock, &m, sizeof(m), 0);
		close(fd);
		_exit(0);
	}
	server = fork();
	if (server == 0) {
		fuse_serve(dev, client, report[1]);
		_exit(0);
	}
	close(dev);
	close(report[1]);
	if (client < 0 || server < 0 || write(go[1], "g", 1) != 1)
		return 1;
	/* The daemon's close now waits for an answer that never comes. */
	p = (struct pollfd){ report[0], POLLIN, 0 };
	held = poll(&p, 1, 10000) == 1 && read(report[0], &c, 1) == 1;
	printf("flush_pending=%d\n", held);
	fflush(stdout);
	if (held) {
		/* SIGTERM ends the hold early (no SA_RESTART). */
		struct sigaction sa = { .sa_handler = on_term };

		sigaction(SIGTERM, &sa, NULL);
		sleep((unsigned int)secs);
	}
	/* Tear down: the server gone, every waiting request ends. */
	kill(server, SIGKILL);
	waitpid(server, NULL, 0);
	umount2(dir, MNT_DETACH);
	rmdir(dir);
	st = -1;
	waitpid(client, &st, 0);
	printf("client_status=%d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return held ? 0 : 1;
}

int main(int argc, char **argv)
{
	int n = argc > 3 ? atoi(argv[3]) : 0, secs = argc > 4 ? atoi(argv[4]) : 2;

	if (argc < 3) {
		fprintf(stderr, "usage: ltt-attack SOCKET ATTACK [N] [SECS]\n");
		return 2;
	}
	sock_path = argv[1];
	if (!strcmp(argv[2], "snapshot-flood"))
		return snapshot_flood(n);
	if (!strcmp(argv[2], "fd-flood"))
		return fd_flood(n, secs);
	if (!strcmp(argv[2], "stream-flood"))
		return stream_flood(n);
	if (!strcmp(argv[2], "sparse"))
		return sparse(n ? n : 2);
	if (!strcmp(argv[2], "semaphore"))
		return semaphore(n ? n : 2);
	if (!strcmp(argv[2], "ping"))
		return ping();
	if (!strcmp(argv[2], "fuse-flush"))
		return fuse_flush(n ? n : 2);
	fprintf(stderr, "ltt-attack: unknown attack '%s'\n", argv[2]);
	return 2;
}
