// SPDX-License-Identifier: GPL-2.0
/*
 * ltt-workload: exercise every kernel path the LTT hooks sit on, so a
 * counting probe sees every event type (tests/suites/50-kernel.sh).
 * Static binary for the QEMU guest. Usage:
 *   ltt-workload [--disk DEV] [--swap]
 *     --disk DEV  read DEV uncached (I/O wait, page wait events)
 *     --swap      page anonymous memory out and back in (needs swap on)
 *   ltt-workload --getppid-loop N   (benchmark: N getppid + read calls;
 *                                    prints "loop_ns NANOSECONDS")
 *   ltt-workload --ip-test DIR      (syscall IP policy, with the probe's
 *                                    debugfs directory DIR)
 * Prints one line per step; exits non-zero when a step fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

static int failures;

#define CHECK(cond, what)                                                   \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "ltt-workload: %s failed: %s\n", what, \
				strerror(errno));                           \
			failures++;                                         \
		}                                                           \
	} while (0)

static volatile sig_atomic_t got_alarm, got_usr1, got_ill;

static void on_alarm(int sig) { (void)sig; got_alarm = 1; }
static void on_usr1(int sig) { (void)sig; got_usr1 = 1; }

static void on_ill(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	(void)sig;
	(void)si;
	got_ill = 1;
	uc->uc_mcontext.gregs[REG_RIP] += 2; /* skip the ud2 */
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void step_files(void)
{
	char buf[4096];
	int fd, p[2], n;
	fd_set rfds;
	struct timeval tv = { 0, 1000 };
	struct pollfd pfd;

	fd = open("/tmp/ltt-workload.txt", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK(fd >= 0, "open");
	CHECK(write(fd, "hello ltt\n", 10) == 10, "write");
	CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek");
	CHECK(read(fd, buf, sizeof(buf)) == 10, "read");
	CHECK(close(fd) == 0, "close");

	CHECK(pipe(p) == 0, "pipe");
	CHECK(write(p[1], "x", 1) == 1, "pipe write");
	CHECK(ioctl(p[0], FIONREAD, &n) == 0 && n == 1, "ioctl FIONREAD");
	FD_ZERO(&rfds);
	FD_SET(p[0], &rfds);
	CHECK(select(p[0] + 1, &rfds, NULL, NULL, &tv) == 1, "select");
	pfd.fd = p[0];
	pfd.events = POLLIN;
	CHECK(poll(&pfd, 1, 10) == 1, "poll");
	close(p[0]);
	close(p[1]);
	printf("files: open write lseek read close ioctl select poll\n");
}

static void step_process(void)
{
	pid_t child;
	int status;

	signal(SIGUSR1, on_usr1);
	child = fork();
	CHECK(child >= 0, "fork");
	if (child == 0) {
		/* Wait for the parent's signal, then exec something small. */
		while (!got_usr1)
			pause();
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	usleep(20000);
	CHECK(kill(child, SIGUSR1) == 0, "kill");
	CHECK(waitpid(child, &status, 0) == child, "waitpid");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child exit status");
	printf("process: fork signal exec exit wait\n");
}

static void step_traps(void)
{
	struct sigaction sa;
	char *p;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_ill;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGILL, &sa, NULL);
	__asm__ volatile("ud2");
	CHECK(got_ill, "ud2 trap");

	p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED, "mmap");
	if (p != MAP_FAILED) {
		for (int i = 0; i < (1 << 20); i += 4096)
			p[i] = 1; /* page faults, page allocations */
		munmap(p, 1 << 20);
	}
	printf("traps: invalid opcode, page faults\n");
}

static void step_timers(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 20000 } };
	struct timeval tv = { 0, 20000 };
	int sv[2];
	char c;
	double t0;

	signal(SIGALRM, on_alarm);
	CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0, "setitimer");
	t0 = now();
	while (!got_alarm && now() - t0 < 5)
		pause();
	CHECK(got_alarm, "SIGALRM");

	/* A receive timeout sleeps in schedule_timeout(). */
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	CHECK(setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0,
	      "SO_RCVTIMEO");
	CHECK(recv(sv[0], &c, 1, 0) < 0 && (errno == EAGAIN || errno == EWOULDBLOCK),
	      "recv timeout");
	close(sv[0]);
	close(sv[1]);
	printf("timers: setitimer expired, schedule_timeout\n");
}

static void step_sockets(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	char buf[64];
	int s, r;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	r = socket(AF_INET, SOCK_DGRAM, 0);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(r >= 0 && s >= 0, "socket");
	CHECK(bind(r, (struct sockaddr *)&a, sizeof(a)) == 0, "bind");
	CHECK(getsockname(r, (struct sockaddr *)&a, &len) == 0, "getsockname");
	CHECK(sendto(s, "ping", 4, 0, (struct sockaddr *)&a, sizeof(a)) == 4,
	      "sendto");
	CHECK(recv(r, buf, sizeof(buf), 0) == 4, "recv");
	close(r);
	close(s);
	printf("sockets: udp over loopback\n");
}

