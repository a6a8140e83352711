#!/usr/bin/env python3
"""Writes an ITCH 5.0 file from the specification's message layouts (Nasdaq TotalView-ITCH 5.0), with Python's
struct and gzip only, and prints what it wrote as JSON: messages by type, the highest stock locate, the most price
levels a side and live orders any book held (from its own replay of the books), sha256 and size of the file, and
the same counts for the instruments named by --pick, one "key value" line each.

usage: itch_gen.py OUT [--framing length|zero|none] [--gzip] [--seed N] [--pick SYM,SYM]
"""
import argparse
import gzip
import hashlib
import random
import struct

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--framing", default="length", choices=["length", "zero", "none"])
ap.add_argument("--gzip", action="store_true")
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--pick", default="")
ap.add_argument("--deep", type=int, default=300, help="distinct bid prices stock 1 holds at once")
ap.add_argument("--live", type=int, default=1500, help="orders stock 2 holds at once")
a = ap.parse_args()
rnd = random.Random(a.seed)
SYMBOLS = ["AAPL", "MSFT", "SPY", "QQQ", "ZVZZT", "BRK.A"]
msgs = []  # (locate, bytes)
clock = [34200 * 10**9]


def hdr(t, locate):
    clock[0] += rnd.randint(1, 5000)
    return struct.pack(">cHH", t.encode(), locate, rnd.randint(0, 65535)) + clock[0].to_bytes(6, "big")


def stock(s):
    return s.ljust(8).encode()


def put(locate, b):
    msgs.append((locate, b))


put(0, hdr("S", 0) + b"O")
for i, s in enumerate(SYMBOLS, 1):
    put(i, hdr("R", i) + stock(s) + b"Q" + b"N" + struct.pack(">I", 100) + b"N" + b"C" + b"Z " + b"P" + b"N"
        + b"N" + b"1" + b"N" + struct.pack(">I", 0) + b"N")
    put(i, hdr("H", i) + stock(s) + b"T" + b" " + b"    ")
    put(i, hdr("Y", i) + stock(s) + b"0")
put(3, hdr("L", 3) + b"GSCO" + stock("SPY") + b"Y" + b"N" + b"A")
put(0, hdr("V", 0) + struct.pack(">QQQ", 3_000_000_000_000, 2_000_000_000_000, 1_000_000_000_000))
put(0, hdr("W", 0) + b"1")
put(4, hdr("K", 4) + stock("QQQ") + struct.pack(">I", 36000) + b"A" + struct.pack(">I", 1_000_000))
put(5, hdr("J", 5) + stock("ZVZZT") + struct.pack(">IIII", 100_000, 110_000, 90_000, 0))
put(6, hdr("h", 6) + stock("BRK.A") + b"Q" + b"H")
put(5, hdr("N", 5) + stock("ZVZZT") + b"B")
put(4, hdr("O", 4) + stock("QQQ") + b"Y" + struct.pack(">IIIQII", 100, 200, 150, 1_000_000, 90, 210))

# the books, replayed here as the messages are made: ref -> [locate, buy, price, shares]
orders = {}
levels = {}  # (locate, buy) -> {price: shares}
most = {"levels": {}, "live": {}}


def live_of(locate):
    return sum(1 for o in orders.values() if o[0] == locate)


def note(locate):
    for buy in (True, False):
        most["levels"][locate] = max(most["levels"].get(locate, 0), len(levels.get((locate, buy), {})))
    most["live"][locate] = max(most["live"].get(locate, 0), live_of(locate))


def add(locate, ref, buy, shares, price, mpid=None):
    sym = SYMBOLS[locate - 1]
    body = struct.pack(">Q", ref) + (b"B" if buy else b"S") + struct.pack(">I", shares) + stock(sym) \
        + struct.pack(">I", price)
    put(locate, hdr("F" if mpid else "A", locate) + body + (mpid.encode() if mpid else b""))
    orders[ref] = [locate, buy, price, shares]
    side = levels.setdefault((locate, buy), {})
    side[price] = side.get(price, 0) + shares
    note(locate)


def reduce(ref, x):
    o = orders[ref]
    side = levels[(o[0], o[1])]
    side[o[2]] -= x
    if side[o[2]] == 0:
        del side[o[2]]
    o[3] -= x
    if o[3] == 0:
        del orders[ref]


next_ref = [1]


def new_ref():
    r = next_ref[0]
    next_ref[0] += 1
    return r


