package io.gitm.workloads.hft;

import java.util.SplittableRandom;

/** Sizes, feature columns and error bits shared by the kernels (lob.cu), their emulations and the reference. */
final class LobLayout {
  private LobLayout() {
  }

  /** Ints per decoded message: inst, type, side, sub, shares, price, ref (2 ints), ref2 (2 ints). */
  static final int DEC = 10;
  /** Levels per side in the top-of-book output. */
  static final int TOP_LEVELS = 10;
  /** Ints per instrument in the top-of-book output: 2 sides x 10 levels x (price, qty). */
  static final int TOP = 4 * TOP_LEVELS;
  /** Longs per instrument in the feature output. */
  static final int FEAT = 16;
  /** Longs of feature state carried per instrument from batch to batch. */
  static final int STATE = 6;
  static final int IN = 8;
  static final int HID = 16;
  static final int WEIGHTS = HID * IN + HID + HID + 1;

  // Feature columns.
  static final int BEST_BID = 0;
  static final int BEST_ASK = 1;
  static final int BID_SIZE = 2;
  static final int ASK_SIZE = 3;
  static final int SPREAD = 4;
  static final int MID2 = 5;
  static final int MICRO = 6;
  static final int DEPTH_BID = 7;
  static final int DEPTH_ASK = 8;
  static final int OFI = 9;
  static final int TRADE_VOLUME = 10;
  static final int MESSAGES = 11;
  static final int EWMA_VAR = 12;
  static final int UNKNOWN_REFS = 13;
  static final int LIVE_ORDERS = 14;
  static final int ERRORS = 15;

  static final int ERR_DUPLICATE = 1;
  static final int ERR_ORDERS_FULL = 2;
  static final int ERR_LEVELS_FULL = 4;
  static final int ERR_OVERFLOW = 8;
  static final int ERR_INCONSISTENT = 16;

  static String describeErrors(int bits) {
    StringBuilder b = new StringBuilder();
    if ((bits & ERR_DUPLICATE) != 0) {
      b.append("duplicate order reference; ");
    }
    if ((bits & ERR_ORDERS_FULL) != 0) {
      b.append("order table full; ");
    }
    if ((bits & ERR_LEVELS_FULL) != 0) {
      b.append("price levels full; ");
    }
    if ((bits & ERR_OVERFLOW) != 0) {
      b.append("level size above 2^31-1; ");
    }
    if ((bits & ERR_INCONSISTENT) != 0) {
      b.append("book inconsistent; ");
    }
    return b.isEmpty() ? "none" : b.substring(0, b.length() - 2);
  }

  /** The MLP's weights for {@code seed}: W1[16][8], b1[16], W2[16], b2. */
  static float[] weights(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] w = new float[WEIGHTS];
    for (int i = 0; i < w.length; i++) {
      double scale = i < HID * IN ? 0.5 : i < HID * IN + HID ? 0.1 : i < HID * IN + 2 * HID ? 0.5 : 0.05;
      w[i] = (float) ((r.nextDouble() * 2 - 1) * scale);
    }
    return w;
  }
}
