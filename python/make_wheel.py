#!/usr/bin/env python3
"""Writes the wheel of the `ltt` package (PEP 427) from its sources and the
prebuilt extension module, with the standard library only: the project's
build makes the extension with CMake against libltt, so no build backend is
needed to package it."""
import argparse
import base64
import hashlib
import os
import sys
import sysconfig
import zipfile

NAME = "ltt"
SUMMARY = "Python bindings over libltt: traces as Arrow tables, SQL, Parquet"


def record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--version", required=True)
    ap.add_argument("--extension", required=True, help="the built _ltt module")
    ap.add_argument("--package", required=True, help="the ltt/ source folder")
    ap.add_argument("--out", required=True, help="folder for the wheel")
    a = ap.parse_args()

    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    wheel = f"{NAME}-{a.version}-{tag}-{tag}-{plat}.whl"
    dist = f"{NAME}-{a.version}.dist-info"
    os.makedirs(a.out, exist_ok=True)
    for old in os.listdir(a.out):
        if old.endswith(".whl"):
            os.remove(os.path.join(a.out, old))

    files = []
    for name in sorted(os.listdir(a.package)):
        if name.endswith(".py"):
            with open(os.path.join(a.package, name), "rb") as f:
                files.append((f"{NAME}/{name}", f.read()))
    with open(a.extension, "rb") as f:
        files.append((f"{NAME}/{os.path.basename(a.extension)}", f.read()))
    metadata = (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {a.version}\n"
                f"Summary: {SUMMARY}\nRequires-Python: =={sys.version_info.major}."
                f"{sys.version_info.minor}.*\n"
                "Provides-Extra: arrow\nRequires-Dist: pyarrow; extra == \"arrow\"\n"
                "Provides-Extra: sql\nRequires-Dist: duckdb; extra == \"sql\"\n").encode()
    wheel_meta = (f"Wheel-Version: 1.0\nGenerator: ltt make_wheel.py\nRoot-Is-Purelib: false\n"
                  f"Tag: {tag}-{tag}-{plat}\n").encode()
    entry_points = b"[console_scripts]\nltt = ltt.cli:main\n"
    files += [(f"{dist}/METADATA", metadata), (f"{dist}/WHEEL", wheel_meta),
              (f"{dist}/entry_points.txt", entry_points)]
    record = [record_line(p, d) for p, d in files] + [f"{dist}/RECORD,,"]
    path = os.path.join(a.out, wheel)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for p, d in files:
            info = zipfile.ZipInfo(p, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if p.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, d)
        z.writestr(zipfile.ZipInfo(f"{dist}/RECORD", date_time=(2020, 1, 1, 0, 0, 0)),
                   "\n".join(record) + "\n")
    print(path)


if __name__ == "__main__":
    main()