add(1, 0, True, 100, 1_500_000)  # order reference number 0: an order like any other
for p in range(1, a.deep):  # stock 1: a deep bid side, one order per price
    add(1, new_ref(), True, rnd.randint(1, 9) * 100, 1_500_000 - 100 * p, mpid="GSCO" if p % 7 == 0 else None)
for _ in range(a.live):  # stock 2: many live orders at a few prices
    add(2, new_ref(), rnd.random() < 0.5, 100, 3_000_000 + 100 * rnd.randint(-3, 3))
for step in range(4000):  # the rest: a random mix on every stock
    locate = rnd.randint(1, len(SYMBOLS))
    mine = [r for r, o in orders.items() if o[0] == locate] if step % 5 else []
    kind = rnd.random()
    sym = SYMBOLS[locate - 1]
    if not mine or kind < 0.35:
        add(locate, new_ref(), rnd.random() < 0.5, rnd.randint(1, 20) * 50, 1_000_000 + 100 * rnd.randint(-40, 40))
        continue
    ref = rnd.choice(mine)
    o = orders[ref]
    if kind < 0.5:
        x = rnd.randint(1, o[3])
        put(locate, hdr("E", locate) + struct.pack(">QIQ", ref, x, rnd.getrandbits(40)))
        reduce(ref, x)
    elif kind < 0.6:
        x = rnd.randint(1, o[3])
        put(locate, hdr("C", locate) + struct.pack(">QIQ", ref, x, rnd.getrandbits(40)) + b"Y"
            + struct.pack(">I", o[2] + 100))
        reduce(ref, x)
    elif kind < 0.75:
        x = rnd.randint(1, o[3])
        put(locate, hdr("X", locate) + struct.pack(">QI", ref, x))
        reduce(ref, x)
    elif kind < 0.87:
        put(locate, hdr("D", locate) + struct.pack(">Q", ref))
        reduce(ref, o[3])
    elif kind < 0.95:
        new, shares, price = new_ref(), rnd.randint(1, 20) * 50, o[2] + 100 * rnd.randint(-2, 2)
        put(locate, hdr("U", locate) + struct.pack(">QQII", ref, new, shares, price))
        buy = o[1]
        reduce(ref, o[3])
        orders[new] = [locate, buy, price, shares]
        side = levels.setdefault((locate, buy), {})
        side[price] = side.get(price, 0) + shares
        note(locate)
    else:
        put(locate, hdr("P", locate) + struct.pack(">QcI", 0, b"B", 100) + stock(sym)
            + struct.pack(">IQ", 1_000_000, rnd.getrandbits(40)))
put(3, hdr("Q", 3) + struct.pack(">Q", 5000) + stock("SPY") + struct.pack(">IQ", 4_000_000, 77) + b"C")
put(0, hdr("B", 0) + struct.pack(">Q", 77))
put(3, hdr("I", 3) + struct.pack(">QQ", 1000, 200) + b"B" + stock("SPY") + struct.pack(">III", 1, 2, 3) + b"C"
    + b"L")
put(0, hdr("S", 0) + b"C")

raw = bytearray()
for _, m in msgs:
    if a.framing == "length":
        raw += struct.pack(">H", len(m))
    elif a.framing == "zero":
        raw += b"\0\0"
    raw += m
data = gzip.compress(bytes(raw)) if a.gzip else bytes(raw)
open(a.out, "wb").write(data)


def counts(keep):
    by = {}
    for locate, m in msgs:
        if keep(locate):
            t = chr(m[0])
            by[t] = by.get(t, 0) + 1
    return by


pick = [s for s in a.pick.split(",") if s]
picked = {SYMBOLS.index(s) + 1 for s in pick}
by_all = counts(lambda l: True)
by_pick = counts(lambda l: l == 0 or l in picked)
out = {
    "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "messages": len(msgs),
    "instruments": len(SYMBOLS), "maxLevels": max(most["levels"].values()), "maxLive": max(most["live"].values()),
    "picked.messages": sum(by_pick.values()), "picked.instruments": len(picked),
    "picked.maxLive": max([most["live"].get(l, 0) for l in picked] or [0]),
    "picked.maxLevels": max([most["levels"].get(l, 0) for l in picked] or [0])}
out.update({"type." + t: n for t, n in by_all.items()})
out.update({"picked.type." + t: n for t, n in by_pick.items()})
for k, v in out.items():  # one "key value" line each
    print(k, v)
