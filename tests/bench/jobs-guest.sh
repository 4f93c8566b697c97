#!/bin/sh
# Runs inside the QEMU guest for scripts/bench-jobs.sh (make bench-jobs):
# real jobs timed untraced and under tracedaemon in four configurations,
# interleaved within this boot. The layout is tests/lib/vm-guest.sh's:
# tracedaemon and jobtime in /opt/ltt/bin, wl_pingpong in
# /opt/ltt/workloads.
# usage: jobs-guest.sh REPS SCALE BUFFER CLOCK [JOB...]  (CLOCK: the module's clock= parameter)
#   REPS    timed runs of each job in each configuration
#   SCALE   the jobs' size in percent (100: the sizes below)
#   BUFFER  tracedaemon -b (the module's per-CPU buffers)
#   JOB     compress findgrep sort forks pingpong (default: all)
# Writes to /out:
#   runs.txt       one line per timed run:
#                  run JOB CONFIG REP NS TRACE_BYTES LOST EXIT CPU
#                  (NS: the job's time; CPU: the CPU time the daemon used
#                  while the job ran, ns, from jobtime; 0 untraced)
#   JOB-CONFIG.trace/.proc/.log   the last rep's trace of each pair
#   results.txt    "FAIL - ..." for a job or daemon that failed
#   jobs.txt       what each job does, as run
# shellcheck source-path=SCRIPTDIR source=../lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
set -u
reps=${1:-3}
scale=${2:-100}
buffer=${3:-1M}
clock=${4:-auto}
shift 4 2>/dev/null || shift $#
jobs=${*:-compress findgrep sort forks pingpong}
W=$LTT/workloads
tree=/tmp/tree
runs=$out/runs.txt
: >"$runs"

ltt_load_first "clock=$clock" || { fail "/dev/tracer" "not created"; ltt_finish; exit 1; }

# The file tree: 8 directories of 40 C-like text files, each 300 lines of
# words drawn from a fixed vocabulary with a fixed seed (about 3 MB in all
# at SCALE 100; the same bytes in every boot).
nfiles=$((40 * scale / 100))
[ "$nfiles" -ge 1 ] || nfiles=1
awk -v root=$tree -v nd=8 -v nf="$nfiles" -v nl=300 'BEGIN {
	srand(7)
	nw = split("static int const struct return if else for while unsigned " \
		"long char void size_t buffer event trace block count lock spin " \
		"irq save restore cpu task pid state read write open close map " \
		"page entry exit sched wake timer list head node next prev data " \
		"len offset flags mask error value result", w, " ")
	for (d = 0; d < nd; d++) {
		system("mkdir -p " root "/d" d)
		for (f = 0; f < nf; f++) {
			file = root "/d" d "/f" f ".c"
			for (l = 0; l < nl; l++) {
				n = int(rand() * 9)
				line = substr("\t\t\t", 1, int(rand() * 4))
				for (k = 0; k < n; k++)
					line = line w[int(rand() * nw) + 1] (rand() < 0.2 ? "_" int(rand() * 1000) : "") " "
				print line (n ? ";" : "") > file
			}
			close(file)
		}
	}
}' || { fail "file tree" "awk failed"; ltt_finish; exit 1; }
note "file tree: $(find $tree -type f | wc -l) files, $(du -sk $tree | cut -f1) KiB"

# The jobs. Each is one shell command line, run by jobtime as sh -c; its
# output goes to /tmp and is removed between runs (outside the timing).
forks_n=$((600 * scale / 100))
pingpong_n=$((50000 * scale / 100))
job_cmd() {
	case $1 in
	compress) echo "tar -cf - -C /tmp tree | gzip -6 >/tmp/job.out" ;;
	findgrep) echo "find $tree -type f -name '*.c' | xargs grep -c -w -e spin -e 'lock_[0-9]*' >/tmp/job.out" ;;
	sort) echo "cat $tree/d*/*.c | sort >/tmp/job.out" ;;
	forks) echo "i=0; while [ \$i -lt $forks_n ]; do f=$tree/d\$((i % 8))/f\$((i % $nfiles)).c; n=\$(head -n 5 \$f | wc -w); echo \$i \$n >>/tmp/job.out; i=\$((i + 1)); done" ;;
	pingpong) echo "$W/wl_pingpong $pingpong_n" ;;
	*) return 1 ;;
	esac
}
for j in $jobs; do
	job_cmd "$j" >/dev/null || { fail "job $j" "unknown job"; ltt_finish; exit 1; }
	echo "$j: $(job_cmd "$j")" >>"$out/jobs.txt"
done

# The process the PID filter names: alive all along, never scheduled, so
# the hooks test every event against the filter and record none of it.
sleep 1000000 &
bystander=$!

# tracedaemon's options per configuration (every traced run also gets -b).
config_opts() {
	case $1 in
	core) echo "-e CORE" ;;
	all) echo "-D NONE" ;;
	details) echo "" ;;
	pid) echo "-P $bystander" ;;
	esac
}

# run JOB CONFIG REP: one timed run; REP 0 is a warm-up, not recorded.
run() {
	cmd=$(job_cmd "$1")
	ns='' cpu=''
	rm -f /tmp/job.out /tmp/ns /tmp/t.trace /tmp/t.proc /tmp/t.log
	sync
	if [ "$2" = base ]; then
		jobtime /tmp/ns sh -c "$cmd"
		rc=$?
		bytes=0 lost=0
	else
		# shellcheck disable=SC2046 # config_opts is a word list
		tracedaemon -b "$buffer" $(config_opts "$2") /tmp/t.trace /tmp/t.proc \
			-- jobtime /tmp/ns sh -c "$cmd" >/tmp/t.log 2>&1
		rc=$?
		bytes=$(wc -c </tmp/t.trace 2>/dev/null || echo 0)
		lost=$(sed -n 's/.*tracedaemon: \([0-9]*\) events lost.*/\1/p' /tmp/t.log | head -n 1)
		lost=${lost:-0}
	fi
	# jobtime: "NS CPU", CPU the parent's (the daemon's) CPU time.
	read -r ns cpu 2>/dev/null </tmp/ns
	[ "$2" = base ] && cpu=0
	if [ "$rc" -ne 0 ] || [ -z "$ns" ]; then
		fail "$1 $2 rep $3" "exit status $rc: $(tail -n 2 /tmp/t.log 2>/dev/null | tr '\n' ' ')"
	fi
	[ "$3" -eq 0 ] && return
	echo "run $1 $2 $3 ${ns:-0} $bytes $lost $rc ${cpu:--1}" >>"$runs"
	if [ "$3" -eq "$reps" ] && [ "$2" != base ]; then
		mv /tmp/t.trace "$out/$1-$2.trace"
		mv /tmp/t.proc "$out/$1-$2.proc"
		mv /tmp/t.log "$out/$1-$2.log"
	fi
}

# A warm-up run of each job, then REPS rounds; within a round each job runs
# in every configuration, in an order that rotates from round to round.
for j in $jobs; do run "$j" base 0; done
configs="base core all details pid"
r=1
while [ $r -le "$reps" ]; do
	# shellcheck disable=SC2086 # a word list
	set -- $configs
	k=1
	while [ $k -lt $r ]; do
		first=$1
		shift
		set -- "$@" "$first"
		k=$((k + 1))
	done
	order=$*
	for j in $jobs; do
		for c in $order; do run "$j" "$c" $r; done
	done
	r=$((r + 1))
done
kill "$bystander"
rm -rf $tree /tmp/job.out /tmp/t.*
rmmod ltt_tracer
ltt_finish
exit 0
