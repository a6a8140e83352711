package io.gitm.workloads.kitti;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded scans of a 64-beam spinning LiDAR (an HDL-64E as on KITTI's car: 1.73 m above a flat ground, beams from +2°
 * down to -24.8°, 0.17° azimuth steps, 120 m range) over a street: a ground plane, walls along both sides (not
 * labelled), and cars, pedestrians and cyclists as boxes at KITTI's usual sizes and ranges. Each ray keeps its nearest
 * hit (so nearer objects occlude farther ones); ranges get 2 cm noise, 8% of the returns drop out, reflectance depends
 * on the surface and falls with range. A full frame has about 120k points, as KITTI's do. The objects are also given
 * as KITTI labels.
 *
 * @param seed the scene seed (a frame's scene is drawn from the seed and the frame's index)
 * @param beams laser beams (64 for a real scan; fewer for small tests)
 * @param azimuthSteps rays per beam per revolution (2083 for a real scan)
 */
record ScanGenerator(long seed, int beams, int azimuthSteps) {
  static final double SENSOR_HEIGHT = 1.73;
  static final double MAX_RANGE = 120;
  static final double MIN_RANGE = 2.5;
  static final double TOP_DEG = 2.0;
  static final double BOTTOM_DEG = -24.8;
  /** Share of returns lost (dark, specular or grazing surfaces): brings a frame to KITTI's ~120k points. */
  static final double DROPOUT = 0.08;

  ScanGenerator {
    if (beams < 2 || azimuthSteps < 8) {
      throw new IllegalArgumentException("kitti generator: at least 2 beams and 8 azimuth steps, got " + beams + " and "
          + azimuthSteps);
    }
  }

  /** A full HDL-64E frame generator. */
  static ScanGenerator hdl64(long seed) {
    return new ScanGenerator(seed, 64, 2083);
  }

  /** One generated frame: the scan, its labelled objects (LiDAR frame) and those objects as KITTI labels. */
  record Frame(Scan scan, List<Box> objects, List<Label> labels) {
  }

  /** A box that reflects rays: {@code label} false for walls. */
  private record Solid(Box box, double reflectance, boolean labelled) {
  }

  Frame frame(int index) {
    SplittableRandom r = new SplittableRandom(seed * 1_000_003L + index);
    List<Solid> solids = new ArrayList<>();
    double street = 6 + 4 * r.nextDouble();
    solids.add(new Solid(new Box(-1, 0, (float) (street + 0.5), 1.5f, 300, 1, 6.5f, 0, 0), 0.45, false));
    solids.add(new Solid(new Box(-1, 0, (float) -(street + 0.5 + 2 * r.nextDouble()), 1.5f, 300, 1, 6.5f, 0, 0), 0.45,
        false));
    place(r, solids, 0, 8 + r.nextInt(8), street);
    place(r, solids, 1, 2 + r.nextInt(5), street);
    place(r, solids, 2, 1 + r.nextInt(3), street);
    float[] pts = new float[4 * beams * azimuthSteps];
    int n = 0;
    double[] elev = new double[beams];
    for (int b = 0; b < beams; b++) {
      elev[b] = Math.toRadians(TOP_DEG + (BOTTOM_DEG - TOP_DEG) * b / (beams - 1) + 0.02 * r.nextGaussian());
    }
    for (int b = 0; b < beams; b++) {
      double ce = Math.cos(elev[b]);
      double dz = Math.sin(elev[b]);
      for (int k = 0; k < azimuthSteps; k++) {
        double az = 2 * Math.PI * (k + 0.5 * (b & 1)) / azimuthSteps;
        double dx = ce * Math.cos(az);
        double dy = ce * Math.sin(az);
        double best = MAX_RANGE;
        double refl = -1;
        if (dz < 0) {
          double t = -SENSOR_HEIGHT / dz;
          if (t < best) {
            best = t;
            refl = 0.15 + 0.1 * r.nextDouble();
          }
        }
        for (Solid s : solids) {
          double t = hit(s.box, dx, dy, dz, best);
          if (t < best) {
            best = t;
            refl = s.reflectance;
          }
        }
        if (refl < 0 || best < MIN_RANGE || r.nextDouble() < DROPOUT) {
          continue;
        }
        double range = best + 0.02 * r.nextGaussian();
        pts[n++] = (float) (range * dx);
        pts[n++] = (float) (range * dy);
        pts[n++] = (float) (range * dz);
        double v = refl * (1 - 0.4 * best / MAX_RANGE) + 0.05 * r.nextGaussian();
        pts[n++] = (float) Math.max(0, Math.min(1, v));
      }
    }
    List<Box> objects = new ArrayList<>();
    List<Label> labels = new ArrayList<>();
    Calibration calib = Calibration.typical();
    for (Solid s : solids) {
      if (s.labelled) {
        objects.add(s.box);
        labels.add(s.box.label(calib, occlusion(s.box, solids)));
      }
    }
    return new Frame(new Scan(Arrays.copyOf(pts, n)), objects, labels);
  }

