#!/usr/bin/env python3
"""Writes the Nsight Systems SQLite export fixtures of NsysImporterTest with SQLite itself, and their manifest.

Two layouts, as `nsys export --type sqlite` writes them:
- nsys-v3.sqlite: schema 3.x (Nsight Systems 2021.3 and later): META_DATA_EXPORT, TARGET_INFO_GPU keyed by id,
  TARGET_INFO_CUDA_DEVICE mapping CUDA device ids to GPUs, TARGET_INFO_SESSION_START_TIME, the ENUM_* tables, NVTX
  text inline or through textId, one H200 with two streams.
- nsys-v2.sqlite: schema 2.x (Nsight Systems 2020.x-2021.2): EXPORT_META_DATA, TARGET_INFO_CUDA_GPU keyed by
  deviceId, no ENUM_* tables (the CUPTI enum values are stored as numbers), no session start time, NVTX text inline,
  two A100s, no memset table.
Bad inputs beside them: other-program.sqlite (a SQLite database with no nsys table) and nsys-v9.sqlite (an export
that states schema version 9.0.0).

The expected values in manifest.json come from SQL queries over the files just written (see expected()), never from
gitm. Rows are inserted out of start order on purpose: the importer orders them by start itself.

Run from this folder: python3 make_fixtures.py
"""
import json
import os
import sqlite3

CUDA_MEMCPY = ["UNKNOWN", "HTOD", "DTOH", "HTOA", "ATOH", "ATOA", "ATOD", "DTOA", "DTOD", "HTOH", "PTOP"]
MEM_KIND = ["UNKNOWN", "PAGEABLE", "PINNED", "DEVICE", "ARRAY", "MANAGED", "DEVICE_STATIC", "MANAGED_STATIC"]
SYNC_TYPE = ["UNKNOWN", "EVENT_SYNCHRONIZE", "STREAM_WAIT_EVENT", "STREAM_SYNCHRONIZE", "CONTEXT_SYNCHRONIZE"]
PID = 4242
TID = 4243
GLOBAL_PID = (PID << 24)
GLOBAL_TID = (PID << 24) | TID
SESSION_START_NS = 1764630000123456789
NO_STREAM = 4294967295

STRINGS = {
    1: "cudaLaunchKernel", 2: "cudaMemcpyAsync", 3: "cudaStreamSynchronize", 4: "cuLaunchKernel",
    5: "ampere_sgemm_128x64_nn", 6: "void at::native::vectorized_elementwise_kernel<4>(int)",
    7: "vectorized_elementwise_kernel", 8: "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    9: "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 10: "ProfilerStep#2", 11: "cudaDeviceSynchronize",
    12: "cudaMemsetAsync", 13: "_Z6kernelPf", 14: "kernel(float*)", 15: "kernel",
}

V3_SCHEMA = """
CREATE TABLE META_DATA_EXPORT(name TEXT NOT NULL, value TEXT);
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
CREATE TABLE TARGET_INFO_GPU(vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,
  isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER,
  smCount INTEGER, pwGpuId INTEGER, uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER, ctxId INTEGER,
  computeMajor INTEGER, computeMinor INTEGER, maxWarpsPerSm INTEGER, threadsPerWarp INTEGER);
CREATE TABLE TARGET_INFO_CUDA_DEVICE(gpuId INTEGER, cudaId INTEGER, pid INTEGER, uuid TEXT,
  numMultiprocessors INTEGER);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER(id INTEGER PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUDA_MEM_KIND(id INTEGER PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUPTI_SYNC_TYPE(id INTEGER PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
  gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
  blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
  localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,
  sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER, graphId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER,
  srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER,
  dstContextId INTEGER, migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL,
  callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_DRIVER(start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL,
  callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION(start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL);
CREATE TABLE NVTX_EVENTS(start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT);
"""

