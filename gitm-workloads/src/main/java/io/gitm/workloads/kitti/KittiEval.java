package io.gitm.workloads.kitti;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * KITTI's object-detection evaluation for bird's-eye-view and 3D boxes, as the benchmark's devkit
 * ({@code evaluate_object.cpp}) and its Python port in second.pytorch and OpenPCDet compute it: per class and
 * difficulty, detections are matched to ground truth by IoU above the class's threshold (Car 0.7, Pedestrian and
 * Cyclist 0.5), ground truth that is too small, too occluded or too truncated for the difficulty and the neighbouring
 * classes (Van for Car, Person_sitting for Pedestrian) are neither hits nor misses, detections whose image box is
 * lower than the difficulty's minimum height are ignored, precision is taken at the recall points the sorted scores
 * of the hits give and made monotone, and the average precision is its mean over 40 recall points (R40, the
 * benchmark's since 2019) and over 11 (R11, the original).
 *
 * <p>Boxes are labels in rectified camera coordinates (bottom centre x y z, height, width, length, rotation_y): BEV
 * overlap is the rotated intersection in the x–z plane, 3D overlap that times the overlap of the heights.
 */
final class KittiEval {
  /** The classes scored, and their IoU thresholds (the benchmark's). */
  static final List<String> CLASSES = List.of("Car", "Pedestrian", "Cyclist");
  static final double[] MIN_OVERLAP = {0.7, 0.5, 0.5};
  static final List<String> DIFFICULTIES = List.of("easy", "moderate", "hard");
  private static final double[] MIN_HEIGHT = {40, 25, 25};
  private static final int[] MAX_OCCLUSION = {0, 1, 2};
  private static final double[] MAX_TRUNCATION = {0.15, 0.3, 0.5};
  private static final int SAMPLE_POINTS = 41;

  /** What the overlap is measured on. */
  enum Metric {
    BEV, THREE_D;

    String label() {
      return this == BEV ? "bev" : "3d";
    }
  }

  /** One frame's ground truth and detections (labels with scores). */
  record Frame(List<Label> truth, List<Label> detections) {}

  /**
   * One class, difficulty and metric's result.
   *
   * @param groundTruth the objects that count at this difficulty
   * @param apR40, apR11 average precision in percent; NaN when no object counts
   */
  record Ap(String cls, String difficulty, Metric metric, double minOverlap, int groundTruth, double apR40,
      double apR11) {}

  private KittiEval() {}

  /** Every class × difficulty × metric over {@code frames}, in that order. */
  static List<Ap> evaluate(List<Frame> frames) {
    List<Ap> out = new ArrayList<>();
    for (int c = 0; c < CLASSES.size(); c++) {
      for (int d = 0; d < DIFFICULTIES.size(); d++) {
        for (Metric m : Metric.values()) {
          out.add(evaluate(frames, c, d, m));
        }
      }
    }
    return out;
  }

  /** One frame prepared for a class and difficulty: overlaps [dt][gt], the ignore flags, the scores. */
  private record Prepared(double[][] overlaps, int[] ignoredGt, int[] ignoredDt, double[] scores) {}

  static Ap evaluate(List<Frame> frames, int cls, int difficulty, Metric metric) {
    double minOverlap = MIN_OVERLAP[cls];
    List<Prepared> prepared = new ArrayList<>();
    int validGt = 0;
    List<Double> hitScores = new ArrayList<>();
    for (Frame f : frames) {
      Prepared p = prepare(f, CLASSES.get(cls), difficulty, metric);
      prepared.add(p);
      for (int g : p.ignoredGt) {
        validGt += g == 0 ? 1 : 0;
      }
      Stats s = statistics(p, minOverlap, 0, false);
      for (int k = 0; k < s.hits; k++) {
        hitScores.add(s.hitScores[k]);
      }
    }
    if (validGt == 0) {
      return new Ap(CLASSES.get(cls), DIFFICULTIES.get(difficulty), metric, minOverlap, 0, Double.NaN, Double.NaN);
    }
    double[] thresholds = thresholds(hitScores, validGt);
    double[] precision = new double[SAMPLE_POINTS];
    for (int t = 0; t < thresholds.length; t++) {
      long tp = 0;
      long fp = 0;
      long fn = 0;
      for (Prepared p : prepared) {
        Stats s = statistics(p, minOverlap, thresholds[t], true);
        tp += s.tp;
        fp += s.fp;
        fn += s.fn;
      }
      precision[t] = tp + fp == 0 ? 0 : (double) tp / (tp + fp);
    }
    for (int t = thresholds.length - 2; t >= 0; t--) {
      precision[t] = Math.max(precision[t], precision[t + 1]);
    }
    double r40 = 0;
    for (int i = 1; i < SAMPLE_POINTS; i++) {
      r40 += precision[i];
    }
    double r11 = 0;
    for (int i = 0; i < SAMPLE_POINTS; i += 4) {
      r11 += precision[i];
    }
    return new Ap(CLASSES.get(cls), DIFFICULTIES.get(difficulty), metric, minOverlap, validGt, r40 / 40 * 100,
        r11 / 11 * 100);
  }

  /**
   * The scores at which precision is sampled: the hits' scores, highest first, each kept when it brings recall
   * nearest the next of the evenly spaced recall points.
   */
  static double[] thresholds(List<Double> scores, int validGt) {
    double[] s = scores.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    List<Double> out = new ArrayList<>();
    double current = 0;
    for (int i = 0; i < s.length; i++) {
      double score = s[s.length - 1 - i];
      double left = (i + 1) / (double) validGt;
      double right = i < s.length - 1 ? (i + 2) / (double) validGt : left;
      if (right - current < current - left && i < s.length - 1) {
        continue;
      }
      out.add(score);
      current += 1.0 / (SAMPLE_POINTS - 1.0);
    }
    return out.stream().mapToDouble(Double::doubleValue).toArray();
  }

  private static Prepared prepare(Frame f, String cls, int difficulty, Metric metric) {
    String want = cls.toLowerCase(Locale.ROOT);
    int[] ignoredGt = new int[f.truth().size()];
    for (int i = 0; i < ignoredGt.length; i++) {
      Label g = f.truth().get(i);
      String name = g.type().toLowerCase(Locale.ROOT);
      int valid = name.equals(want) ? 1
          : (want.equals("pedestrian") && name.equals("person_sitting")) || (want.equals("car") && name.equals("van"))
              ? 0 : -1;
      double height = g.bbox()[3] - g.bbox()[1];
      boolean ignore = g.occluded() > MAX_OCCLUSION[difficulty] || g.truncated() > MAX_TRUNCATION[difficulty]
          || height <= MIN_HEIGHT[difficulty];
      ignoredGt[i] = valid == 1 && !ignore ? 0 : valid == 0 || valid == 1 ? 1 : -1;
    }
    int[] ignoredDt = new int[f.detections().size()];
    double[] scores = new double[ignoredDt.length];
    for (int j = 0; j < ignoredDt.length; j++) {
      Label d = f.detections().get(j);
      double height = Math.abs(d.bbox()[3] - d.bbox()[1]);
      boolean valid = d.type().toLowerCase(Locale.ROOT).equals(want);
      ignoredDt[j] = height < MIN_HEIGHT[difficulty] ? 1 : valid ? 0 : -1;
      scores[j] = d.score();
    }
    double[][] overlaps = new double[ignoredDt.length][ignoredGt.length];
    for (int j = 0; j < ignoredDt.length; j++) {
      for (int i = 0; i < ignoredGt.length; i++) {
        overlaps[j][i] = overlap(f.detections().get(j), f.truth().get(i), metric);
      }
    }
    return new Prepared(overlaps, ignoredGt, ignoredDt, scores);
  }

  /** The overlap of two labels' boxes: BEV IoU in the camera's x–z plane, or 3D IoU with the heights (y down). */
  static double overlap(Label a, Label b, Metric metric) {
    // KITTI's boxes turn by rotation_y about the camera's y axis: in the (x, z) plane that is a turn by -rotation_y
    float inter = Bev.intersection((float) a.x(), (float) a.z(), (float) a.l(), (float) a.w(), (float) -a.rotationY(),
        (float) b.x(), (float) b.z(), (float) b.l(), (float) b.w(), (float) -b.rotationY());
    if (inter <= 0) {
      return 0;
    }
    if (metric == Metric.BEV) {
      double union = a.l() * a.w() + b.l() * b.w() - inter;
      return union <= 0 ? 0 : inter / union;
    }
    double iw = Math.min(a.y(), b.y()) - Math.max(a.y() - a.h(), b.y() - b.h());
    if (iw <= 0) {
      return 0;
    }
    double inc = iw * inter;
    double union = a.l() * a.h() * a.w() + b.l() * b.h() * b.w() - inc;
    return union <= 0 ? 0 : inc / union;
  }

  /** A frame's counts at one threshold; {@code hitScores[0..hits)} the scores of its hits. */
  private record Stats(int tp, int fp, int fn, double[] hitScores, int hits) {}

  /**
   * The devkit's matching of one frame: each counted object takes the unassigned detection above the IoU threshold
   * with the highest score (when gathering thresholds) or the highest overlap, preferring counted detections (when
   * counting); a match with an ignored object or detection is neither a hit nor a false positive.
   */
  private static Stats statistics(Prepared p, double minOverlap, double thresh, boolean computeFp) {
    int dets = p.ignoredDt.length;
    boolean[] assigned = new boolean[dets];
    boolean[] belowThreshold = new boolean[dets];
    if (computeFp) {
      for (int j = 0; j < dets; j++) {
        belowThreshold[j] = p.scores[j] < thresh;
      }
    }
    final double none = -10_000_000;
    int tp = 0;
    int fp = 0;
    int fn = 0;
    double[] hitScores = new double[p.ignoredGt.length];
    int hits = 0;
    for (int i = 0; i < p.ignoredGt.length; i++) {
      if (p.ignoredGt[i] == -1) {
        continue;
      }
      int detIdx = -1;
      double valid = none;
      double maxOverlap = 0;
      boolean assignedIgnored = false;
      for (int j = 0; j < dets; j++) {
        if (p.ignoredDt[j] == -1 || assigned[j] || belowThreshold[j]) {
          continue;
        }
        double overlap = p.overlaps[j][i];
        double score = p.scores[j];
        if (!computeFp && overlap > minOverlap && score > valid) {
          detIdx = j;
          valid = score;
        } else if (computeFp && overlap > minOverlap && (overlap > maxOverlap || assignedIgnored)
            && p.ignoredDt[j] == 0) {
          maxOverlap = overlap;
          detIdx = j;
          valid = 1;
          assignedIgnored = false;
        } else if (computeFp && overlap > minOverlap && valid == none && p.ignoredDt[j] == 1) {
          detIdx = j;
          valid = 1;
          assignedIgnored = true;
        }
      }
      if (valid == none && p.ignoredGt[i] == 0) {
        fn++;
      } else if (valid != none && (p.ignoredGt[i] == 1 || p.ignoredDt[detIdx] == 1)) {
        assigned[detIdx] = true;
      } else if (valid != none) {
        tp++;
        hitScores[hits++] = p.scores[detIdx];
        assigned[detIdx] = true;
      }
    }
    if (computeFp) {
      for (int j = 0; j < dets; j++) {
        if (!(assigned[j] || p.ignoredDt[j] == -1 || p.ignoredDt[j] == 1 || belowThreshold[j])) {
          fp++;
        }
      }
    }
    return new Stats(tp, fp, fn, Arrays.copyOf(hitScores, hits), hits);
  }
}
