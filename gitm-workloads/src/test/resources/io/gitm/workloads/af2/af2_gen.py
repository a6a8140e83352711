#!/usr/bin/env python3
"""Writes an AlphaFold target folder with Python's standard library alone, independently of gitm's code, and the MSA
features AlphaFold's monomer data pipeline makes of it.

    af2_gen.py OUT [--residues N] [--seed S] [--mgnify N] [--no-fasta] [--no-hhr] [--check DIR]

OUT gets OUT.fasta's twin OUT/query.fasta and OUT/msas/ as run_alphafold.py leaves it: uniref90_hits.sto (Stockholm
in two blocks, with insert columns), bfd_uniref_hits.a3m (lower-case insertions), mgnify_hits.sto (--mgnify rows:
more than the 501 AlphaFold keeps) and pdb_hits.hhr (HHsearch's format, two blocks per hit). Rows repeat across the
files and within them, and use the rare letters (B, Z, U, X, J, O). The features are computed as AlphaFold's
parsers.parse_stockholm / parse_a3m, the pipeline's per-database caps (uniref90 10000, mgnify 501) and
pipeline.make_msa_features do (order uniref90, bfd, mgnify; a row whose aligned sequence was seen is dropped; the msa
in HHblits ids). Prints "key value" lines: counts, the sha256 of each feature's int32 little-endian bytes, the template
hits, each file's sha256 and the sha256 of the sorted "sha256  path" listing.

With --check DIR it loads DIR's .npy files with NumPy and compares them with the features (exit 3 without NumPy).
"""
import argparse
import hashlib
import os
import random
import struct
import sys

AA = "ARNDCQEGHILKMFPSTWYV"
HHBLITS = {'A': 0, 'B': 2, 'C': 1, 'D': 2, 'E': 3, 'F': 4, 'G': 5, 'H': 6, 'I': 7, 'J': 20, 'K': 8, 'L': 9, 'M': 10,
           'N': 11, 'O': 20, 'P': 12, 'Q': 13, 'R': 14, 'S': 15, 'T': 16, 'U': 1, 'V': 17, 'W': 18, 'X': 20, 'Y': 19,
           'Z': 3, '-': 21}
RARE = "BZUXJO"


def mutate(rnd, query, identity):
    return "".join(c if rnd.random() < identity else rnd.choice(AA + RARE[rnd.randrange(6)]) for c in query)


