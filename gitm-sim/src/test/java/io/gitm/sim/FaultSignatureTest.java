package io.gitm.sim;

import static io.gitm.sim.Fixtures.BIG;
import static io.gitm.sim.Fixtures.SMALL;
import static io.gitm.sim.Fixtures.only;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gitm.device.DeviceMemory;
import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.Kernel;
import io.gitm.device.Stream;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each fault leaves its signature in the records and samples, after its onset and not before. */
class FaultSignatureTest {
  private static final long S = 1_000_000_000L;
  /** About a millisecond of FP32 work at the boost clock on an H200. */
  private static final double MS_OF_FLOPS = 6.7e10;

  record Run(List<TraceRecord> records, List<StateSample> samples) {
    List<KernelRecord> kernels() {
      return only(records, KernelRecord.class);
    }

    List<KernelRecord> kernelsBetween(long from, long to) {
      return kernels().stream().filter(k -> k.startNs() >= from && k.startNs() < to).toList();
    }

    List<StateSample> samplesBetween(long from, long to) {
      return samples.stream().filter(s -> s.timeNs() >= from && s.timeNs() < to).toList();
    }
  }

  /** Millisecond compute kernels for {@code seconds} of simulated time, sampled every 250 ms. */
  static Run computeLoad(String faults, double seconds) {
    SimDevice d = Fixtures.open(faults);
    List<TraceRecord> rs = new ArrayList<>();
    d.tracer().start(rs::add);
    List<StateSample> samples = new ArrayList<>();
    Kernel k = d.load(Fixtures.MODULE).kernel("fma_loop");
    long nextSample = 0;
    int i = 0;
    while (d.clock().nanos() < seconds * S) {
      d.launch(k, BIG, d.defaultStream(), MS_OF_FLOPS);
      if (++i % 8 == 0) {
        d.synchronize();
      }
      if (d.clock().nanos() >= nextSample) {
        samples.add(d.sampler().sample());
        nextSample += S / 4;
      }
    }
    d.synchronize();
    d.tracer().stop();
    return new Run(rs, samples);
  }

  private static long bits(StateSample s) {
    return (long) s.get(StateField.CLOCK_EVENT_REASONS);
  }

  private static double meanDuration(List<KernelRecord> ks) {
    return ks.stream().mapToLong(KernelRecord::durationNs).average().orElseThrow();
  }

  @Test
  void anIdleDeviceReportsTheIdleReasonAndIdleClock() {
    StateSample s = Fixtures.open("").sampler().sample();
    assertThat(bits(s)).isEqualTo(0x1);
    assertThat(s.get(StateField.SM_CLOCK)).isEqualTo(345);
    assertThat(s.get(StateField.POWER)).isEqualTo(82);
    assertThat(s.get(StateField.GPU_UTILIZATION)).isZero();
  }

  @Test
  void thermalFaultHeatsTheDieThenLowersTheClockWithThermalReasons() {
    Run r = computeLoad("thermal@2s:severity=0.5", 40);
    for (StateSample s : r.samplesBetween(S / 2, 2 * S)) {
      assertThat(bits(s) & 0x60).isZero();
      assertThat(s.get(StateField.SM_CLOCK)).isEqualTo(1980);
      assertThat(s.get(StateField.GPU_UTILIZATION)).isGreaterThan(90);
    }
    List<StateSample> late = r.samplesBetween(30 * S, 41 * S);
    assertThat(late).isNotEmpty().allSatisfy(s -> {
      assertThat(bits(s) & 0x60).isNotZero();
      assertThat(s.get(StateField.SM_CLOCK)).isLessThan(1980);
      assertThat(s.get(StateField.TEMPERATURE)).isGreaterThan(87);
    });
    assertThat(meanDuration(r.kernelsBetween(30 * S, 41 * S)))
        .isGreaterThan(1.1 * meanDuration(r.kernelsBetween(0, 2 * S)));
  }

  @Test
  void powerCapLowersTheClockUnderLoadWithTheSwPowerCapReason() {
    Run r = computeLoad("power-cap@1s:watts=300", 3);
    assertThat(r.samplesBetween(S / 2, S)).allSatisfy(s -> assertThat(bits(s) & 0x4).isZero());
    assertThat(r.samplesBetween(3 * S / 2, 4 * S)).isNotEmpty().allSatisfy(s -> {
      assertThat(bits(s) & 0x4).isEqualTo(0x4);
      assertThat(s.get(StateField.SM_CLOCK)).isLessThan(1980);
      assertThat(s.get(StateField.POWER)).isLessThanOrEqualTo(300.01);
      assertThat(s.get(StateField.POWER_LIMIT)).isEqualTo(300);
    });
  }