V2_SCHEMA = """
CREATE TABLE EXPORT_META_DATA(name TEXT NOT NULL, value TEXT);
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE TARGET_INFO_CUDA_GPU(deviceId INTEGER NOT NULL, name TEXT, uuid TEXT, globalMemorySize INTEGER,
  globalMemoryBandwidth INTEGER, numMultiprocessors INTEGER, coreClockRate INTEGER, computeCapabilityMajor INTEGER,
  computeCapabilityMinor INTEGER, numThreadsPerWarp INTEGER, maxWarpsPerMultiprocessor INTEGER, maxIPC INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, launchType INTEGER, cacheConfig INTEGER,
  registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,
  blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL,
  dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL,
  gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER,
  srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL,
  callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION(start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL);
CREATE TABLE NVTX_EVENTS(start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, domainId INTEGER);
"""


def kernel_v3(start, dur, stream, corr, name, short, grid, block, regs, static, dynamic):
    return (start, start + dur, 0, 1, None, stream, corr, GLOBAL_PID, name, short, None, 0, 0, regs, *grid, *block,
            static, dynamic, 0, 0, corr, static + dynamic, None, 0, None)


def write_v3(path):
    db = sqlite3.connect(path)
    db.executescript(V3_SCHEMA)
    db.executemany("INSERT INTO META_DATA_EXPORT VALUES(?,?)", [
        ("EXPORT_SCHEMA_NAME", "Nsight Systems SQLite Export Schema"), ("EXPORT_SCHEMA_VERSION", "3.11.1"),
        ("EXPORT_PRODUCT_VERSION", "2024.2.1.106-242134037904v0"), ("EXPORT_PARAM_LAZY", "true")])
    db.executemany("INSERT INTO StringIds VALUES(?,?)", STRINGS.items())
    db.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES(?,?,?)",
               (SESSION_START_NS, "2025-12-01T22:20:00.123Z", "2025-12-01T23:20:00.123+01:00"))
    db.execute("INSERT INTO TARGET_INFO_GPU VALUES(0,0,'NVIDIA H200','0000:18:00.0',1,62914560,150754820096,"
               "4800000000000,1980000000,132,0,'GPU-5f1e7c1a-0000-4000-8000-000000000001',0,'GH100',0,1,9,0,64,32)")
    db.execute("INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES(0,0,?,'GPU-5f1e7c1a-0000-4000-8000-000000000001',132)",
               (PID,))
    db.executemany("INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(?,?,?)",
                   [(i, "CUDA_MEMCPY_KIND_" + n, n) for i, n in enumerate(CUDA_MEMCPY)])
    db.executemany("INSERT INTO ENUM_CUDA_MEM_KIND VALUES(?,?,?)",
                   [(i, "CUDA_MEMOPR_MEMORY_KIND_" + n, n.title()) for i, n in enumerate(MEM_KIND)])
    db.executemany("INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES(?,?,?)",
                   [(i, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_" + n, n) for i, n in enumerate(SYNC_TYPE)])
    kernels = [
        kernel_v3(2_000_000, 400_000, 7, 102, 6, 7, (1024, 1, 1), (128, 1, 1), 16, 0, 0),
        kernel_v3(1_000_000, 800_000, 7, 101, 5, 5, (132, 2, 1), (256, 1, 1), 128, 49152, 16384),
        kernel_v3(1_200_000, 1_500_000, 13, 103, 8, 9, (8, 1, 1), (640, 1, 1), 96, 2048, 0),
        kernel_v3(3_000_000, 250_000, 7, 104, 6, 7, (1024, 1, 1), (128, 1, 1), 16, 0, 0),
    ]
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(" + ",".join("?" * 29) + ")", kernels)
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(" + ",".join("?" * 20) + ")", [
        (3_400_000, 3_450_000, 0, 1, None, 7, 106, GLOBAL_PID, 4_194_304, 2, None, 3, 1, 0, 1, 0, 1, 0, None, 0),
        (500_000, 700_000, 0, 1, None, 7, 100, GLOBAL_PID, 67_108_864, 1, None, 2, 3, 0, 1, 0, 1, 0, None, 0),
        (3_300_000, 3_320_000, 0, 1, None, 13, 107, GLOBAL_PID, 1_048_576, 8, None, 3, 3, 0, 1, 0, 1, 0, None, 0),
    ])
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES(800000,810000,0,1,NULL,13,99,?,0,262144,NULL,3)",
               (GLOBAL_PID,))
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(?,?,?,?,?,?,?,?)", [
        (950_000, 960_000, 1, GLOBAL_TID, 101, 1, 0, None),
        (1_950_000, 1_955_000, 1, GLOBAL_TID, 102, 1, 0, None),
        (400_000, 490_000, 1, GLOBAL_TID, 100, 2, 0, None),
        (3_390_000, 3_395_000, 1, GLOBAL_TID, 106, 2, 0, None),
        (3_396_000, 3_460_000, 1, GLOBAL_TID, 108, 3, 0, None),
        (3_500_000, 3_600_000, 1, GLOBAL_TID, 109, 11, 0, None),
        (790_000, 795_000, 1, GLOBAL_TID, 99, 12, 0, None),
    ])
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_DRIVER VALUES(?,?,?,?,?,?,?,?)", [
        (1_150_000, 1_170_000, 2, GLOBAL_TID, 103, 4, 0, None),
        (2_950_000, 2_960_000, 2, GLOBAL_TID, 104, 4, 0, None),
    ])
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES(?,?,?,?,?,?,?,?,?,?)", [
        (3_500_000, 3_600_000, 0, 1, None, NO_STREAM, 109, GLOBAL_PID, 4, 0),
        (3_396_000, 3_460_000, 0, 1, None, 7, 108, GLOBAL_PID, 3, 0),
    ])
    db.executemany("INSERT INTO NVTX_EVENTS(start,end,eventType,text,globalTid,textId) VALUES(?,?,?,?,?,?)", [
        (2_900_000, 3_700_000, 59, None, GLOBAL_TID, 10),
        (300_000, 2_900_000, 59, "ProfilerStep#1", GLOBAL_TID, None),
        (1_000_000, None, 34, "a mark", GLOBAL_TID, None),
    ])
    db.commit()
    db.close()


