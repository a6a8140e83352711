package io.gitm.workloads.af2;

import static io.gitm.workloads.HostKernels.floats;
import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.workloads.HostKernels;
import io.gitm.workloads.HostKernels.Builder;
import io.gitm.workloads.HostKernels.Case;
import io.gitm.workloads.HostKernels.Ref;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The CUDA source itself (not its Java emulation), compiled as host C++ with a small shim (a block's threads as real
 * threads meeting at barriers, warp shuffles through a per-warp exchange), has the emulations' effect on memory:
 * bit for bit where only IEEE operations and {@code fmaf} are involved, within a few float ulps where the exponential
 * or the arctangent (the C library's against Java's) are. Sizes are uneven so that tiles, warps, channel groups and
 * chunks end part-way. Needs a C++20 compiler ({@code g++}); skipped, with the reason, without one.
 */
class Af2CudaSourceOnHostTest {
  /** Relative difference allowed where exp or atan is involved (against max(1, |value|)). */
  static final double LIBM_TOLERANCE = 2e-6;

  @TempDir
  static Path dir;

  static HostKernels.Runner runner;

  @BeforeAll
  static void compile() throws Exception {
    runner = HostKernels.Runner.compile(dir, List.of("/kernels/af2.cu", "/af2-host/shim.h", "/af2-host/run.cpp"));
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    {
      Builder b = new Builder(1);
      int n = 45 * 7;
      Ref msa = b.ints(n, 22);
      Ref del = b.ints(n, 6);
      b.call(Af2Kernels.MSA_FEAT, Af2Kernels.elementwise(n), msa, del, b.floats(n * 49, 1), n);
      out.add(Arguments.of("msa features", b.build(false)));
    }
    {
      Builder b = new Builder(2);
      int r = 37;
      Ref aatype = b.ints(r, 21);
      b.call(Af2Kernels.TARGET_FEAT, Af2Kernels.elementwise(r), aatype, b.floats(r * 22, 1), r);
      b.call(Af2Kernels.RELPOS, Af2Kernels.elementwise((long) r * r), b.floats(r * r * Dims.RELPOS_BINS, 1), r,
          Dims.MAX_RELATIVE);
      out.add(Arguments.of("query features and relative positions", b.build(true)));
    }
    {
      Builder b = new Builder(3);
      int s = 5;
      int r = 9;
      int cm = 12;
      int cz = 7;
      b.call(Af2Kernels.MSA_INIT, Af2Kernels.elementwise(s * r * cm), b.floats(s * r * cm, 1), b.floats(s * r * cm, 1),
          b.floats(cm, 1), b.floats(r * cm, 1), b.floats(cm, 1), s, r, cm);
      b.call(Af2Kernels.PAIR_INIT, Af2Kernels.elementwise(r * r * cz), b.floats(r * r * cz, 1), b.floats(r * cz, 1),
          b.floats(cz, 1), b.floats(r * cz, 1), b.floats(cz, 1), b.floats(r * r * cz, 1), b.floats(cz, 1), r, cz);
      out.add(Arguments.of("embedding sums", b.build(true)));
    }
    for (int c : new int[] {16, 70}) {
      Builder b = new Builder(4 + c);
      int rows = 37;
      b.call(Af2Kernels.LAYER_NORM, Af2Kernels.perRow(rows), b.floats(rows * c, 3), b.floats(c, 1), b.floats(c, 1),
          b.floats(rows * c, 1), rows, c);
      out.add(Arguments.of("layer norm of " + c + " channels", b.build(true)));
    }
    {
      Builder b = new Builder(5);
      int n = 1000;
      int c = 24;
      Ref y = b.floats(n, 1);
      b.call(Af2Kernels.BIAS_ACT, Af2Kernels.elementwise(n), y, b.floats(c, 1), n, c, 1);
      b.call(Af2Kernels.BIAS_ACT, Af2Kernels.elementwise(n), b.floats(n, 1), b.floats(c, 1), n, c, 0);
      b.call(Af2Kernels.RESIDUAL, Af2Kernels.elementwise(n), b.floats(n, 1), y, b.floats(c, 1), n, c, 7.001f);
      out.add(Arguments.of("bias, relu and residual", b.build(true)));
    }
    {
      Builder b = new Builder(6);
      int n = 999;
      int c = 37;
      b.call(Af2Kernels.GATE_MUL, Af2Kernels.elementwise(n), b.floats(n, 1), b.floats(c, 1), b.floats(n, 2),
          b.floats(c, 1), b.floats(n, 1), n, c);
      b.call(Af2Kernels.GATED_RESIDUAL, Af2Kernels.elementwise(n), b.floats(n, 1), b.floats(n, 1), b.floats(c, 1),
          b.floats(n, 2), b.floats(c, 1), n, c);
      out.add(Arguments.of("gates", b.build(false)));
    }
    // attention: batch rows nb, n queries = n keys, heads h of dim d, in row, column and transposed layouts; two
    // chunks of rows (the second starting part-way); logits, softmax, weighted values
    out.add(Arguments.of("row attention with bias, dim 24", attention(7, 5, 45, 2, 24, "row", true, 3)));
    out.add(Arguments.of("column attention, dim 40", attention(8, 6, 19, 3, 40, "column", false, 4)));
    out.add(Arguments.of("ending-node attention, dim 8", attention(9, 13, 13, 2, 8, "ending", true, 5)));
    for (boolean outgoing : new boolean[] {true, false}) {
      Builder b = new Builder(outgoing ? 10 : 11);
      int r = 21;
      int c = 40;
      int row = r * c;
      b.call(Af2Kernels.TRI_MULT, Af2Kernels.triMultLaunch(r, c), b.floats(r * r * c, 1), b.floats(r * r * c, 1),
          b.floats(r * r * c, 1), r, c, outgoing ? row : c, outgoing ? c : row, outgoing ? row : c, outgoing ? c : row);
      out.add(Arguments.of("triangle product, " + (outgoing ? "outgoing" : "incoming"), b.build(true)));
    }
    {
      Builder b = new Builder(12);
      int r = 5;
      int co = 3;
      b.call(Af2Kernels.OPM_REARRANGE, Af2Kernels.elementwise((long) r * r * co * co), b.floats(r * r * co * co, 1),
          b.floats(r * r * co * co, 1), r, co);
      out.add(Arguments.of("outer product rearrangement", b.build(true)));
    }
    return out.stream();
  }

