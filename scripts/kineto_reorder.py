"""Writes a copy of a Kineto trace with its events in another file order (same events, same times), for testing that
diagnostics judge time order by timestamps, not by where events sit in the file.

Usage: python3 kineto_reorder.py IN.pt.trace.json.gz OUT.pt.trace.json.gz SEED
"""

import gzip
import json
import random
import sys

src, dst, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
with gzip.open(src, "rt") as f:
    trace = json.load(f)
random.Random(seed).shuffle(trace["traceEvents"])
with gzip.GzipFile(dst, "wb", mtime=0) as g:
    g.write(json.dumps(trace).encode())
