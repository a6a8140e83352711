package io.gitm.analysis.critical;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.HostOpRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A hand-made step whose critical path was worked out by hand (times in ns). Thread 1 runs {@code step} [0, 100]
 * holding launches L1 [10, 20] and L2 [32, 38] and a {@code cudaDeviceSynchronize} [40, 97], then {@code opt}
 * [110, 130] holding launch L3 [112, 118]. On stream 7: K1 [30, 80] (from L1: the stream was empty, a 20 ns launch),
 * K2 [85, 95] (from L2, queued behind K1: 5 ns idle), K3 [140, 150] (from L3: a 28 ns launch). The path: step's
 * start → L1 (10 host) → K1 (20 launch, 50 kernel) → K2 (5 idle, 10 kernel) → the synchronize's end (sync, 0) →
 * step's end (3 host) → opt's start (dependency, 0) → L3 (2 host) → K3 (28 launch, 10 kernel): 138 ns.
 */
class CriticalPathTest {
  private static List<TraceRecord> step() {
    List<TraceRecord> r = new ArrayList<>();
    r.add(new HostOpRecord("step", 1, 100, 0, 100));
    r.add(new ApiCallRecord(ApiKind.LAUNCH, "cudaLaunchKernel", 1, 1, 10, 20));
    r.add(new ApiCallRecord(ApiKind.LAUNCH, "cudaLaunchKernel", 1, 2, 32, 38));
    r.add(new ApiCallRecord(ApiKind.SYNC, "cudaDeviceSynchronize", 1, 3, 40, 97));
    r.add(new HostOpRecord("opt", 1, 101, 110, 130));
    r.add(new ApiCallRecord(ApiKind.LAUNCH, "cudaLaunchKernel", 1, 4, 112, 118));
    r.add(kernel("K1", 1, 30, 80));
    r.add(kernel("K2", 2, 85, 95));
    r.add(kernel("K3", 4, 140, 150));
    return r;
  }

  private static KernelRecord kernel(String name, long corr, long start, long end) {
    return new KernelRecord(name, 0, 7, corr, start, end, null, null, -1, -1, -1);
  }

  @Test
  void theLongestPathRunsThroughLaunchesKernelsAndTheSynchronizeThatWaitedForThem() {
    CriticalPath.Result r = CriticalPath.of(step(), 0, 150);

    assertThat(r.lengthNs()).isEqualTo(138);
    assertThat(r.startNs()).isZero();
    assertThat(r.endNs()).isEqualTo(150);
    assertThat(r.byKind()).containsEntry(Edge.HOST_OP, 15L).containsEntry(Edge.LAUNCH, 48L)
        .containsEntry(Edge.KERNEL, 70L).containsEntry(Edge.IDLE, 5L).containsEntry(Edge.SYNC, 0L)
        .containsEntry(Edge.DEPENDENCY, 0L);
    assertThat(r.edgesByKind()).containsEntry(Edge.HOST_OP, 3).containsEntry(Edge.LAUNCH, 2)
        .containsEntry(Edge.KERNEL, 3).containsEntry(Edge.IDLE, 1).containsEntry(Edge.SYNC, 1)
        .containsEntry(Edge.DEPENDENCY, 1);
    assertThat(r.share(Edge.KERNEL)).isEqualTo(70.0 / 138);
    assertThat(r.top().getFirst()).isEqualTo(new CriticalPath.Item("K1", Edge.KERNEL, 1, 50));
    assertThat(r.top()).contains(new CriticalPath.Item("cudaLaunchKernel", Edge.LAUNCH, 2, 48),
        new CriticalPath.Item("step", Edge.HOST_OP, 2, 13));
  }

  @Test
  void htasGraphWithoutARecordedSynchronizationEndsAtTheKernelsTheHostWaitedFor() {
    CriticalPath.Result r = CriticalPath.of(step(), 0, 150, CriticalPath.Options.HTA);

    assertThat(r.lengthNs()).isEqualTo(95);
    assertThat(r.endNs()).isEqualTo(95);
    assertThat(r.byKind()).containsEntry(Edge.HOST_OP, 10L).containsEntry(Edge.LAUNCH, 20L)
        .containsEntry(Edge.KERNEL, 60L).containsEntry(Edge.IDLE, 5L);
  }

  @Test
  void aRecordedContextSynchronizationLinksTheLastKernelOfEachStreamToTheCallThatWaited() {
    List<TraceRecord> r = step();
    r.add(new SyncRecord(SyncKind.CONTEXT, 0, -1, 3, 45, 96));

    assertThat(CriticalPath.of(r, 0, 150, CriticalPath.Options.HTA).lengthNs()).isEqualTo(138);
  }

  @Test
  void aWindowKeepsTheHostEventsThatStartInItAndTheWorkTheyLaunched() {
    CriticalPath.Result r = CriticalPath.of(step(), 105, 150);

    // opt, L3 and K3: opt's start → L3 (2 host) → K3 (28 launch, 10 kernel)
    assertThat(r.lengthNs()).isEqualTo(40);
    assertThat(r.events()).isEqualTo(3);
  }

  @Test
  void theStepWindowIsEveryProfilerStepButTheLast() {
    List<TraceRecord> r = step();
    r.add(new MarkerRecord("ProfilerStep#1", 1, 0, 105));
    r.add(new MarkerRecord("ProfilerStep#2", 1, 105, 150));

    assertThat(CriticalPath.stepWindow(r)).containsExactly(0, 105);
    assertThat(CriticalPath.stepWindow(step())).containsExactly(0, 150);
  }
}
