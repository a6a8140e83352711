package io.gitm.workloads.af2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.device.Device;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.MathMode;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceRecord;
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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every knob af2 honours changes how it runs on the simulated device (time, memory, streams, precision). */
class Af2KnobsTest {
  static final Af2Workload.Params P = Af2EquivalenceTest.SMALL;
  static final ExecutionConfig SHIPPED = ExecutionConfig.shipped();
  static final ExecutionConfig PINNED_ASYNC = SHIPPED.withHostMemory(HostMemoryKind.PINNED).withStreams(1, true, false);

  @TempDir
  static Path data;

  @BeforeAll
  static void dataset() {
    Af2Dataset.load(data, P.inputName(), () -> new MsaGenerator(P.seed(), P.nRes(), P.nSeq()).generate());
  }

  /**
   * What a session's second step did: its result, the output, the step's trace records, and the bytes its program
   * holds at most (allocating at each temporary) and as a workspace.
   */
  record Run(IterationResult last, OutputDigest output, List<TraceRecord> trace, long planPeak, long workspace) {
    List<KernelRecord> kernels() {
      return trace.stream().filter(r -> r instanceof KernelRecord).map(r -> (KernelRecord) r).toList();
    }

    long apiCalls(String name) {
      return trace.stream().filter(r -> r instanceof ApiCallRecord a && a.name().equals(name)).count();
    }
  }

  static Run run(ExecutionConfig config) {
    return run(P, config);
  }

