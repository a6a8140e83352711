package io.gitm.levers;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.analysis.attribution.Cause;
import io.gitm.device.Device;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.KernelModule;
import io.gitm.device.Module;
import io.gitm.device.SchedulingMode;
import io.gitm.levers.HftOnSim.Outcome;
import io.gitm.sim.Replay;
import io.gitm.sim.SimSpec;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.StateField;
import io.gitm.trace.TraceChange;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.ExecutionConfig.Allocation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each lever changes hft-lob's run on the simulated h200 the way its model says: the run under the lever is compared
 * with the run under the setup the lever was applied to (the shipped one, or the anchor its precondition needs), on
 * the sim's trace records, samples and the block's metric. Jitter is off, so the two runs differ only by the lever.
 */
class LeverEffectsOnSimTest {
  @TempDir
  static Path data;

  static Outcome shipped;

  static final Setup PINNED = Setup.of(ExecutionConfig.shipped().withHostMemory(HostMemoryKind.PINNED));
  /** Pinned, asynchronous copies, preallocated buffers: where graph capture and stream pipelining apply. */
  static final Setup PREPARED = Setup.of(ExecutionConfig.shipped().withHostMemory(HostMemoryKind.PINNED)
      .withStreams(1, true, false).withAllocation(Allocation.PREALLOCATED, 0));

  @BeforeAll
  static void shippedRun() throws Exception {
    shipped = HftOnSim.run(data, Setup.shipped());
  }

  /** The lever applied to {@code anchor}, after checking that it applies there. */
  static Setup applied(String lever, Setup anchor) {
    Lever l = Levers.byId(lever);
    LeverContext c = Contexts.hft(anchor);
    assertThat(l.check(c).applies()).as(lever + " applies: " + l.check(c).reason()).isTrue();
    return l.apply(anchor, c);
  }

  static Outcome run(Setup s) throws Exception {
    return HftOnSim.run(data, s);
  }

  static long kernelNanos(Outcome o) {
    return o.kernels().stream().mapToLong(k -> k.endNs() - k.startNs()).sum();
  }

  /** Whether two device operations of different streams overlap in time. */
  static boolean overlapAcrossStreams(Outcome o) {
    record Op(int stream, long start, long end) {
    }
    List<Op> ops = new ArrayList<>();
    o.kernels().forEach(k -> ops.add(new Op(k.stream(), k.startNs(), k.endNs())));
    o.copies().forEach(c -> ops.add(new Op(c.stream(), c.startNs(), c.endNs())));
    for (int i = 0; i < ops.size(); i++) {
      for (int j = i + 1; j < ops.size(); j++) {
        Op a = ops.get(i);
        Op b = ops.get(j);
        if (a.stream() != b.stream() && a.start() < b.end() && b.start() < a.end()) {
          return true;
        }
      }
    }
    return false;
  }

  @Test
  void pinnedHostMemoryMakesBatchCopiesPinnedAndShortensTheHostsWaitForThem() throws Exception {
    Outcome o = run(applied("pinned-host-memory", Setup.shipped()));
    List<CopyRecord> hostCopies = o.copies().stream().filter(c -> c.kind() != CopyKind.DTOD).toList();
    // The MLP weights are uploaded once from a pageable buffer by design; every batch copy is pinned.
    assertThat(hostCopies.stream()
        .filter(c -> c.srcKind() == MemoryKind.PAGEABLE || c.dstKind() == MemoryKind.PAGEABLE))
        .hasSize(1);
    assertThat(shipped.copies().stream().filter(c -> c.srcKind() == MemoryKind.PAGEABLE
        || c.dstKind() == MemoryKind.PAGEABLE)).hasSize(hostCopies.size());
    assertThat(o.apiNanos("cuMemcpy")).isLessThan(shipped.apiNanos("cuMemcpy"));
    assertThat(o.metric()).isGreaterThan(shipped.metric());
  }

  @Test
  void asyncCopiesQueueTheBatchCopiesOnTheStream() throws Exception {
    Outcome pinned = run(PINNED);
    Outcome o = run(applied("async-copies", PINNED));
    assertThat(pinned.api("cuMemcpyAsync")).isEmpty();
    assertThat(o.api("cuMemcpyAsync")).hasSize(pinned.api("cuMemcpy").size() - 1);
    assertThat(o.api("cuMemcpy")).hasSize(1); // the weights' upload
    assertThat(o.apiNanos("cuMemcpyAsync") + o.apiNanos("cuMemcpy")).isLessThan(pinned.apiNanos("cuMemcpy"));
    assertThat(o.metric()).isGreaterThan(pinned.metric());
  }