def homolog(rnd, query):
    """A row aligned to the query: substitutions, deleted runs, terminal gaps."""
    s = list(mutate(rnd, query, rnd.uniform(0.3, 0.95)))
    if rnd.random() < 0.3:
        a = rnd.randrange(len(s) // 2)
        s[:a] = "-" * a
    for _ in range(rnd.randrange(3)):
        a = rnd.randrange(len(s))
        for k in range(a, min(len(s), a + rnd.randrange(1, 5))):
            s[k] = "-"
    return "".join(s)


def write_sto(path, name, query, rows, inserts, rnd):
    """Stockholm as jackhmmer -A writes it: the query first, insert columns gapped in the query ('-')."""
    cols = len(query) + len(inserts)
    aligned = []
    for r in [query] + rows:
        out = []
        for i, c in enumerate(r):
            out.append(c)
            if i in inserts:
                out.append(rnd.choice(AA) if r is not query and rnd.random() < 0.4 else "-")
        aligned.append("".join(out))
    assert all(len(a) == cols for a in aligned)
    names = [name] + ["UniRef90_%s%05d/%d-%d" % ("MG" if "mgnify" in path else "A", i, 1, len(query))
                      for i in range(len(rows))]
    half = cols // 2
    with open(path, "w") as f:
        f.write("# STOCKHOLM 1.0\n\n")
        for n in names[1:]:
            f.write("#=GS %-30s DE [subseq from] a homolog\n" % n)
        f.write("\n")
        for lo, hi in ((0, half), (half, cols)):
            for n, a in zip(names, aligned):
                f.write("%-32s %s\n" % (n, a[lo:hi]))
            f.write("#=GC %-27s %s\n\n" % ("RF", "".join("." if q == "-" else "x" for q in aligned[0][lo:hi])))
        f.write("//\n")
    return names, aligned


def write_a3m(path, query, rows, rnd):
    out = [">query\n%s\n" % query]
    for i, r in enumerate(rows):
        s = []
        for c in r:
            if rnd.random() < 0.05:
                s.append("".join(rnd.choice(AA).lower() for _ in range(rnd.randrange(1, 4))))
            s.append(c)
        out.append(">bfd%04d some description\n%s\n" % (i, "".join(s)))
    with open(path, "w") as f:
        f.write("".join(out))


def write_hhr(path, query, rnd):
    hits = []
    n = len(query)
    lines = ["Query         query", "Match_columns %d" % n, "No_of_seqs    100 out of 200", "Neff          8.1",
             "Searched_HMMs 100", "Date          Mon Jan  1 00:00:00 2026",
             "Command       hhsearch -i query.a3m -d pdb70 -o pdb_hits.hhr", "",
             " No Hit                             Prob E-value P-value  Score    SS Cols Query HMM  Template HMM"]
    for k in range(3):
        q0 = rnd.randrange(0, 10)
        q1 = n - rnd.randrange(0, 10)
        t0 = rnd.randrange(1, 30)
        name = "%d%s_%s" % (rnd.randrange(1, 10), "".join(rnd.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(3)),
                            "ABC"[k])
        hits.append((k + 1, name, q0, q1, t0, round(rnd.uniform(50, 100), 2), round(rnd.uniform(10, q1 - q0), 1)))
        lines.append("%3d %-30s %5.1f 1.2E-20 3.1E-25  150.0   0.0 %4d %4d-%-4d %4d-%-4d(300)"
                     % (k + 1, name, hits[-1][5], q1 - q0, q0 + 1, q1, t0, t0 + q1 - q0 - 1))
    lines.append("")
    for (no, name, q0, q1, t0, prob, sum_probs) in hits:
        lines += ["No %d" % no, ">%s mol:protein length:300  SOME PROTEIN" % name,
                  "Probab=%.2f  E-value=1.2e-20  Score=150.00  Aligned_cols=%d  Identities=40%%  Similarity=0.512  "
                  "Sum_probs=%.1f  Template_Neff=8.100" % (prob, q1 - q0, sum_probs), ""]
        seg = query[q0:q1]
        hit = "".join(c if rnd.random() < 0.5 else rnd.choice(AA) for c in seg)
        mid = len(seg) // 2
        for lo, hi in ((0, mid), (mid, len(seg))):
            qs, ts = seg[lo:hi], hit[lo:hi]
            lines += ["Q ss_pred             %s" % ("C" * len(qs)),
                      "Q query           %4d %s %4d (%d)" % (q0 + lo + 1, qs, q0 + hi, n),
                      "Q Consensus       %4d %s %4d (%d)" % (q0 + lo + 1, qs.lower(), q0 + hi, n),
                      "                       %s" % ("|" * len(qs)),
                      "T Consensus       %4d %s %4d (300)" % (t0 + lo, ts.lower(), t0 + hi - 1),
                      "T %-15s %4d %s %4d (300)" % (name, t0 + lo, ts, t0 + hi - 1),
                      "T ss_dssp             %s" % ("C" * len(ts)),
                      "T ss_pred             %s" % ("C" * len(ts)),
                      "Confidence            %s" % ("9" * len(qs)), ""]
    lines.append("Done!")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return hits


def parse_stockholm(path, max_sequences):
    """AlphaFold's parse_stockholm on the first max_sequences names (truncate_stockholm_msa)."""
    seqs = {}
    for line in open(path):
        line = line.strip()
        if not line or line.startswith(("#", "//")):
            continue
        name, s = line.split()
        if name not in seqs:
            if len(seqs) >= max_sequences:
                continue
            seqs[name] = ""
        seqs[name] += s
    out = []
    query = None
    for s in seqs.values():
        if query is None:
            query = s
        aligned = "".join(c for c, q in zip(s, query) if q != "-")
        dels = []
        count = 0
        for c, q in zip(s, query):
            if c != "-" or q != "-":
                if q == "-":
                    count += 1
                else:
                    dels.append(count)
                    count = 0
        out.append((aligned, dels))
    return out


def parse_a3m(path):
    seqs = []
    for line in open(path):
        line = line.strip()
        if line.startswith(">"):
            seqs.append("")
        elif line:
            seqs[-1] += line
    out = []
    for s in seqs:
        dels = []
        count = 0
        for c in s:
            if c.islower():
                count += 1
            else:
                dels.append(count)
                count = 0
        out.append(("".join(c for c in s if not c.islower()), dels))
    return out


def features(msas):
    seen = set()
    msa, dels = [], []
    for m in msas:
        for s, d in m:
            if s in seen:
                continue
            seen.add(s)
            msa.append([HHBLITS[c] for c in s])
            dels.append(d)
    return msa, dels


def int32(rows):
    return b"".join(struct.pack("<%di" % len(r), *r) for r in rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--residues", type=int, default=60)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--mgnify", type=int, default=520)
    ap.add_argument("--no-fasta", action="store_true")
    ap.add_argument("--no-hhr", action="store_true")
    ap.add_argument("--check")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    query = "".join(rnd.choice(AA) for _ in range(a.residues))
    msas = os.path.join(a.out, "msas")
    os.makedirs(msas, exist_ok=True)
    if not a.no_fasta:
        with open(os.path.join(a.out, "query.fasta"), "w") as f:
            f.write(">T1000 a target\n%s\n%s\n" % (query[:40], query[40:]))
    uniref = [homolog(rnd, query) for _ in range(40)]
    uniref += [uniref[3], uniref[7]]  # repeats within the file
    bfd = [homolog(rnd, query) for _ in range(30)] + [uniref[1], uniref[2]]
    mg = [homolog(rnd, query) for _ in range(a.mgnify - 3)] + [bfd[0], uniref[5]]
    inserts = set(rnd.sample(range(a.residues - 1), 6))
    write_sto(os.path.join(msas, "uniref90_hits.sto"), "T1000", query, uniref, inserts, rnd)
    write_a3m(os.path.join(msas, "bfd_uniref_hits.a3m"), query, bfd, rnd)
    write_sto(os.path.join(msas, "mgnify_hits.sto"), "T1000", query, mg, set(rnd.sample(range(a.residues - 1), 4)),
              rnd)
    hits = [] if a.no_hhr else write_hhr(os.path.join(msas, "pdb_hits.hhr"), query, rnd)
    parsed = [parse_stockholm(os.path.join(msas, "uniref90_hits.sto"), 10000),
              parse_a3m(os.path.join(msas, "bfd_uniref_hits.a3m")),
              parse_stockholm(os.path.join(msas, "mgnify_hits.sto"), 501)]
    msa, dels = features(parsed)
    aatype = [[1 if AA.find(c) == k or (AA.find(c) < 0 and k == 20) else 0 for k in range(21)] for c in query]
    if a.check:
        try:
            import numpy as np
        except ImportError:
            print("numpy is not importable", file=sys.stderr)
            sys.exit(3)
        want = {"msa": np.array(msa, dtype=np.int32), "deletion_matrix_int": np.array(dels, dtype=np.int32),
                "num_alignments": np.array([len(msa)] * a.residues, dtype=np.int32),
                "aatype": np.array(aatype, dtype=np.int32)}
        for k, v in want.items():
            got = np.load(os.path.join(a.check, k + ".npy"))
            if got.dtype != v.dtype or got.shape != v.shape or not (got == v).all():
                print("%s differs: %s %s vs %s %s" % (k, got.dtype, got.shape, v.dtype, v.shape), file=sys.stderr)
                sys.exit(1)
        print("checked %d" % len(want))
        return
    listing = ""
    total = 0
    for root, _, names in os.walk(a.out):
        for n in names:
            p = os.path.join(root, n)
            rel = os.path.relpath(p, a.out).replace(os.sep, "/")
            data = open(p, "rb").read()
            print("sha256.%s %s" % (rel, hashlib.sha256(data).hexdigest()))
    for rel in sorted(os.path.relpath(os.path.join(r, n), a.out).replace(os.sep, "/")
                      for r, _, ns in os.walk(a.out) for n in ns):
        data = open(os.path.join(a.out, rel), "rb").read()
        listing += "%s  %s\n" % (hashlib.sha256(data).hexdigest(), rel)
        total += len(data)
    print("sha256 %s" % hashlib.sha256(listing.encode()).hexdigest())
    print("bytes %d" % total)
    print("residues %d" % a.residues)
    print("query %s" % query)
    print("rows.uniref90_hits.sto %d" % len(parsed[0]))
    print("rows.bfd_uniref_hits.a3m %d" % len(parsed[1]))
    print("rows.mgnify_hits.sto %d" % len(parsed[2]))
    print("alignments %d" % len(msa))
    print("sha256.msa %s" % hashlib.sha256(int32(msa)).hexdigest())
    print("sha256.deletion_matrix_int %s" % hashlib.sha256(int32(dels)).hexdigest())
    print("sha256.aatype %s" % hashlib.sha256(int32(aatype)).hexdigest())
    print("deletions %d" % sum(sum(d) for d in dels))
    print("templates %d" % len(hits))
    for (no, name, q0, q1, t0, prob, sum_probs) in hits:
        print("template.%d %s %d-%d %d-%d %.2f %.1f" % (no, name, q0 + 1, q1, t0, t0 + q1 - q0 - 1, prob, sum_probs))


if __name__ == "__main__":
    main()
