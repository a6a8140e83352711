package io.gitm.sim;

import static io.gitm.sim.Fixtures.BIG;
import static io.gitm.sim.Fixtures.only;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.gitm.device.DeviceMemory;
import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.Kernel;
import io.gitm.device.Stream;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.Precision;
import io.gitm.trace.TraceChange;
import io.gitm.trace.TraceChange.CopiesOnSideStream;
import io.gitm.trace.TraceChange.DeviceFaults;
import io.gitm.trace.TraceChange.GraphLaunches;
import io.gitm.trace.TraceChange.HostGapScale;
import io.gitm.trace.TraceChange.KernelPrecision;
import io.gitm.trace.TraceChange.PinnedCopies;
import io.gitm.trace.TraceChange.PoolAllocations;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.Work;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplayTest {
  private static final long KERNEL_BYTES = 16L << 20;
  private static final Map<String, Work> WORK = Map.of(
      "stream_copy", new Work(0, Precision.FP32, KERNEL_BYTES / 2, KERNEL_BYTES / 2),
      "fma_loop", new Work(2e9, Precision.FP32, 0, 0));

  /** A batch loop: upload 4 MiB, a 16 MiB streaming kernel, a compute kernel, download 1 MiB, every iteration. */
  static List<TraceRecord> live(HostMemoryKind hostKind, boolean plainAlloc, long seed) {
    return live(hostKind, plainAlloc, seed, "");
  }

  static List<TraceRecord> live(HostMemoryKind hostKind, boolean plainAlloc, long seed, String faults) {
    SimDevice d = Fixtures.open(faults, seed, 0.02);
    List<TraceRecord> rs = Fixtures.trace(d);
    Kernel stream = d.load(Fixtures.MODULE).kernel("stream_copy");
    Kernel compute = d.load(Fixtures.MODULE).kernel("fma_loop");
    Stream s = d.createStream(0);
    HostMemory in = d.allocHost(4 << 20, hostKind);
    HostMemory out = d.allocHost(1 << 20, hostKind);
    DeviceMemory fixed = d.malloc(4 << 20);
    for (int i = 0; i < 200; i++) {
      DeviceMemory m = plainAlloc ? d.malloc(4 << 20) : fixed;
      d.copyAsync(m, 0, in, 0, 4 << 20, s);
      d.launch(stream, BIG, s, KERNEL_BYTES);
      d.launch(compute, BIG, s, 2e9);
      d.copyAsync(out, 0, m, 0, 1 << 20, s);
      if (plainAlloc) {
        m.close();
      }
      if (i % 10 == 9) {
        s.synchronize();
      }
    }
    d.synchronize();
    d.tracer().stop();
    return rs;
  }

  @Test
  void replayWithoutChangeReproducesTheRecordedRun() {
    List<TraceRecord> t = live(HostMemoryKind.PAGEABLE, false, 1);
    Replay r = Replay.of(t, WORK);
    long predicted = r.predict(SimSpec.preset("h200"), TraceChange.none(), 9).totalNs();
    assertThat((double) predicted / r.observedNs()).isCloseTo(1.0, within(0.02));
  }

  @Test
  void loopingTheProgramOnOneDeviceCoversTheAskedTimeWithRecordsInProportion() {
    List<TraceRecord> t = live(HostMemoryKind.PAGEABLE, false, 1);
    Replay r = Replay.of(t, WORK);
    Replay.Prediction once = r.predict(SimSpec.preset("h200"), TraceChange.none(), 3);
    long target = 50 * once.totalNs();
    long[] seen = new long[1];
    Replay.Loop loop = r.loop(SimSpec.preset("h200"), TraceChange.none(), 3, target, x -> seen[0]++);
    assertThat(loop.simulatedNs()).isGreaterThanOrEqualTo(target);
    assertThat(loop.repetitions()).isBetween(45, 55);
    assertThat(loop.records()).isEqualTo(seen[0]);
    assertThat((double) loop.records() / loop.repetitions()).isCloseTo(once.records().size(), within(2.0));
    assertThatThrownBy(() -> r.loop(SimSpec.preset("h200"), TraceChange.none(), 3, 0, x -> { }))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * A CUPTI-like trace: per step the host launches a cuBLAS FP32 GEMM of 2 ms and an own kernel of 1 ms, neither with
   * declared work, then waits for them in a context synchronization.
   */
  static List<TraceRecord> libraryGemms() {
    List<TraceRecord> t = new java.util.ArrayList<>();
    long corr = 1;
    long now = 1_000_000;
    for (int i = 0; i < 20; i++) {
      long device = now + 10_000;
      for (String name : List.of("cutlass_80_simt_sgemm_256x128_8x4_nn_align1", "af2_softmax")) {
        long dur = name.startsWith("cutlass") ? 2_000_000 : 1_000_000;
        t.add(new ApiCallRecord(ApiKind.LAUNCH, "cuLaunchKernel", 1, corr, now, now + 5_000));
        t.add(new KernelRecord(name, 0, 7, corr, device, device + dur, new Dim3(256, 1, 1), new Dim3(256, 1, 1), 128,
            0, 0));
        corr++;
        now += 6_000;
        device += dur;
      }
      t.add(new ApiCallRecord(ApiKind.SYNC, "cuCtxSynchronize", 1, corr, now, device + 5_000));
      corr++;
      now = device + 6_000;
    }
    return t;
  }

  @Test
  void aMathModeChangeSpeedsUpLibraryFp32GemmsThatDeclaredNoWork() {
    // on a real device cuBLAS's kernels declare nothing: their observed time is all replay has; under TF32 they run
    // on tensor cores, the own FP32 kernels do not change
    Replay r = Replay.of(libraryGemms(), k -> null);
    SimSpec h200 = SimSpec.preset("h200");
    long base = r.predict(h200, TraceChange.none(), 1).totalNs();
    Replay.Prediction tf32 = r.predict(h200, TraceChange.of(new KernelPrecision(Precision.FP32, Precision.TF32)), 1);
    // 20 × (2 + 1) ms of kernels → 20 × (0.5 + 1) ms
    assertThat((double) tf32.totalNs() / base).isCloseTo(1.5 / 3.0, within(0.05));
    assertThat(tf32.records().stream().filter(x -> x instanceof KernelRecord k && k.name().startsWith("af2"))
        .mapToLong(TraceRecord::durationNs).sum()).isCloseTo(20_000_000L, org.assertj.core.data.Percentage
            .withPercentage(5));
    long bf16 = r.predict(h200, TraceChange.of(new KernelPrecision(Precision.FP32, Precision.BF16)), 1).totalNs();
    assertThat(bf16).isCloseTo(tf32.totalNs(), org.assertj.core.data.Percentage.withPercentage(5));
  }

  @Test
  void aMathModeChangesTheDeclaredWorkOfGemmsAndNotOfAWorkloadsOwnFp32Kernels() {
    // the same compute-bound FP32 work, once in a GEMM and once in an own kernel: TF32 speeds up the GEMM only
    List<TraceRecord> t = new java.util.ArrayList<>();
    long now = 1_000_000;
    long corr = 1;
    for (String name : List.of("sim_sgemm_128x128_fp32", "af2_attn_logits")) {
      t.add(new ApiCallRecord(ApiKind.LAUNCH, "cuLaunchKernel", 1, corr, now, now + 5_000));
      t.add(new KernelRecord(name, 0, 7, corr++, now + 8_000, now + 1_008_000, new Dim3(1024, 1, 1),
          new Dim3(256, 1, 1), 64, 0, 0));
      now += 1_020_000;
    }
    t.add(new ApiCallRecord(ApiKind.SYNC, "cuCtxSynchronize", 1, corr, now, now + 10_000));
    Work compute = new Work(50e9, Precision.FP32, 1 << 20, 1 << 20);
    Replay r = Replay.of(t, Map.of("sim_sgemm_128x128_fp32", compute, "af2_attn_logits", compute));
    Replay.Prediction fp32 = r.predict(SimSpec.preset("h200"), TraceChange.none(), 1);
    Replay.Prediction tf32 = r.predict(SimSpec.preset("h200"), TraceChange.of(new KernelPrecision(Precision.FP32,
        Precision.TF32)), 1);
    java.util.function.BiFunction<Replay.Prediction, String, Long> time = (p, n) -> p.records().stream()
        .filter(x -> x instanceof KernelRecord k && k.name().equals(n)).mapToLong(TraceRecord::durationNs).sum();
    assertThat(time.apply(tf32, "sim_sgemm_128x128_fp32")).isLessThan(time.apply(fp32, "sim_sgemm_128x128_fp32") / 3);
    assertThat((double) time.apply(tf32, "af2_attn_logits") / time.apply(fp32, "af2_attn_logits"))
        .isCloseTo(1.0, within(0.05));
  }

  /**
   * A driver's allocator as CUPTI records it: per step a 500 µs {@code cuMemAlloc} on an idle device (page mapping of
   * a large buffer), a 1 ms kernel, and a {@code cuMemFree} that waits for the kernel and then costs 10 µs.
   */
  static List<TraceRecord> costlyAllocator() {
    List<TraceRecord> t = new java.util.ArrayList<>();
    long corr = 1;
    long now = 1_000_000;
    for (int i = 0; i < 20; i++) {
      t.add(new ApiCallRecord(ApiKind.ALLOC, "cuMemAlloc_v2", 1, corr++, now, now + 500_000));
      now += 501_000;
      t.add(new ApiCallRecord(ApiKind.LAUNCH, "cuLaunchKernel", 1, corr, now, now + 5_000));
      long k0 = now + 8_000;
      t.add(new KernelRecord("step", 0, 7, corr++, k0, k0 + 1_000_000, new Dim3(1024, 1, 1), new Dim3(256, 1, 1), 32,
          0, 0));
      now += 6_000;
      t.add(new ApiCallRecord(ApiKind.FREE, "cuMemFree_v2", 1, corr++, now, k0 + 1_010_000));
      now = k0 + 1_011_000;
    }
    return t;
  }

  @Test
  void aRecordedAllocatorCostWellAboveTheModelsIsReplayedAndThePoolRemovesIt() {
    List<TraceRecord> t = costlyAllocator();
    List<ApiCallRecord> calls = t.stream().filter(x -> x instanceof ApiCallRecord).map(x -> (ApiCallRecord) x)
        .toList();
    Map<ApiCallRecord, Long> own = Replay.ownCosts(t, calls);
    assertThat(own.get(calls.get(0))).as("an allocation on an idle device: all of it").isEqualTo(500_000);
    assertThat(own.get(calls.get(2))).as("a free that waited for the kernel: only what came after").isEqualTo(10_000);
    assertThat(own).doesNotContainKey(calls.get(1));
    Replay r = Replay.of(t, k -> null);
    long observed = r.observedNs();
    long base = r.predict(SimSpec.preset("h200"), TraceChange.none(), 1).totalNs();
    assertThat((double) base / observed).as("the replay keeps the recorded allocator cost").isCloseTo(1.0,
        within(0.05));
    long pool = r.predict(SimSpec.preset("h200"), TraceChange.of(new PoolAllocations()), 1).totalNs();
    assertThat((double) (base - pool) / 1e6).as("ms saved: about 20 × 0.5 ms").isCloseTo(10.0, within(1.5));
  }

  @Test
  void pinnedInsteadOfPageablePredictsTheLiveRunWithinAFewPercent() {
    List<TraceRecord> pageable = live(HostMemoryKind.PAGEABLE, false, 1);
    List<TraceRecord> pinned = live(HostMemoryKind.PINNED, false, 2);
    Replay.Prediction p = Replay.of(pageable, WORK).predict(SimSpec.preset("h200"),
        TraceChange.of(new PinnedCopies()), 3);
    long livePinned = Replay.span(pinned);
    long livePageable = Replay.span(pageable);
    assertThat(livePinned).isLessThan(livePageable * 9 / 10);
    assertThat((double) p.totalNs() / livePinned).isCloseTo(1.0, within(0.03));
    assertThat(only(p.records(), CopyRecord.class))
        .allSatisfy(c -> assertThat(c.srcKind()).isNotEqualTo(MemoryKind.PAGEABLE));
  }

  @Test
  void poolInsteadOfCuMemAllocRemovesTheAllocatorStalls() {
    List<TraceRecord> plain = live(HostMemoryKind.PINNED, true, 1);
    Replay r = Replay.of(plain, WORK);
    Replay.Prediction p = r.predict(SimSpec.preset("h200"), TraceChange.of(new PoolAllocations()), 3);
    long noAllocLive = Replay.span(live(HostMemoryKind.PINNED, false, 2));
    assertThat(p.totalNs()).isLessThan(r.observedNs() * 9 / 10);
    assertThat((double) p.totalNs() / noAllocLive).isCloseTo(1.0, within(0.05));
    assertThat(only(p.records(), ApiCallRecord.class).stream().filter(a -> a.kind() == ApiKind.ALLOC))
        .allSatisfy(a -> assertThat(a.name()).isEqualTo("cuMemAllocAsync"));
  }

  /** A launch-bound loop: 2000 tiny kernels on one stream. */
  private static List<TraceRecord> tinyKernels(boolean graph) {
    SimDevice d = Fixtures.open("", 5, 0.02);
    List<TraceRecord> rs = Fixtures.trace(d);
    Kernel k = d.load(Fixtures.MODULE).kernel("stream_copy");
    Stream s = d.createStream(0);
    if (graph) {
      d.beginCapture(s);
      for (int i = 0; i < 20; i++) {
        d.launch(k, Fixtures.SMALL, s, 4096L);
      }
      var g = d.endCapture(s);
      rs.clear();
      for (int i = 0; i < 100; i++) {
        d.launchGraph(g, s);
      }
    } else {
      for (int i = 0; i < 2000; i++) {
        d.launch(k, Fixtures.SMALL, s, 4096L);
      }
    }
    d.synchronize();
    d.tracer().stop();
    return rs;
  }

  @Test
  void graphLaunchesPredictTheLaunchGapsGone() {
    List<TraceRecord> direct = tinyKernels(false);
    Replay r = Replay.of(direct, Map.of("stream_copy", new Work(0, Precision.FP32, 2048, 2048)));
    Replay.Prediction p = r.predict(SimSpec.preset("h200"), TraceChange.of(new GraphLaunches()), 1);
    assertThat(p.totalNs()).isLessThan(r.observedNs() / 2);
    // and a graph-launched trace replays as recorded
    List<TraceRecord> graphed = tinyKernels(true);
    Replay g = Replay.of(graphed, Map.of("stream_copy", new Work(0, Precision.FP32, 2048, 2048)));
    assertThat((double) g.predict(SimSpec.preset("h200"), TraceChange.none(), 1).totalNs() / g.observedNs())
        .isCloseTo(1.0, within(0.05));
  }

  @Test
  void aMathModeLeavesAWorkloadsOwnKernelsAsTheyWere() {
    // fma_loop is compute-bound FP32 but not a GEMM: cuBLAS's math mode does not reach it (the GEMM case is above)
    List<TraceRecord> t = live(HostMemoryKind.PINNED, false, 1);
    Replay r = Replay.of(t, WORK);
    long base = r.predict(SimSpec.preset("h200"), TraceChange.none(), 3).totalNs();
    long tf32 = r.predict(SimSpec.preset("h200"), TraceChange.of(new KernelPrecision(Precision.FP32, Precision.TF32)),
        3).totalNs();
    assertThat((double) tf32 / base).isCloseTo(1.0, within(0.01));
  }

  @Test
  void kernelsWithoutDeclaredWorkKeepTheirObservedDuration() {
    List<TraceRecord> t = live(HostMemoryKind.PINNED, false, 1);
    Replay r = Replay.of(t, Map.of());
    var ks = only(r.predict(SimSpec.preset("h200"), TraceChange.none(), 3).records(),
        io.gitm.trace.KernelRecord.class);
    var orig = only(t, io.gitm.trace.KernelRecord.class);
    assertThat(ks).hasSameSizeAs(orig);
    assertThat((double) ks.get(5).durationNs() / orig.get(5).durationNs()).isCloseTo(1.0, within(0.1));
  }

  @Test
  void removingAFaultPredictsTheCleanRun() {
    List<TraceRecord> faulty = live(HostMemoryKind.PINNED, false, 1, "clock-drop:mhz=660");
    Replay r = Replay.of(faulty, WORK);
    long clean = Replay.span(live(HostMemoryKind.PINNED, false, 2));
    long sameFault = r.predict(SimSpec.preset("h200"), TraceChange.of(new DeviceFaults("clock-drop:mhz=660")), 3)
        .totalNs();
    long removed = r.predict(SimSpec.preset("h200"), TraceChange.none(), 3).totalNs();
    assertThat(r.observedNs()).isGreaterThan(clean * 11 / 10);
    assertThat((double) sameFault / r.observedNs()).isCloseTo(1.0, within(0.03));
    assertThat((double) removed / clean).isCloseTo(1.0, within(0.03));
  }

  @Test
  void uploadsMovedToASideStreamOverlapEarlierKernels() {
    List<TraceRecord> t = live(HostMemoryKind.PINNED, false, 1);
    Replay r = Replay.of(t, WORK);
    long same = r.predict(SimSpec.preset("h200"), TraceChange.none(), 3).totalNs();
    Replay.Prediction side = r.predict(SimSpec.preset("h200"), TraceChange.of(new CopiesOnSideStream()), 3);
    assertThat(side.totalNs()).isLessThan(same * 95 / 100);
    // kernels still start only after the upload they follow has ended
    var copies = only(side.records(), CopyRecord.class).stream()
        .filter(c -> c.kind() == io.gitm.trace.CopyKind.HTOD).toList();
    var kernels = only(side.records(), io.gitm.trace.KernelRecord.class);
    for (int i = 0; i < copies.size(); i++) {
      assertThat(kernels.get(2 * i).startNs()).isGreaterThanOrEqualTo(copies.get(i).endNs());
    }
  }

  @Test
  void removingHostGapsPredictsTheLaunchBoundRunWithoutThem() {
    SimDevice d = Fixtures.open("launch-bound:gapUs=30", 4, 0.02);
    List<TraceRecord> t = Fixtures.trace(d);
    Kernel k = d.load(Fixtures.MODULE).kernel("stream_copy");
    for (int i = 0; i < 500; i++) {
      d.launch(k, Fixtures.SMALL, d.defaultStream(), 4096L);
    }
    d.synchronize();
    d.tracer().stop();
    Replay r = Replay.of(t, Map.of("stream_copy", new Work(0, Precision.FP32, 2048, 2048)));
    long kept = r.predict(SimSpec.preset("h200"), TraceChange.none(), 1).totalNs();
    long removed = r.predict(SimSpec.preset("h200"), TraceChange.of(new HostGapScale(0)), 1).totalNs();
    assertThat((double) kept / r.observedNs()).isCloseTo(1.0, within(0.03));
    // 500 gaps of 30 us vanish; launches (4 us each) remain
    assertThat((double) removed / kept).isCloseTo(4.0 / 34.0, within(0.03));
    assertThatThrownBy(() -> TraceChange.of(new HostGapScale(-1))).hasMessageContaining("non-negative");
  }

  @Test
  void aTraceWithoutApiCallsIsRefused() {
    assertThatThrownBy(() -> Replay.of(List.of(), Map.of())).hasMessageContaining("no API call records");
  }
}