  @Test
  void poolAllocationTurnsPerBatchAllocationsStreamOrdered() throws Exception {
    Outcome o = run(applied("pool-allocation", Setup.shipped()));
    int perBatch = shipped.api("cuMemAlloc_v2").size() - o.api("cuMemAlloc_v2").size();
    assertThat(perBatch).isPositive();
    assertThat(o.api("cuMemAllocAsync")).hasSize(perBatch);
    assertThat(o.api("cuMemFreeAsync")).hasSize(perBatch);
    assertThat(shipped.api("cuMemAllocAsync")).isEmpty();
    assertThat(o.metric()).isGreaterThan(shipped.metric());
  }

  @Test
  void poolReleaseThresholdKeepsThePoolsReservationAcrossSynchronizations() throws Exception {
    Setup pool = Setup.of(ExecutionConfig.shipped().withAllocation(Allocation.POOL, 0));
    Outcome anchor = run(pool);
    Outcome o = run(applied("pool-release-threshold", pool));
    assertThat(anchor.device().defaultPool().reservedBytes()).isZero();
    assertThat(o.device().defaultPool().reservedBytes()).isPositive();
    assertThat(o.device().defaultPool().releaseThreshold()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void preallocateRemovesTheAllocationsAndFreesOfEveryBatch() throws Exception {
    Outcome o = run(applied("preallocate", Setup.shipped()));
    long allocs = o.api(a -> a.kind() == ApiKind.ALLOC && !a.name().contains("Host")).size();
    long shippedAllocs = shipped.api(a -> a.kind() == ApiKind.ALLOC && !a.name().contains("Host")).size();
    // Shipped: 9 per-batch buffers in each of the 9 batches; preallocated: 9 per slot, once.
    assertThat(shippedAllocs - allocs).isEqualTo(9L * (HftOnSim.INPUT_BATCHES - 1));
    assertThat(o.api("cuMemAllocAsync")).isEmpty();
    assertThat(o.metric()).isGreaterThan(shipped.metric());
  }

  @Test
  void graphCaptureReplacesEachBatchsLaunchesWithOneGraphLaunch() throws Exception {
    Outcome anchor = run(PREPARED);
    Outcome o = run(applied("graph-capture", PREPARED));
    assertThat(anchor.api("cuGraphLaunch")).isEmpty();
    assertThat(o.api("cuGraphLaunch")).hasSize(HftOnSim.INPUT_BATCHES);
    // Launches are recorded only while capturing: one graph for full batches, one for the short last batch.
    assertThat(o.api("cuLaunchKernel")).hasSize(2 * 8);
    assertThat(anchor.api("cuLaunchKernel")).hasSize(8 * HftOnSim.INPUT_BATCHES);
    assertThat(o.kernels()).hasSameSizeAs(anchor.kernels());
    assertThat(o.kernels().stream().map(KernelRecord::correlationId).distinct().count())
        .isEqualTo(HftOnSim.INPUT_BATCHES);
  }

  @Test
  void pipeliningOverTwoOrFourStreamsRunsBatchesOnThatManyStreamsWhichOverlap() throws Exception {
    Outcome anchor = run(PREPARED);
    assertThat(overlapAcrossStreams(anchor)).isFalse();
    for (int n : new int[] {2, 4}) {
      Outcome o = run(applied("streams-" + n, PREPARED));
      // n bulk streams and the signal stream (book, features, signal)
      assertThat(o.kernels().stream().filter(k -> !SIGNAL_KERNELS.contains(k.name())).map(KernelRecord::stream)
          .distinct().count()).as("bulk streams").isEqualTo(n);
      assertThat(o.kernels().stream().filter(k -> SIGNAL_KERNELS.contains(k.name())).map(KernelRecord::stream)
          .distinct().count()).as("signal streams").isEqualTo(1);
      assertThat(overlapAcrossStreams(o)).as("overlap on " + n + " streams").isTrue();
      assertThat(o.metric()).as(n + " streams").isGreaterThan(anchor.metric());
    }
  }

  /** The kernels of a batch's latency-critical part (the signal stream's): book, features, signal. */
  static final Set<String> SIGNAL_KERNELS = Set.of("lob_book", "lob_features", "lob_mlp");

  @Test
  void streamPriorityRaisesOnlyTheSignalStreamAboveTheBulkStreams() throws Exception {
    Setup twoStreams = applied("streams-2", PREPARED);
    Outcome anchor = run(twoStreams);
    Outcome o = run(applied("stream-priority", twoStreams));
    int greatest = o.device().info().greatestStreamPriority();
    assertThat(o.kernels()).isNotEmpty().allSatisfy(k -> assertThat(o.device().streamPriority(k.stream()))
        .as(k.name()).isEqualTo(SIGNAL_KERNELS.contains(k.name()) ? greatest : 0));
    assertThat(anchor.kernels().stream().map(k -> anchor.device().streamPriority(k.stream())).distinct())
        .containsExactly(0);
    // the same streams and kernels: only the signal stream's priority differs
    assertThat(o.kernels().stream().map(KernelRecord::name).toList())
        .isEqualTo(anchor.kernels().stream().map(KernelRecord::name).toList());
    assertThat(o.output().sha256()).isEqualTo(anchor.output().sha256());
  }

  @Test
  void copyComputeOverlapMovesCopiesToTheirOwnStreamsWhereTheyOverlapKernels() throws Exception {
    // Preallocated: a per-batch cuMemAlloc would wait for the whole device and leave nothing to overlap.
    Setup anchorSetup = PINNED.withConfig(PINNED.config().withAllocation(Allocation.PREALLOCATED, 0));
    Outcome anchor = run(anchorSetup);
    Outcome o = run(applied("copy-compute-overlap", anchorSetup));
    Set<Integer> kernelStreams = o.kernels().stream().map(KernelRecord::stream).collect(Collectors.toSet());
    List<CopyRecord> batchCopies = o.copies().stream()
        .filter(c -> c.srcKind() == MemoryKind.PINNED || c.dstKind() == MemoryKind.PINNED).toList();
    assertThat(batchCopies).isNotEmpty().allMatch(c -> !kernelStreams.contains(c.stream()));
    assertThat(overlapAcrossStreams(anchor)).isFalse();
    assertThat(overlapAcrossStreams(o)).isTrue();
  }

  @Test
  void occupancyBlockSizeLaunchesWithTheBlockTheOccupancyApiSuggests() throws Exception {
    Outcome o = run(applied("occupancy-block-size", Setup.shipped()));
    int suggested = 1024;
    DeviceProvider sim = new HftOnSim.Recording().sim;
    try (Device d = sim.open(DeviceRequest.first())) {
      for (KernelModule m : Contexts.HFT.modules()) {
        try (Module loaded = d.load(m)) {
          for (var k : m.kernels()) {
            suggested = Math.min(suggested, d.suggestedBlockSize(loaded.kernel(k.entry()), 0));
          }
        }
      }
    }
    assertThat(suggested).isNotEqualTo(128);
    int expected = suggested;
    assertThat(shipped.kernels()).allMatch(k -> k.block().x() == 128 || k.name().equals("lob_route_scan"));
    assertThat(o.kernels()).allMatch(k -> k.block().x() == expected);
    assertThat(o.api(a -> a.name().startsWith("cuOccupancy"))).isNotEmpty();
  }

  @Test
  void theWarpBookVariantRunsTheWarpKernelInPlaceOfTheThreadKernel() throws Exception {
    Outcome o = run(applied("kernel-variant:lob_book=warp", Setup.shipped()));
    assertThat(o.kernels().stream().map(KernelRecord::name)).contains("lob_book_warp").doesNotContain("lob_book");
    assertThat(shipped.kernels().stream().map(KernelRecord::name)).contains("lob_book").doesNotContain("lob_book_warp");
    long warp = o.kernels().stream().filter(k -> k.name().equals("lob_book_warp"))
        .mapToLong(k -> k.endNs() - k.startNs()).sum();
    long thread = shipped.kernels().stream().filter(k -> k.name().equals("lob_book"))
        .mapToLong(k -> k.endNs() - k.startNs()).sum();
    assertThat(warp).isLessThan(thread);
  }

  @Test
  void anL2WindowIsSetOnTheStreamThatRunsTheBookAndItsKernelsReadLessFromDeviceMemory() throws Exception {
    Setup twoStreams = applied("streams-2", PREPARED);
    Outcome anchor = run(twoStreams);
    Outcome o = run(applied("l2-persist-window", twoStreams));
    assertThat(o.api("cuStreamSetAttribute")).hasSize(1);
    assertThat(anchor.api("cuStreamSetAttribute")).isEmpty();
    assertThat(kernelNanos(o)).isLessThan(kernelNanos(anchor));
  }

  @Test
  void theMaxL1CarveoutCutsTheResidencyOfKernelsThatUseSharedMemoryAndIsNotOfferedWhereNoneDoes() throws Exception {
    SharedMemoryWorkload w = new SharedMemoryWorkload();
    Outcome anchor = HftOnSim.run(w, SharedMemoryWorkload.STEPS, data, Setup.shipped(), "");
    LeverContext c = new LeverContext(w.spec(), Contexts.SIM_H200, List.of(), TraceFacts.of(anchor.records()), false,
        Setup.shipped());
    Lever l = Levers.byId("shared-carveout-max-l1");
    assertThat(l.check(c).applies()).as(l.check(c).reason()).isTrue();
    Outcome o = HftOnSim.run(w, SharedMemoryWorkload.STEPS, data, l.apply(Setup.shipped(), c), "");
    assertThat(o.api("cuFuncSetAttribute")).hasSize(1);
    // 0% carve-out: one 16 KiB block (4 warps) a multiprocessor instead of several, too few warps to hide memory
    // latency.
    assertThat(o.kernels()).hasSize(SharedMemoryWorkload.STEPS);
    for (int i = 0; i < SharedMemoryWorkload.STEPS; i++) {
      KernelRecord k = o.kernels().get(i);
      KernelRecord a = anchor.kernels().get(i);
      assertThat(k.endNs() - k.startNs()).isGreaterThan(a.endNs() - a.startNs());
    }
    assertThat(o.metric()).isLessThan(anchor.metric());
    // hft-lob's kernels use no shared memory: its trace says so, and the lever is not offered there.
    LeverContext hft = new LeverContext(Contexts.HFT, Contexts.SIM_H200, List.of(), TraceFacts.of(shipped.records()),
        false, Setup.shipped());
    assertThat(l.check(hft).reason()).contains("no kernel with shared memory");
  }

  @Test
  void blockingSyncFreesTheHostWhileItWaitsAndWakesLater() throws Exception {
    Setup s = Setup.shipped();
    LeverContext c = Contexts.hft(s);
    Outcome o = run(Levers.byId("sched-blocking-sync").apply(s, c));
    assertThat(o.device().scheduling()).isEqualTo(SchedulingMode.BLOCKING_SYNC);
    assertThat(o.device().hostSleptNanos()).isPositive();
    assertThat(shipped.device().hostSleptNanos()).isZero();
    assertThat(o.metric()).isLessThan(shipped.metric());
  }

  @Test
  void theTraceGivesTheHostThreadFactSoYieldAndBlockingSyncAreDecidedNotLeftUnknown() {
    Map<String, Double> facts = TraceFacts.of(shipped.records());
    long threads = shipped.all(ApiCallRecord.class).stream().map(ApiCallRecord::threadId).distinct().count();
    assertThat(facts).containsEntry(LeverContext.FACT_HOST_THREADS, (double) threads)
        .containsEntry(LeverContext.FACT_SHARED_MEMORY_KERNELS, 0.0);
    Map<String, Double> host = new java.util.HashMap<>(facts);
    host.put(LeverContext.FACT_HOST_CPUS, 16.0);
    LeverContext c = new LeverContext(Contexts.HFT, Contexts.SIM_H200, List.of(), host, false, Setup.shipped());
    for (String id : List.of("sched-yield", "sched-blocking-sync")) {
      assertThat(Levers.byId(id).check(c).reason()).as(id).contains(threads + " busy host thread(s) have 16 CPU(s)");
    }
    assertThat(TraceFacts.of(List.of())).isEmpty();
  }

  @Test
  void yieldWakesSoonerThanBlockingSyncAndKeepsTheCoreBusy() throws Exception {
    Setup s = Setup.shipped();
    Outcome y = run(Levers.byId("sched-yield").apply(s, Contexts.hft(s)));
    Outcome b = run(Levers.byId("sched-blocking-sync").apply(s, Contexts.hft(s)));
    assertThat(y.device().scheduling()).isEqualTo(SchedulingMode.YIELD);
    assertThat(y.device().hostSleptNanos()).isZero();
    assertThat(y.metric()).isLessThan(shipped.metric()).isGreaterThan(b.metric());
  }

  @Test
  void spinResumesAtOnceAfterEachWait() throws Exception {
    Setup blocking = Setup.shipped().withScheduling(SchedulingMode.BLOCKING_SYNC);
    Outcome anchor = run(blocking);
    Outcome o = run(applied("sched-spin", blocking));
    assertThat(o.device().scheduling()).isEqualTo(SchedulingMode.SPIN);
    assertThat(o.metric()).isGreaterThan(anchor.metric());
    // The sim's AUTO spins too, as CUDA's heuristic does with fewer contexts than CPUs: spin is not offered there.
    assertThat(Levers.byId("sched-spin").check(Contexts.hft(Setup.shipped())).reason()).contains("AUTO already spins");
  }

  @Test
  void coalescingMergesInputBatchesIntoFewerLargerLaunches() throws Exception {
    for (int k : new int[] {2, 4}) {
      Outcome o = run(applied("batch-coalesce-" + k, Setup.shipped()));
      long deviceBatches = (HftOnSim.INPUT_BATCHES + k - 1) / k;
      assertThat(o.kernels()).as("kernels").hasSize((int) (8 * deviceBatches));
      int biggestDecode = o.kernels().stream().filter(x -> x.name().equals("lob_decode"))
          .mapToInt(x -> x.grid().x()).max().orElseThrow();
      int shippedDecode = shipped.kernels().stream().filter(x -> x.name().equals("lob_decode"))
          .mapToInt(x -> x.grid().x()).max().orElseThrow();
      assertThat(biggestDecode).isGreaterThan(shippedDecode);
      assertThat(o.metric()).as("coalesce " + k).isGreaterThan(shipped.metric());
    }
  }

  @Test
  void restoringThePowerLimitLiftsTheCapThatThrottledTheClock() throws Exception {
    // 60 W is below idle power, so that even this small job's load runs into the cap.
    String cap = "power-cap:watts=60";
    Outcome capped = HftOnSim.run(data, Setup.shipped(), cap);
    LeverContext c = new LeverContext(Contexts.HFT, Contexts.SIM_H200,
        List.of(Contexts.suspect(Cause.POWER_THROTTLING)), Map.of(), true, Setup.shipped());
    Lever l = Levers.byId("power-limit-restore");
    assertThat(l.check(c).applies()).isTrue();
    Outcome o = HftOnSim.run(data, l.apply(Setup.shipped(), c), cap);
    assertThat(capped.samples().getFirst().get(StateField.POWER_LIMIT)).isEqualTo(60.0);
    assertThat(capped.samples().getFirst().get(StateField.SM_CLOCK)).isLessThan(1980.0);
    assertThat((long) capped.samples().getFirst().get(StateField.CLOCK_EVENT_REASONS) & 0x4).isEqualTo(0x4);
    assertThat(o.samples().getFirst().get(StateField.POWER_LIMIT)).isEqualTo(700.0);
    assertThat(o.samples().getFirst().get(StateField.SM_CLOCK)).isEqualTo(1980.0);
    assertThat(o.metric()).isGreaterThan(capped.metric());
  }

  @Test
  void restoringTheSmClockUnlocksAClockHeldBelowBoost() throws Exception {
    String drop = "clock-drop";
    Outcome dropped = HftOnSim.run(data, Setup.shipped(), drop);
    LeverContext c = new LeverContext(Contexts.HFT, Contexts.SIM_H200,
        List.of(Contexts.suspect(Cause.CLOCK_DROP)), Map.of(), true, Setup.shipped());
    Lever l = Levers.byId("sm-clock-restore");
    assertThat(l.check(c).applies()).isTrue();
    Outcome o = HftOnSim.run(data, l.apply(Setup.shipped(), c), drop);
    assertThat(dropped.samples().getFirst().get(StateField.SM_CLOCK)).isEqualTo(990.0);
    assertThat((long) dropped.samples().getFirst().get(StateField.CLOCK_EVENT_REASONS) & 0x2).isEqualTo(0x2);
    assertThat(o.samples().getFirst().get(StateField.SM_CLOCK)).isEqualTo(1980.0);
    assertThat(kernelNanos(o)).isLessThan(kernelNanos(dropped));
  }

  @Test
  void replayingTheShippedTraceUnderALeversCounterfactualPredictsTheDirectionTheLiveRunShows() throws Exception {
    Replay r = Replay.of(shipped.records(), k -> null);
    SimSpec h200 = SimSpec.preset("h200");
    long unchanged = r.predict(h200, TraceChange.none(), 1).totalNs();
    for (String id : List.of("pool-allocation", "preallocate", "pinned-host-memory")) {
      TraceChange c = Levers.byId(id).counterfactual().orElseThrow();
      long predicted = r.predict(h200, c, 1).totalNs();
      Outcome live = run(applied(id, Setup.shipped()));
      assertThat(live.metric()).as(id + " live").isGreaterThan(shipped.metric());
      assertThat(predicted).as(id + " predicted").isLessThan(unchanged);
    }
  }

  @Test
  void everyRunOfThisClassCoversTheWholeInput() {
    long launches = shipped.api(a -> a.kind() == ApiKind.LAUNCH && a.name().equals("cuLaunchKernel")).size();
    assertThat(launches).isEqualTo(8L * HftOnSim.INPUT_BATCHES);
    assertThat(shipped.all(ApiCallRecord.class)).isNotEmpty();
  }
}
