#!/usr/bin/env python3
"""Writes a KITTI object-detection folder with Python's standard library alone, independently of gitm's code.

    kitti_gen.py OUT [--frames N] [--points N] [--calib full|tracking|p2only] [--p2only-frame K]
                     [--image WxH] [--no-labels] [--no-images]

OUT gets velodyne/NNNNNN.bin (float32 x y z reflectance, little-endian), calib/NNNNNN.txt, label_2/NNNNNN.txt and
image_2/NNNNNN.png (a black image of the given size). Objects are placed in the camera's view; each label line is
computed here from the object's LiDAR-frame box (R0_rect . Tr_velo_to_cam, then P2 for the 2D box), and the boxes are
written to OUT.boxes (frame class x y z l w h yaw, LiDAR frame, z the box's centre) so that a test can hand them back
as detections. Prints "key value" lines: counts, the objects per KITTI difficulty as KITTI's rules count them, each
file's sha256, and the sha256 and size of what a reader hashes whole: the sorted "sha256  path" listing of the scans,
calibrations and labels (an image is read for its size alone).
"""
import argparse
import hashlib
import math
import os
import random
import struct
import zlib

P2 = [7.215377e+02, 0.0, 6.095593e+02, 4.485728e+01, 0.0, 7.215377e+02, 1.728540e+02, 2.163791e-01, 0.0, 0.0, 1.0,
      2.745884e-03]
R0 = [9.999239e-01, 9.837760e-03, -7.445048e-03, -9.869795e-03, 9.999421e-01, -4.278459e-03, 7.402527e-03,
      4.351614e-03, 9.999631e-01]
TR = [7.533745e-03, -9.999714e-01, -6.166020e-04, -4.069766e-03, 1.480249e-02, 7.280733e-04, -9.998902e-01,
      -7.631618e-02, 9.998621e-01, 7.523790e-03, 1.480755e-02, -2.717806e-01]
IMU = [9.999976e-01, 7.553071e-04, -2.035826e-03, -8.086759e-01, -7.854027e-04, 9.998898e-01, -1.482298e-02,
       3.195559e-01, 2.024406e-03, 1.482454e-02, 9.998881e-01, -7.997231e-01]
P0 = [7.215377e+02, 0.0, 6.095593e+02, 0.0, 0.0, 7.215377e+02, 1.728540e+02, 0.0, 0.0, 0.0, 1.0, 0.0]
SIZES = {"Car": (3.9, 1.6, 1.55), "Pedestrian": (0.8, 0.6, 1.75), "Cyclist": (1.76, 0.6, 1.73),
         "Van": (5.0, 1.9, 2.1)}
MIN_HEIGHT = [40, 25, 25]
MAX_OCC = [0, 1, 2]
MAX_TRUNC = [0.15, 0.3, 0.5]


def velo_to_rect(x, y, z):
    c = [TR[4 * r] * x + TR[4 * r + 1] * y + TR[4 * r + 2] * z + TR[4 * r + 3] for r in range(3)]
    return [R0[3 * r] * c[0] + R0[3 * r + 1] * c[1] + R0[3 * r + 2] * c[2] for r in range(3)]


def project(p):
    h = [P2[4 * r] * p[0] + P2[4 * r + 1] * p[1] + P2[4 * r + 2] * p[2] + P2[4 * r + 3] for r in range(3)]
    return h[0] / h[2], h[1] / h[2], h[2]


def wrap(a):
    while a > math.pi:
        a -= 2 * math.pi
    while a <= -math.pi:
        a += 2 * math.pi
    return a


def label(cls, x, y, z, l, w, h, yaw, width, height):
    """The KITTI label line of a LiDAR-frame box, or None when a corner leaves the image or the camera's front."""
    c, s = math.cos(yaw), math.sin(yaw)
    us, vs = [], []
    for dz in (-h / 2, h / 2):
        for dx, dy in ((l / 2, w / 2), (-l / 2, w / 2), (-l / 2, -w / 2), (l / 2, -w / 2)):
            u, v, d = project(velo_to_rect(x + c * dx - s * dy, y + s * dx + c * dy, z + dz))
            if d <= 0.5:
                return None
            us.append(u)
            vs.append(v)
    box = [min(us), min(vs), max(us), max(vs)]
    if box[0] < 0 or box[1] < 0 or box[2] > width - 1 or box[3] > height - 1:
        return None
    loc = velo_to_rect(x, y, z - h / 2)
    ry = wrap(-yaw - math.pi / 2)
    alpha = wrap(ry - math.atan2(loc[0], loc[2]))
    f = [round(v, 2) for v in [alpha] + box + [h, w, l] + loc + [ry]]
    return "%s 0.00 0 %s" % (cls, " ".join("%.2f" % v for v in f)), round(box[3], 2) - round(box[1], 2)


