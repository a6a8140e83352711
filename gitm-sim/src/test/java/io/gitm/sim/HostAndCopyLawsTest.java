package io.gitm.sim;

import static io.gitm.sim.Fixtures.BIG;
import static io.gitm.sim.Fixtures.only;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gitm.device.DeviceMemory;
import io.gitm.device.GraphExec;
import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.Kernel;
import io.gitm.device.Stream;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.TraceRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

class HostAndCopyLawsTest {
  private static final int MB64 = 64 << 20;

  private static CopyRecord upload(SimDevice d, HostMemoryKind kind) {
    List<TraceRecord> rs = Fixtures.trace(d);
    HostMemory h = d.allocHost(MB64, kind);
    DeviceMemory m = d.malloc(MB64);
    d.copyAsync(m, 0, h, 0, MB64, d.defaultStream());
    d.synchronize();
    d.tracer().flush();
    return only(rs, CopyRecord.class).getLast();
  }

  @Test
  void pinnedBeatsPageableByTheModeledRatio() {
    CopyRecord pinned = upload(Fixtures.open(""), HostMemoryKind.PINNED);
    CopyRecord pageable = upload(Fixtures.open(""), HostMemoryKind.PAGEABLE);
    var h = SimSpec.preset("h200").hardware();
    double modeled = h.hostToDevicePinned() / h.hostToDevicePageable();
    assertThat((double) pageable.durationNs() / pinned.durationNs()).isCloseTo(modeled, within(0.01 * modeled));
    assertThat(pinned.srcKind()).isEqualTo(MemoryKind.PINNED);
    assertThat(pageable.srcKind()).isEqualTo(MemoryKind.PAGEABLE);
  }

  @Test
  void pageableCopiesBlockTheHostAndPinnedOnesReturnAtOnce() {
    for (HostMemoryKind kind : HostMemoryKind.values()) {
      SimDevice d = Fixtures.open("");
      List<TraceRecord> rs = Fixtures.trace(d);
      HostMemory h = d.allocHost(MB64, kind);
      DeviceMemory m = d.malloc(MB64);
      d.copyAsync(m, 0, h, 0, MB64, d.defaultStream());
      long hostAfter = d.clock().nanos();
      d.synchronize();
      d.tracer().flush();
      CopyRecord c = only(rs, CopyRecord.class).getLast();
      if (kind == HostMemoryKind.PAGEABLE) {
        assertThat(hostAfter).isGreaterThanOrEqualTo(c.endNs());
      } else {
        assertThat(hostAfter).isLessThan(c.startNs() + c.durationNs() / 100);
      }
    }
  }

  @Test
  void cuMemAllocSynchronizesTheDeviceAndCostsHostTime() {
    SimDevice d = Fixtures.open("");
    Kernel k = d.load(Fixtures.MODULE).kernel("stream_copy");
    d.launch(k, BIG, d.defaultStream(), 1L << 32);
    long before = d.clock().nanos();
    List<TraceRecord> rs = Fixtures.trace(d);
    d.malloc(1 << 20);
    d.tracer().flush();
    long kernelEnd = before + 1_000_000; // the 4 GiB kernel runs for more than a millisecond
    assertThat(d.clock().nanos()).isGreaterThan(kernelEnd);
    ApiCallRecord alloc = only(rs, ApiCallRecord.class).getLast();
    assertThat(alloc.kind()).isEqualTo(ApiKind.ALLOC);
    assertThat(alloc.durationNs()).isGreaterThan(1_000_000);
  }

  @Test
  void poolAllocationNeitherSynchronizesNorCostsMuch() {
    SimDevice d = Fixtures.open("");
    d.defaultPool().setReleaseThreshold(Long.MAX_VALUE);
    Kernel k = d.load(Fixtures.MODULE).kernel("stream_copy");
    Stream s = d.defaultStream();
    d.freeAsync(d.mallocAsync(1 << 20, s), s);
    d.launch(k, BIG, s, 1L << 32);
    long before = d.clock().nanos();
    DeviceMemory m = d.mallocAsync(1 << 20, s);
    long cost = d.clock().nanos() - before;
    assertThat(m.pooled()).isTrue();
    assertThat(cost).isLessThanOrEqualTo((long) SimSpec.preset("h200").poolAllocNs());
  }

  @Test
  void poolReleasesAtSynchronizationUnlessItsThresholdKeepsTheMemory() {
    SimDevice d = Fixtures.open("");
    Stream s = d.defaultStream();
    d.freeAsync(d.mallocAsync(8 << 20, s), s);
    d.synchronize();
    assertThat(d.defaultPool().reservedBytes()).isZero();
    d.defaultPool().setReleaseThreshold(1L << 30);
    d.freeAsync(d.mallocAsync(8 << 20, s), s);
    d.synchronize();
    assertThat(d.defaultPool().reservedBytes()).isEqualTo(8 << 20);
    assertThat(d.memInfo().usedBytes()).isEqualTo(8 << 20);
  }

