package io.gitm.planner;

import static io.gitm.analysis.Records.HW;
import static io.gitm.analysis.Records.api;
import static io.gitm.analysis.Records.chain;
import static io.gitm.analysis.Records.copy;
import static io.gitm.analysis.Records.kernel;
import static io.gitm.analysis.Records.sync;
import static io.gitm.analysis.Records.work;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyKind;
import io.gitm.trace.Precision;
import io.gitm.trace.SyncKind;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The planner's bounds on hand-made records (ceilings: {@link io.gitm.analysis.Records#HW}). */
class PlannerTest {
  @Test
  void memoryBoundKernelsLowerBoundIsItsBytesOverTheBandwidth() {
    // 4 MB at 1e9 B/s = 4 ms; 1 MFLOP at 1e13 flop/s = 0.1 µs
    Graph g = Planner.predict(List.of(kernel("stream", 7, 1, 0, 5_000_000, 1000),
        work("stream", 7, 1, 0, 1e6, Precision.FP32, 4_000_000)), HW);
    Graph.Node n = g.nodes().getFirst();
    assertThat(n.lowerNs()).isCloseTo(4_000_000, within(1e-3));
    assertThat(n.bound()).isEqualTo(Graph.Bound.MEMORY);
    assertThat(n.memoryBound()).isTrue();
    assertThat(n.basis()).isEqualTo(Graph.Basis.MODEL);
    assertThat(n.predictedBytes()).isEqualTo(4_000_000);
  }

  @Test
  void kernelsOfOneGraphLaunchSharingItsCorrelationIdEachTakeTheirOwnWork() {
    // a graph launch (correlation id 9) runs "small" then "big"; each declared its own work under that id
    Graph g = Planner.predict(List.of(kernel("small", 7, 9, 0, 1_000_000, 1000),
        kernel("big", 7, 9, 1_000_000, 9_000_000, 1000),
        work("small", 7, 9, 0, 1e6, Precision.FP32, 1_000_000),
        work("big", 7, 9, 0, 1e6, Precision.FP32, 8_000_000)), HW);
    assertThat(g.nodes()).extracting(Graph.Node::name).containsExactly("small", "big");
    assertThat(g.nodes().get(0).predictedBytes()).isEqualTo(1_000_000);
    assertThat(g.nodes().get(1).predictedBytes()).isEqualTo(8_000_000);
    assertThat(g.nodes().get(0).lowerNs()).isCloseTo(1_000_000, within(1e-3));
  }

  @Test
  void computeBoundKernelsLowerBoundIsItsFlopsAtThePeakOfItsPrecision() {
    Graph fp32 = Planner.predict(List.of(kernel("gemm", 7, 1, 0, 10_000_000, 1000),
        work("gemm", 7, 1, 0, 2e10, Precision.FP32, 1000)), HW);
    Graph bf16 = Planner.predict(List.of(kernel("gemm", 7, 1, 0, 10_000_000, 1000),
        work("gemm", 7, 1, 0, 2e10, Precision.BF16, 1000)), HW);
    assertThat(fp32.nodes().getFirst().lowerNs()).isCloseTo(2_000_000, within(1e-3));
    assertThat(bf16.nodes().getFirst().lowerNs()).isCloseTo(200_000, within(1e-3));
    assertThat(fp32.nodes().getFirst().bound()).isEqualTo(Graph.Bound.COMPUTE);
  }

  @Test
  void aDependentAccessChainLongerThanTheRooflineSetsTheLowerBoundAtTheShortestLatencies() {
    Graph g = Planner.predict(List.of(kernel("walk", 7, 1, 0, 100_000, 4), chain("walk", 7, 1, 0, 300, 1000)), HW);
    Graph.Node n = g.nodes().getFirst();
    assertThat(n.bound()).isEqualTo(Graph.Bound.LATENCY);
    assertThat(n.lowerNs()).isCloseTo(300 * Planner.OFF_CHIP_LATENCY_NS + 1000 * Planner.ON_CHIP_LATENCY_NS,
        within(1e-6));
    // the upper bound takes the chain at the longest latencies
    assertThat(n.upperNs()).isGreaterThanOrEqualTo(
        (300 * Planner.OFF_CHIP_MISS_NS + 1000 * Planner.ON_CHIP_SLOW_NS) * Planner.SLACK);
  }