def png(width, height):
    raw = b"".join(b"\x00" + bytes(3 * width) for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def matrices(calib, frame, p2only_frame):
    full = [("P0", P0), ("P1", P0), ("P2", P2), ("P3", P2), ("R0_rect", R0), ("Tr_velo_to_cam", TR),
            ("Tr_imu_to_velo", IMU)]
    if calib == "p2only" or frame == p2only_frame:
        return "P2: " + " ".join("%.12e" % v for v in P2) + "\n"
    if calib == "tracking":
        names = {"R0_rect": "R_rect", "Tr_velo_to_cam": "Tr_velo_cam", "Tr_imu_to_velo": "Tr_imu_velo"}
        return "".join("%s%s %s\n" % (names.get(k, k), "" if k in names else ":", " ".join("%.12e" % v for v in m))
                       for k, m in full)
    return "".join("%s: %s\n" % (k, " ".join("%.12e" % v for v in m)) for k, m in full)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--frames", type=int, default=6)
    ap.add_argument("--points", type=int, default=4000)
    ap.add_argument("--calib", default="full", choices=["full", "tracking", "p2only"])
    ap.add_argument("--p2only-frame", type=int, default=-1)
    ap.add_argument("--image", default="1242x375")
    ap.add_argument("--no-labels", action="store_true")
    ap.add_argument("--no-images", action="store_true")
    ap.add_argument("--seed", type=int, default=11)
    a = ap.parse_args()
    width, height = (int(v) for v in a.image.split("x"))
    rnd = random.Random(a.seed)
    folders = ["velodyne", "calib"] + ([] if a.no_labels else ["label_2"]) + ([] if a.no_images else ["image_2"])
    for f in folders:
        os.makedirs(os.path.join(a.out, f), exist_ok=True)
    files = {}
    counts = {}
    objects = {}
    points_total = 0
    points_max = 0
    boxes = []
    for frame in range(a.frames):
        fid = "%06d" % frame
        n = a.points + rnd.randrange(0, 500)
        data = bytearray()
        for _ in range(n):
            r = rnd.uniform(3, 70)
            t = rnd.uniform(-math.pi, math.pi)
            data += struct.pack("<4f", r * math.cos(t), r * math.sin(t), rnd.uniform(-1.8, 2.0), rnd.random())
        points_total += n
        points_max = max(points_max, n)
        files["velodyne/%s.bin" % fid] = bytes(data)
        files["calib/%s.txt" % fid] = matrices(a.calib, frame, a.p2only_frame).encode()
        if not a.no_images:
            files["image_2/%s.png" % fid] = png(width, height)
        if a.no_labels:
            continue
        lines = []
        placed = 0
        tries = 0
        while placed < 8 and tries < 400:
            tries += 1
            cls = rnd.choice(["Car", "Car", "Car", "Pedestrian", "Cyclist", "Van"])
            l, w, h = SIZES[cls]
            x = rnd.uniform(6, 45)
            y = rnd.uniform(-0.45, 0.45) * x
            z = -1.73 + h / 2
            yaw = rnd.uniform(-math.pi, math.pi)
            if any(math.hypot(x - b[2], y - b[3]) < 6 for b in boxes if b[0] == frame):
                continue
            got = label(cls, x, y, z, l, w, h, yaw, width, height)
            if got is None:
                continue
            line, box_height = got
            if any(abs(box_height - m) < 3 for m in MIN_HEIGHT):
                continue  # keep every object clear of a difficulty's height bound
            lines.append(line)
            boxes.append((frame, cls, x, y, z, l, w, h, yaw))
            objects[cls] = objects.get(cls, 0) + 1
            if cls != "Van":
                for d in range(3):
                    if box_height > MIN_HEIGHT[d]:  # occlusion and truncation are 0
                        key = "gt.%s.%s" % (cls, ["easy", "moderate", "hard"][d])
                        counts[key] = counts.get(key, 0) + 1
            placed += 1
        lines.append("DontCare -1 -1 -10 500.00 150.00 540.00 180.00 -1 -1 -1 -1000 -1000 -1000 -10")
        objects["DontCare"] = objects.get("DontCare", 0) + 1
        files["label_2/%s.txt" % fid] = ("\n".join(lines) + "\n").encode()
    listing = ""
    total = 0
    for rel in sorted(files):
        with open(os.path.join(a.out, rel), "wb") as fh:
            fh.write(files[rel])
        digest = hashlib.sha256(files[rel]).hexdigest()
        if not rel.startswith("image_2/"):
            listing += "%s  %s\n" % (digest, rel)
            total += len(files[rel])
        print("sha256.%s %s" % (rel, digest))
    with open(a.out.rstrip("/") + ".boxes", "w") as fh:
        for b in boxes:
            fh.write("%d %s %s\n" % (b[0], b[1], " ".join(repr(v) for v in b[2:])))
    print("frames %d" % a.frames)
    print("points %d" % points_total)
    print("pointsPerFrameMax %d" % points_max)
    print("bytes %d" % total)
    print("sha256 %s" % hashlib.sha256(listing.encode()).hexdigest())
    for k in sorted(objects):
        print("objects.%s %d" % (k, objects[k]))
    for k in sorted(counts):
        print("%s %d" % (k, counts[k]))


if __name__ == "__main__":
    main()