static void step_ipc(void)
{
	int q, sem, shm;
	struct sembuf op = { 0, 1, 0 };
	void *p;

	q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	sem = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	shm = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	CHECK(q >= 0 && sem >= 0 && shm >= 0, "ipc create");
	CHECK(semop(sem, &op, 1) == 0, "semop");
	p = shmat(shm, NULL, 0);
	CHECK(p != (void *)-1, "shmat");
	if (p != (void *)-1)
		shmdt(p);
	msgctl(q, IPC_RMID, NULL);
	semctl(sem, 0, IPC_RMID);
	shmctl(shm, IPC_RMID, NULL);
	printf("ipc: msgget semget shmget semop shmat\n");
}

static void step_disk(const char *dev)
{
	char *buf;
	int fd;
	ssize_t n, total = 0;

	fd = open(dev, O_RDONLY);
	CHECK(fd >= 0, "open disk");
	if (fd < 0)
		return;
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	buf = malloc(1 << 16);
	while (total < (4 << 20) && (n = read(fd, buf, 1 << 16)) > 0)
		total += n;
	CHECK(total > 0, "read disk");
	free(buf);
	close(fd);
	printf("disk: read %zd bytes from %s\n", total, dev);
}

static long meminfo_kb(const char *key)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			kb = atol(line + strlen(key));
	if (f)
		fclose(f);
	return kb;
}

/* The anonymous memory the swap step pages out and back in. */
#define SWAP_LEN (8 << 20)

/* How many pages of the SWAP_LEN bytes at P are in memory or swap cache. */
static size_t resident_pages(volatile char *p)
{
	unsigned char vec[SWAP_LEN / 4096];
	size_t in = 0;

	if (mincore((void *)p, SWAP_LEN, vec))
		return sizeof(vec);
	for (size_t i = 0; i < sizeof(vec); i++)
		in += vec[i] & 1;
	return in;
}

/* The integer in a /proc/sys file, or -1. */
static long sysctl_get(const char *path)
{
	FILE *f = fopen(path, "r");
	long val = -1;

	if (f && fscanf(f, "%ld", &val) != 1)
		val = -1;
	if (f)
		fclose(f);
	return val;
}

/* Write VAL to a /proc/sys file (the kernel checks it on close); 1 if taken. */
static int sysctl_set(const char *path, long val)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return 0;
	ok = fprintf(f, "%ld\n", val) > 0;
	return !fclose(f) && ok;
}

/*
 * MADV_PAGEOUT writes the pages to swap, but they stay in the swap cache
 * until reclaim frees them; only then does touching them read them back.
 * The reclaim is kswapd's, never the allocator's: with the watermark scale
 * factor at its maximum, kswapd wakes when free memory falls under the low
 * watermark (min + 30% of memory) and frees what it can, the clean
 * swap-cache pages first. The pressure, locked so that reclaim cannot
 * swap it out, grows a megabyte at a time only while free memory stays
 * above an eighth of the total, far above the min watermark where the
 * allocator would reclaim itself and, failing, call the OOM killer. (It
 * used to press until the allocator reclaimed; on a KASAN kernel under TCG
 * that filled the swap and the OOM killer took the workload.) Growing the
 * pressure is slow there (about 8 MB/s); the step gives up after 3 min.
 */
static void step_swap(void)
{
	const char *wsf = "/proc/sys/vm/watermark_scale_factor";
	const size_t len = SWAP_LEN, step = 1 << 20;
	volatile char *p, *q;
	long total_kb, old_wsf, bad = 0;
	size_t big, used = 0, left;
	double t0;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	CHECK(p != MAP_FAILED, "mmap swap");
	if (p == MAP_FAILED)
		return;
	for (size_t i = 0; i < len; i += 4096)
		p[i] = (char)(i >> 12) | 1;
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
	CHECK(madvise((void *)p, len, MADV_PAGEOUT) == 0, "madvise(MADV_PAGEOUT)");
	/* Clean once the disk has them: wait up to 10 s for the writeback. */
	usleep(100000);
	for (int i = 0; i < 200 && meminfo_kb("Writeback:") > 0; i++)
		usleep(50000);
	old_wsf = sysctl_get(wsf);
	CHECK(old_wsf > 0 && sysctl_set(wsf, 3000),
	      "raise vm.watermark_scale_factor");
	total_kb = meminfo_kb("MemTotal:");
	big = (size_t)(total_kb > 0 ? total_kb : 65536) * 1024;
	q = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	left = resident_pages(p);
	t0 = now();
	while (q != MAP_FAILED && left > 0 && now() - t0 < 180) {
		if (used + step <= big &&
		    meminfo_kb("MemFree:") - (long)(step >> 10) > total_kb / 8) {
			/* Locked: reclaim cannot swap the pressure itself out. */
			if (mlock((void *)(q + used), step))
				break;
			used += step;
		} else {
			usleep(20000); /* kswapd is reclaiming */
		}
		left = resident_pages(p);
	}
	if (q != MAP_FAILED)
		munmap((void *)q, big);
	if (old_wsf > 0)
		sysctl_set(wsf, old_wsf);
	for (size_t i = 0; i < len; i += 4096)
		bad += p[i] != ((char)(i >> 12) | 1);
	munmap((void *)p, len);
	CHECK(left == 0, "reclaim the paged-out memory");
	CHECK(bad == 0, "read the swapped-out pages back intact");
	printf("swap: paged out, pressure %zu MB, %zu of %zu pages still resident after %.1f s, %ld wrong after swap-in\n",
	       used >> 20, left, len / 4096, now() - t0, bad);
}

