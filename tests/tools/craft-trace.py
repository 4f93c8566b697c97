#!/usr/bin/env python3
"""craft-trace.py KIND OUT [SOURCE]: writes a damaged or hostile trace.

Kinds made from a good SOURCE trace (docs/trace-format.md):
  tail-zeros        SOURCE, then 4096 zero bytes (a power cut after the file
                    grew but before its data reached the disk)
  tail-garbage      SOURCE, then 3000 bytes of fixed pseudo-random garbage
  tail-partial      SOURCE, then a block whose BLOCK_START was written but
                    whose rest is zeros (the block's length fits in the file)
  middle-zeros      SOURCE with its second block zeroed: damage followed by
                    further whole blocks
  middle-length     SOURCE with its second block's length set past the end of
                    the file: the same
  mask-syscalls     SOURCE as if traced with system calls masked out: the
                    header's event and details masks lose SYSCALL_ENTRY and
                    SYSCALL_EXIT, and their records leave every block
Kinds made from nothing:
  wrap              a 4 GiB sparse file: one block of 0xFFFFFFF8 bytes (the
                    header's max_block 0, "unknown") whose records are sized so
                    that a 32-bit record offset wraps back to the block's first
                    record, then a whole block of the same CPU after it
  wrap-head         the first 64 KiB of `wrap` (for the fuzz corpus)
  names             a good one-CPU trace whose host name, exec and open file
                    names hold control characters, a backslash and a byte that
                    is not UTF-8 (pair it with a .proc whose names do too)

SOURCE may be of format version 1 or 2 (docs/trace-format.md §2.2): a
BLOCK_START written for a version 2 SOURCE starts with the EXT code's word;
mask-syscalls takes version 1 only.

Prints the offset a reader must name (the first damaged byte for tails, the
offending field for corruption) on stdout.
"""
import struct
import sys

HEADER_SIZE = 320
REC = struct.Struct("<IBBH")  # delta, event, subtype, size
BLOCK_START = struct.Struct("<IIQQIHHiI")  # magic length start_tsc lost sequence cpu flags pid reserved
BLOCK_END = struct.Struct("<QII")  # end_tsc events reserved
EV_TRAP_EXIT, EV_BLOCK_START, EV_BLOCK_END = 4, 17, 18
BLOCK_MAGIC = 0x4B4C4254
START_SIZE, END_SIZE = 8 + BLOCK_START.size, 8 + BLOCK_END.size


def start_word(data):
    """The first word of a BLOCK_START in the trace's format: version 1, a
    delta of 0; version 2, the EXT code (1) with a delta of 0."""
    return 1 if struct.unpack_from("<H", data, 12)[0] == 2 else 0


def blocks(data):
    """(offset, length) of every block of a good trace."""
    off = struct.unpack_from("<H", data, 14)[0]
    out = []
    while off < len(data):
        length = BLOCK_START.unpack_from(data, off + 8)[1]
        out.append((off, length))
        off += length
    return out


def block(cpu, seq, start_tsc, flags, body=b"", events=None):
    length = START_SIZE + len(body) + END_SIZE
    n = events if events is not None else 2
    return (REC.pack(0, EV_BLOCK_START, 0, START_SIZE) +
            BLOCK_START.pack(BLOCK_MAGIC, length, start_tsc, 0, seq, cpu, flags, 0, 0) + body +
            REC.pack(0, EV_BLOCK_END, 0, END_SIZE) + BLOCK_END.pack(start_tsc, n, 0))


def file_header(ncpus, max_block):
    h = bytearray(HEADER_SIZE)
    h[0:8] = b"LTTRACE\x01"
    struct.pack_into("<IHHIIQQQQII", h, 8, 0x01020304, 1, HEADER_SIZE, 1 << 16, ncpus,
                     1000000, 1000, 0, 0, 1, max_block)
    h[128:133] = b"Linux"
    h[272:283] = b"craft-trace"
    return bytes(h)


def wrap(out, limit=None):
    """The wrapping block: records of 0xFFF8 bytes from offset 48, one of 64
    bytes so that the next starts 0xFFF8 - 48 bytes below 2^32, and there a
    record of 0xFFF8 bytes whose end, in 32 bits, is offset 48 again."""
    length = 0xFFFFFFF8
    big = 0xFFF8
    f = open(out, "wb")
    f.write(file_header(1, 0))
    base = HEADER_SIZE
    f.write(REC.pack(0, EV_BLOCK_START, 0, START_SIZE) +
            BLOCK_START.pack(BLOCK_MAGIC, length, 1000, 0, 0, 0, 0, 0, 0))
    o = START_SIZE
    count = (2**32 - big) // big  # 65543 records of 0xFFF8
    records = []
    for _ in range(count):
        records.append((o, big))
        o += big
    records.append((o, 2**32 - big + START_SIZE - o))  # 64 bytes
    o = 2**32 - big + START_SIZE
    records.append((o, big))  # o + big = 2^32 + 48
    for ro, size in records:
        if limit is not None and base + ro + 8 > limit:
            break
        f.seek(base + ro)
        f.write(REC.pack(0, EV_TRAP_EXIT, 0, size))
    if limit is not None:
        f.truncate(limit)
        f.close()
        return base + 8 + 4
    f.seek(base + length - END_SIZE)
    f.write(REC.pack(0, EV_BLOCK_END, 0, END_SIZE) + BLOCK_END.pack(1000, len(records) + 2, 0))
    f.write(block(0, 1, 2000, 1))
    f.close()
    return base + 8 + 4  # the block's length field


