package io.gitm.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.analysis.Analysis;
import io.gitm.analysis.attribution.Cause;
import io.gitm.analysis.attribution.Evidence;
import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.device.HostMemoryKind;
import io.gitm.sim.SimDevice;
import io.gitm.sim.SimSpec;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workloads.hft.HftLobWorkload;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The doubly robust estimate of a per-kernel condition on a real simulated trace: hft-lob with pinned host buffers
 * (no pageable copies) and a plain allocation per batch, so that "preceded by an allocation" is a condition of its
 * own, which the allocator-stall hypothesis then carries as evidence.
 */
class ConditionEffectTest {
  @TempDir
  Path data;

  @Test
  void kernelsAfterAnAllocationWaitLongerAndTheAllocatorHypothesisCarriesTheEstimate() {
    List<TraceRecord> records = new ArrayList<>();
    TraceMeta[] meta = new TraceMeta[1];
    SimSpec spec = SimSpec.preset("h200");
    try (SimDevice d = SimDevice.open(spec, 5, "")) {
      Profiler.run(d, new HftLobWorkload(new HftLobWorkload.Params(5, 512, 120_000, 4096, 10, 128, 7, null)),
          ExecutionConfig.shipped().withHostMemory(HostMemoryKind.PINNED), data, () -> 0L,
          new Profiler.Options(Duration.ofDays(1), 30, 1_000_000L), m -> {
            meta[0] = m;
            return records::add;
          });
    }
    Analysis.Result a = Analysis.analyze(meta[0], records, spec.hardware());
    Hypothesis alloc = a.hypotheses().stream().filter(h -> h.cause() == Cause.ALLOCATOR_STALL).findFirst()
        .orElseThrow();
    Evidence e = alloc.evidence().stream().filter(x -> x.kind().equals("aipw")).findFirst().orElseThrow();
    assertThat(e.summary()).contains("preceded by an allocation or free").contains("doubly robust");
    assertThat((Double) e.data().get("factor")).isGreaterThan(1.0);
    assertThat((Double) e.data().get("ciLow")).isGreaterThan(1.0);
    assertThat((Double) e.data().get("p")).isLessThan(0.05);
  }
}
