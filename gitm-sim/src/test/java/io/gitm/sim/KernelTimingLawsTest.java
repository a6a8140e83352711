package io.gitm.sim;

import static io.gitm.sim.Fixtures.BIG;
import static io.gitm.sim.Fixtures.only;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gitm.device.Kernel;
import io.gitm.device.LaunchConfig;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceRecord;
import io.gitm.device.HostMemoryKind;
import java.util.List;
import org.junit.jupiter.api.Test;

class KernelTimingLawsTest {

  private static long run(SimDevice d, String entry, LaunchConfig c, Object arg) {
    List<TraceRecord> rs = Fixtures.trace(d);
    Kernel k = d.load(Fixtures.MODULE).kernel(entry);
    d.launch(k, c, d.defaultStream(), arg);
    d.synchronize();
    d.tracer().stop();
    return only(rs, KernelRecord.class).getLast().durationNs();
  }

  @Test
  void bandwidthBoundKernelTimeScalesWithBytes() {
    long t1 = run(Fixtures.open(""), "stream_copy", BIG, 1L << 30);
    long t2 = run(Fixtures.open(""), "stream_copy", BIG, 1L << 31);
    assertThat((double) t2 / t1).isCloseTo(2.0, within(0.01));
    // and it runs at the preset's device-memory bandwidth
    double bw = (1L << 30) / (t1 / 1e9);
    assertThat(bw).isCloseTo(SimSpec.preset("h200").hardware().memoryBandwidth(), within(0.01 * 3.3e12));
  }

  @Test
  void computeBoundKernelTimeScalesWithFlops() {
    long t1 = run(Fixtures.open(""), "fma_loop", BIG, 1e11);
    long t2 = run(Fixtures.open(""), "fma_loop", BIG, 3e11);
    assertThat((double) t2 / t1).isCloseTo(3.0, within(0.02));
  }

  @Test
  void computeBoundKernelTimeScalesInverselyWithClock() {
    long full = run(Fixtures.open(""), "fma_loop", BIG, 1e11);
    long half = run(Fixtures.open("clock-drop:mhz=990"), "fma_loop", BIG, 1e11);
    assertThat((double) half / full).isCloseTo(2.0, within(0.02));
  }

  @Test
  void throttledClockLengthensComputeBoundKernelsAndNotCopyBoundOnes() {
    long memFull = run(Fixtures.open(""), "stream_copy", BIG, 1L << 30);
    long memSlow = run(Fixtures.open("clock-drop:mhz=990"), "stream_copy", BIG, 1L << 30);
    assertThat(memSlow).isEqualTo(memFull);
    long copyFull = copyTime(Fixtures.open(""));
    long copySlow = copyTime(Fixtures.open("clock-drop:mhz=990"));
    assertThat(copySlow).isEqualTo(copyFull);
  }

  private static long copyTime(SimDevice d) {
    List<TraceRecord> rs = Fixtures.trace(d);
    var h = d.allocHost(1 << 24, HostMemoryKind.PINNED);
    var m = d.malloc(1 << 24);
    d.copyAsync(m, 0, h, 0, 1 << 24, d.defaultStream());
    d.synchronize();
    d.tracer().flush();
    return only(rs, CopyRecord.class).getLast().durationNs();
  }

  @Test
  void aPartialLastWaveCostsFarMoreThanItsShareOfTheWork() {
    int slots = 132 * 8; // 256-thread blocks: 8 resident per multiprocessor
    double perBlock = 1e7;
    long oneWave = run(Fixtures.open(""), "fma_loop", new LaunchConfig(Dim3.of(slots), Dim3.of(256), 0),
        perBlock * slots);
    long onePlusOneBlock = run(Fixtures.open(""), "fma_loop", new LaunchConfig(Dim3.of(slots + 1), Dim3.of(256), 0),
        perBlock * (slots + 1));
    // 0.1% more work, a second wave of one block at low occupancy: about 25% more time
    assertThat((double) onePlusOneBlock / oneWave).isGreaterThan(1.2);
  }

  @Test
  void fewBlocksCannotReachTheDeviceBandwidth() {
    long wide = run(Fixtures.open(""), "stream_copy", BIG, 1L << 28);
    long narrow = run(Fixtures.open(""), "stream_copy", new LaunchConfig(Dim3.of(4), Dim3.of(256), 0), 1L << 28);
    assertThat(narrow).isGreaterThan(10 * wide);
  }

  @Test
  void occupancyFollowsTheResidentBlockLimits() {
    SimDevice d = Fixtures.open("");
    Kernel k = d.load(Fixtures.MODULE).kernel("fma_loop");
    assertThat(d.maxActiveBlocksPerMultiprocessor(k, 256, 0)).isEqualTo(8);
    assertThat(d.maxActiveBlocksPerMultiprocessor(k, 1024, 0)).isEqualTo(2);
    assertThat(d.maxActiveBlocksPerMultiprocessor(k, 64, 0)).isEqualTo(32);
    assertThat(d.maxActiveBlocksPerMultiprocessor(k, 256, 100 * 1024)).isEqualTo(2);
    assertThat(d.suggestedBlockSize(k, 0)).isEqualTo(1024);
  }
}
