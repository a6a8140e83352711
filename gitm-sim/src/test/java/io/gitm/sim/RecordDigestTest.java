package io.gitm.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.device.DeviceMemory;
import io.gitm.device.Event;
import io.gitm.device.GraphExec;
import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.Kernel;
import io.gitm.device.LaunchConfig;
import io.gitm.device.Stream;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.Dim3;
import io.gitm.trace.StateSample;
import io.gitm.trace.TraceRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pins the model's output for a fixed seed: a launch-heavy loop on two streams with copies both ways, pool
 * allocations, memsets, events, a replayed graph, samples and many faults. The digests were computed before the
 * simulator's speed work; any change to a record's field or to an emulated byte changes them. The records' digest
 * was re-pinned when state samples gained the other-process fields (OTHER_PROCESSES, OTHER_SM_UTILIZATION), after
 * checking that the samples cut to their first 22 fields still gave the earlier digest.
 */
class RecordDigestTest {
  /**
   * SHA-256 of every record's fields (API records without the host thread id) and the event brackets' readings of
   * {@link #scenario}.
   */
  private static final String RECORDS = "98e2b72b28393908d9af96b69a7c2342b38160ef0254a69b6c71864148ed56cf";
  /** SHA-256 of the scenario's final device buffer (the saxpy output). */
  private static final String OUTPUT = "01626bec343cee6c1c0256847b28cfd9e1aac853a8335c7e6a2faf78627ca70c";

  private static final String FAULTS = "thermal@2ms:severity=0.7,launch-bound@5ms:gapUs=3:duration=10ms,"
      + "sync-stall@1ms:every=97,uncoalesced@3ms:factor=3:kernel=stream,noisy-neighbour@8ms:sms=40:duration=6ms,"
      + "allocator-churn@12ms:duration=2ms,pcie-downgrade@4ms:factor=0.7,ecc-retirement@15ms";

  record Outcome(List<TraceRecord> records, List<Integer> elapsed, byte[] output) {
  }

  static Outcome scenario() {
    SimDevice d = Fixtures.open(FAULTS, 20261130L, 0.05);
    List<TraceRecord> rs = new ArrayList<>();
    List<Integer> elapsed = new ArrayList<>();
    d.tracer().start(rs::add);
    Kernel saxpy = d.load(Fixtures.MODULE).kernel("saxpy");
    Kernel stream = d.load(Fixtures.MODULE).kernel("stream_copy");
    Kernel compute = d.load(Fixtures.MODULE).kernel("fma_loop");
    Stream a = d.createStream(0);
    Stream b = d.createStream(-1);
    int n = 4096;
    HostMemory up = d.allocHost(4L * n, HostMemoryKind.PINNED);
    HostMemory down = d.allocHost(4L * n, HostMemoryKind.PAGEABLE);
    ByteBuffer hb = up.buffer();
    for (int i = 0; i < n; i++) {
      hb.putFloat(4 * i, i * 0.25f);
    }
    DeviceMemory y = d.malloc(4L * n);
    DeviceMemory x = d.malloc(4L * n);
    d.memsetAsync(y, 0, 0, 4L * n, a);
    Event done = d.createEvent(true);
    Event start = d.createEvent(true);
    LaunchConfig small = LaunchConfig.cover(n, 256);
    LaunchConfig wide = new LaunchConfig(Dim3.of(132 * 3), Dim3.of(128), 1024);
    d.beginCapture(b);
    d.launch(stream, Fixtures.SMALL, b, 1L << 16);
    d.launch(compute, Fixtures.SMALL, b, 1.0e6);
    GraphExec g = d.endCapture(b);
    for (int i = 0; i < 1200; i++) {
      start.record(a);
      d.copyAsync(x, 0, up, 0, 4L * n, a);
      DeviceMemory tmp = d.mallocAsync(1 << 20, a);
      for (int k = 0; k < 6; k++) {
        d.launch(saxpy, small, a, y, x, 0.5f, n);
      }
      d.launch(stream, wide, b, 1L << (16 + i % 5));
      d.launch(compute, Fixtures.BIG, b, 1.0e8 * (1 + i % 3));
      d.freeAsync(tmp, a);
      done.record(a);
      b.waitEvent(done);
      if (i % 7 == 0) {
        d.launchGraph(g, b);
      }
      if (i % 16 == 15) {
        a.synchronize();
        elapsed.add(Float.floatToRawIntBits(done.elapsedMillisSince(start)));
      }
      if (i % 100 == 99) {
        d.copyAsync(down, 0, y, 0, 4L * n, b);
        d.synchronize();
        rs.add(d.sampler().sample());
      }
    }
    d.synchronize();
    d.tracer().stop();
    byte[] out = new byte[4 * n];
    d.copy(down, 0, y, 0, 4L * n);
    down.buffer().get(out);
    rs.add(d.sampler().sample());
    d.close();
    return new Outcome(rs, elapsed, out);
  }

  static String text(TraceRecord r) {
    return switch (r) {
      case ApiCallRecord c -> "api " + c.kind() + ' ' + c.name() + ' ' + c.correlationId() + ' ' + c.startNs() + ' '
          + c.endNs();
      case StateSample s -> "sample " + s.device() + ' ' + s.timeNs() + ' ' + Arrays.toString(s.values());
      default -> r.toString();
    };
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String recordsDigest(Outcome o) {
    StringBuilder sb = new StringBuilder();
    for (TraceRecord r : o.records()) {
      sb.append(text(r)).append('\n');
    }
    sb.append("elapsed ").append(o.elapsed());
    return sha256(sb.toString().getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void fixedSeedScenarioGivesThePinnedRecordsAndOutput() {
    Outcome o = scenario();
    assertThat(o.records()).hasSizeGreaterThan(20_000);
    assertThat(recordsDigest(o)).isEqualTo(RECORDS);
    assertThat(sha256(o.output())).isEqualTo(OUTPUT);
  }

  /** Prints the digests (run once on the reference code to pin them). */
  public static void main(String[] args) {
    Outcome o = scenario();
    System.out.println(o.records().size() + " records");
    System.out.println(recordsDigest(o));
    System.out.println(sha256(o.output()));
  }
}