  @Test
  void clockDropLocksTheClockAndDoublesComputeKernels() {
    Run r = computeLoad("clock-drop@1s:mhz=990", 2);
    assertThat(r.samplesBetween(5 * S / 4, 2 * S)).isNotEmpty().allSatisfy(s -> {
      assertThat(s.get(StateField.SM_CLOCK)).isEqualTo(990);
      assertThat(bits(s) & 0x2).isEqualTo(0x2);
    });
    assertThat(meanDuration(r.kernelsBetween(S + S / 10, 2 * S)) / meanDuration(r.kernelsBetween(0, S)))
        .isCloseTo(2.0, within(0.05));
  }

  @Test
  void powerBrakeSetsTheHwBrakeReasonsAndSlowsCompute() {
    Run r = computeLoad("power-brake@1s:factor=0.5", 2);
    assertThat(r.samplesBetween(5 * S / 4, 2 * S)).isNotEmpty()
        .allSatisfy(s -> assertThat(bits(s) & 0x88).isEqualTo(0x88));
    assertThat(meanDuration(r.kernelsBetween(S + S / 10, 2 * S)) / meanDuration(r.kernelsBetween(0, S)))
        .isCloseTo(2.0, within(0.05));
  }

  /** Per iteration: pool allocation, upload, kernel, free (about 3.6 ms of host time without faults). */
  private static List<TraceRecord> allocLoop(String faults, HostMemoryKind hostKind) {
    SimDevice d = Fixtures.open(faults);
    List<TraceRecord> rs = Fixtures.trace(d);
    d.defaultPool().setReleaseThreshold(Long.MAX_VALUE);
    Kernel k = d.load(Fixtures.MODULE).kernel("stream_copy");
    Stream s = d.createStream(0);
    HostMemory h = d.allocHost(1 << 20, hostKind);
    for (int i = 0; i < 400; i++) {
      DeviceMemory m = d.mallocAsync(1 << 20, s);
      d.copyAsync(m, 0, h, 0, 1 << 20, s);
      d.launch(k, BIG, s, 1L << 26);
      d.freeAsync(m, s);
    }
    d.synchronize();
    d.tracer().flush();
    return rs;
  }

  @Test
  void allocatorChurnMakesAllocationsLongSynchronizingCallsThatIdleTheDevice() {
    List<TraceRecord> rs = allocLoop("allocator-churn@1ms", HostMemoryKind.PINNED);
    long onset = 1_000_000;
    List<ApiCallRecord> allocs = only(rs, ApiCallRecord.class).stream().filter(a -> a.kind() == ApiKind.ALLOC)
        .filter(a -> a.name().equals("cuMemAllocAsync")).toList();
    // before the onset only the first allocation, which grows the pool, costs more than the pool's fast path
    assertThat(allocs.stream().filter(a -> a.startNs() < onset).skip(1).toList()).isNotEmpty()
        .allSatisfy(a -> assertThat(a.durationNs()).isLessThanOrEqualTo(1000));
    assertThat(allocs.stream().filter(a -> a.startNs() > onset).toList()).isNotEmpty()
        .allSatisfy(a -> assertThat(a.durationNs()).isGreaterThan(20_000));
    List<KernelRecord> ks = only(rs, KernelRecord.class);
    long idleAfter = 0;
    for (int i = 1; i < ks.size(); i++) {
      if (ks.get(i).startNs() > onset) {
        idleAfter = Math.max(idleAfter, ks.get(i).startNs() - ks.get(i - 1).endNs());
      }
    }
    assertThat(idleAfter).isGreaterThan(20_000);
  }

