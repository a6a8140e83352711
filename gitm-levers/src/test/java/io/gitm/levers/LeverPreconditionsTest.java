package io.gitm.levers;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.analysis.attribution.Cause;
import io.gitm.device.DeviceInfo;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.SchedulingMode;
import io.gitm.trace.DeviceKind;
import io.gitm.workload.ExecutionConfig.Allocation;
import io.gitm.workload.ExecutionConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** What each lever's precondition refuses, and that a lever in effect never applies again. */
class LeverPreconditionsTest {
  static final ExecutionConfig S = ExecutionConfig.shipped();
  static final Setup PINNED = Setup.of(S.withHostMemory(HostMemoryKind.PINNED));
  static final Setup PREPARED = Setup.of(S.withHostMemory(HostMemoryKind.PINNED).withStreams(1, true, false)
      .withAllocation(Allocation.PREALLOCATED, 0));

  /** Pinned, asynchronous, preallocated, pipelined over 2 streams: where the signal stream has bulk streams beside. */
  static final Setup TWO_STREAMS = PREPARED.withConfig(PREPARED.config().withStreams(2, true, false));

  /**
   * Contexts where levers apply: hft-lob from several anchors, a process job, class C allowed with causes, a job
   * whose kernels use shared memory, one that honours warm-up, PyTorch jobs as the hook describes them (a default
   * DataLoader; one with workers that compiles).
   */
  static List<LeverContext> contexts() {
    List<LeverContext> out = new ArrayList<>();
    for (Setup s : List.of(Setup.shipped(), PINNED, PREPARED, Setup.of(S.withAllocation(Allocation.POOL, 0)),
        Setup.of(S.withKernelVariants(Map.of("lob_book", "warp"))), TWO_STREAMS,
        Setup.shipped().withScheduling(SchedulingMode.YIELD))) {
      out.add(Contexts.hft(s));
    }
    out.add(new LeverContext(new SharedMemoryWorkload().spec(), Contexts.SIM_H200, List.of(),
        Map.of(LeverContext.FACT_SHARED_MEMORY_KERNELS, 3.0), false, null));
    out.add(new LeverContext(WARMING, Contexts.SIM_H200, List.of(), Map.of(), false, null));
    out.add(Contexts.process(Contexts.REAL_H200, Setup.shipped()));
    out.add(new LeverContext(Contexts.HFT, Contexts.SIM_H200, List.of(Contexts.suspect(Cause.POWER_THROTTLING),
        Contexts.suspect(Cause.CLOCK_DROP)), Map.of(), true, Setup.shipped()));
    out.add(new LeverContext(new GemmWorkload().spec(), Contexts.SIM_H200, List.of(), Map.of(), false, null));
    Map<String, Double> torch = new java.util.HashMap<>(Map.of(LeverContext.FACT_HOST_CPUS, 16.0,
        LeverContext.FACT_TORCH_STEPS, 50.0, LeverContext.FACT_TORCH_CUDA, 1.0, LeverContext.FACT_TORCH_MAP_LOADERS,
        1.0, LeverContext.FACT_TORCH_LOADER_WORKERS, 0.0, LeverContext.FACT_TORCH_CONV_MODULES, 20.0));
    torch.put(LeverContext.FACT_TORCH_THREADS, 64.0);
    out.add(new LeverContext(null, Contexts.REAL_H200, List.of(), torch, false, Setup.shipped()));
    torch.put(LeverContext.FACT_TORCH_LOADER_WORKERS, 4.0);
    torch.put(LeverContext.FACT_TORCH_COMPILE, 1.0);
    out.add(new LeverContext(null, Contexts.REAL_H200, List.of(), torch, false, Setup.shipped()));
    return out;
  }

  /** A workload that honours warm-up only. */
  static final io.gitm.workload.WorkloadSpec WARMING = new io.gitm.workload.WorkloadSpec("warming", "warms up",
      List.of(), Set.of(io.gitm.workload.Knob.WARMUP), Map.of(), 0, "units/s", true);

