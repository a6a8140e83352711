package io.gitm.workloads.kitti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.device.Device;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.MathMode;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.WorkRecord;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.ExecutionConfig.Allocation;
import io.gitm.workload.IterationResult;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every knob kitti honours changes how it runs on the simulated device (time, allocations, streams, launches). */
class KittiKnobsTest {
  static final KittiWorkload.Params P = KittiEquivalenceTest.SMALL;
  static final ExecutionConfig SHIPPED = ExecutionConfig.shipped();
  static final ExecutionConfig PINNED_ASYNC = SHIPPED.withHostMemory(HostMemoryKind.PINNED).withStreams(1, true, false);

  @TempDir
  static Path data;

  /** What a session's third step did: its result, the output so far, and the step's trace records. */
  record Run(IterationResult last, OutputDigest output, List<TraceRecord> trace) {
    List<KernelRecord> kernels() {
      return trace.stream().filter(r -> r instanceof KernelRecord).map(r -> (KernelRecord) r).toList();
    }

    List<CopyRecord> copies(CopyKind kind) {
      return trace.stream().filter(r -> r instanceof CopyRecord c && c.kind() == kind).map(r -> (CopyRecord) r)
          .toList();
    }

    long apiCalls(String name) {
      return trace.stream().filter(r -> r instanceof ApiCallRecord a && a.name().equals(name)).count();
    }
  }

  static Run run(ExecutionConfig config) {
    return run(P, config);
  }

  static Run run(KittiWorkload.Params p, ExecutionConfig config) {
    return run(data, p, config);
  }

  /** The third step of a session of {@code p} under {@code config} with its dataset in {@code data}. */
  static Run run(Path data, KittiWorkload.Params p, ExecutionConfig config) {
    List<TraceRecord> trace = Collections.synchronizedList(new ArrayList<>());
    try (Device sim = KittiEquivalenceTest.simulated();
        Workload.Session s = new KittiWorkload(p).open(sim, config, data)) {
      s.step();
      s.step();
      sim.tracer().start(trace::add);
      IterationResult r = s.step();
      sim.tracer().stop();
      return new Run(r, s.output(), List.copyOf(trace));
    }
  }

  @Test
  void theShippedFrameCopiesItsScanInsideTheStepAndReportsLatencyPercentiles() {
    Run shipped = run(SHIPPED);
    List<CopyRecord> in = shipped.copies(CopyKind.HTOD);
    assertThat(in).hasSize(1);
    assertThat(in.getFirst().bytes()).isEqualTo(16L * KittiDataset.load(data, P.generator(), P.frames()).stream()
        .mapToInt(Scan::points).max().orElseThrow());
    assertThat(shipped.copies(CopyKind.DTOH)).hasSize(1);
    assertThat(shipped.kernels().stream().map(KernelRecord::stream).distinct()).hasSize(1);
    Map<String, Double> x = shipped.last().extras();
    assertThat(x.get("frameLatencyNanos")).isPositive().isLessThanOrEqualTo((double) shipped.last().wallNanos());
    assertThat(x.get("frameLatencyP99Nanos")).isGreaterThanOrEqualTo(x.get("frameLatencyP50Nanos"));
    assertThat(x.get("frameLatencyP50Nanos")).isPositive();
    assertThat(x.get("detections")).isPositive();
    assertThat(shipped.last().units()).isEqualTo(1);
  }

  @Test
  void pinnedFrameBuffersCopyFaster() {
    Run shipped = run(SHIPPED);
    Run pinned = run(SHIPPED.withHostMemory(HostMemoryKind.PINNED));
    CopyRecord a = shipped.copies(CopyKind.HTOD).getFirst();
    CopyRecord b = pinned.copies(CopyKind.HTOD).getFirst();
    assertThat(b.endNs() - b.startNs()).isLessThan(a.endNs() - a.startNs());
    assertThat(pinned.last().wallNanos()).isLessThan(shipped.last().wallNanos());
  }

