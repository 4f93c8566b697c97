// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * ltt-mark: writes one "ltt_mark" event into the running trace, or asks the
 * daemon for a flight-recorder snapshot (man/ltt-mark.1.scd).
 *
 * A marker from a program that lives a few milliseconds must not be lost,
 * so ltt-mark does what a long-lived program does not need to: it waits
 * (bounded) until the daemon has registered and enabled it, logs the event,
 * then waits (bounded) until the daemon has taken the event out of the
 * ring, before it exits and its shared memory goes away.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ltt/user.h>

#define ENABLE_TIMEOUT_MS 1000
#define DRAIN_TIMEOUT_MS 2000

static const char usage[] =
	"usage: ltt-mark TEXT\n"
	"       ltt-mark --snapshot\n"
	"Logs TEXT as an ltt_mark event in the trace tracedaemon is recording,\n"
	"or (--snapshot) asks it for a flight-recorder snapshot.\n"
	"  --snapshot   ask the daemon for a snapshot\n"
	"  --help       print this help\n"
	"The daemon's socket: LTT_USER_SOCKET, else /run/ltt/user.sock (and\n"
	"$XDG_RUNTIME_DIR/ltt/user.sock for a non-root user).\n"
	"Exit status: 0 done, 1 not done (the message says why), 2 usage.\n";

static int connect_daemon(void)
{
	int r = ltt_user_wait_enabled(ENABLE_TIMEOUT_MS);

	char why[128];

	if (r == -ENOENT)
		fprintf(stderr, "ltt-mark: no tracedaemon is running (no socket at %s)\n",
			ltt_user_socket_paths());
	else if (r == -EPERM && ltt_user_refusal(why, sizeof(why)) == 0)
		fprintf(stderr, "ltt-mark: tracedaemon records no events of this process: %s\n",
			why);
	else if (r == -ETIMEDOUT)
		fprintf(stderr,
			"ltt-mark: tracedaemon did not answer this process within %d ms\n",
			ENABLE_TIMEOUT_MS);
	else if (r)
		fprintf(stderr, "ltt-mark: cannot reach tracedaemon: %s\n",
			strerror(-r));
	return r;
}

int main(int argc, char **argv)
{
	int r;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc != 2 || (argv[1][0] == '-' && strcmp(argv[1], "--snapshot") != 0 &&
			  strcmp(argv[1], "--") != 0)) {
		fputs(usage, stderr);
		return 2;
	}
	if (connect_daemon())
		return 1;
	if (!strcmp(argv[1], "--snapshot")) {
		r = ltt_user_snapshot();
		if (r) {
			fprintf(stderr, "ltt-mark: cannot ask for a snapshot: %s\n",
				strerror(-r));
			return 1;
		}
		return 0;
	}
	r = ltt_user_mark(argv[1]);
	if (r) {
		fprintf(stderr, "ltt-mark: the mark was not logged: %s\n",
			strerror(-r));
		return 1;
	}
	r = ltt_user_flush(DRAIN_TIMEOUT_MS);
	if (r) {
		fprintf(stderr,
			"ltt-mark: tracedaemon did not take the mark within %d ms: %s\n",
			DRAIN_TIMEOUT_MS, strerror(-r));
		return 1;
	}
	return 0;
}
