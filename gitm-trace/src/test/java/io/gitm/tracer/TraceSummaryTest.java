package io.gitm.tracer;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.trace.CopyKind;
import io.gitm.trace.TraceRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceSummaryTest {
  @TempDir
  Path dir;

  @Test
  void summarizesCountsSpanStreamsAndTopKernels() throws Exception {
    List<TraceRecord> records = new ArrayList<>(Samples.everyType());
    records.add(Samples.kernel("small", 0, 7, 0, 200_000, 200_010));
    records.add(Samples.kernel("small", 0, 7, 0, 200_020, 200_050));
    records.add(Samples.kernel("big", 2, 5, 0, 300_000, 400_000));
    Path f = dir.resolve("s.gtrace");
    Samples.write(f, Samples.META, records);

    TraceSummary s = TraceSummary.of(f, 2);
    assertThat(s.records()).isEqualTo(records.size());
    assertThat(s.recordCounts()).containsExactly(java.util.Map.entry("kernel", 4L), java.util.Map.entry("copy", 2L),
        java.util.Map.entry("memset", 1L), java.util.Map.entry("sync", 2L), java.util.Map.entry("api", 2L),
        java.util.Map.entry("overhead", 1L), java.util.Map.entry("state", 2L), java.util.Map.entry("marker", 2L),
        java.util.Map.entry("work", 1L), java.util.Map.entry("traffic", 1L), java.util.Map.entry("hostop", 1L),
        java.util.Map.entry("collective", 3L));
    assertThat(s.firstNs()).isEqualTo(-5);
    assertThat(s.lastNs()).isEqualTo(400_000);
    assertThat(s.spanNs()).isEqualTo(400_005);
    assertThat(s.streamsByDevice()).containsOnlyKeys(0, 2);
    assertThat(s.streamsByDevice().get(0)).containsExactly(0, 7, 13);
    assertThat(s.hostThreads()).isEqualTo(2);
    assertThat(s.copyBytes()).containsEntry(CopyKind.HTOD, 1L << 20).containsEntry(CopyKind.UNKNOWN, 0L);
    assertThat(s.kernelNs()).isEqualTo(20_000 + 10 + 30 + 100_000);
    assertThat(s.topKernels()).extracting(TraceSummary.KernelStat::name).containsExactly("big",
        "void gemm<float, 128>(float const*, float*)");
    TraceSummary all = TraceSummary.of(f, 10);
    TraceSummary.KernelStat small = all.topKernels().getLast();
    assertThat(small).isEqualTo(new TraceSummary.KernelStat("small", 2, 40, 10, 30));
    assertThat(small.meanNs()).isEqualTo(20.0);
  }

  @Test
  void anEmptyTraceHasAZeroSpanAndItsMetaDevices() throws Exception {
    Path f = dir.resolve("e.gtrace");
    Samples.write(f, Samples.TWO_DEVICES, List.of());
    TraceSummary s = TraceSummary.of(f, 10);
    assertThat(s.records()).isZero();
    assertThat(s.spanNs()).isZero();
    assertThat(s.streamsByDevice()).containsOnlyKeys(0, 1);
    assertThat(s.topKernels()).isEmpty();
  }
}
