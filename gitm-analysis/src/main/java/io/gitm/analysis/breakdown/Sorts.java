package io.gitm.analysis.breakdown;

/** Stable index sorts over primitive keys, so that a million records sort without boxing. */
final class Sorts {
  private Sorts() {}

  /** Orders two indices; a negative, zero or positive answer as {@link java.util.Comparator} has it. */
  interface IndexOrder {
    int compare(int a, int b);
  }

  /** The indices {@code 0..n-1} in ascending order of {@code keys}, equal keys in index order. */
  static int[] byKey(long[] keys, int n) {
    return by(n, (a, b) -> Long.compare(keys[a], keys[b]));
  }

  /** The indices {@code 0..n-1} in the order {@code order} gives, equal ones in index order (a merge sort). */
  static int[] by(int n, IndexOrder order) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = i;
    }
    if (n < 2 || sorted(a, n, order)) {
      return a;
    }
    int[] b = new int[n];
    for (int width = 1; width < n; width *= 2) {
      for (int lo = 0; lo < n; lo += 2 * width) {
        int mid = Math.min(lo + width, n);
        int hi = Math.min(lo + 2 * width, n);
        merge(a, b, lo, mid, hi, order);
      }
      int[] t = a;
      a = b;
      b = t;
    }
    return a;
  }

  private static boolean sorted(int[] a, int n, IndexOrder order) {
    for (int i = 1; i < n; i++) {
      if (order.compare(a[i - 1], a[i]) > 0) {
        return false;
      }
    }
    return true;
  }

  private static void merge(int[] from, int[] to, int lo, int mid, int hi, IndexOrder order) {
    int i = lo;
    int j = mid;
    int k = lo;
    while (i < mid && j < hi) {
      to[k++] = order.compare(from[j], from[i]) < 0 ? from[j++] : from[i++];
    }
    while (i < mid) {
      to[k++] = from[i++];
    }
    while (j < hi) {
      to[k++] = from[j++];
    }
  }
}
