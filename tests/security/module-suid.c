// SPDX-License-Identifier: GPL-2.0
/*
 * The setuid-root helper of the restricted-session attacks
 * (module-security-guest.sh installs it root-owned, mode 4755, and
 * ltt_modtest security attacks runs it as uid 1000): what a setuid
 * program does that its user may not watch. It opens /etc/shadow, maps
 * an executable file and calls getppid() 1000 times; it exits 0 when all
 * of that worked as root, else 1..4 by what failed.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	void *p;
	int fd, i;

	if (geteuid() != 0)
		return 1;
	fd = open("/etc/shadow", O_RDONLY);
	if (fd < 0)
		return 2;
	close(fd);
	fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0)
		return 3;
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return 4;
	for (i = 0; i < 1000; i++)
		syscall(SYS_getppid);
	return 0;
}
