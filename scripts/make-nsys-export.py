#!/usr/bin/env python3
"""Writes a large Nsight Systems SQLite export (schema 3.x, the layout of gitm-trace's nsys fixtures) for measuring
gitm's nsys import at scale; not run in CI.

Usage: scripts/make-nsys-export.py OUT.sqlite [--kernels N]
Each kernel comes with the cudaLaunchKernel that launched it; every 50th kernel is followed by a device-to-host copy
and every 1000 kernels make one NVTX range (ProfilerStep#k). About 9.3 million kernels make a 1 GB file (110 MB per million).
"""
import argparse
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gitm-trace", "src", "test",
                                "resources", "tracer", "nsys"))
import make_fixtures  # noqa: E402  (the schema and strings of the fixtures)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--kernels", type=int, default=9_300_000)
    a = ap.parse_args()
    if os.path.exists(a.out):
        os.remove(a.out)
    db = sqlite3.connect(a.out)
    db.execute("PRAGMA journal_mode=OFF")
    db.execute("PRAGMA synchronous=OFF")
    db.executescript(make_fixtures.V3_SCHEMA)
    db.executemany("INSERT INTO META_DATA_EXPORT VALUES(?,?)", [
        ("EXPORT_SCHEMA_VERSION", "3.11.1"), ("EXPORT_PRODUCT_VERSION", "2024.2.1")])
    db.executemany("INSERT INTO StringIds VALUES(?,?)", make_fixtures.STRINGS.items())
    db.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES(?,?,?)",
               (make_fixtures.SESSION_START_NS, "", ""))
    db.execute("INSERT INTO TARGET_INFO_GPU(vmId,id,name,smCount) VALUES(0,0,'NVIDIA H200',132)")
    tid = make_fixtures.GLOBAL_TID
    pid = make_fixtures.GLOBAL_PID
    names = [(5, 5), (6, 7), (8, 9)]
    t = 1_000_000
    kernels, runtime, copies, nvtx = [], [], [], []
    step_start = t
    for i in range(a.kernels):
        dur = 2_000 + (i * 7919) % 50_000
        name, short = names[i % 3]
        runtime.append((t - 1_500, t - 500, 1, tid, i + 1, 1, 0, None))
        kernels.append((t, t + dur, 0, 1, None, 7 + i % 2, i + 1, pid, name, short, None, 0, 0, 64, 132, 1, 1, 256,
                        1, 1, 0, 4096, 0, 0, i, 4096, None, 0, None))
        t += dur + 600
        if i % 50 == 49:
            copies.append((t, t + 3_000, 0, 1, None, 7, None, pid, 65_536, 2, None, 3, 2, 0, 1, 0, 1, 0, None, 0))
            t += 3_500
        if i % 1000 == 999:
            nvtx.append((step_start, t, 59, None, None, None, "ProfilerStep#%d" % (i // 1000), tid, None, None, None,
                         None, None, None, None, None, None, None, None))
            step_start = t
        if len(kernels) == 100_000:
            flush(db, kernels, runtime, copies, nvtx)
    flush(db, kernels, runtime, copies, nvtx)
    db.commit()
    db.close()
    print("%s: %d kernels, %d bytes" % (a.out, a.kernels, os.path.getsize(a.out)))


def flush(db, kernels, runtime, copies, nvtx):
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(" + ",".join("?" * 29) + ")", kernels)
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(?,?,?,?,?,?,?,?)", runtime)
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(" + ",".join("?" * 20) + ")", copies)
    db.executemany("INSERT INTO NVTX_EVENTS VALUES(" + ",".join("?" * 19) + ")", nvtx)
    for rows in (kernels, runtime, copies, nvtx):
        rows.clear()


if __name__ == "__main__":
    main()