  static Run run(Af2Workload.Params p, ExecutionConfig config) {
    List<TraceRecord> trace = Collections.synchronizedList(new ArrayList<>());
    try (Device sim = Af2EquivalenceTest.simulated();
        Workload.Session s = new Af2Workload(p).open(sim, config, data)) {
      s.step();
      sim.tracer().start(trace::add);
      IterationResult r = s.step();
      sim.tracer().stop();
      Program program = ((Af2Session) s).program();
      return new Run(r, s.output(), List.copyOf(trace), program.peakBytes(), program.workspaceBytes());
    }
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
  void preallocationAllocatesNothingPerStepAndHoldsTheWholeWorkspace() {
    Run shipped = run(SHIPPED);
    Run pre = run(SHIPPED.withAllocation(Allocation.PREALLOCATED, 0));
    assertThat(pre.apiCalls("cuMemAlloc_v2") + pre.apiCalls("cuMemAllocAsync")).isZero();
    assertThat(pre.last().wallNanos()).isLessThan(shipped.last().wallNanos());
    assertThat(pre.last().extras().get("peakDeviceBytes")).isEqualTo((double) pre.workspace());
    assertThat(shipped.last().extras().get("peakDeviceBytes")).isEqualTo((double) shipped.planPeak())
        .isLessThan(pre.workspace());
  }

  @ParameterizedTest(name = "copies {0}")
  @ValueSource(strings = {"in the graph (pinned, queued)", "around the graph (pageable, synchronous)"})
  void graphCaptureReplaysTheInferenceWithOneLaunch(String copies) {
    ExecutionConfig pre = (copies.startsWith("in") ? PINNED_ASYNC : SHIPPED).withAllocation(Allocation.PREALLOCATED, 0);
    Run eager = run(pre);
    Run graph = run(pre.withGraphCapture(true));
    assertThat(eager.apiCalls("cuLaunchKernel")).isGreaterThan(100);
    assertThat(graph.apiCalls("cuLaunchKernel")).isZero();
    assertThat(graph.apiCalls("cuGraphLaunch")).isEqualTo(1);
    assertThat(graph.kernels()).hasSameSizeAs(eager.kernels());
    assertThat(graph.last().wallNanos()).isLessThan(eager.last().wallNanos());
    assertThat(graph.output().sha256()).isEqualTo(eager.output().sha256());
  }

  @Test
  void severalStreamsRunTheForkedProjectionsOnTheirOwnStreams() {
    Run one = run(PINNED_ASYNC);
    Run three = run(PINNED_ASYNC.withStreams(3, true, false));
    assertThat(one.kernels().stream().map(KernelRecord::stream).distinct()).hasSize(1);
    assertThat(three.kernels().stream().map(KernelRecord::stream).distinct()).hasSize(3);
    assertThat(three.output().sha256()).isEqualTo(one.output().sha256());
  }

  @Test
  void chunkedAttentionHoldsLessMemoryInMoreLaunchesWithTheSameOutput() {
    // more rows than residues: the row attention's logits are the largest temporary, as at AlphaFold's sizes
    Af2Workload.Params deep = P.parse("nSeq=24,nRes=10");
    Run full = run(deep, SHIPPED);
    Run chunked = run(deep, SHIPPED.withKernelVariants(Map.of(Af2Workload.ATTENTION_FAMILY, "chunked")));
    assertThat(chunked.last().extras().get("peakDeviceBytes")).isLessThan(full.last().extras().get("peakDeviceBytes"));
    long softmaxFull = full.kernels().stream().filter(k -> k.name().equals(Af2Kernels.SOFTMAX)).count();
    long softmaxChunked = chunked.kernels().stream().filter(k -> k.name().equals(Af2Kernels.SOFTMAX)).count();
    assertThat(softmaxChunked).isGreaterThan(softmaxFull);
    assertThat(chunked.output().sha256()).isEqualTo(full.output().sha256());
  }

  @ParameterizedTest
  @ValueSource(strings = {"TF32", "BF16"})
  void reducedPrecisionMathRunsTheGemmsOnTensorCoresWithinTheDeclaredTolerance(String mode) {
    Run fp32 = run(SHIPPED);
    Run reduced = run(SHIPPED.withMathMode(MathMode.valueOf(mode)));
    String tag = mode.toLowerCase(java.util.Locale.ROOT);
    assertThat(fp32.kernels()).anyMatch(k -> k.name().contains("fp32")).noneMatch(k -> k.name().contains(tag));
    assertThat(reduced.kernels()).anyMatch(k -> k.name().contains(tag)).noneMatch(k -> k.name().contains("fp32"));
    assertThat(reduced.output().sha256()).isNotEqualTo(fp32.output().sha256());
    assertThat(reduced.output().maxRelativeDifference(fp32.output())).isPositive()
        .isLessThanOrEqualTo(new Af2Workload(P).spec().outputTolerance());
  }

  @Test
  void aMathModeIsTheSessionsOwnAndLeavesTheDevicesAsItFoundIt() {
    try (Device sim = Af2EquivalenceTest.simulated()) {
      Workload.Session tf32 = new Af2Workload(P).open(sim, SHIPPED.withMathMode(MathMode.TF32), data);
      Workload.Session fp32 = new Af2Workload(P).open(sim, SHIPPED, data);
      tf32.step();
      assertThat(sim.blas().mathMode()).isEqualTo(MathMode.DEFAULT);
      fp32.step();
      OutputDigest interleaved = fp32.output();
      tf32.close();
      fp32.close();
      try (Workload.Session alone = new Af2Workload(P).open(sim, SHIPPED, data)) {
        alone.step();
        assertThat(interleaved.sha256()).isEqualTo(alone.output().sha256());
      }
    }
  }

  @Test
  void everyKernelLaunchDeclaresItsWork() {
    Run run = run(SHIPPED);
    long launches = run.kernels().size();
    long declared = run.trace().stream().filter(r -> r instanceof io.gitm.trace.WorkRecord).count();
    assertThat(declared).isEqualTo(launches);
  }

  @Test
  void configurationsAf2CannotHonourAreRefusedWithTheReason() {
    ExecutionConfig graph = PINNED_ASYNC.withAllocation(Allocation.PREALLOCATED, 0).withGraphCapture(true);
    assertThatThrownBy(() -> Af2Session.check(graph.withStreams(2, true, false))).hasMessageContaining("one stream");
    assertThatThrownBy(() -> Af2Session.check(PINNED_ASYNC.withGraphCapture(true))).hasMessageContaining(
        "PREALLOCATED");
    assertThatThrownBy(() -> Af2Session.check(PINNED_ASYNC.withStreams(1, true, true))).hasMessageContaining(
        "copyComputeOverlap");
    assertThatThrownBy(() -> Af2Session.check(SHIPPED.withBatchCoalesce(2))).hasMessageContaining("batchCoalesce");
    assertThatThrownBy(() -> Af2Session.check(SHIPPED.withBlockSize(64))).hasMessageContaining("blockSize");
    assertThatThrownBy(() -> Af2Session.check(SHIPPED.withL2PersistBytes(1024))).hasMessageContaining("L2");
    assertThatThrownBy(() -> Af2Session.check(SHIPPED.withSharedCarveout(0))).hasMessageContaining("carve-out");
    assertThatThrownBy(() -> Af2Session.check(SHIPPED.withKernelVariants(Map.of("lob_book", "warp"))))
        .hasMessageContaining("af2_attention only");
    assertThatThrownBy(() -> Af2Session.check(SHIPPED.withKernelVariants(Map.of(Af2Workload.ATTENTION_FAMILY,
        "flash")))).hasMessageContaining("'flash' unknown");
  }

  @Test
  void af2IsFoundByNameAndTakesTheSimulatedDevicesDefaults() {
    Workload w = ServiceLoader.load(Workload.class).stream().map(ServiceLoader.Provider::get)
        .filter(x -> x.spec().name().equals("af2")).findFirst().orElseThrow();
    assertThat(w.spec().metric()).isEqualTo("residues/s");
    assertThat(w.spec().knobs()).isEqualTo(Af2Workload.knobs());
    assertThat(w.spec().kernelVariants()).containsEntry(Af2Workload.ATTENTION_FAMILY, Af2Workload.ATTENTION_VARIANTS);
    try (Device sim = Af2EquivalenceTest.simulated()) {
      assertThat(((Af2Workload) w).params(sim)).isEqualTo(System.getProperty(Af2Workload.PROPERTY) == null
          ? Af2Workload.Params.simulated() : Af2Workload.Params.simulated().parse(System.getProperty(
              Af2Workload.PROPERTY)));
    }
  }

  @Test
  void settingsParseOverTheDefaultsAndBadOnesSayWhy() {
    Af2Workload.Params p = Af2Workload.Params.h200().parse("nRes=256, blocks=8,weights=/x/params_model_1.npz");
    assertThat(p.nRes()).isEqualTo(256);
    assertThat(p.blocks()).isEqualTo(8);
    assertThat(p.weights()).isEqualTo("/x/params_model_1.npz");
    assertThat(p.nSeq()).isEqualTo(Af2Workload.Params.h200().nSeq());
    assertThat(p.parse("weights=none").weights()).isNull();
    assertThatThrownBy(() -> p.parse("blocks")).hasMessageContaining("not key=value");
    assertThatThrownBy(() -> p.parse("colour=red")).hasMessageContaining("unknown key 'colour'");
    assertThatThrownBy(() -> p.parse("nRes=many")).hasMessageContaining("whole number");
    assertThatThrownBy(() -> p.parse("nRes=1,nRes=2")).hasMessageContaining("given twice");
    assertThatThrownBy(() -> p.parse("msaHeads=3")).hasMessageContaining("divide into heads");
    assertThatThrownBy(() -> p.parse("nRes=0")).hasMessageContaining("nRes must be");
  }
}
