#!/usr/bin/env python3
"""Reads a gitm .gtrace file (docs/trace-format.md) on its own, checking magic, version, every block's CRC-32,
record counts, tags, string ids and the end block, and prints a JSON summary: records by type, kernels by name,
API calls by kind and name, copies by direction and memory kinds, time span. Exit 1 if the file is bad.
Usage: gtrace_summary.py TRACE.gtrace [--top N]"""
import collections
import json
import struct
import sys
import zlib

TAGS = {2: "kernel", 3: "copy", 4: "memset", 5: "sync", 6: "api", 7: "overhead", 8: "state", 9: "marker"}
COPY = ["HTOD", "DTOH", "DTOD", "HTOH", "PTOP", "UNKNOWN"]
MEM = ["DEVICE", "PINNED", "PAGEABLE", "MANAGED", "ARRAY", "UNKNOWN"]
SYNC = ["EVENT", "STREAM_WAIT_EVENT", "STREAM", "CONTEXT", "UNKNOWN"]
API = ["LAUNCH", "ALLOC", "FREE", "COPY", "MEMSET", "SYNC", "OTHER"]
OVH = ["BUFFER_FLUSH", "INSTRUMENTATION", "RESOURCE", "SAMPLING", "OTHER"]


class Bad(Exception):
    pass


def read(path):
    data = open(path, "rb").read()
    if data[:8] != b"GITMTRC1":
        raise Bad("offset 0: no GITMTRC1 magic")
    version, meta_len = struct.unpack_from("<II", data, 8)
    if version != 1:
        raise Bad("offset 8: version %d" % version)
    meta = json.loads(data[16:16 + meta_len].decode("utf-8"))
    pos = 16 + meta_len
    strings = {}
    records = []
    blocks = 0
    while True:
        if pos + 12 > len(data):
            raise Bad("offset %d: truncated (no end block)" % pos)
        length, count, crc = struct.unpack_from("<III", data, pos)
        if length == 0:
            if count or crc or pos + 12 != len(data):
                raise Bad("offset %d: bad end block" % pos)
            break
        payload = data[pos + 12:pos + 12 + length]
        if len(payload) != length:
            raise Bad("offset %d: block cut short" % pos)
        if zlib.crc32(payload) & 0xFFFFFFFF != crc:
            raise Bad("offset %d: CRC mismatch" % pos)
        p = 0
        for _ in range(count):
            tag = payload[p]
            p += 1
            if tag == 1:
                sid, n = struct.unpack_from("<II", payload, p)
                p += 8
                if sid != len(strings) + 1:
                    raise Bad("offset %d: string id %d out of sequence" % (pos, sid))
                strings[sid] = payload[p:p + n].decode("utf-8")
                p += n
            elif tag == 2:
                f = struct.unpack_from("<Iiiqqqiiiiiiiii", payload, p)
                p += 72
                records.append(("kernel", strings[f[0]], f))
            elif tag == 3:
                f = struct.unpack_from("<BBBqiiqqq", payload, p)
                p += 43
                records.append(("copy", None, f))
            elif tag == 4:
                f = struct.unpack_from("<Biqiiqqq", payload, p)
                p += 45
                records.append(("memset", None, f))
            elif tag == 5:
                f = struct.unpack_from("<Biiqqq", payload, p)
                p += 33
                records.append(("sync", None, f))
            elif tag == 6:
                f = struct.unpack_from("<BIqqqq", payload, p)
                p += 37
                records.append(("api", strings[f[1]], f))
            elif tag == 7:
                f = struct.unpack_from("<Bqqq", payload, p)
                p += 25
                records.append(("overhead", None, f))
            elif tag == 8:
                dev, t, n = struct.unpack_from("<iqB", payload, p)
                p += 13 + 9 * n
                records.append(("state", None, (dev, t, n)))
            elif tag == 9:
                f = struct.unpack_from("<Iqqq", payload, p)
                p += 28
                records.append(("marker", strings[f[0]], f))
            else:
                raise Bad("offset %d: unknown tag %d" % (pos, tag))
        if p != length:
            raise Bad("offset %d: %d bytes left after %d records" % (pos, length - p, count))
        blocks += 1
        pos += 12 + length
    return meta, records, strings, blocks


def summary(path, top=25):
    meta, records, strings, blocks = read(path)
    by_type = collections.Counter(r[0] for r in records)
    kernels = collections.Counter(r[1] for r in records if r[0] == "kernel")
    api_kind = collections.Counter(API[r[2][0]] for r in records if r[0] == "api")
    api_name = collections.Counter(r[1] for r in records if r[0] == "api")
    copies = collections.Counter("%s %s->%s" % (COPY[r[2][0]], MEM[r[2][1]], MEM[r[2][2]])
                                 for r in records if r[0] == "copy")
    syncs = collections.Counter(SYNC[r[2][0]] for r in records if r[0] == "sync")
    overhead = collections.Counter(OVH[r[2][0]] for r in records if r[0] == "overhead")
    times = []
    for kind, _, f in records:
        if kind == "kernel":
            times += [f[4], f[5]]
        elif kind in ("copy",):
            times += [f[7], f[8]]
        elif kind in ("memset",):
            times += [f[6], f[7]]
        elif kind in ("api", "overhead", "sync"):
            times += [f[-2], f[-1]]
    bad = sum(1 for kind, _, f in records if kind == "kernel" and f[5] < f[4])
    streams = collections.Counter(f[2] for kind, _, f in records if kind == "kernel")
    # kernels whose correlation id is that of a launch call: what a replay needs to re-issue each kernel
    launch_ids = set(f[3] for kind, _, f in records if kind == "api" and f[0] == API.index("LAUNCH"))
    kernel_ids = [f[3] for kind, _, f in records if kind == "kernel"]
    with_launch = sum(1 for c in kernel_ids if c in launch_ids)
    return {
        "file": path, "blocks": blocks, "records": len(records), "strings": len(strings),
        "meta": meta, "recordsByType": dict(by_type), "distinctKernelNames": len(kernels),
        "topKernels": kernels.most_common(top), "apiByKind": dict(api_kind), "topApiCalls": api_name.most_common(top),
        "copies": dict(copies), "syncs": dict(syncs), "overhead": dict(overhead),
        "kernelStreams": {str(k): v for k, v in streams.items()}, "kernelsEndingBeforeStart": bad,
        "kernelsWithALaunchCall": with_launch, "kernelsWithoutALaunchCall": len(kernel_ids) - with_launch,
        "spanNs": (max(times) - min(times)) if times else 0, "firstNs": min(times) if times else None,
    }


if __name__ == "__main__":
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 25
    try:
        print(json.dumps(summary(sys.argv[1], top), indent=1))
    except Bad as e:
        print("gtrace_summary: %s: truncated or corrupt at byte %s" % (sys.argv[1], e), file=sys.stderr)
        sys.exit(1)