  @Test
  void graphsRemoveLaunchGaps() {
    SimDevice d = Fixtures.open("");
    Kernel k = d.load(Fixtures.MODULE).kernel("stream_copy");
    Stream s = d.createStream(0);
    List<TraceRecord> rs = Fixtures.trace(d);
    for (int i = 0; i < 50; i++) {
      d.launch(k, Fixtures.SMALL, s, 4096L);
    }
    d.synchronize();
    s.synchronize();
    d.tracer().flush();
    List<KernelRecord> direct = only(rs, KernelRecord.class);
    rs.clear();
    d.beginCapture(s);
    for (int i = 0; i < 50; i++) {
      d.launch(k, Fixtures.SMALL, s, 4096L);
    }
    GraphExec g = d.endCapture(s);
    assertThat(g.nodes()).isEqualTo(50);
    long hostBefore = d.clock().nanos();
    d.launchGraph(g, s);
    long hostCost = d.clock().nanos() - hostBefore;
    s.synchronize();
    d.tracer().flush();
    List<KernelRecord> graphed = only(rs, KernelRecord.class);
    assertThat(graphed).hasSize(50);
    double launch = SimSpec.preset("h200").hardware().launchLatencyNs();
    assertThat(meanGap(direct)).isGreaterThan(0.5 * launch);
    assertThat(meanGap(graphed)).isLessThan(1);
    assertThat(hostCost).isLessThan((long) (2 * launch));
    assertThat(graphed.getFirst().correlationId()).isEqualTo(graphed.getLast().correlationId());
  }

  private static double meanGap(List<KernelRecord> ks) {
    double sum = 0;
    for (int i = 1; i < ks.size(); i++) {
      sum += ks.get(i).startNs() - ks.get(i - 1).endNs();
    }
    return sum / (ks.size() - 1);
  }

  @Test
  void launchesCostTheHostTheMeasuredLaunchLatency() {
    SimDevice d = Fixtures.open("");
    Kernel k = d.load(Fixtures.MODULE).kernel("stream_copy");
    List<TraceRecord> rs = Fixtures.trace(d);
    d.launch(k, Fixtures.SMALL, d.defaultStream(), 64L);
    d.tracer().flush();
    ApiCallRecord a = only(rs, ApiCallRecord.class).getFirst();
    assertThat(a.kind()).isEqualTo(ApiKind.LAUNCH);
    assertThat(a.durationNs()).isEqualTo(Math.round(SimSpec.preset("h200").hardware().launchLatencyNs()));
  }

  @Test
  void aFullLaunchQueueBlocksTheHost() {
    SimDevice d = Fixtures.open("");
    Kernel k = d.load(Fixtures.MODULE).kernel("stream_copy");
    for (int i = 0; i < 2000; i++) {
      d.launch(k, BIG, d.defaultStream(), 1L << 26); // ~20 us each, far longer than a launch
    }
    // the host cannot run more than the queue depth ahead of the device
    long kernelNs = (long) ((1L << 26) / SimSpec.preset("h200").hardware().memoryBandwidth() * 1e9);
    assertThat(d.clock().nanos()).isGreaterThan((2000 - 1024) * kernelNs);
  }

  @Test
  void everyDriverCallLeavesAnApiRecordOnTheSimulatedClock() {
    SimDevice d = Fixtures.open("");
    List<TraceRecord> rs = Fixtures.trace(d);
    Kernel k = d.load(Fixtures.MODULE).kernel("stream_copy");
    Stream s = d.createStream(-1);
    var e0 = d.createEvent(true);
    var e1 = d.createEvent(true);
    DeviceMemory m = d.malloc(1024);
    DeviceMemory p = d.mallocAsync(1024, s);
    HostMemory h = d.allocHost(1024, HostMemoryKind.PINNED);
    e0.record(s);
    d.copyAsync(p, 0, h, 0, 1024, s);
    d.memsetAsync(m, 0, 7, 1024, s);
    d.launch(k, Fixtures.SMALL, s, 2048L);
    e1.record(s);
    d.defaultStream().waitEvent(e1);
    e1.synchronize();
    e1.elapsedMillisSince(e0);
    d.copy(h, 0, m, 0, 1024);
    d.freeAsync(p, s);
    m.close();
    d.memInfo();
    s.synchronize();
    d.synchronize();
    h.close();
    d.tracer().flush();
    List<ApiCallRecord> calls = only(rs, ApiCallRecord.class);
    assertThat(calls).extracting(ApiCallRecord::name).containsExactly("cuModuleLoadData", "cuModuleGetFunction",
        "cuStreamCreateWithPriority", "cuEventCreate", "cuEventCreate", "cuMemAlloc_v2", "cuMemAllocAsync",
        "cuMemHostAlloc", "cuEventRecord", "cuMemcpyAsync", "cuMemsetD8Async", "cuLaunchKernel", "cuEventRecord",
        "cuStreamWaitEvent", "cuEventSynchronize", "cuEventElapsedTime", "cuMemcpy", "cuMemFreeAsync",
        "cuMemFree_v2", "cuMemGetInfo_v2", "cuStreamSynchronize", "cuCtxSynchronize", "cuMemFreeHost");
    for (int i = 1; i < calls.size(); i++) {
      assertThat(calls.get(i).startNs()).isGreaterThanOrEqualTo(calls.get(i - 1).endNs());
    }
    assertThat(calls.getLast().endNs()).isEqualTo(d.clock().nanos());
  }
}
