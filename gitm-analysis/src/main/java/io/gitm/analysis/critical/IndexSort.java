package io.gitm.analysis.critical;

/** A stable merge sort of event indices by a comparison of the events, without boxing them. */
final class IndexSort {
  /** Compares two events by index. */
  @FunctionalInterface
  interface Order {
    int compare(int a, int b);
  }

  private static final int INSERTION = 24;

  private IndexSort() {}

  /** Sorts {@code idx} by {@code order}; stable, and linear when it is already sorted. */
  static void sort(int[] idx, Order order) {
    int[] tmp = idx.clone();
    sort(tmp, idx, 0, idx.length, order);
  }

  /** Sorts {@code src[from, to)} into {@code dst[from, to)}; both start as copies of each other. */
  private static void sort(int[] src, int[] dst, int from, int to, Order order) {
    if (to - from <= INSERTION) {
      for (int i = from + 1; i < to; i++) {
        int x = dst[i];
        int j = i - 1;
        while (j >= from && order.compare(dst[j], x) > 0) {
          dst[j + 1] = dst[j];
          j--;
        }
        dst[j + 1] = x;
      }
      return;
    }
    int mid = (from + to) >>> 1;
    sort(dst, src, from, mid, order);
    sort(dst, src, mid, to, order);
    if (order.compare(src[mid - 1], src[mid]) <= 0) {
      System.arraycopy(src, from, dst, from, to - from);
      return;
    }
    for (int i = from, p = from, q = mid; i < to; i++) {
      dst[i] = q >= to || (p < mid && order.compare(src[p], src[q]) <= 0) ? src[p++] : src[q++];
    }
  }
}