  @Test
  void aPartialLastWaveWidensTheUpperBoundButNotTheLowerOne() {
    // 100 multiprocessors: 100 blocks fill one wave, 101 blocks take two waves with the second nearly empty
    Graph full = Planner.predict(List.of(kernel("k", 7, 1, 0, 1_000_000, 100),
        work("k", 7, 1, 0, 0, Precision.FP32, 1_000_000)), HW);
    Graph partial = Planner.predict(List.of(kernel("k", 7, 1, 0, 1_000_000, 101),
        work("k", 7, 1, 0, 0, Precision.FP32, 1_000_000)), HW);
    Graph.Node f = full.nodes().getFirst();
    Graph.Node p = partial.nodes().getFirst();
    assertThat(p.lowerNs()).isEqualTo(f.lowerNs());
    assertThat(f.upperNs()).isCloseTo((1_000_000 + Planner.KERNEL_FIXED_NS) * Planner.SLACK, within(1e-3));
    assertThat(p.upperNs()).isGreaterThan(f.upperNs() * 1.9);
    assertThat(p.blocks()).isEqualTo(101);
  }

  @Test
  void aKernelWithoutDeclaredWorkIsBoundByItsOwnHistory() {
    List<TraceRecord> t = new ArrayList<>();
    long[] durations = {10_000, 12_000, 11_000, 30_000, 9_000};
    long at = 0;
    for (int i = 0; i < durations.length; i++) {
      t.add(kernel("opaque", 7, i + 1, at, at + durations[i], 8));
      at += 100_000;
    }
    Graph g = Planner.predict(t, HW);
    assertThat(g.modelNodes()).isZero();
    assertThat(g.nodes()).allSatisfy(n -> {
      assertThat(n.basis()).isEqualTo(Graph.Basis.EMPIRICAL);
      assertThat(n.bound()).isEqualTo(Graph.Bound.UNKNOWN);
      assertThat(n.lowerNs()).isEqualTo(9_000);
      assertThat(n.upperNs()).isEqualTo(11_000 * Planner.EMPIRICAL_SLACK);
    });
  }

  @Test
  void aKernelWithTooLittleHistoryIsPredictedFromItsFamilyWithTheSameGridAndSaysSo() {
    List<TraceRecord> t = new ArrayList<>();
    long[] durations = {10_000, 12_000, 11_000, 30_000};
    for (int i = 0; i < durations.length; i++) {
      t.add(kernel("gemm_128x64<float>", 7, i + 1, i * 100_000L, i * 100_000L + durations[i], 8));
    }
    // one execution of a sibling of the same family and grid, one of a stranger with another grid
    t.add(kernel("gemm_64x32<float>", 7, 5, 500_000, 520_000, 8));
    t.add(kernel("reduce", 7, 6, 600_000, 601_000, 3));
    Graph g = Planner.predict(t, HW);
    Graph.Node sibling = g.nodes().get(4);
    assertThat(sibling.basis()).isEqualTo(Graph.Basis.PEERS);
    assertThat(sibling.peers()).isEqualTo("family 'gemm_#x#' grid 8x1x1, 5 executions of 2 kernels");
    assertThat(sibling.lowerNs()).isEqualTo(10_000);
    assertThat(sibling.upperNs()).isEqualTo(12_000 * Planner.EMPIRICAL_SLACK);
    assertThat(g.nodes().getFirst().basis()).isEqualTo(Graph.Basis.EMPIRICAL);
    // no peers to learn from: its own single execution, said to be its own history
    assertThat(g.nodes().get(5).basis()).isEqualTo(Graph.Basis.EMPIRICAL);
    assertThat(g.nodes().get(5).peers()).isEmpty();
  }

  @Test
  void copiesAndMemsetsAreModelBasedButNotDeclaredWork() {
    Graph g = Planner.predict(List.of(copy(CopyKind.HTOD, 10_000_000, false, 7, 1, 0, 2_000_000),
        new io.gitm.trace.MemsetRecord(1 << 20, 0, io.gitm.trace.MemoryKind.DEVICE, 0, 7, 2, 3_000_000, 3_100_000)),
        HW);
    assertThat(g.nodes()).extracting(Graph.Node::basis).containsOnly(Graph.Basis.COPY_MODEL);
    assertThat(g.modelNodes()).isEqualTo(2);
    assertThat(g.basisCounts()[Graph.Kind.KERNEL.ordinal()][Graph.Basis.MODEL.ordinal()]).isZero();
  }

