package io.gitm.workloads.af2;

import io.gitm.workload.OutputDigest;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The digest of an inference's output, the single representation {@code [N_res][c_s]} and the pair representation
 * {@code [N_res][N_res][c_z]}: sha256 over both (float32, little-endian, in that order; the exact part), and as values
 * the single representation followed by the pair representation's mean over channels for every (i, j) (the part
 * compared within {@link Af2Workload#OUTPUT_TOLERANCE}, values under {@link #FLOOR} in magnitude absolutely).
 */
final class Af2Output {
  private Af2Output() {
  }

  /** Magnitude under which a difference counts as absolute (the representations are of order one). */
  static final double FLOOR = 1.0;

  static OutputDigest digest(float[] single, float[] pair, int nRes, int pairChannels) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 unavailable", e);
    }
    ByteBuffer b = ByteBuffer.allocate(4 * Math.max(single.length, pair.length)).order(ByteOrder.LITTLE_ENDIAN);
    b.asFloatBuffer().put(single);
    sha.update(b.array(), 0, 4 * single.length);
    b.clear();
    b.asFloatBuffer().put(pair);
    sha.update(b.array(), 0, 4 * pair.length);
    int pairs = nRes * nRes;
    double[] values = new double[single.length + pairs];
    for (int i = 0; i < single.length; i++) {
      values[i] = single[i];
    }
    for (int ij = 0; ij < pairs; ij++) {
      double s = 0;
      for (int c = 0; c < pairChannels; c++) {
        s += pair[ij * pairChannels + c];
      }
      values[single.length + ij] = s / pairChannels;
    }
    return new OutputDigest(HexFormat.of().formatHex(sha.digest()), values, null, FLOOR);
  }
}
