// SPDX-License-Identifier: MIT
/*
 * wl_odirect DEVICE COUNT: COUNT reads of 4 KiB with O_DIRECT from DEVICE at
 * spread-out offsets, so each one goes to the (virtio) disk and the process
 * waits for I/O. The trace must show I/O-wait time for this process.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3 || atol(argv[2]) <= 0) {
		fprintf(stderr, "usage: wl_odirect DEVICE COUNT (COUNT > 0)\n");
		return 2;
	}
	long count = atol(argv[2]);
	int fd = open(argv[1], O_RDONLY | O_DIRECT);

	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	unsigned long long bytes = 0;

	if (ioctl(fd, BLKGETSIZE64, &bytes) != 0 || bytes < 8192) {
		fprintf(stderr, "wl_odirect: %s: cannot get a usable size\n", argv[1]);
		return 1;
	}
	void *buf;

	if (posix_memalign(&buf, 4096, 4096)) {
		perror("posix_memalign");
		return 1;
	}
	unsigned long long blocks = bytes / 4096;

	for (long i = 0; i < count; i++) {
		off_t off = (off_t)(((unsigned long long)i * 7919) % blocks) * 4096;

		if (pread(fd, buf, 4096, off) != 4096) {
			perror("pread");
			return 1;
		}
	}
	close(fd);
	return 0;
}
