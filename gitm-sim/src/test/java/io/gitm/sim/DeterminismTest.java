package io.gitm.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.device.DeviceMemory;
import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.Kernel;
import io.gitm.device.Stream;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeterminismTest {

  /** A small pipelined loop on two streams with copies, pool allocations, kernels and samples. */
  static List<TraceRecord> loop(long seed, String faults) {
    SimDevice d = Fixtures.open(faults, seed, 0.02);
    List<TraceRecord> rs = new ArrayList<>();
    d.tracer().start(rs::add);
    Kernel k = d.load(Fixtures.MODULE).kernel("stream_copy");
    Stream a = d.createStream(0);
    Stream b = d.createStream(-1);
    HostMemory h = d.allocHost(1 << 20, HostMemoryKind.PINNED);
    for (int i = 0; i < 200; i++) {
      Stream s = i % 2 == 0 ? a : b;
      DeviceMemory m = d.mallocAsync(1 << 20, s);
      d.copyAsync(m, 0, h, 0, 1 << 20, s);
      d.launch(k, Fixtures.BIG, s, 1L << 24);
      d.freeAsync(m, s);
      if (i % 50 == 49) {
        d.synchronize();
        rs.add(d.sampler().sample());
      }
    }
    d.synchronize();
    d.tracer().stop();
    return rs;
  }

  @Test
  void sameSeedGivesIdenticalRecords() {
    List<TraceRecord> one = loop(42, "thermal@1ms:severity=0.3,launch-bound:gapUs=5");
    List<TraceRecord> two = loop(42, "thermal@1ms:severity=0.3,launch-bound:gapUs=5");
    assertThat(one).hasSizeGreaterThan(800).isEqualTo(two);
  }

  @Test
  void anotherSeedGivesOtherNoise() {
    assertThat(loop(1, "")).isNotEqualTo(loop(2, ""));
  }
}