def kernel_v2(start, dur, device, stream, corr, name, short, grid, block, regs, static, dynamic):
    return (start, start + dur, device, 1, stream, corr, GLOBAL_PID, name, short, 0, 0, regs, *grid, *block,
            static, dynamic, 0, 0, corr, static + dynamic)


def write_v2(path):
    db = sqlite3.connect(path)
    db.executescript(V2_SCHEMA)
    db.executemany("INSERT INTO EXPORT_META_DATA VALUES(?,?)", [
        ("EXPORT_SCHEMA_VERSION", "2.7.1"), ("EXPORT_PRODUCT_VERSION", "2021.1.1.66-6c5c5cb")])
    db.executemany("INSERT INTO StringIds VALUES(?,?)", STRINGS.items())
    for device in (0, 1):
        db.execute("INSERT INTO TARGET_INFO_CUDA_GPU VALUES(?,'A100-SXM4-40GB',?,42505273344,1555200000000,108,"
                   "1410000000,8,0,32,64,4)", (device, "GPU-a100000%d-0000-4000-8000-00000000000%d" % (device, device)))
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(" + ",".join("?" * 24) + ")", [
        kernel_v2(5_000, 90_000, 1, 7, 12, 13, 15, (64, 1, 1), (256, 1, 1), 32, 0, 1024),
        kernel_v2(1_000, 100_000, 0, 7, 11, 13, 15, (64, 1, 1), (256, 1, 1), 32, 0, 1024),
        kernel_v2(120_000, 30_000, 0, 7, 13, 14, 15, (1, 1, 1), (32, 1, 1), 8, 0, 0),
    ])
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(" + ",".join("?" * 16) + ")", [
        (200_000, 260_000, 0, 1, 7, 14, GLOBAL_PID, 8_388_608, 2, None, 3, 2, 0, 1, 0, 1),
        (210_000, 240_000, 1, 1, 7, 15, GLOBAL_PID, 2_097_152, 10, None, 3, 3, 1, 1, 0, 1),
    ])
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(?,?,?,?,?,?,?,?)", [
        (500, 900, 1, GLOBAL_TID, 11, 1, 0, None),
        (4_000, 4_600, 1, GLOBAL_TID, 12, 1, 0, None),
        (110_000, 110_500, 1, GLOBAL_TID, 13, 1, 0, None),
        (190_000, 262_000, 1, GLOBAL_TID, 14, 2, 0, None),
        (205_000, 206_000, 1, GLOBAL_TID, 15, 2, 0, None),
        (262_500, 300_000, 1, GLOBAL_TID, 16, 11, 0, None),
    ])
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES(262500,300000,0,1,?,16,?,4,0)",
               (NO_STREAM, GLOBAL_PID))
    db.execute("INSERT INTO NVTX_EVENTS(start,end,eventType,text,globalTid) VALUES(0,300000,59,'train',?)",
               (GLOBAL_TID,))
    db.commit()
    db.close()


