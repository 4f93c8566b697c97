#!/bin/sh
# Runs inside the QEMU guest for `make demo`: loads the trace module, traces
# the system for SECONDS while a representative workload runs, and leaves
# demo.trace, demo.proc, the workload's log and the ps samples in /out.
# Each phase of the workload begins with an application event (ltt-mark
# "phase: ..."), which the report shows among the kernel's.
# usage: demo-guest.sh SECONDS   (the layout of tests/lib/vm-guest.sh:
# tracedaemon, trace and ltt-mark in /opt/ltt/bin, workloads in
# /opt/ltt/workloads)
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
set -u
secs=${1:-10}
W=$LTT/workloads
log=$out/workload.log

ltt_load_first || { echo "demo: /dev/tracer is missing after insmod" >&2; exit 1; }
mkdir -p /run

# phase NAME: say NAME in the log and, as an application event, in the trace.
phase() {
	echo "== $1"
	ltt-mark "phase: $1" || echo "(no application event: see above)"
}

workload() {
	sleep 1
	phase "shell pipeline"
	cat /proc/cpuinfo /proc/meminfo /proc/interrupts | grep -ci 'mhz\|cpu' | wc -c
	phase "file I/O with fsync"
	dd if=/dev/zero of=/tmp/demo.dat bs=64k count=64 conv=fsync 2>&1 | tail -n 1
	phase "fork tree with exec (depth 2, fanout 3)"
	$W/wl_forktree 2 3 $W/wl_leaf
	phase "sleeping: 10 x 20 ms"
	$W/wl_sleep 10 20
	phase "CPU-bound loop, 1 s"
	$W/wl_cpu 1 /out/wl_cpu.json
	phase "pipe ping-pong, 2000 round trips"
	$W/wl_pingpong 2000
	phase "sockets and SysV IPC"
	$W/wl_sockets 200 4096
	phase "network: ping over loopback"
	ping -c 3 -i 0.2 127.0.0.1 | tail -n 2
	phase "the paper's Figure 10 program (sched_yield loop), scaled 1/20"
	$W/wl_fig10 20
	if [ -b /dev/vdb ]; then
		phase "O_DIRECT reads from /dev/vdb"
		$W/wl_odirect /dev/vdb 200
	fi
	echo "== done"
}

# ps's view of the same interval, for the Figure 8 comparison.
$W/wl_pssample 2000 $((${secs%.*} / 2)) /out/ps-samples.txt &
sampler=$!
workload >"$log" 2>&1 &
wl=$!
cd /out && trace "$secs" demo
rc=$?
wait $wl
wait $sampler
rmmod ltt_tracer
ltt_finish
exit $rc
