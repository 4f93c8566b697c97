#!/bin/sh
# One run of make bench-peers' mixed workload in the QEMU guest (timed as a
# whole by peers-bench time): a shell pipeline, file I/O on tmpfs with
# fsync, a fork tree with execs, short sleeps, pipe ping-pong and a UNIX
# socket exchange with SysV IPC. Workloads from /opt/ltt/workloads.
set -e
W=/opt/ltt/workloads
cat /proc/cpuinfo /proc/meminfo /proc/interrupts | grep -ci 'mhz\|cpu' | wc -c
dd if=/dev/zero of=/tmp/peers-mixed.dat bs=64k count=16 conv=fsync
wc -c </tmp/peers-mixed.dat
rm /tmp/peers-mixed.dat
$W/wl_forktree 2 3 $W/wl_leaf
$W/wl_sleep 5 2
$W/wl_pingpong 500
$W/wl_sockets 50 4096
