#!/usr/bin/env python3
"""hand-trace.py PREFIX: writes PREFIX.trace and PREFIX.proc, a one-CPU
trace (format version 1, docs/trace-format.md) built record by record, for
the exact values tests/suites/26-convert-perfetto.sh expects of its Perfetto
conversion. The TSC runs at 1 GHz (1 tick = 1 ns) from the anchor at TSC
1000, which is 7 s of CLOCK_MONOTONIC: a record at TSC t is at
7000000000 + t - 1000 ns.

  TSC   task  record
  2000  200   SYSCALL_ENTRY read (0)
  2500  200   SYSCALL_EXIT -11
  2600  200   TRAP_ENTRY page fault     (dropped: no ftrace counterpart)
  2700  200   TRAP_EXIT                 (dropped)
  2800  200   PROCESS KTHREAD 300
  3000  200   PROCESS FORK 201, flags 0x1200011 (a process)
  3100  200   PROCESS FORK 202, flags 0x50f00 (CLONE_THREAD: a thread of 200)
  4000  201   SCHEDCHANGE in 201, out 200 in state 1 (S)
  4500  201   FILE_SYSTEM EXEC /usr/bin/hand
  5000  201   IRQ_ENTRY 14
  5100  201   IRQ_ENTRY 236, an x86 vector, nested
  5150  201   IRQ_EXIT                  (of 236)
  5200  201   IRQ_EXIT                  (of 14)
  5300  201   SOFT_IRQ ENTRY 3
  5400  201   SOFT_IRQ EXIT 3
  6000  201   PROCESS WAKEUP 200
  7000  201   PROCESS EXIT 201
  7100  200   SCHEDCHANGE in 200, out 201 in state 0x80 (dead)
  7500  200   SYSCALL_ENTRY write (1)
  8000  0     SCHEDCHANGE in 0, out 200 in state 0 (preempted)
  -- the second block: 5 events lost before it (BLOCK_START's lost, LOST)
  9000  200   SYSCALL_EXIT 4            (its entry is before the loss)
"""
import struct
import sys

HEADER_SIZE = 320
REC = struct.Struct("<IBBH")  # delta, event, subtype, size
BLOCK_START = struct.Struct("<IIQQIHHiI")
BLOCK_END = struct.Struct("<QII")
BLOCK_MAGIC = 0x4B4C4254
START_TSC = 1000


def header():
    h = bytearray(HEADER_SIZE)
    h[0:8] = b"LTTRACE\x01"
    # endian, version 1, header size, ABI 1.0, 1 CPU, tsc_khz, anchor TSC,
    # realtime, monotonic (ns), flags (TSC reliable), max_block
    struct.pack_into("<IHHIIQQQQII", h, 8, 0x01020304, 1, HEADER_SIZE, 1 << 16, 1,
                     1000000, START_TSC, 1700000000000000000, 7000000000, 1, 65536)
    struct.pack_into("<QQ", h, 64, (1 << 22) - 1, (1 << 22) - 1)  # every event and detail
    for off, text in ((128, b"Linux"), (144, b"6.1.0-ltt"), (208, b"hand"), (272, b"hand-trace.py")):
        h[off:off + len(text)] = text  # sysname, release, hostname, producer
    assert len(h) == HEADER_SIZE
    return bytes(h)


def block(seq, start_tsc, end_tsc, lost, pid, final, body, count):
    """A whole block of CPU 0: BLOCK_START, the records, BLOCK_END."""
    start_size, end_size = 8 + BLOCK_START.size, 8 + BLOCK_END.size
    length = start_size + len(body) + end_size
    return (REC.pack(0, 17, 0, start_size) +
            BLOCK_START.pack(BLOCK_MAGIC, length, start_tsc, lost, seq, 0, final, pid, 0) + body +
            REC.pack(end_tsc - start_tsc, 18, 0, end_size) + BLOCK_END.pack(end_tsc, count + 2, 0))


def main(prefix):
    body, count, base = b"", 0, START_TSC

    def rec(tsc, event, sub, details=b""):
        """A version 1 record at `tsc` (its delta from the block's start)."""
        nonlocal body, count
        size = 8 + (len(details) + 7) // 8 * 8
        body += REC.pack(tsc - base, event, sub, size) + details + bytes(size - 8 - len(details))
        count += 1

    def process(tsc, sub, pid, arg):
        rec(tsc, 10, sub, struct.pack("<iIQ", pid, 0, arg))

    def sched(tsc, pid_in, pid_out, state):
        rec(tsc, 7, 0, struct.pack("<iiII", pid_in, pid_out, state, 0))

    rec(2000, 1, 0, struct.pack("<QII", 0x401000, 0, 0))  # read
    rec(2500, 2, 0, struct.pack("<q", -11))
    rec(2600, 3, 0, struct.pack("<QQII", 0x401010, 0x7fff0000, 14, 6))
    rec(2700, 4, 0)
    process(2800, 0, 300, 0xffffffff81000000)  # KTHREAD
    process(3000, 1, 201, 0x1200011)  # FORK
    process(3100, 1, 202, 0x50f00)  # FORK, CLONE_THREAD
    sched(4000, 201, 200, 1)
    name = b"/usr/bin/hand"
    rec(4500, 11, 2, struct.pack("<iIq", 0, 0, 0) + name + b"\0")  # EXEC
    rec(5000, 5, 0, struct.pack("<II", 14, 0))
    rec(5100, 5, 0, struct.pack("<II", 236, 3))  # LTT_IRQ_VECTOR | LTT_IRQ_IN_KERNEL
    rec(5150, 6, 0)
    rec(5200, 6, 0)
    rec(5300, 9, 0, struct.pack("<Q", 3))  # SOFTIRQ ENTRY
    rec(5400, 9, 1, struct.pack("<Q", 3))  # SOFTIRQ EXIT
    process(6000, 5, 200, 1)  # WAKEUP
    process(7000, 2, 201, 0)  # EXIT
    sched(7100, 200, 201, 0x80)
    rec(7500, 1, 0, struct.pack("<QII", 0x401020, 1, 0))  # write
    sched(8000, 0, 200, 0)
    first = block(0, START_TSC, 8000, 0, 200, 0, body, count)

    body, count, base = b"", 0, 9000
    rec(9000, 20, 0, struct.pack("<QQ", 5, 8500))  # LOST: 5 events, the first at 8500
    rec(9000, 2, 0, struct.pack("<q", 4))
    second = block(1, base, 9000, 5, 200, 1, body, count)
    with open(prefix + ".trace", "wb") as f:
        f.write(header() + first + second)
    with open(prefix + ".proc", "w") as f:
        f.write("# ltt-proc 1\n"
                "PID: 1; PPID: 0; TGID: 1; PGRP: 1; UID: 0; GID: 0; STATE: S; KTHREAD: 0; NAME: init\n"
                "PID: 200; PPID: 1; TGID: 200; PGRP: 200; UID: 1000; GID: 1000; STATE: R; KTHREAD: 0; NAME: shell\n"
                "IRQ: 14; NAME: ata_piix\n")


main(sys.argv[1])