  @Test
  void pageableCopiesFaultTurnsPinnedCopiesIntoPageableOnesThatBlockTheHost() {
    long onset = 1_000_000;
    List<TraceRecord> rs = allocLoop("pageable-copies@1ms", HostMemoryKind.PINNED);
    List<ApiCallRecord> calls = only(rs, ApiCallRecord.class).stream().filter(a -> a.kind() == ApiKind.COPY).toList();
    java.util.Map<Long, CopyRecord> copies = new java.util.HashMap<>();
    only(rs, CopyRecord.class).forEach(c -> copies.put(c.correlationId(), c));
    List<ApiCallRecord> before = calls.stream().filter(a -> a.endNs() < onset).toList();
    List<ApiCallRecord> after = calls.stream().filter(a -> a.startNs() > onset).toList();
    assertThat(before).isNotEmpty().allSatisfy(a -> {
      assertThat(copies.get(a.correlationId()).srcKind()).isEqualTo(MemoryKind.PINNED);
      assertThat(a.endNs()).isLessThan(copies.get(a.correlationId()).endNs());
    });
    assertThat(after).isNotEmpty().allSatisfy(a -> {
      assertThat(copies.get(a.correlationId()).srcKind()).isEqualTo(MemoryKind.PAGEABLE);
      assertThat(a.endNs()).isGreaterThanOrEqualTo(copies.get(a.correlationId()).endNs());
    });
  }

  @Test
  void serializedStreamsNeverOverlap() {
    for (String faults : new String[] {"", "serialized-streams"}) {
      SimDevice d = Fixtures.open(faults);
      Kernel k = d.load(Fixtures.MODULE).kernel("fma_loop");
      List<TraceRecord> rs = Fixtures.trace(d);
      for (int i = 0; i < 4; i++) {
        d.launch(k, SMALL, d.createStream(0), 1e9);
      }
      d.synchronize();
      d.tracer().flush();
      int c = StreamLawsTest.maxConcurrency(only(rs, KernelRecord.class));
      assertThat(c).isEqualTo(faults.isEmpty() ? 4 : 1);
    }
  }

  @Test
  void launchBoundHostLeavesGapsBetweenLaunchesAndIdlesTheDevice() {
    SimDevice d = Fixtures.open("launch-bound:gapUs=50");
    Kernel k = d.load(Fixtures.MODULE).kernel("stream_copy");
    List<TraceRecord> rs = Fixtures.trace(d);
    for (int i = 0; i < 100; i++) {
      d.launch(k, SMALL, d.defaultStream(), 4096L);
    }
    d.synchronize();
    d.tracer().flush();
    List<ApiCallRecord> launches = only(rs, ApiCallRecord.class).stream().filter(a -> a.kind() == ApiKind.LAUNCH)
        .toList();
    for (int i = 1; i < launches.size(); i++) {
      assertThat(launches.get(i).startNs() - launches.get(i - 1).endNs()).isGreaterThanOrEqualTo(50_000);
    }
    List<KernelRecord> ks = only(rs, KernelRecord.class);
    assertThat(ks.get(50).startNs() - ks.get(49).endNs()).isGreaterThan(40_000);
  }

  private static long oneKernel(String faults, String entry, Object arg) {
    SimDevice d = Fixtures.open(faults);
    Kernel k = d.load(Fixtures.MODULE).kernel(entry);
    List<TraceRecord> rs = Fixtures.trace(d);
    d.launch(k, BIG, d.defaultStream(), arg);
    d.synchronize();
    d.tracer().flush();
    return only(rs, KernelRecord.class).getFirst().durationNs();
  }

  @Test
  void uncoalescedAccessMultipliesTheBytesOfTheKernelsItHits() {
    long plain = oneKernel("", "stream_copy", 1L << 30);
    long hit = oneKernel("uncoalesced:factor=4:kernel=stream", "stream_copy", 1L << 30);
    assertThat((double) hit / plain).isCloseTo(4.0, within(0.02));
    assertThat(oneKernel("uncoalesced:factor=4:kernel=stream", "fma_loop", 1e11))
        .isEqualTo(oneKernel("", "fma_loop", 1e11));
  }

  @Test
  void noisyNeighbourTakingHalfTheMultiprocessorsDoublesComputeBoundKernels() {
    long plain = oneKernel("", "fma_loop", 1e11);
    long shared = oneKernel("noisy-neighbour:sms=66", "fma_loop", 1e11);
    assertThat((double) shared / plain).isCloseTo(2.0, within(0.02));
  }

