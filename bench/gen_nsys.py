#!/usr/bin/env python3
"""A big Nsight Systems SQLite export for bench/nsys.sh: N kernels on four
streams, each launched by a cudaLaunchKernel row, in the schema of
fixtures/nsys/gen.py (4 KiB pages, as nsys writes). With --memory, also
one CUDA_GPU_MEMORY_USAGE_EVENTS row per kernel, linked to its launch by
correlationId: a 1 MiB allocation, freed by the next row.
  gen_nsys.py N FILE [--memory]"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                                "nsys"))
from gen import GPID, GTID, MEMORY_SCHEMA, Strings, common, create  # noqa: E402


def big(n, path, memory=False):
    db = create(path)
    db.execute("PRAGMA page_size = 4096")
    db.execute("PRAGMA synchronous = OFF")
    db.execute("PRAGMA journal_mode = OFF")
    s = Strings(db)
    common(db, s)
    if memory:
        db.executescript(MEMORY_SCHEMA)
    launch = s("cudaLaunchKernel_v7000")
    names = [s(f"void kernel_{i}<float, {i % 7}>(float *, int)") for i in range(200)]
    kern, rt, mem = [], [], []
    for i in range(n):
        t = 1_000_000 + i * 2_000
        kern.append((t + 500, t + 1_800, 0, 1, 7 + i % 4, i + 1, GPID, names[i % 200],
                     names[i % 200], None, 264, 1, 1, 128, 1, 1, 96, 0, 49152, None))
        rt.append((t, t + 400, 1, GTID, i + 1, launch, 0, None))
        if memory:
            mem.append((t + 200, GPID, 0, 1, 0x7f0000000000 + (i // 2) * (1 << 20), 0, 1 << 20, 2,
                        i % 2, None, i + 1))
        if len(kern) == 100_000 or i == n - 1:
            db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES "
                           "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", kern)
            db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?,?,?,?)", rt)
            if memory:
                db.executemany("INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES "
                               "(?,?,?,?,?,?,?,?,?,?,?)", mem)
            kern, rt, mem = [], [], []
    db.commit()
    db.close()



if __name__ == "__main__":
    if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ["--memory"]):
        sys.exit("usage: gen_nsys.py N FILE [--memory]")
    big(int(sys.argv[1]), sys.argv[2], len(sys.argv) == 4)