  static Stream<String> everyLever() {
    return Levers.candidates(Contexts.hft(Setup.shipped())).stream().map(Lever::id);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyLever")
  void aLeverAppliesSomewhereChangesTheSetupThereAndThenNoLongerApplies(String id) {
    Lever l = Levers.byId(id);
    int applied = 0;
    for (LeverContext c : contexts()) {
      if (!l.check(c).applies()) {
        assertThat(l.check(c).reason()).as(id + " says why not").isNotBlank();
        continue;
      }
      applied++;
      Setup after = l.apply(c.setup(), c);
      assertThat(after).as(id + " changes the setup").isNotEqualTo(c.setup());
      Lever.Applicability again = l.check(c.withSetup(after));
      assertThat(again.applies()).as(id + " in effect: " + again.reason()).isFalse();
    }
    assertThat(applied).as(id + " applies in some context").isPositive();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyLever")
  void aManagedLeverRefusesAProcessJobAndAKnobItsWorkloadDoesNotHonour(String id) {
    Lever l = Levers.byId(id);
    if (l.scope() != Lever.Scope.MANAGED) {
      return;
    }
    assertThat(l.check(Contexts.process(Contexts.SIM_H200, PREPARED)).applies()).isFalse();
    boolean knobless = Set.of("sched-spin", "sched-yield", "sched-blocking-sync", "cpu-affinity").contains(id);
    for (Setup s : List.of(Setup.shipped(), PINNED, PREPARED)) {
      LeverContext c = new LeverContext(Contexts.withoutKnobs(Contexts.HFT), Contexts.SIM_H200, List.of(),
          Contexts.HOST, false, s);
      if (!knobless) {
        assertThat(l.check(c).applies()).as(id + " without its knob").isFalse();
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyLever")
  void processAndDeviceLeversNeverApplyToAManagedJobOnARealCard(String id) {
    Lever l = Levers.byId(id);
    if (l.scope() == Lever.Scope.MANAGED) {
      return;
    }
    LeverContext managedReal = new LeverContext(Contexts.HFT, Contexts.REAL_H200,
        List.of(Contexts.suspect(Cause.POWER_THROTTLING), Contexts.suspect(Cause.CLOCK_DROP)), Contexts.HOST, true,
        null);
    assertThat(l.check(managedReal).applies()).as(id).isFalse();
  }

  @Test
  void aLeverWhoseKnobTheWorkloadDoesNotHonourNeverAppliesWhileOneWaitingForAnotherMayLater() {
    Lever.Applicability tf32 = Levers.byId("math-mode-tf32").check(Contexts.hft(Setup.shipped()));
    assertThat(tf32.applies()).isFalse();
    assertThat(tf32.never()).as(tf32.reason()).isTrue();
    Lever.Applicability graph = Levers.byId("graph-capture").check(Contexts.hft(Setup.shipped()));
    assertThat(graph.applies()).isFalse();
    assertThat(graph.never()).as(graph.reason()).isFalse();
    Lever.Applicability env = Levers.byId("env-omp-threads").check(Contexts.hft(Setup.shipped()));
    assertThat(env.never()).as(env.reason()).isTrue();
  }

  @Test
  void leversThatNeedOthersFirstSayWhich() {
    assertThat(Levers.byId("async-copies").check(Contexts.hft(Setup.shipped())).reason())
        .contains("pinned-host-memory");
    assertThat(Levers.byId("graph-capture").check(Contexts.hft(PINNED)).reason())
        .contains("pinned-host-memory", "async-copies", "preallocate");
    assertThat(Levers.byId("pool-release-threshold").check(Contexts.hft(Setup.shipped())).reason())
        .contains("pool-allocation");
    assertThat(Levers.byId("copy-compute-overlap").check(Contexts.hft(Setup.shipped())).reason())
        .contains("pinned-host-memory");
    Setup graph = PREPARED.withConfig(PREPARED.config().withGraphCapture(true));
    assertThat(Levers.byId("copy-compute-overlap").check(Contexts.hft(graph)).applies()).isFalse();
    Setup overlap = PREPARED.withConfig(PREPARED.config().withStreams(1, true, true));
    assertThat(Levers.byId("graph-capture").check(Contexts.hft(overlap)).applies()).isFalse();
  }

  @Test
  void traceFactsShowingNothingToActOnRefuseTheLever() {
    record Case(String lever, String fact, Setup setup) {
    }
    for (Case c : List.of(new Case("pinned-host-memory", LeverContext.FACT_PAGEABLE_COPIES, Setup.shipped()),
        new Case("pool-allocation", LeverContext.FACT_PLAIN_ALLOCATIONS, Setup.shipped()),
        new Case("preallocate", LeverContext.FACT_PLAIN_ALLOCATIONS, Setup.shipped()),
        new Case("graph-capture", LeverContext.FACT_LAUNCHES, PREPARED))) {
      Lever l = Levers.byId(c.lever());
      assertThat(l.check(Contexts.hft(c.setup())).applies()).as(c.lever()).isTrue();
      LeverContext none = new LeverContext(Contexts.HFT, Contexts.SIM_H200, List.of(), Map.of(c.fact(), 0.0), false,
          c.setup());
      assertThat(l.check(none).reason()).as(c.lever()).startsWith("the trace shows no");
    }
    Lever carveout = Levers.byId("shared-carveout-max-l1");
    LeverContext shared = new LeverContext(Contexts.HFT, Contexts.SIM_H200, List.of(),
        Map.of(LeverContext.FACT_SHARED_MEMORY_KERNELS, 3.0), false, null);
    assertThat(carveout.check(shared).applies()).isTrue();
    LeverContext none = new LeverContext(Contexts.HFT, Contexts.SIM_H200, List.of(),
        Map.of(LeverContext.FACT_SHARED_MEMORY_KERNELS, 0.0), false, null);
    assertThat(carveout.check(none).reason()).startsWith("the trace shows no");
    // unknown is not enough: the carve-out changes nothing unless a kernel uses shared memory
    assertThat(carveout.check(Contexts.hft(Setup.shipped())).reason()).contains("unknown");
  }

  @Test
  void streamPriorityAndTheL2WindowApplyOnlyOnTheJobsOwnStreamsAndChangeNothingElse() {
    for (String id : List.of("stream-priority", "l2-persist-window")) {
      Lever l = Levers.byId(id);
      assertThat(l.check(Contexts.hft(PREPARED)).reason()).as(id).contains("streams-2");
      Setup after = l.apply(TWO_STREAMS, Contexts.hft(TWO_STREAMS));
      assertThat(after.config().streams()).as(id).isEqualTo(2);
      assertThat(after.config().withLatencyStreamPriority(0).withL2PersistBytes(0)).as(id)
          .isEqualTo(TWO_STREAMS.config());
    }
    Setup graph = TWO_STREAMS.withConfig(TWO_STREAMS.config().withGraphCapture(true));
    assertThat(Levers.byId("stream-priority").check(Contexts.hft(graph)).reason()).contains("graph-capture");
  }

  @Test
  void spinIsNotOfferedWhereAutoAlreadySpins() {
    Lever spin = Levers.byId("sched-spin");
    assertThat(spin.check(Contexts.hft(Setup.shipped())).reason()).contains("simulated device's AUTO spins");
    LeverContext real16 = new LeverContext(Contexts.HFT, Contexts.REAL_H200, List.of(),
        Map.of(LeverContext.FACT_HOST_CPUS, 16.0), false, null);
    assertThat(spin.check(real16).reason()).contains("2 contexts on 16 logical CPUs");
    LeverContext real1 = new LeverContext(Contexts.HFT, Contexts.REAL_H200, List.of(),
        Map.of(LeverContext.FACT_HOST_CPUS, 1.0), false, null);
    assertThat(spin.check(real1).applies()).isTrue();
    assertThat(spin.check(real16.withSetup(Setup.shipped().withScheduling(SchedulingMode.BLOCKING_SYNC))).applies())
        .isTrue();
  }

  @Test
  void warmUpIsNotOfferedOnHftLob() {
    assertThat(Levers.byId("warmup").check(Contexts.hft(Setup.shipped())).applies()).isFalse();
    assertThat(Contexts.HFT.knobs()).doesNotContain(io.gitm.workload.Knob.WARMUP);
  }

  @Test
  void deviceCapabilitiesGateTheLeversThatNeedThem() {
    DeviceInfo pascal = new DeviceInfo("nvidia", DeviceKind.REAL, 0, "Tesla P100", "GPU-2", "6.0", 56, 16L << 30,
        4 << 20, "580", 0, 0);
    LeverContext old = new LeverContext(Contexts.HFT, pascal, List.of(), Contexts.HOST, false, null);
    assertThat(Levers.byId("l2-persist-window").check(old).reason()).contains("compute capability 8.0");
    assertThat(Levers.byId("shared-carveout-max-l1").check(old).reason()).contains("compute capability 7.0");
    assertThat(Levers.byId("stream-priority").check(old).reason()).contains("single stream priority");
    LeverContext unknown = new LeverContext(Contexts.HFT, null, List.of(), Contexts.HOST, false, null);
    assertThat(Levers.byId("l2-persist-window").check(unknown).applies()).isFalse();
    assertThat(Levers.byId("stream-priority").check(unknown).applies()).isFalse();
  }

  @Test
  void yieldingOrBlockingWaitsNeedHostThreadsThatOutnumberTheCpus() {
    for (String id : List.of("sched-yield", "sched-blocking-sync")) {
      Lever l = Levers.byId(id);
      assertThat(l.check(Contexts.hft(Setup.shipped())).applies()).as(id).isTrue();
      assertThat(l.check(new LeverContext(Contexts.HFT, Contexts.SIM_H200, List.of(), Map.of(), false, null))
          .reason()).as(id).contains("unknown");
      LeverContext roomy = new LeverContext(Contexts.HFT, Contexts.SIM_H200, List.of(),
          Map.of(LeverContext.FACT_HOST_CPUS, 8.0, LeverContext.FACT_HOST_THREADS, 2.0), false, null);
      assertThat(l.check(roomy).applies()).as(id).isFalse();
      // Pinned to one CPU, the same two threads outnumber it.
      assertThat(l.check(roomy.withSetup(Setup.shipped().withCpus(Set.of(0)))).applies()).as(id).isTrue();
    }
    assertThat(Levers.byId("sched-spin").check(new LeverContext(Contexts.HFT, null, List.of(), Map.of(), false,
        Setup.shipped().withScheduling(SchedulingMode.YIELD))).applies()).isTrue();
  }

  @Test
  void cpuAffinityPinsNearTheGpuWhenKnownElseToTheLastCpu() {
    Lever l = Levers.byId("cpu-affinity");
    if (!io.gitm.os.CpuAffinity.supported()) {
      assertThat(l.check(Contexts.hft(Setup.shipped())).reason()).contains("unsupported");
      return;
    }
    assertThat(l.apply(Setup.shipped(), Contexts.hft(Setup.shipped())).cpus()).containsExactly(1);
    LeverContext local = new LeverContext(Contexts.HFT, Contexts.SIM_H200, List.of(),
        Map.of(LeverContext.FACT_HOST_CPUS, 64.0, LeverContext.FACT_GPU_LOCAL_CPU, 17.0), false, null);
    assertThat(l.apply(Setup.shipped(), local).cpus()).containsExactly(17);
    assertThat(l.check(new LeverContext(Contexts.HFT, Contexts.SIM_H200, List.of(), Map.of(), false, null)).reason())
        .contains("CPUs are unknown");
  }

  @Test
  void variantsRefuseAFamilyOrVariantTheWorkloadDoesNotShip() {
    assertThat(Levers.byId("kernel-variant:lob_book=quantum").check(Contexts.hft(Setup.shipped())).reason())
        .contains("ships no variant 'quantum'");
    assertThat(Levers.byId("kernel-variant:lob_mlp=warp").check(Contexts.hft(Setup.shipped())).applies()).isFalse();
    assertThat(Levers.byId("kernel-variant:lob_book=thread").check(Contexts.hft(Setup.shipped())).reason())
        .contains("already runs");
  }

  @Test
  void streamPipeliningDoesNotApplyWhereAsManyStreamsAlreadyRun() {
    Setup four = Setup.of(S.withStreams(4, false, false));
    assertThat(Levers.byId("streams-2").check(Contexts.hft(four)).applies()).isFalse();
    assertThat(Levers.byId("streams-4").check(Contexts.hft(four)).applies()).isFalse();
    Setup two = Setup.of(S.withStreams(2, false, false));
    assertThat(Levers.byId("streams-4").check(Contexts.hft(two)).applies()).isTrue();
    assertThat(Levers.byId("batch-coalesce-2").check(Contexts.hft(Setup.of(S.withBatchCoalesce(4)))).applies())
        .isFalse();
  }
}