def names(out):
    """Task 100 runs a syscall, execs and opens files with hostile names."""
    h = bytearray(file_header(1, 65536))
    struct.pack_into("<QQ", h, 64, (1 << 22) - 1, (1 << 22) - 1)  # every event and detail
    h[208:220] = b"host\x1b[2Jname"
    body = b""
    t = 1000

    def rec(event, sub, details):
        nonlocal body, t
        t += 100
        size = 8 + (len(details) + 7) // 8 * 8
        body += REC.pack(t - 1000, event, sub, size) + details + bytes(size - 8 - len(details))

    def fs(sub, fd, name):
        rec(11, sub, struct.pack("<iIq", fd, 0, 0) + name + b"\0")

    rec(1, 0, struct.pack("<QII", 0x401000, 59, 0))  # execve
    fs(2, 0, b"/bin/evil\nname\x1b[31m")  # EXEC
    rec(2, 0, struct.pack("<q", 0))
    rec(1, 0, struct.pack("<QII", 0x401000, 2, 0))  # open
    fs(3, 3, b"/tmp/a\tb\\c\x7f\xff\xc2\x9b;")  # OPEN
    rec(2, 0, struct.pack("<q", 3))
    blk = bytearray(block(0, 0, 1000, 1, body))
    # BLOCK_START pid 100, BLOCK_END's time and record count.
    struct.pack_into("<i", blk, 8 + 32, 100)
    struct.pack_into("<I", blk, len(blk) - 24, t - 1000)
    struct.pack_into("<QI", blk, len(blk) - 16, t, 2 + 6)
    open(out, "wb").write(bytes(h) + bytes(blk))
    return 0


def mask_syscalls(data):
    """Drops the syscall records from every block and their bits from the
    header's masks; record times are relative to the block (or heartbeat),
    so the records left keep theirs."""
    drop = (1 << 1) | (1 << 2)
    event_mask, details_mask = struct.unpack_from("<QQ", data, 64)
    struct.pack_into("<QQ", data, 64, event_mask & ~drop, details_mask & ~drop)
    out = bytearray(data[:blocks(data)[0][0]])
    for off, length in blocks(data):
        blk = data[off:off + length]
        kept = bytearray()
        o = 0
        count = 0
        while o < length:
            _, event, _, size = REC.unpack_from(blk, o)
            if event not in (1, 2):
                kept += blk[o:o + size]
                count += 1
            o += size
        struct.pack_into("<I", kept, 12, len(kept))  # BLOCK_START length
        struct.pack_into("<I", kept, len(kept) - 8, count)  # BLOCK_END events
        out += kept
    return out


def main():
    kind, out = sys.argv[1], sys.argv[2]
    if kind == "wrap":
        print(wrap(out))
        return
    if kind == "names":
        print(names(out))
        return
    if kind == "wrap-head":
        print(wrap(out, 65536))
        return
    data = bytearray(open(sys.argv[3], "rb").read())
    size = len(data)
    if kind == "tail-zeros":
        data += bytes(4096)
        at = size
    elif kind == "tail-garbage":
        x = 0x2545F491
        for _ in range(3000):
            x = (x * 1103515245 + 12345) & 0x7FFFFFFF
            data.append((x >> 16) & 0xFF)
        at = size
    elif kind == "tail-partial":
        off, length = blocks(data)[-1]
        _, _, start, _, seq, cpu, _, pid, _ = BLOCK_START.unpack_from(data, off + 8)
        head = REC.pack(start_word(data), EV_BLOCK_START, 0, START_SIZE) + BLOCK_START.pack(
            BLOCK_MAGIC, 4096, start + 1, 0, seq + 1, cpu, 0, pid, 0)
        data += head + bytes(4096 - len(head))
        at = size
    elif kind == "middle-zeros":
        off, length = blocks(data)[1]
        data[off:off + length] = bytes(length)
        at = off + 4  # the event id of the record that should be BLOCK_START
    elif kind == "mask-syscalls":
        if start_word(data):
            sys.exit("craft-trace.py: mask-syscalls takes a version 1 trace")
        data = mask_syscalls(data)
        at = 0
    elif kind == "middle-length":
        off, _ = blocks(data)[1]
        struct.pack_into("<I", data, off + 12, 0x100000)
        at = off + 12
    else:
        sys.exit(f"craft-trace.py: unknown kind {kind!r}")
    open(out, "wb").write(data)
    print(at)


if __name__ == "__main__":
    main()