def write_other(path):
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE moz_places(id INTEGER PRIMARY KEY, url TEXT, title TEXT);"
                     "CREATE TABLE moz_visits(id INTEGER PRIMARY KEY, place INTEGER, at INTEGER);")
    db.execute("INSERT INTO moz_places VALUES(1,'https://example.org/','Example')")
    db.commit()
    db.close()


def write_v9(path):
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE META_DATA_EXPORT(name TEXT NOT NULL, value TEXT);"
                     "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
                     "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, end INTEGER NOT NULL);")
    db.executemany("INSERT INTO META_DATA_EXPORT VALUES(?,?)", [
        ("EXPORT_SCHEMA_VERSION", "9.0.0"), ("EXPORT_PRODUCT_VERSION", "2031.1.1")])
    db.commit()
    db.close()


def expected(path):
    """The figures the test pins, each from one SQL query over the export."""
    db = sqlite3.connect(path)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}

    def count(table, where="1"):
        return db.execute(f"SELECT COUNT(*) FROM {table} WHERE {where}").fetchone()[0] if table in tables else 0

    base = db.execute("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME").fetchone()[0] \
        if "TARGET_INFO_SESSION_START_TIME" in tables else 0
    out = {
        "records": {k: v for k, v in {
            "kernel": count("CUPTI_ACTIVITY_KIND_KERNEL"),
            "copy": count("CUPTI_ACTIVITY_KIND_MEMCPY"),
            "memset": count("CUPTI_ACTIVITY_KIND_MEMSET"),
            "api": count("CUPTI_ACTIVITY_KIND_RUNTIME") + count("CUPTI_ACTIVITY_KIND_DRIVER"),
            "sync": count("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"),
            "marker": count("NVTX_EVENTS", "end IS NOT NULL"),
        }.items() if v},
        "kernelBusyNsByDeviceStream": {f"{d}/{s}": n for d, s, n in db.execute(
            "SELECT deviceId, streamId, SUM(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL "
            "GROUP BY deviceId, streamId ORDER BY deviceId, streamId")},
        "copyBytesByKind": {CUDA_MEMCPY[k]: n for k, n in db.execute(
            "SELECT copyKind, SUM(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY copyKind ORDER BY copyKind")},
        "syncNs": db.execute("SELECT COALESCE(SUM(end - start), 0) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")
        .fetchone()[0],
        "firstKernelStartNs": base + db.execute("SELECT MIN(start) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0],
        "lastEndNs": base + max(db.execute(f"SELECT MAX(end) FROM {t}").fetchone()[0] for t in tables
                                if t.startswith("CUPTI_ACTIVITY_KIND_") or t == "NVTX_EVENTS"),
        "devices": sorted({r[0] for t in tables if t in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                                         "CUPTI_ACTIVITY_KIND_MEMSET")
                           for r in db.execute(f"SELECT DISTINCT deviceId FROM {t}")}),
    }
    db.close()
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    writers = {"nsys-v3.sqlite": write_v3, "nsys-v2.sqlite": write_v2, "other-program.sqlite": write_other,
               "nsys-v9.sqlite": write_v9}
    for name, write in writers.items():
        path = os.path.join(here, name)
        if os.path.exists(path):
            os.remove(path)
        write(path)
    manifest = {name: expected(os.path.join(here, name)) for name in ("nsys-v3.sqlite", "nsys-v2.sqlite")}
    with open(os.path.join(here, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