  @Test
  void poolAllocationAvoidsTheSynchronizingAllocatorAndIsFaster() {
    Run shipped = run(SHIPPED);
    Run pool = run(SHIPPED.withAllocation(Allocation.POOL, 1L << 30));
    assertThat(shipped.apiCalls("cuMemAlloc_v2")).isPositive();
    assertThat(pool.apiCalls("cuMemAlloc_v2")).isZero();
    assertThat(pool.apiCalls("cuMemAllocAsync")).isEqualTo(shipped.apiCalls("cuMemAlloc_v2"));
    assertThat(pool.last().wallNanos()).isLessThan(shipped.last().wallNanos());
  }

  @Test
  void preallocationAllocatesNothingPerFrameAndIsFaster() {
    Run shipped = run(SHIPPED);
    Run pre = run(SHIPPED.withAllocation(Allocation.PREALLOCATED, 0));
    assertThat(pre.apiCalls("cuMemAlloc_v2") + pre.apiCalls("cuMemAllocAsync")).isZero();
    assertThat(pre.last().wallNanos()).isLessThan(shipped.last().wallNanos());
  }

  @Test
  void prefetchCopiesTheNextFrameOnASecondStreamWhileThisOneComputes() {
    ExecutionConfig pre = PINNED_ASYNC.withAllocation(Allocation.PREALLOCATED, 0);
    Run one = run(pre);
    Run two = run(pre.withStreams(2, true, false));
    assertThat(one.kernels().getFirst().stream()).isEqualTo(one.copies(CopyKind.HTOD).getFirst().stream());
    int compute = two.kernels().getFirst().stream();
    CopyRecord next = two.copies(CopyKind.HTOD).getFirst();
    assertThat(next.stream()).isNotEqualTo(compute);
    // the step's copy is the next frame's, queued before this frame's kernels and not waited for by them
    long kernelsEnd = two.kernels().stream().mapToLong(KernelRecord::endNs).max().orElseThrow();
    assertThat(next.startNs()).isLessThan(kernelsEnd);
    // a frame's latency runs from its copy, queued in the step before, to its detections
    assertThat(two.last().extras().get("frameLatencyNanos")).isGreaterThan((double) two.last().wallNanos());
    assertThat(one.last().extras().get("frameLatencyNanos")).isLessThanOrEqualTo((double) one.last().wallNanos());
  }

  @Test
  void theScatterKernelsTakeTheConfiguredBlockSize() {
    Run shipped = run(SHIPPED);
    Run small = run(SHIPPED.withBlockSize(64));
    for (String k : List.of(KittiKernels.ASSIGN, KittiKernels.GATHER)) {
      assertThat(shipped.kernels()).filteredOn(r -> r.name().equals(k)).singleElement()
          .satisfies(r -> assertThat(r.block().x()).isEqualTo(KittiKernels.BLOCK));
      assertThat(small.kernels()).filteredOn(r -> r.name().equals(k)).singleElement()
          .satisfies(r -> assertThat(r.block().x()).isEqualTo(64));
    }
    assertThat(small.kernels()).filteredOn(r -> r.name().equals(KittiKernels.POINTNET)).singleElement()
        .satisfies(r -> assertThat(r.block().x()).isEqualTo(KittiKernels.BLOCK));
    long a = duration(shipped, KittiKernels.ASSIGN);
    long b = duration(small, KittiKernels.ASSIGN);
    assertThat(b).isNotEqualTo(a);
  }

  private static long duration(Run r, String kernel) {
    return r.kernels().stream().filter(k -> k.name().equals(kernel)).mapToLong(k -> k.endNs() - k.startNs()).sum();
  }

  @Test
  void graphCaptureReplaysTheFrameWithOneLaunch() {
    ExecutionConfig pre = PINNED_ASYNC.withAllocation(Allocation.PREALLOCATED, 0);
    Run eager = run(pre);
    Run graph = run(pre.withGraphCapture(true));
    assertThat(eager.apiCalls("cuLaunchKernel")).isGreaterThan(15);
    assertThat(graph.apiCalls("cuLaunchKernel")).isZero();
    assertThat(graph.apiCalls("cuGraphLaunch")).isEqualTo(1);
    assertThat(graph.kernels()).hasSameSizeAs(eager.kernels());
    assertThat(graph.last().wallNanos()).isLessThan(eager.last().wallNanos());
    assertThat(graph.output()).isEqualTo(eager.output());
  }