  /** Places {@code count} objects of class {@code cls} on the street, none overlapping another. */
  private static void place(SplittableRandom r, List<Solid> solids, int cls, int count, double street) {
    for (int placed = 0, tries = 0; placed < count && tries < 200; tries++) {
      double l;
      double w;
      double h;
      double refl;
      switch (cls) {
        case 0 -> {
          l = 3.9 + 0.4 * r.nextGaussian();
          w = 1.6 + 0.1 * r.nextGaussian();
          h = 1.55 + 0.1 * r.nextGaussian();
          refl = 0.3 + 0.5 * r.nextDouble();
        }
        case 1 -> {
          l = 0.8 + 0.1 * r.nextGaussian();
          w = 0.6 + 0.05 * r.nextGaussian();
          h = 1.75 + 0.1 * r.nextGaussian();
          refl = 0.3 + 0.1 * r.nextDouble();
        }
        default -> {
          l = 1.76 + 0.1 * r.nextGaussian();
          w = 0.6 + 0.05 * r.nextGaussian();
          h = 1.73 + 0.08 * r.nextGaussian();
          refl = 0.35 + 0.2 * r.nextDouble();
        }
      }
      double x = 4 + 56 * r.nextDouble() * (r.nextDouble() < 0.8 ? 1 : -1);
      // cars in lanes or parked along the walls, heading along the street; the others on the pavements or crossing
      double y;
      double yaw;
      if (cls == 0) {
        y = (r.nextDouble() * 2 - 1) * (street - 1.2);
        yaw = (r.nextBoolean() ? 0 : Math.PI) + 0.1 * r.nextGaussian();
      } else {
        y = (r.nextDouble() * 2 - 1) * (street - 0.5);
        yaw = Label.wrap(2 * Math.PI * r.nextDouble());
      }
      if (Math.hypot(x, y) < 4) {
        continue;
      }
      Box b = new Box(cls, (float) x, (float) y, (float) (-SENSOR_HEIGHT + h / 2), (float) l, (float) w, (float) h,
          (float) Label.wrap(yaw), 1);
      boolean free = true;
      for (Solid s : solids) {
        if (s.labelled && Math.hypot(s.box.x() - x, s.box.y() - y) < radius(s.box) + radius(b) + 0.3) {
          free = false;
          break;
        }
      }
      if (free) {
        solids.add(new Solid(b, refl, true));
        placed++;
      }
    }
  }

  private static double radius(Box b) {
    return 0.5 * Math.hypot(b.l(), b.w());
  }

  /**
   * Distance along the ray from the origin with direction (dx, dy, dz) to where it enters {@code b}, or
   * {@code +∞} when it misses or enters beyond {@code limit} (the slab test in the box's own frame).
   */
  static double hit(Box b, double dx, double dy, double dz, double limit) {
    double c = Math.cos(b.yaw());
    double s = Math.sin(b.yaw());
    double ox = -b.x() * c - b.y() * s;
    double oy = b.x() * s - b.y() * c;
    double oz = -b.z();
    double rx = dx * c + dy * s;
    double ry = -dx * s + dy * c;
    double lo = 0;
    double hi = limit;
    double[] o = {ox, oy, oz};
    double[] d = {rx, ry, dz};
    double[] half = {b.l() / 2.0, b.w() / 2.0, b.h() / 2.0};
    for (int a = 0; a < 3; a++) {
      if (Math.abs(d[a]) < 1e-12) {
        if (Math.abs(o[a]) > half[a]) {
          return Double.POSITIVE_INFINITY;
        }
        continue;
      }
      double t0 = (-half[a] - o[a]) / d[a];
      double t1 = (half[a] - o[a]) / d[a];
      lo = Math.max(lo, Math.min(t0, t1));
      hi = Math.min(hi, Math.max(t0, t1));
      if (lo > hi) {
        return Double.POSITIVE_INFINITY;
      }
    }
    return lo > 0 ? lo : Double.POSITIVE_INFINITY;
  }

  /**
   * KITTI's occlusion level of {@code b}: the share of rays aimed at its centre column (9 heights × 9 azimuths over
   * its angular width) that hit another solid first: 0 (under 10%), 1 (under 50%), 2 (more).
   */
  private static int occlusion(Box b, List<Solid> solids) {
    double range = Math.hypot(b.x(), b.y());
    double span = Math.atan2(radius(b), range);
    double az0 = Math.atan2(b.y(), b.x());
    int blocked = 0;
    int total = 0;
    for (int i = 0; i < 9; i++) {
      double az = az0 + span * (i - 4) / 5.0;
      for (int j = 0; j < 9; j++) {
        double z = b.z() + b.h() * (j - 4) / 10.0;
        double el = Math.atan2(z, range);
        double dx = Math.cos(el) * Math.cos(az);
        double dy = Math.cos(el) * Math.sin(az);
        double dz = Math.sin(el);
        double own = hit(b, dx, dy, dz, MAX_RANGE);
        if (own == Double.POSITIVE_INFINITY) {
          continue;
        }
        total++;
        for (Solid s : solids) {
          if (s.box != b && hit(s.box, dx, dy, dz, own) < own) {
            blocked++;
            break;
          }
        }
      }
    }
    double share = total == 0 ? 0 : blocked / (double) total;
    return share < 0.1 ? 0 : share < 0.5 ? 1 : 2;
  }
}
