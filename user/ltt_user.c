// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * libltt-user: the process side of user/protocol/user_shm.h.
 *
 * Call sequence (the daemon side is daemon/src/user_server.cpp):
 *
 *   first declare or mark: create the memfd (sealed against resizing),
 *     map it, and start the listener thread
 *   listener: watch the socket paths' directories with inotify, try to
 *     connect; while none answers, sleep in read() on the inotify fd (no
 *     polling: a process with no daemon pays memory and one idle thread)
 *   connected: send REGISTER with the memfd, then sleep in recv() for
 *     ENABLE and DISABLE, which set ltt_user_active (ENABLE after the
 *     daemon wrote the clock to stamp with in the header), and REFUSE,
 *     which ends ltt_user_wait_enabled() at once with the daemon's reason;
 *     when the daemon goes away, clear it and watch again
 *   each event (only while active): the thread's ring (claimed at its first
 *     event), the room tested first (a lost event costs no packing), the
 *     record written at head, head advanced (release); no room, no ring:
 *     counted lost, never waited for; the record that fills the ring past
 *     half writes the eventfd, so that the daemon drains before the
 *     ring is full rather than at its next tick
 *   thread exit (a pthread key's destructor): the ring marked closing and
 *     the daemon woken; it drains the ring, ends the stream, frees the
 *     ring for the next thread (with no daemon connected, the library
 *     frees it)
 *
 * LTT_USER_RING_SIZE (bytes, or with a K or M suffix; a power of two from
 * 4K to 16M; default 16M) sets each ring's size when the memfd is made.
 *
 * A forked child starts afresh: its first declaration makes new shared
 * memory (the parent's rings have one producer each, the parent's threads).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <ltt/user.h>
#include "user_shm.h"

struct ltt_user_type {
	uint32_t id;
	uint32_t min_size; /* of a record: all strings empty, rounded to 8 */
	uint8_t nfields;
	uint8_t field[LTT_USER_FIELDS_MAX];
};

volatile int ltt_user_active;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed;
static struct ltt_user_shm_header *shm;
static int memfd = -1;
static int wakefd = -1;		/* the daemon's wakeup (user_shm.h) */
static uint32_t ring_bytes;	/* of each ring, in this memfd */
static pthread_key_t ring_key;	/* its destructor gives the ring back */
static int sock = -1;		/* the connected daemon, -1: none */
static int tried;		/* the listener looked for a daemon once */
static unsigned int generation;	/* bumped in a forked child */
static struct ltt_user_type types[LTT_USER_SHM_TYPES];
static const struct ltt_user_type *mark_type;
static char paths[2 * PATH_MAX + 2];
/* Stamp records with CLOCK_MONOTONIC (the daemon's choice), not rdtsc. */
static int use_monotonic;
/* The daemon's REFUSE: it will not record us; why (under the lock). */
static int refused;
static char refusal[LTT_USER_MSG_TEXT];

/*
 * initial-exec: in the shared library too, a thread's ring is one load
 * from the thread pointer, not a __tls_get_addr() call per event.
 */
static __thread struct ltt_user_shm_ring *my_ring
	__attribute__((tls_model("initial-exec")));
static __thread unsigned int my_generation
	__attribute__((tls_model("initial-exec")));
static __thread int my_ring_failed __attribute__((tls_model("initial-exec")));

static struct ltt_user_shm_type *shm_types(void)
{
	return (struct ltt_user_shm_type *)((char *)shm +
					    LTT_USER_SHM_TYPES_OFF);
}

static struct ltt_user_shm_ring *shm_ring(unsigned int i)
{
	return (struct ltt_user_shm_ring *)((char *)shm +
					    LTT_USER_SHM_RING_OFF(i, ring_bytes));
}

static uint8_t *ring_data(struct ltt_user_shm_ring *r)
{
	return (uint8_t *)(r + 1);
}

static void wake_daemon(void)
{
	uint64_t one = 1;
	ssize_t n;

	if (wakefd < 0)
		return;
	/* EAGAIN: the counter is full, so the daemon is woken anyway */
	n = write(wakefd, &one, sizeof(one));
	(void)n;
}

/* Empties a ring that no thread owns and frees it; the lock held. */
static void free_ring(struct ltt_user_shm_ring *r)
{
	r->head = 0;
	r->tail = 0;
	r->lost = 0;
	__atomic_store_n(&r->closing, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&r->tid, 0, __ATOMIC_RELEASE);
}

/* With no daemon connected, closing rings are ours to free. Locked. */
static void free_closing_rings(void)
{
	unsigned int i;

	if (!shm)
		return;
	for (i = 0; i < LTT_USER_SHM_RINGS; i++) {
		struct ltt_user_shm_ring *r = shm_ring(i);

		if (__atomic_load_n(&r->closing, __ATOMIC_ACQUIRE))
			free_ring(r);
	}
}

/* LTT_USER_RING_SIZE, or the default (with a message when it is bad). */
static uint32_t ring_size_setting(void)
{
	const char *env = secure_getenv("LTT_USER_RING_SIZE");
	unsigned long long v;
	char *end;

	if (!env || !*env)
		return LTT_USER_RING_DEFAULT;
	errno = 0;
	v = strtoull(env, &end, 10);
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	if (errno || *end || v < LTT_USER_RING_MIN || v > LTT_USER_RING_MAX ||
	    (v & (v - 1))) {
		fprintf(stderr,
			"libltt-user: LTT_USER_RING_SIZE=%s is not a power of two from 4K to 16M; using 16M\n",
			env);
		return LTT_USER_RING_DEFAULT;
	}
	return (uint32_t)v;
}

/*
 * The root daemon's socket, then the user's (LTT_USER_SOCKET: only it).
 * secure_getenv: a setuid or file-capability program does not let its
 * caller's environment send its memfd to another socket.
 */
static void find_paths(void)
{
	const char *env = secure_getenv("LTT_USER_SOCKET");
	const char *xdg = secure_getenv("XDG_RUNTIME_DIR");

	if (env && *env) {
		snprintf(paths, sizeof(paths), "%s", env);
		return;
	}
	if (geteuid() != 0 && xdg && *xdg == '/')
		snprintf(paths, sizeof(paths), "/run/ltt/user.sock:%s/ltt/user.sock",
			 xdg);
	else
		snprintf(paths, sizeof(paths), "/run/ltt/user.sock");
}

const char *ltt_user_socket_paths(void)
{
	pthread_mutex_lock(&lock);
	if (!paths[0])
		find_paths();
	pthread_mutex_unlock(&lock);
	return paths;
}

static int try_connect(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(a.sun_path))
		return -1;
	strcpy(a.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
		return fd;
	close(fd);
	return -1;
}

static int send_register(int fd)
{
	struct ltt_user_msg m = { .magic = LTT_USER_MSG_MAGIC,
				  .version = LTT_USER_SHM_VERSION,
				  .kind = LTT_USER_MSG_REGISTER };
	char cbuf[CMSG_SPACE(2 * sizeof(int))] = { 0 };
	int fds[2] = { memfd, wakefd };
	int nfds = wakefd >= 0 ? 2 : 1;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = CMSG_SPACE(nfds * sizeof(int)) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
	memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	return sendmsg(fd, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(m) ? 0 : -1;
}

/* Watches the deepest existing directory above `path` for changes. */
static void watch_path(int in, const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	while ((slash = strrchr(dir, '/'))) {
		if (slash == dir)
			slash[1] = 0;
		else
			*slash = 0;
		if (inotify_add_watch(in, dir, IN_CREATE | IN_MOVED_TO |
					       IN_ATTRIB | IN_ONLYDIR) >= 0)
			return;
		if (slash == dir)
			return;
	}
}

/* A connected daemon's socket, waiting (inotify) until one answers. */
static int wait_for_daemon(void)
{
	char list[sizeof(paths)];
	char buf[4096];
	int in, fd = -1;

	for (;;) {
		char *p, *save = NULL;

		in = inotify_init1(IN_CLOEXEC);
		snprintf(list, sizeof(list), "%s", paths);
		for (p = strtok_r(list, ":", &save); p;
		     p = strtok_r(NULL, ":", &save))
			if (in >= 0)
				watch_path(in, p);
		snprintf(list, sizeof(list), "%s", paths);
		save = NULL;
		for (p = strtok_r(list, ":", &save); p && fd < 0;
		     p = strtok_r(NULL, ":", &save))
			fd = try_connect(p);
		if (fd >= 0 || in < 0) {
			if (in >= 0)
				close(in);
			return fd;
		}
		pthread_mutex_lock(&lock);
		tried = 1;
		pthread_cond_broadcast(&changed);
		pthread_mutex_unlock(&lock);
		while (read(in, buf, sizeof(buf)) < 0 && errno == EINTR)
			;
		close(in);
	}
}

static void set_state(int fd, int active)
{
	pthread_mutex_lock(&lock);
	if (fd < 0)
		free_closing_rings(); /* the daemon that would have is gone */
	if (fd != sock)
		refused = 0; /* another daemon: it decides afresh */
	sock = fd;
	tried = 1;
	/*
	 * The clock the daemon asked for, written before its ENABLE; taken
	 * before the flag that lets threads log, read after it (acquire).
	 */
	if (active)
		__atomic_store_n(&use_monotonic,
				 __atomic_load_n(&shm->clock, __ATOMIC_ACQUIRE) ==
					 LTT_USER_CLOCK_MONOTONIC,
				 __ATOMIC_RELAXED);
	/* Read without the lock by ltt_user_log() in every thread. */
	__atomic_store_n(&ltt_user_active, active, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
}

static void set_refused(const struct ltt_user_msg *m)
{
	pthread_mutex_lock(&lock);
	memcpy(refusal, m->text, sizeof(refusal));
	refusal[sizeof(refusal) - 1] = 0;
	refused = 1;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
}

static void *listener(void *arg)
{
	unsigned int gen = (unsigned int)(uintptr_t)arg;

	for (;;) {
		struct ltt_user_msg m;
		int fd = wait_for_daemon();
		ssize_t n;

		if (fd < 0)
			return NULL; /* no inotify: nothing can be traced */
		if (send_register(fd) != 0) {
			close(fd);
			sleep(1);
			continue;
		}
		set_state(fd, 0);
		while ((n = recv(fd, &m, sizeof(m), 0)) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				break;
			if (n != sizeof(m) || m.magic != LTT_USER_MSG_MAGIC)
				continue;
			if (m.kind == LTT_USER_MSG_ENABLE)
				set_state(fd, 1);
			else if (m.kind == LTT_USER_MSG_DISABLE)
				set_state(fd, 0);
			else if (m.kind == LTT_USER_MSG_REFUSE)
				set_refused(&m);
		}
		set_state(-1, 0);
		close(fd);
		if (gen != generation)
			return NULL;
	}
}

static void after_fork(void)
{
	/* Only this thread exists now; the parent's state is not ours. */
	pthread_mutex_init(&lock, NULL);
	ltt_user_active = 0;
	generation++;
	if (sock >= 0)
		close(sock);
	sock = -1;
	tried = 0;
	if (shm)
		munmap(shm, LTT_USER_SHM_SIZE(ring_bytes));
	shm = NULL;
	if (memfd >= 0)
		close(memfd);
	memfd = -1;
	if (wakefd >= 0)
		close(wakefd);
	wakefd = -1;
	/* The parent's ring: neither this thread's nor in our memory now. */
	pthread_setspecific(ring_key, NULL);
	mark_type = NULL;
	memset(types, 0, sizeof(types));
}

/*
 * A thread exits: its ring goes back. A connected daemon drains it first
 * and frees it (closing, then woken); without one, nobody will read it.
 */
static void ring_release(void *arg)
{
	struct ltt_user_shm_ring *r = arg;

	if (!r || r != my_ring || my_generation != generation)
		return;
	my_ring = NULL;
	pthread_mutex_lock(&lock);
	if (shm && sock >= 0) {
		__atomic_store_n(&r->closing, 1, __ATOMIC_RELEASE);
		wake_daemon();
	} else if (shm) {
		free_ring(r);
	}
	pthread_mutex_unlock(&lock);
}

static void init_once(void)
{
	pthread_condattr_t ca;

	pthread_key_create(&ring_key, ring_release);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&changed, &ca);
	pthread_atfork(NULL, NULL, after_fork);
}

/* The shared memory and the listener; 0 or -errno. Called locked. */
static int start_locked(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	sigset_t all, old;
	pthread_attr_t at;
	pthread_t t;
	void *p;
	int fd;

	pthread_once(&once, init_once);
	if (shm)
		return 0;
	if (!paths[0])
		find_paths();
	ring_bytes = ring_size_setting();
	fd = memfd_create("ltt-user", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, LTT_USER_SHM_SIZE(ring_bytes)) != 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
		goto fail_fd;
	p = mmap(NULL, LTT_USER_SHM_SIZE(ring_bytes), PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		goto fail_fd;
	shm = p;
	memfd = fd;
	/* Without an eventfd the daemon still drains at its tick. */
	wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	shm->magic = LTT_USER_SHM_MAGIC;
	shm->version = LTT_USER_SHM_VERSION;
	shm->size = (uint32_t)LTT_USER_SHM_SIZE(ring_bytes);
	shm->ring_bytes = ring_bytes;
	shm->clocks = LTT_USER_CLOCK_F_TSC | LTT_USER_CLOCK_F_MONOTONIC;

	/* The listener takes no signal meant for the application. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, (size_t)64 * 1024);
	if (pthread_create(&t, &at, listener,
			   (void *)(uintptr_t)generation) != 0)
		tried = 1;
	pthread_attr_destroy(&at);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return 0;

fail_fd:
	close(fd);
	return -errno;
}

static int parse_type(const char *s, uint8_t *type)
{
	static const char *const names[] = { "i64", "u64", "f64", "str" };
	unsigned int i;

	for (i = 0; i < 4; i++)
		if (!strcmp(s, names[i])) {
			*type = (uint8_t)(LTT_USER_I64 + i);
			return 0;
		}
	return -1;
}

/* Fills `e` from a declaration; 0 or -1. */
static int parse_decl(const char *name, const char *fields,
		      struct ltt_user_shm_type *e)
{
	char copy[2048];
	char *tok, *save = NULL;

	memset(e, 0, sizeof(*e));
	if (!name || !*name || strlen(name) >= LTT_USER_NAME_MAX)
		return -1;
	strcpy(e->names[0], name);
	if (!fields)
		fields = "";
	if (strlen(fields) >= sizeof(copy))
		return -1;
	strcpy(copy, fields);
	for (tok = strtok_r(copy, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		char *colon = strchr(tok, ':');

		if (!colon || colon == tok || e->nfields == LTT_USER_FIELDS_MAX)
			return -1;
		*colon = 0;
		if (strlen(tok) >= LTT_USER_NAME_MAX ||
		    parse_type(colon + 1, &e->field[e->nfields]))
			return -1;
		strcpy(e->names[++e->nfields], tok);
	}
	return 0;
}

struct ltt_user_type *ltt_user_declare(const char *name, const char *fields)
{
	struct ltt_user_shm_type d, *st;
	struct ltt_user_type *t = NULL;
	uint32_t i, n;
	int err;

	if (parse_decl(name, fields, &d)) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&lock);
	err = start_locked();
	if (err) {
		pthread_mutex_unlock(&lock);
		errno = -err;
		return NULL;
	}
	st = shm_types();
	n = __atomic_load_n(&shm->ntypes, __ATOMIC_RELAXED);
	for (i = 0; i < n && i < LTT_USER_SHM_TYPES; i++)
		if (st[i].nfields == d.nfields &&
		    !memcmp(st[i].field, d.field, sizeof(d.field)) &&
		    !memcmp(st[i].names, d.names, sizeof(d.names))) {
			t = &types[i];
			goto out;
		}
	if (n >= LTT_USER_SHM_TYPES - 1 && strcmp(name, "ltt_mark") != 0) {
		errno = ENOSPC; /* the last id is kept for ltt_mark */
		goto out;
	}
	if (n >= LTT_USER_SHM_TYPES) {
		errno = ENOSPC;
		goto out;
	}
	memcpy(&st[n], &d, sizeof(d));
	t = &types[n];
	t->id = n;
	t->nfields = d.nfields;
	memcpy(t->field, d.field, sizeof(t->field));
	t->min_size = sizeof(struct ltt_user_rec);
	for (i = 0; i < d.nfields; i++)
		t->min_size += d.field[i] == LTT_USER_STR ? 2 : 8;
	t->min_size = (t->min_size + 7) & ~7u;
	__atomic_store_n(&st[n].ready, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&shm->ntypes, n + 1, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&lock);
	return t;
}

/* A free ring taken for `tid`, or NULL; *closing: some ring is closing. */
static struct ltt_user_shm_ring *claim_ring(uint32_t tid, int *closing)
{
	unsigned int i;

	*closing = 0;
	for (i = 0; i < LTT_USER_SHM_RINGS; i++) {
		struct ltt_user_shm_ring *r = shm_ring(i);
		uint32_t free_tid = 0;

		if (__atomic_compare_exchange_n(&r->tid, &free_tid, tid, 0,
						__ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return r;
		if (__atomic_load_n(&r->closing, __ATOMIC_RELAXED))
			*closing = 1;
	}
	return NULL;
}

/*
 * This thread's ring, claimed at its first event; NULL when none is left.
 * When every ring is taken but some are closing (threads that exited,
 * waiting for the daemon to drain them), the thread wakes the daemon and
 * tries again for up to about 2 ms: once in the thread's life, so that
 * short-lived threads that follow one another do not lose their events.
 */
static struct ltt_user_shm_ring *thread_ring(void)
{
	struct timespec nap = { 0, 100000L };
	uint32_t tid;
	int closing, tries;

	if (my_generation != generation) {
		my_generation = generation;
		my_ring = NULL;
		my_ring_failed = 0;
	}
	if (my_ring || my_ring_failed || !shm)
		return my_ring;
	tid = (uint32_t)syscall(SYS_gettid);
	for (tries = 0; tries < 20; tries++) {
		struct ltt_user_shm_ring *r = claim_ring(tid, &closing);

		if (r) {
			my_ring = r;
			pthread_setspecific(ring_key, r);
			return r;
		}
		if (!closing)
			break;
		wake_daemon();
		nanosleep(&nap, NULL);
	}
	my_ring_failed = 1;
	return NULL;
}

/* Packs the values into `out` (LTT_USER_PAYLOAD_MAX bytes); their size. */
static size_t pack(const struct ltt_user_type *t, va_list ap, uint8_t *out)
{
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < t->nfields; i++) {
		int64_t i64;
		uint64_t u64;
		double f64;
		const char *s;
		size_t len, room;
		uint16_t l16;

		switch (t->field[i]) {
		case LTT_USER_I64:
			i64 = va_arg(ap, int64_t);
			memcpy(out + n, &i64, 8);
			n += 8;
			break;
		case LTT_USER_U64:
			u64 = va_arg(ap, uint64_t);
			memcpy(out + n, &u64, 8);
			n += 8;
			break;
		case LTT_USER_F64:
			f64 = va_arg(ap, double);
			memcpy(out + n, &f64, 8);
			n += 8;
			break;
		default:
			s = va_arg(ap, const char *);
			if (!s)
				s = "";
			/* room for this string and 8 bytes per later field */
			room = LTT_USER_PAYLOAD_MAX - n - 2 -
			       8ul * (t->nfields - i - 1u);
			len = strnlen(s, room);
			l16 = (uint16_t)len;
			memcpy(out + n, &l16, 2);
			memcpy(out + n + 2, s, len);
			n += 2 + len;
			break;
		}
	}
	return n;
}

/* Copies `n` bytes into the ring at byte position `pos`, wrapping. */
static void ring_put(struct ltt_user_shm_ring *r, uint64_t pos, const void *p,
		     size_t n)
{
	size_t at = pos & (ring_bytes - 1);
	size_t first = n < ring_bytes - at ? n : ring_bytes - at;

	memcpy(ring_data(r) + at, p, first);
	memcpy(ring_data(r), (const char *)p + first, n - first);
}

/*
 * CLOCK_MONOTONIC in ns, through the vDSO where the clocksource allows it
 * (tsc, kvm-clock; hpet and acpi_pm make it a system call).
 */
static inline uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int log_va(const struct ltt_user_type *t, va_list ap)
{
	union {
		struct ltt_user_rec h;
		uint8_t b[LTT_USER_REC_MAX + 8];
	} rec;
	struct ltt_user_shm_ring *r;
	uint64_t head, used;
	size_t size;

	if (!t || !__atomic_load_n(&ltt_user_active, __ATOMIC_ACQUIRE))
		return -EAGAIN;
	r = thread_ring();
	if (!r) {
		if (shm)
			__atomic_fetch_add(&shm->lost_no_ring, 1,
					   __ATOMIC_RELAXED);
		return -ENOBUFS;
	}
	/*
	 * Room first: a full ring loses the event before any packing. The
	 * smallest record of the type (empty strings) not fitting settles it;
	 * otherwise the record is packed and measured.
	 */
	head = r->head;
	used = head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	if (ring_bytes - used < t->min_size)
		goto lost;
	size = sizeof(rec.h) + pack(t, ap, rec.b + sizeof(rec.h));
	size = (size + 7) & ~(size_t)7;
	if (ring_bytes - used < size)
		goto lost;
	rec.h.size = (uint16_t)size;
	rec.h.reserved = 0;
	rec.h.type = t->id;
	rec.h.tsc = __builtin_expect(__atomic_load_n(&use_monotonic,
						     __ATOMIC_RELAXED), 0) ?
			    monotonic_ns() :
			    __rdtsc();
	ring_put(r, head, rec.b, size);
	__atomic_store_n(&r->head, head + size, __ATOMIC_RELEASE);
	/* Half full: the daemon drains now, not at its next tick. */
	if (used < ring_bytes / 2 && used + size >= ring_bytes / 2)
		wake_daemon();
	return 0;
lost:
	__atomic_store_n(&r->lost, r->lost + 1, __ATOMIC_RELAXED);
	return -ENOBUFS;
}

void ltt_user_log_event(const struct ltt_user_type *t, ...)
{
	va_list ap;

	va_start(ap, t);
	log_va(t, ap);
	va_end(ap);
}

static int log_one(const struct ltt_user_type *t, ...)
{
	va_list ap;
	int r;

	va_start(ap, t);
	r = log_va(t, ap);
	va_end(ap);
	return r;
}

int ltt_user_mark(const char *text)
{
	if (!mark_type) {
		const struct ltt_user_type *t =
			ltt_user_declare("ltt_mark", "text:str");
		if (!t)
			return -errno;
		mark_type = t;
	}
	return log_one(mark_type, text);
}

int ltt_user_snapshot(void)
{
	struct ltt_user_msg m = { .magic = LTT_USER_MSG_MAGIC,
				  .version = LTT_USER_SHM_VERSION,
				  .kind = LTT_USER_MSG_SNAPSHOT };
	char comm[17] = "";
	int fd, r = -ENOTCONN;
	FILE *f = fopen("/proc/self/comm", "re");

	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
	snprintf(m.text, sizeof(m.text), "requested by %s (pid %d)", comm,
		 (int)getpid());
	pthread_mutex_lock(&lock);
	fd = sock;
	if (fd >= 0)
		r = send(fd, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT) ==
		    (ssize_t)sizeof(m) ? 0 : -errno;
	pthread_mutex_unlock(&lock);
	return r;
}

static void deadline_after(struct timespec *ts, int ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

int ltt_user_wait_enabled(int timeout_ms)
{
	struct timespec until;
	int r = 0;

	deadline_after(&until, timeout_ms);
	pthread_mutex_lock(&lock);
	if (start_locked() != 0) {
		pthread_mutex_unlock(&lock);
		return -ENOENT;
	}
	while (!ltt_user_active && !refused && r != ETIMEDOUT)
		r = pthread_cond_timedwait(&changed, &lock, &until);
	r = ltt_user_active ? 0 : refused ? -EPERM : sock >= 0 ? -ETIMEDOUT : -ENOENT;
	pthread_mutex_unlock(&lock);
	return r;
}

static int rings_empty(void)
{
	unsigned int i;

	for (i = 0; i < LTT_USER_SHM_RINGS; i++) {
		struct ltt_user_shm_ring *r = shm_ring(i);

		if (__atomic_load_n(&r->tid, __ATOMIC_ACQUIRE) &&
		    __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) !=
			    __atomic_load_n(&r->head, __ATOMIC_ACQUIRE))
			return 0;
	}
	return 1;
}

int ltt_user_flush(int timeout_ms)
{
	struct timespec until, now, nap = { 0, 1000000L };

	deadline_after(&until, timeout_ms);
	for (;;) {
		int connected;

		pthread_mutex_lock(&lock);
		connected = sock >= 0 && shm && ltt_user_active;
		pthread_mutex_unlock(&lock);
		if (!connected)
			return -ENOTCONN;
		if (rings_empty())
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > until.tv_sec ||
		    (now.tv_sec == until.tv_sec && now.tv_nsec >= until.tv_nsec))
			return -ETIMEDOUT;
		nanosleep(&nap, NULL);
	}
}

int ltt_user_refusal(char *buf, size_t size)
{
	int r;

	if (!buf || !size)
		return -EINVAL;
	pthread_mutex_lock(&lock);
	r = refused ? 0 : -ENOENT;
	snprintf(buf, size, "%s", refused ? refusal : "");
	pthread_mutex_unlock(&lock);
	return r;
}
