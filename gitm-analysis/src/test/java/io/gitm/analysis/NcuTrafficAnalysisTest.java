package io.gitm.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.analysis.monitor.Violation;
import io.gitm.testkit.Fixtures;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.Precision;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.WorkRecord;
import io.gitm.tracer.NcuTraffic;
import io.gitm.tracer.TraceReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code ncu --csv} traffic attached to a trace and judged by the memory-traffic invariant. */
class NcuTrafficAnalysisTest {
  @Test
  void measuredTrafficFarAboveTheDeclaredBytesBreaksTheMemoryTrafficInvariant() throws Exception {
    TraceMeta meta = new TraceMeta("ncu test", ClockDomain.HOST_MONOTONIC, List.of(), Map.of());
    List<TraceRecord> trace = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      long t = 1_000_000L + i * 100_000L;
      trace.add(new WorkRecord("lob_book", 0, 7, i + 1, t, 0, Precision.FP32, 262_144, 131_072, 0, 0));
      trace.add(kernel("lob_book", i + 1, new Dim3(64, 1, 1), t));
    }
    NcuTraffic.Attached a = NcuTraffic.attach(trace, NcuTraffic.read(Fixtures.file("/tracer/ncu-constructed.csv")));
    List<TraceRecord> with = new ArrayList<>(trace);
    with.addAll(a.records());
    Analysis.Result judged = Analysis.analyze(meta, with, Ceilings.forTrace(meta, null).spec());
    assertThat(judged.violations()).anySatisfy(v -> {
      assertThat(v.invariant()).isEqualTo(Violation.Invariant.MEMORY_TRAFFIC);
      assertThat(v.subject()).contains("lob_book");
    });
    Analysis.Result unjudged = Analysis.analyze(meta, trace, Ceilings.forTrace(meta, null).spec());
    assertThat(unjudged.violations()).noneSatisfy(v -> assertThat(v.invariant())
        .isEqualTo(Violation.Invariant.MEMORY_TRAFFIC));
  }

  /**
   * Real files from the lent H200 (docs/evidence/2026-11-30-h200-s5.tar.xz!/2-run-yardstick-levers): ncu's DRAM
   * bytes of the first 80 hft-lob kernels of the shipped setup, and the CUPTI trace of a gitm run of that setup in the
   * same device call, whose launches declare their work.
   */
  @Test
  void realNcuBytesJudgeTheRealTracesDeclaredTraffic() throws Exception {
    List<NcuTraffic.Profiled> p = NcuTraffic.read(Fixtures.file("/tracer/real/ncu-hft-lob-h200.csv"));
    assertThat(p).hasSize(80).allSatisfy(x -> {
      assertThat(x.name()).startsWith("lob_");
      assertThat(x.bytesRead() + x.bytesWritten()).isPositive();
      assertThat(x.durationNs()).isPositive();
    });
    List<TraceRecord> trace = new ArrayList<>();
    TraceMeta meta;
    try (TraceReader r = TraceReader.open(Fixtures.file("/tracer/real/hft-lob-h200-declared.gtrace"))) {
      meta = r.meta();
      r.read(trace::add);
    }
    NcuTraffic.Attached a = NcuTraffic.attach(trace, p);
    long kernels = trace.stream().filter(KernelRecord.class::isInstance).count();
    assertThat(a.records()).hasSize((int) kernels);
    trace.addAll(a.records());
    Analysis.Result judged = Analysis.analyze(meta, trace, Ceilings.forTrace(meta, null).spec());
    // the histogram and scatter kernels move several times the bytes their work models declare (atomics on shared
    // counters and scattered writes); lob_book moves no more than declared
    assertThat(judged.violations()).filteredOn(v -> v.invariant() == Violation.Invariant.MEMORY_TRAFFIC)
        .extracting(Violation::subject).anySatisfy(s -> assertThat(s).contains("lob_route_hist"))
        .noneSatisfy(s -> assertThat(s).contains("lob_book"));
  }

  private static KernelRecord kernel(String name, long corr, Dim3 grid, long start) {
    return new KernelRecord(name, 0, 7, corr, start, start + 20_000L, grid, new Dim3(256, 1, 1), 32, 0, 0);
  }
}
