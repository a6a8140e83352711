package io.gitm.workloads.hft;

import io.gitm.workload.OutputDigest;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The digest of a sequence of {@link BatchOutput}s: sha256 over every batch's top levels and features
 * (little-endian, in batch order; the exact part), and as values the last batch's signals followed by each
 * instrument's sum of signals over all batches (the part compared within tolerance).
 */
final class LobDigest {
  private final MessageDigest sha;
  private final int instruments;
  private final float[] last;
  private final double[] sum;
  private long batches;

  LobDigest(int instruments) {
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 unavailable", e);
    }
    this.instruments = instruments;
    last = new float[instruments];
    sum = new double[instruments];
  }

  void add(BatchOutput out) {
    ByteBuffer top = ByteBuffer.allocate(out.top().length * 4).order(ByteOrder.LITTLE_ENDIAN);
    top.asIntBuffer().put(out.top());
    ByteBuffer feat = ByteBuffer.allocate(out.features().length * 8).order(ByteOrder.LITTLE_ENDIAN);
    feat.asLongBuffer().put(out.features());
    add(top, feat, out.signals());
  }

  /** One batch given as its little-endian top levels and features (consumed) and its signals. */
  void add(ByteBuffer top, ByteBuffer features, float[] signals) {
    if (top.remaining() != instruments * LobLayout.TOP * 4 || features.remaining() != instruments * LobLayout.FEAT * 8
        || signals.length != instruments) {
      throw new IllegalArgumentException("batch output shaped for another instrument count");
    }
    sha.update(top);
    sha.update(features);
    for (int i = 0; i < instruments; i++) {
      last[i] = signals[i];
      sum[i] += signals[i];
    }
    batches++;
  }

  long batches() {
    return batches;
  }

  OutputDigest digest() {
    String hex;
    try {
      hex = HexFormat.of().formatHex(((MessageDigest) sha.clone()).digest());
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("SHA-256 digest cannot be cloned", e);
    }
    double[] values = new double[2 * instruments];
    for (int i = 0; i < instruments; i++) {
      values[i] = last[i];
      values[instruments + i] = sum[i];
    }
    return new OutputDigest(hex, values);
  }
}
