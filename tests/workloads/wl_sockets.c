// SPDX-License-Identifier: MIT
/*
 * wl_sockets N SIZE: a parent and a child exchange N messages of SIZE bytes
 * over a UNIX stream socket pair (send/recv), then the parent also creates a
 * SysV message queue, semaphore set and shared-memory segment and removes
 * them, so socket and IPC events both appear in the trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int recv_all(int fd, char *buf, long size)
{
	for (long got = 0; got < size;) {
		ssize_t r = recv(fd, buf + got, size - got, 0);

		if (r <= 0)
			return -1;
		got += r;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3 || atol(argv[1]) <= 0 || atol(argv[2]) <= 0 || atol(argv[2]) > 65536) {
		fprintf(stderr, "usage: wl_sockets N SIZE (N > 0, SIZE in 1..65536)\n");
		return 2;
	}
	long n = atol(argv[1]), size = atol(argv[2]);
	static char buf[65536];

	memset(buf, 's', sizeof(buf));
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		perror("socketpair");
		return 1;
	}
	pid_t child = fork();

	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		for (long i = 0; i < n; i++)
			if (recv_all(sv[1], buf, size) || send(sv[1], buf, size, 0) != size)
				_exit(1);
		_exit(0);
	}
	for (long i = 0; i < n; i++) {
		if (send(sv[0], buf, size, 0) != size || recv_all(sv[0], buf, size)) {
			perror("send/recv");
			return 1;
		}
	}
	int status;

	waitpid(child, &status, 0);

	int q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	int s = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	int m = shmget(IPC_PRIVATE, 65536, IPC_CREAT | 0600);

	if (q < 0 || s < 0 || m < 0) {
		perror("SysV IPC");
		return 1;
	}
	msgctl(q, IPC_RMID, NULL);
	semctl(s, 0, IPC_RMID);
	shmctl(m, IPC_RMID, NULL);
	return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
