#!/usr/bin/env python3
"""Writes a finished trace again, the way tracedaemon writes one, for the
follow-mode tests: the file header, then the blocks one by one with a pause
between, the .proc renamed into place after some blocks, the file held open
until the end (tracedaemon keeps it open while it traces).

usage: follow-writer.py SRC.trace DST.trace [options]
  --pause S        seconds between blocks (default 0.05)
  --split          write each block in two halves with a pause between, so a
                   reader sees it cut short before it is whole
  --proc SRC DST   copy SRC to DST (temporary file, then rename) ...
  --proc-after N   ... after N blocks (default 0: before the first block)
  --no-final       leave the FINAL blocks out (a producer that hangs) ...
  --cut            write only the first half of the last block (a producer
                   stopped in the middle of a write)
  --hold S         keep the file open S seconds before closing it
Prints "blocks N" (the blocks written) when done.
"""
import argparse
import os
import shutil
import struct
import sys
import time

FINAL = 1  # LTT_BLOCK_F_FINAL


def blocks(data):
    """(offset, length, flags) of each whole block after the header."""
    header_size = struct.unpack_from("<H", data, 14)[0]
    off = header_size
    out = []
    while off + 48 <= len(data):
        # BLOCK_START: an 8-byte record header, then magic and length.
        magic, length = struct.unpack_from("<II", data, off + 8)
        flags = struct.unpack_from("<H", data, off + 8 + 30)[0]
        if magic != 0x4B4C4254 or length < 72 or off + length > len(data):
            sys.exit(f"follow-writer: no whole block at offset {off}")
        out.append((off, length, flags))
        off += length
    return header_size, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--pause", type=float, default=0.05)
    ap.add_argument("--split", action="store_true")
    ap.add_argument("--proc", nargs=2)
    ap.add_argument("--proc-after", type=int, default=0)
    ap.add_argument("--no-final", action="store_true")
    ap.add_argument("--cut", action="store_true")
    ap.add_argument("--hold", type=float, default=0)
    a = ap.parse_args()

    data = open(a.src, "rb").read()
    header_size, blist = blocks(data)
    if a.no_final:
        blist = [b for b in blist if not b[2] & FINAL]

    def put_proc():
        tmp = a.proc[1] + ".tmp"
        shutil.copyfile(a.proc[0], tmp)
        os.rename(tmp, a.proc[1])

    fd = os.open(a.dst, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    # The header in two writes: a reader may see it incomplete.
    os.write(fd, data[:100])
    time.sleep(a.pause)
    os.write(fd, data[100:header_size])
    written = 0
    for i, (off, length, _) in enumerate(blist):
        if a.proc and i == a.proc_after:
            put_proc()
        time.sleep(a.pause)
        if a.cut and i == len(blist) - 1:
            os.write(fd, data[off:off + length // 2])
            break
        if a.split:
            half = length // 2
            os.write(fd, data[off:off + half])
            time.sleep(a.pause)
            os.write(fd, data[off + half:off + length])
        else:
            os.write(fd, data[off:off + length])
        written += 1
    if a.proc and a.proc_after >= len(blist):
        put_proc()
    time.sleep(a.hold)
    os.close(fd)
    print(f"blocks {written}")


if __name__ == "__main__":
    main()
