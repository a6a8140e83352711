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
    ByteBuffer b = ByteBuffer.allocate(out.top().length * 4 + out.features().length * 8).order(ByteOrder.LITTLE_ENDIAN);
    for (int v : out.top()) {
      b.putInt(v);
    }
    for (long v : out.features()) {
      b.putLong(v);
    }
    sha.update(b.array());
    for (int i = 0; i < instruments; i++) {
      last[i] = out.signals()[i];
      sum[i] += out.signals()[i];
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