  @Test
  void graphCaptureWithPrefetchReplaysOneGraphPerInputBufferWhileTheCopyStreamFetches() {
    ExecutionConfig pre = PINNED_ASYNC.withAllocation(Allocation.PREALLOCATED, 0).withStreams(2, true, false);
    Run eager = run(pre);
    Run graph = run(pre.withGraphCapture(true));
    assertThat(graph.apiCalls("cuLaunchKernel")).isZero();
    assertThat(graph.apiCalls("cuGraphLaunch")).isEqualTo(1);
    assertThat(graph.copies(CopyKind.HTOD).getFirst().stream()).isNotEqualTo(graph.kernels().getFirst().stream());
    assertThat(graph.last().wallNanos()).isLessThan(eager.last().wallNanos());
    assertThat(graph.output()).isEqualTo(eager.output());
  }

  @Test
  void everyKernelLaunchDeclaresItsWork() {
    Run run = run(SHIPPED);
    long declared = run.trace().stream().filter(r -> r instanceof WorkRecord).count();
    assertThat(run.kernels()).hasSizeGreaterThan(15);
    assertThat(declared).isEqualTo(run.kernels().size());
  }

  @Test
  void configurationsKittiCannotHonourAreRefusedWithTheReason() {
    assertThatThrownBy(() -> KittiSession.check(PINNED_ASYNC.withGraphCapture(true))).hasMessageContaining(
        "PREALLOCATED");
    assertThatThrownBy(() -> KittiSession.check(SHIPPED.withStreams(2, false, false))).hasMessageContaining(
        "needs asyncCopies");
    assertThatThrownBy(() -> KittiSession.check(PINNED_ASYNC.withStreams(3, true, false))).hasMessageContaining(
        "1 or 2");
    assertThatThrownBy(() -> KittiSession.check(PINNED_ASYNC.withStreams(1, true, true))).hasMessageContaining(
        "copyComputeOverlap");
    assertThatThrownBy(() -> KittiSession.check(SHIPPED.withBatchCoalesce(2))).hasMessageContaining("batchCoalesce");
    assertThatThrownBy(() -> KittiSession.check(SHIPPED.withMathMode(MathMode.TF32))).hasMessageContaining("math");
    assertThatThrownBy(() -> KittiSession.check(SHIPPED.withL2PersistBytes(1))).hasMessageContaining("L2");
    assertThatThrownBy(() -> KittiSession.check(SHIPPED.withKernelVariants(Map.of("x", "y")))).hasMessageContaining(
        "variants");
  }

  @Test
  void kittiIsFoundByNameAndTakesTheSimulatedDevicesDefaults() {
    Workload w = ServiceLoader.load(Workload.class).stream().map(ServiceLoader.Provider::get)
        .filter(x -> x.spec().name().equals("kitti")).findFirst().orElseThrow();
    assertThat(w.spec().metric()).isEqualTo("frames/s");
    assertThat(w.spec().knobs()).isEqualTo(KittiWorkload.knobs());
    try (Device sim = KittiEquivalenceTest.simulated()) {
      String settings = System.getProperty(KittiWorkload.PROPERTY);
      assertThat(((KittiWorkload) w).params(sim)).isEqualTo(settings == null ? KittiWorkload.Params.simulated()
          : KittiWorkload.Params.simulated().parse(settings));
    }
  }

  @Test
  void settingsParseOverTheDefaultsAndBadOnesSayWhy() {
    KittiWorkload.Params p = KittiWorkload.Params.h200().parse("frames=2, pillar=0.32,channels=32");
    assertThat(p.frames()).isEqualTo(2);
    assertThat(p.pillar()).isEqualTo(0.32f);
    assertThat(p.grid().nx()).isEqualTo(216);
    assertThatThrownBy(() -> p.parse("frames")).hasMessageContaining("not key=value");
    assertThatThrownBy(() -> p.parse("colour=red")).hasMessageContaining("unknown key 'colour'");
    assertThatThrownBy(() -> p.parse("frames=1,frames=2")).hasMessageContaining("given twice");
    assertThatThrownBy(() -> p.parse("maxCandidates=1000")).hasMessageContaining("power of two");
    assertThatThrownBy(() -> p.parse("frames=x")).hasMessageContaining("not a number");
  }
}
