package io.gitm.workloads.hft;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.workload.OutputDigest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The CUDA source itself (not its Java emulation), compiled as host C++ with a small shim (threads meeting at a
 * barrier for {@code __syncthreads}), gives the reference's output: books, features and bit-identical signals.
 * Needs a C++20 compiler ({@code g++}); skipped, with the reason, without one.
 */
class LobCudaSourceOnHostTest {
  @TempDir
  static Path dir;

  static Path binary;
  static String why;

  @BeforeAll
  static void compile() throws Exception {
    for (String f : List.of("/kernels/lob.cu", "/hft-host/shim.h", "/hft-host/run.cpp")) {
      try (InputStream in = LobCudaSourceOnHostTest.class.getResourceAsStream(f)) {
        if (in == null) {
          why = "resource " + f + " missing from the class path";
          return;
        }
        Files.write(dir.resolve(Path.of(f).getFileName().toString()), in.readAllBytes());
      }
    }
    binary = dir.resolve("run");
    try {
      Process p = new ProcessBuilder("g++", "-std=c++20", "-O2", "-ffp-contract=off", "-w", "-x", "c++", "run.cpp",
          "-o", "run", "-lpthread").directory(dir.toFile()).redirectErrorStream(true).start();
      String log = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
        why = "g++ -std=c++20 could not build the host shim: " + log.lines().limit(3).toList();
        binary = null;
      }
    } catch (IOException e) {
      why = "no C++ compiler: " + e.getMessage();
      binary = null;
    }
  }

  @ParameterizedTest(name = "{0} instruments, coalesce {3}, block {4}, 2^{5} order slots, book variant {8}")
  @CsvSource({
      "50, 20000, 1000, 1, 128, 10, 400, 100, thread",
      "50, 20000, 1000, 3, 32, 10, 400, 100, thread",
      "6, 30000, 1000, 2, 64, 4, 12, 9, thread",
      "300, 40000, 5000, 4, 1024, 10, 400, 100, thread",
      "50, 3000, 600, 1, 128, 10, 400, 100, warp",
      "6, 4000, 1000, 2, 64, 4, 12, 9, warp",
      "20, 3000, 800, 3, 32, 10, 400, 100, warp"})
  void cudaSourceGivesTheReferenceOutput(int instruments, int messages, int batch, int k, int block, int logOC,
      int maxLive, int maxLevels, String variant) throws Exception {
    Assumptions.assumeTrue(binary != null, () -> why);
    ItchFile f = ItchReader.parse(new ItchGenerator(9, instruments, messages, maxLive, maxLevels).generate());
    int n = f.instruments();
    int levels = Math.max(10, maxLevels + 2);
    int inputBatches = (f.count() + batch - 1) / batch;
    int deviceBatches = (inputBatches + k - 1) / k;
    List<byte[]> parts = new ArrayList<>();
    parts.add(ints(n, k, logOC, levels, block, deviceBatches, variant.equals("warp") ? 1 : 0));
    float[] w = LobLayout.weights(7);
    ByteBuffer wb = ByteBuffer.allocate(4 * w.length).order(ByteOrder.LITTLE_ENDIAN);
    wb.asFloatBuffer().put(w);
    parts.add(wb.array());
    for (int d = 0; d < deviceBatches; d++) {
      // The staging layout of LobSession: raw messages, offsets (8-aligned), input-batch starts.
      int inputs = Math.min(k, inputBatches - d * k);
      int from = d * k * batch;
      int to = Math.min(f.count(), (d * k + inputs) * batch);
      int m = to - from;
      int rawFrom = f.offsets()[from];
      int rawBytes = (to < f.count() ? f.offsets()[to] : f.messages().length) - rawFrom;
      int offsetsAt = (rawBytes + 7) & ~7;
      int subAt = offsetsAt + 4 * m;
      int inBytes = subAt + 4 * (inputs + 1);
      ByteBuffer in = ByteBuffer.allocate(inBytes).order(ByteOrder.LITTLE_ENDIAN);
      in.put(0, f.messages(), rawFrom, rawBytes);
      for (int j = 0; j < m; j++) {
        in.putInt(offsetsAt + 4 * j, f.offsets()[from + j] - rawFrom);
      }
      for (int s = 0; s <= inputs; s++) {
        in.putInt(subAt + 4 * s, Math.min(m, s * batch));
      }
      parts.add(ints(m, inputs, rawBytes, offsetsAt, subAt, inBytes));
      parts.add(in.array());
    }
    Path input = dir.resolve("in-" + instruments + "-" + k + "-" + variant + ".bin");
    Path output = dir.resolve("out-" + instruments + "-" + k + "-" + variant + ".bin");
    try (var o = Files.newOutputStream(input)) {
      for (byte[] p : parts) {
        o.write(p);
      }
    }
    Process p = new ProcessBuilder(binary.toString(), input.toString(), output.toString()).redirectErrorStream(true)
        .start();
    String log = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(log).isZero();

    ByteBuffer out = ByteBuffer.wrap(Files.readAllBytes(output)).order(ByteOrder.LITTLE_ENDIAN);
    LobDigest got = new LobDigest(n);
    for (int d = 0; d < deviceBatches; d++) {
      int inputs = Math.min(k, inputBatches - d * k);
      int[] top = new int[inputs * n * LobLayout.TOP];
      long[] feat = new long[inputs * n * LobLayout.FEAT];
      float[] sig = new float[inputs * n];
      out.asIntBuffer().get(top);
      out.position(out.position() + 4 * top.length);
      out.asLongBuffer().get(feat);
      out.position(out.position() + 8 * feat.length);
      out.asFloatBuffer().get(sig);
      out.position(out.position() + 4 * sig.length);
      for (int s = 0; s < inputs; s++) {
        got.add(new BatchOutput(Arrays.copyOfRange(top, s * n * LobLayout.TOP, (s + 1) * n * LobLayout.TOP),
            Arrays.copyOfRange(feat, s * n * LobLayout.FEAT, (s + 1) * n * LobLayout.FEAT),
            Arrays.copyOfRange(sig, s * n, (s + 1) * n)));
      }
    }
    assertThat(out.remaining()).isZero();
    LobDigest ref = new LobDigest(n);
    LobReference.run(f, batch, 7).forEach(ref::add);
    OutputDigest a = got.digest();
    OutputDigest b = ref.digest();
    assertThat(a.sha256()).as("books and features").isEqualTo(b.sha256());
    assertThat(a.values()).as("signals, bit for bit").containsExactly(b.values());
  }

  private static byte[] ints(int... v) {
    ByteBuffer b = ByteBuffer.allocate(4 * v.length).order(ByteOrder.LITTLE_ENDIAN);
    b.asIntBuffer().put(v);
    return b.array();
  }
}
