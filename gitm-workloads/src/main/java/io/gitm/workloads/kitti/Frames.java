package io.gitm.workloads.kitti;

import java.util.List;

/**
 * The frames a kitti session cycles through: how many, the largest scan (the session's buffers are sized for it),
 * and each scan when a step stages it (held in memory, or read from its file then).
 */
interface Frames {
  int size();

  /** Points of the largest scan. */
  int maxPoints();

  /** Frame {@code f}'s scan, {@code 0 <= f < size()}. */
  Scan scan(int f);

  /** Scans held in memory. */
  static Frames of(List<Scan> scans) {
    List<Scan> all = List.copyOf(scans);
    if (all.isEmpty()) {
      throw new IllegalArgumentException("kitti: no frames");
    }
    int max = all.stream().mapToInt(Scan::points).max().orElse(0);
    return new Frames() {
      @Override
      public int size() {
        return all.size();
      }

      @Override
      public int maxPoints() {
        return max;
      }

      @Override
      public Scan scan(int f) {
        return all.get(f);
      }
    };
  }
}