/*
 * Syscall IP policy test. ip_leaf() makes the system call through glibc's
 * syscall(), which sets up no frame, so at the syscall instruction the
 * frame pointer is ip_leaf()'s: one frame up is the return address into
 * ip_mid(), two frames up the one into ip_top(). Built with frame pointers.
 */
static const char *probe_dir;

static void probe_write(const char *file, const char *text)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", probe_dir, file);
	fd = open(path, O_WRONLY);
	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text),
	      path);
	if (fd >= 0)
		close(fd);
}

static unsigned long probe_last_ip(void)
{
	char path[256], buf[64] = "";
	int fd;

	snprintf(path, sizeof(path), "%s/last_ip", probe_dir);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf) - 1) > 0, path);
	if (fd >= 0)
		close(fd);
	return strtoul(buf, NULL, 16);
}

__attribute__((noinline)) static void ip_leaf(void)
{
	syscall(SYS_getppid);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void ip_mid(void)
{
	ip_leaf();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void ip_top(void)
{
	ip_mid();
	__asm__ volatile("" ::: "memory");
}

static int in_fn(unsigned long ip, void (*fn)(void))
{
	unsigned long a = (unsigned long)fn;

	return ip > a && ip < a + 128;
}

static int ip_test(const char *dir)
{
	char buf[128];
	unsigned long ip;
	unsigned long sc = (unsigned long)&syscall;

	probe_dir = dir;
	snprintf(buf, sizeof(buf), "%d", getpid());
	probe_write("watch_pid", buf);

	probe_write("ip_policy", "0 0 0");
	ip_top();
	ip = probe_last_ip();
	printf("depth 0: ip %#lx (syscall() at %#lx)\n", ip, sc);
	CHECK(ip > sc && ip < sc + 256, "depth 0: IP inside syscall()");

	probe_write("ip_policy", "1 0 0");
	ip_top();
	ip = probe_last_ip();
	printf("depth 1: ip %#lx (ip_mid at %#lx)\n", ip, (unsigned long)ip_mid);
	CHECK(in_fn(ip, ip_mid), "depth 1: IP inside ip_mid()");

	probe_write("ip_policy", "2 0 0");
	ip_top();
	ip = probe_last_ip();
	printf("depth 2: ip %#lx (ip_top at %#lx)\n", ip, (unsigned long)ip_top);
	CHECK(in_fn(ip, ip_top), "depth 2: IP inside ip_top()");

	snprintf(buf, sizeof(buf), "0 %lx %lx", (unsigned long)ip_top,
		 (unsigned long)ip_top + 128);
	probe_write("ip_policy", buf);
	ip_top();
	ip = probe_last_ip();
	printf("range ip_top: ip %#lx\n", ip);
	CHECK(in_fn(ip, ip_top), "range: first IP inside ip_top()");

	/* A range nothing falls in: the syscall instruction's IP. */
	probe_write("ip_policy", "0 1000 2000");
	ip_top();
	ip = probe_last_ip();
	printf("range miss: ip %#lx\n", ip);
	CHECK(ip > sc && ip < sc + 256, "range miss: IP inside syscall()");

	probe_write("ip_policy", "0 0 0");
	printf("ip-test: %d failures\n", failures);
	return failures ? 1 : 0;
}

static int getppid_loop(long n)
{
	char buf[64];
	int fd = open("/dev/zero", O_RDONLY);
	double t0;

	if (fd < 0)
		return 1;
	t0 = now();
	for (long i = 0; i < n; i++) {
		syscall(SYS_getppid);
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			return 1;
	}
	printf("loop_ns %.0f\n", (now() - t0) * 1e9);
	close(fd);
	return 0;
}

static int print_usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [--disk DEV] [--swap] | --getppid-loop N\n",
		argv0);
	return 2;
}

int main(int argc, char **argv)
{
	const char *disk = NULL;
	int swap = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--disk") && i + 1 < argc)
			disk = argv[++i];
		else if (!strcmp(argv[i], "--swap"))
			swap = 1;
		else if (!strcmp(argv[i], "--getppid-loop") && i + 1 < argc)
			return getppid_loop(atol(argv[++i]));
		else if (!strcmp(argv[i], "--ip-test") && i + 1 < argc)
			return ip_test(argv[++i]);
		else
			return print_usage(argv[0]);
	}
	step_files();
	step_process();
	step_traps();
	step_timers();
	step_sockets();
	step_ipc();
	if (disk)
		step_disk(disk);
	if (swap)
		step_swap();
	printf("ltt-workload: %d failures\n", failures);
	return failures ? 1 : 0;
}