  @Test
  void copyBoundsUseTheLinkRateOfTheirHostMemoryKind() {
    Graph g = Planner.predict(List.of(copy(CopyKind.HTOD, 10_000_000, false, 7, 1, 0, 2_000_000),
        copy(CopyKind.HTOD, 10_000_000, true, 7, 2, 3_000_000, 8_000_000)), HW);
    assertThat(g.nodes().get(0).name()).isEqualTo("copy HTOD pinned");
    assertThat(g.nodes().get(0).lowerNs()).isCloseTo(1_000_000, within(1e-3));
    assertThat(g.nodes().get(1).name()).isEqualTo("copy HTOD pageable");
    // its device-side DMA runs at up to the pinned rate; the pageable rate bounds it from above
    assertThat(g.nodes().get(1).lowerNs()).isCloseTo(1_000_000, within(1e-3));
    assertThat(g.nodes().get(1).upperNs()).isCloseTo((4_000_000 + Planner.COPY_FIXED_NS) * Planner.SLACK,
        within(1e-3));
  }

  @Test
  void workRecordsWithoutACorrelationIdAreMatchedInTheirStreamsOrder() {
    Graph g = Planner.predict(List.of(kernel("k", 7, 0, 0, 1_000, 100), kernel("k", 7, 0, 5_000, 9_000, 100),
        work("k", 7, 0, 0, 0, Precision.FP32, 1_000), work("k", 7, 0, 0, 0, Precision.FP32, 3_000)), HW);
    assertThat(g.nodes()).extracting(Graph.Node::predictedBytes).containsExactly(1_000L, 3_000L);
  }

  @Test
  void anOperationIsIssuedWhenItsApiCallStarted() {
    Graph g = Planner.predict(List.of(api(ApiKind.LAUNCH, "cuLaunchKernel", 4, 1_000, 6_000),
        kernel("k", 7, 4, 6_500, 9_000, 1)), HW);
    assertThat(g.nodes().getFirst().launchNs()).isEqualTo(1_000);
  }

  @Test
  void independentWorkOnTwoStreamsIsPredictedToOverlapUnlessAStreamWaitOrdersIt() {
    // a long kernel on stream 7; a kernel on stream 8 issued while it runs
    List<TraceRecord> free = List.of(api(ApiKind.LAUNCH, "cuLaunchKernel", 1, 0, 5_000),
        kernel("long", 7, 1, 5_000, 500_000, 10), api(ApiKind.LAUNCH, "cuLaunchKernel", 2, 5_000, 10_000),
        kernel("short", 8, 2, 10_000, 20_000, 10));
    assertThat(Planner.predict(free, HW).concurrentPairs()).hasSize(1);
    // the wait on stream 8 comes after the long kernel was issued: the short kernel may depend on it
    List<TraceRecord> waited = List.of(api(ApiKind.LAUNCH, "cuLaunchKernel", 1, 0, 5_000),
        kernel("long", 7, 1, 5_000, 500_000, 10), sync(SyncKind.STREAM_WAIT_EVENT, 8, 3, 6_000, 7_000),
        api(ApiKind.LAUNCH, "cuLaunchKernel", 2, 7_000, 10_000), kernel("short", 8, 2, 500_000, 510_000, 10));
    assertThat(Planner.predict(waited, HW).concurrentPairs()).isEmpty();
  }

  @Test
  void launchOrderFollowsIssueTimesNotStartTimes() {
    Graph g = Planner.predict(List.of(api(ApiKind.LAUNCH, "cuLaunchKernel", 1, 0, 1_000),
        kernel("late", 7, 1, 50_000, 60_000, 1), api(ApiKind.LAUNCH, "cuLaunchKernel", 2, 2_000, 3_000),
        kernel("early", 8, 2, 4_000, 5_000, 1)), HW);
    assertThat(g.nodes()).extracting(Graph.Node::name).containsExactly("early", "late");
    assertThat(g.launchOrder()).containsExactly(1, 0);
  }
}