  /** Attention over {@code nb} rows in chunks of {@code chunk} rows. */
  static Case attention(long seed, int nb, int n, int h, int d, String layout, boolean bias, int chunk) {
    Builder b = new Builder(seed);
    int hd = h * d;
    int sb;
    int st;
    int bq;
    int bk;
    switch (layout) {
      case "row" -> {
        sb = n * hd;
        st = hd;
        bq = n * h;
        bk = h;
      }
      case "column" -> {
        sb = hd;
        st = nb * hd;
        bq = 0;
        bk = 0;
      }
      default -> {
        // the ending node: batch j, position i at (i * R + j), R = nb = n; bias of (i, k) at (k * R + i)
        sb = hd;
        st = n * hd;
        bq = h;
        bk = n * h;
      }
    }
    int total = nb * n * hd;
    Ref q = b.floats(total, 1);
    Ref k = b.floats(total, 1);
    Ref v = b.floats(total, 1);
    Ref g = b.floats(total, 1);
    Ref gb = b.floats(hd, 1);
    Ref pairBias = b.floats(n * n * h, 1);
    Ref o = b.floats(total, 1);
    Ref logits = b.floats(chunk * h * n * n, 1);
    for (int b0 = 0; b0 < nb; b0 += chunk) {
      int cb = Math.min(chunk, nb - b0);
      b.call(Af2Kernels.ATTN_LOGITS, Af2Kernels.logitsLaunch(cb, h, n, n, d), q, k, bias ? pairBias : q, logits, b0, h,
          n, n, d, sb, st, bq, bk, (float) (1 / Math.sqrt(d)), bias ? 1 : 0);
      b.call(Af2Kernels.SOFTMAX, Af2Kernels.perRow((long) cb * h * n), logits, cb * h * n, n);
      b.call(Af2Kernels.ATTN_OUT, Af2Kernels.attnOutLaunch(cb, h, n, d), logits, v, g, gb, o, b0, h, n, n, d, sb, st);
    }
    return b.build(false);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void cudaSourceOnTheHostHasTheEmulationsEffect(String name, Case c) throws Exception {
    Assumptions.assumeTrue(runner.binary() != null, runner::why);
    List<ByteBuffer> host = runner.run(c);
    List<ByteBuffer> emulated = HostKernels.emulated(c, Af2Kernels.MODULE);
    for (int i = 0; i < emulated.size(); i++) {
      float[] want = floats(emulated.get(i));
      float[] got = floats(host.get(i));
      if (c.exact()) {
        assertThat(got).as("buffer %d", i).containsExactly(want);
      } else {
        double worst = 0;
        for (int j = 0; j < want.length; j++) {
          worst = Math.max(worst, Math.abs(got[j] - want[j]) / Math.max(1, Math.abs(want[j])));
        }
        assertThat(worst).as("buffer %d", i).isLessThanOrEqualTo(LIBM_TOLERANCE);
      }
    }
  }
}