  @Test
  void aNoisyNeighbourMidRunShowsInTheSamplesOnlyWhileItIsThere() {
    Run r = computeLoad("noisy-neighbour@1s:sms=33:duration=1s", 3);
    List<StateSample> before = r.samplesBetween(0, S);
    List<StateSample> during = r.samplesBetween(S, 2 * S);
    List<StateSample> after = r.samplesBetween(2 * S, 3 * S);
    assertThat(before).isNotEmpty();
    assertThat(during).isNotEmpty();
    assertThat(after).isNotEmpty();
    for (StateSample s : before) {
      assertThat(s.get(StateField.OTHER_PROCESSES)).as("before the onset at %d", s.timeNs()).isZero();
      assertThat(s.get(StateField.OTHER_SM_UTILIZATION)).isZero();
    }
    for (StateSample s : during) {
      assertThat(s.get(StateField.OTHER_PROCESSES)).as("neighbour active at %d", s.timeNs()).isEqualTo(1);
      // 33 of the H200's 132 multiprocessors
      assertThat(s.get(StateField.OTHER_SM_UTILIZATION)).isEqualTo(25);
    }
    for (StateSample s : after) {
      assertThat(s.get(StateField.OTHER_PROCESSES)).as("after the neighbour left, at %d", s.timeNs()).isZero();
      assertThat(s.get(StateField.OTHER_SM_UTILIZATION)).isZero();
    }
  }

  @Test
  void eccRetirementSlowsBandwidthBoundKernelsAndReportsRetiredPages() {
    long plain = oneKernel("", "stream_copy", 1L << 30);
    long ecc = oneKernel("ecc-retirement:factor=0.8:pages=24", "stream_copy", 1L << 30);
    assertThat((double) ecc / plain).isCloseTo(1.25, within(0.01));
    assertThat(Fixtures.open("ecc-retirement:pages=24").sampler().sample().get(StateField.RETIRED_PAGES))
        .isEqualTo(24);
  }

  @Test
  void syncStallAddsAHostSynchronizationEveryNthLaunch() {
    SimDevice d = Fixtures.open("sync-stall:every=10");
    Kernel k = d.load(Fixtures.MODULE).kernel("fma_loop");
    List<TraceRecord> rs = Fixtures.trace(d);
    for (int i = 0; i < 100; i++) {
      d.launch(k, BIG, d.defaultStream(), 1e9);
    }
    d.tracer().flush();
    List<ApiCallRecord> syncs = only(rs, ApiCallRecord.class).stream().filter(a -> a.kind() == ApiKind.SYNC)
        .toList();
    assertThat(syncs).hasSize(10);
    assertThat(syncs.getFirst().durationNs()).isGreaterThan(5 * only(rs, KernelRecord.class).getFirst().durationNs());
  }

  @Test
  void pcieDowngradeHalvesTheHostLinkRate() {
    long[] t = new long[2];
    String[] f = {"", "pcie-downgrade:factor=0.5"};
    for (int i = 0; i < 2; i++) {
      SimDevice d = Fixtures.open(f[i]);
      List<TraceRecord> rs = Fixtures.trace(d);
      HostMemory h = d.allocHost(64 << 20, HostMemoryKind.PINNED);
      DeviceMemory m = d.malloc(64 << 20);
      d.copyAsync(m, 0, h, 0, 64 << 20, d.defaultStream());
      d.synchronize();
      d.tracer().flush();
      t[i] = only(rs, CopyRecord.class).getFirst().durationNs();
    }
    assertThat((double) t[1] / t[0]).isCloseTo(2.0, within(0.01));
  }

  @Test
  void faultsCombineAndTheGroundTruthListsThem() {
    SimDevice d = Fixtures.open("thermal@5s:severity=0.4,duration=10s,allocator-churn@1s");
    GroundTruth g = d.injected();
    assertThat(g.faults()).extracting(InjectedFault::name).containsExactly("thermal", "allocator-churn");
    assertThat(g.faults().getFirst().onsetNs()).isEqualTo(5 * S);
    assertThat(g.faults().getFirst().endNs()).isEqualTo(15 * S);
    assertThat(g.faults().getFirst().param("severity")).isEqualTo(0.4);
    assertThat(g.faults().get(1).param("factor")).isEqualTo(1.0);
    assertThat(g.metadata()).containsEntry("sim.fault.0.name", "thermal").containsEntry("sim.fault.1.onsetNs",
        "1000000000").containsEntry("sim.preset", "h200").containsEntry("sim.seed", "0");
    assertThat(d.tracer().meta().attributes().toString()).doesNotContain("thermal");
  }
}
