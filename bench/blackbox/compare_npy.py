#!/usr/bin/env python3
"""Compares two .npy outputs of the black-box jobs, without numpy: prints one line saying whether their bytes are
identical and, when they are not, how far their values are apart and how many fail
|a-b| <= max(atol, rtol*max(|a|,|b|)) (numpy's allclose rule, made symmetric; gitm's output gate uses the same).

Reads little-endian float32/float64/int32/int64 arrays in C order (what the jobs write). Exit status: 0 when the
files are identical or every element is within the tolerance, 1 when not, 2 when a file cannot be read.
"""
import argparse
import array
import ast
import math
import sys

TYPECODES = {"<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q"}


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:6] != b"\x93NUMPY":
        raise ValueError("%s: not a .npy file" % path)
    major = raw[6]
    if major == 1:
        hlen, start = int.from_bytes(raw[8:10], "little"), 10
    else:
        hlen, start = int.from_bytes(raw[8:12], "little"), 12
    header = ast.literal_eval(raw[start:start + hlen].decode("latin1"))
    if header.get("fortran_order") or header["descr"] not in TYPECODES:
        raise ValueError("%s: unsupported array (%s)" % (path, header))
    values = array.array(TYPECODES[header["descr"]])
    if values.itemsize != int(header["descr"][2:]):
        raise ValueError("%s: this platform's array item size does not match %s" % (path, header["descr"]))
    values.frombytes(raw[start + hlen:])
    if sys.byteorder != "little":
        values.byteswap()
    return tuple(header["shape"]), values, raw


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("reference")
    p.add_argument("candidate")
    p.add_argument("--rtol", type=float, default=0.0)
    p.add_argument("--atol", type=float, default=0.0)
    a = p.parse_args()
    try:
        shape_a, va, raw_a = load(a.reference)
        shape_b, vb, raw_b = load(a.candidate)
    except (OSError, ValueError, SyntaxError, KeyError) as e:
        print("cannot compare: %s" % e)
        return 2
    if raw_a == raw_b:
        print("identical bytes (shape %s)" % (shape_a,))
        return 0
    if shape_a != shape_b or len(va) != len(vb):
        print("differ: shapes %s and %s" % (shape_a, shape_b))
        return 1
    worst_abs = worst_rel = worst_share = 0.0
    failing = differing = 0
    for x, y in zip(va, vb):
        if x == y or (math.isnan(x) and math.isnan(y)):
            continue
        differing += 1
        d = abs(x - y)
        if not math.isfinite(d):
            failing += 1
            worst_abs = worst_rel = worst_share = math.inf
            continue
        m = max(abs(x), abs(y))
        worst_abs = max(worst_abs, d)
        worst_rel = max(worst_rel, d / m)
        allowed = max(a.atol, a.rtol * m)
        share = d / allowed if allowed > 0 else math.inf
        worst_share = max(worst_share, share)
        if share > 1:
            failing += 1
    print("differ: %d of %d values, max |diff| %.3g, max relative %.3g; rtol %g atol %g: %d fail, worst uses %.2f of "
          "its allowance" % (differing, len(va), worst_abs, worst_rel, a.rtol, a.atol, failing, worst_share))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
