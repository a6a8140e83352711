package io.gitm.sim;

import static io.gitm.sim.Fixtures.BIG;
import static io.gitm.sim.Fixtures.only;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.gitm.device.DeviceMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.KernelDef;
import io.gitm.device.KernelModule;
import io.gitm.device.LaunchConfig;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.Precision;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.Work;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The latency law: a kernel takes at least its longest dependent-access chain. */
class DependentChainLawsTest {
  private static final SimSpec H200 = SimSpec.preset("h200");
  private static final LaunchConfig ONE_BLOCK = new LaunchConfig(Dim3.ONE, Dim3.of(128), 0);

  private static long time(Work w, LaunchConfig c, double clockMHz) {
    return KernelTiming.time(H200, H200.hardware().flopsFor(w.precision()), w, c, 132, clockMHz, 1.0, -1)
        .durationNs();
  }

  private static Work chain(long offChip, long onChip) {
    return new Work(1000, Precision.INT32, 4096, 4096, offChip, onChip);
  }

  @Test
  void aChainTwiceAsLongTakesAboutTwiceAsLongWhenItDominates() {
    long t1 = time(chain(5_000, 0), ONE_BLOCK, 1980);
    long t2 = time(chain(10_000, 0), ONE_BLOCK, 1980);
    assertThat((double) t2 / t1).isCloseTo(2.0, within(0.01));
    long o1 = time(chain(0, 5_000), ONE_BLOCK, 1980);
    long o2 = time(chain(0, 10_000), ONE_BLOCK, 1980);
    assertThat((double) o2 / o1).isCloseTo(2.0, within(0.01));
  }

  @Test
  void aDominantChainTakesItsStepsAtThePresetsLatencies() {
    long t = time(chain(4_000, 10_000), ONE_BLOCK, 1980);
    double expected = 4_000 * H200.dependentAccessNs() + 10_000 * H200.onChipAccessNs() + H200.kernelOverheadNs();
    assertThat((double) t).isCloseTo(expected, within(1.0));
  }

  @Test
  void aBandwidthBoundKernelIsUnaffectedByAShortChain() {
    Work stream = new Work(0, Precision.FP32, 1L << 30, 1L << 30);
    long plain = time(stream, BIG, 1980);
    long chained = time(stream.withChain(20, 100), BIG, 1980);
    assertThat(chained).isEqualTo(plain);
  }

  @Test
  void onChipStepsSlowWithTheClockAndOffChipStepsDoNot() {
    long onFull = time(chain(0, 10_000), ONE_BLOCK, 1980);
    long onHalf = time(chain(0, 10_000), ONE_BLOCK, 990);
    assertThat((double) (onHalf - H200.kernelOverheadNs()) / (onFull - H200.kernelOverheadNs()))
        .isCloseTo(2.0, within(0.01));
    assertThat(time(chain(10_000, 0), ONE_BLOCK, 990)).isEqualTo(time(chain(10_000, 0), ONE_BLOCK, 1980));
  }

  @Test
  void aNegativeChainIsRejectedWithItsValue() {
    assertThatThrownBy(() -> new Work(0, Precision.FP32, 0, 0, -1, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1 off-chip");
  }

  @Test
  void theOldFourPartWorkHasNoChain() {
    Work w = new Work(1, Precision.FP32, 2, 3);
    assertThat(w.hasChain()).isFalse();
    assertThat(w.withChain(4, 5).withPrecision(Precision.TF32).withBytes(6, 7))
        .isEqualTo(new Work(1, Precision.TF32, 6, 7, 4, 5));
  }

  /** A kernel whose chain is the int its first argument holds, as a data-dependent work model reads it. */
  private static final KernelDef CHASE = new KernelDef("chase",
      (c, a) -> new Work(0, Precision.INT32, 0, 0,
          ((DeviceMemory) a[0]).hostView().map(b -> (long) b.getInt(0)).orElse(0L), 0),
      (c, a) -> {
      });
  private static final KernelDef SET = new KernelDef("set", (c, a) -> Work.NONE,
      (c, a) -> a.memory(0).putInt(0, a.i32(1)));
  private static final KernelModule CHASE_MODULE = new KernelModule("chase", "/kernels/chase.cu", List.of(CHASE, SET));

  @Test
  void aWorkModelSeesWhatEarlierWorkWroteThroughTheHostView() {
    SimDevice d = Fixtures.open("");
    List<TraceRecord> rs = Fixtures.trace(d);
    var module = d.load(CHASE_MODULE);
    DeviceMemory m = d.malloc(4);
    try (var h = d.allocHost(4, HostMemoryKind.PINNED)) {
      h.buffer().order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(0, 1000);
      d.copyAsync(m, 0, h, 0, 4, d.defaultStream());
    }
    d.launch(module.kernel("chase"), ONE_BLOCK, d.defaultStream(), m);
    d.launch(module.kernel("set"), ONE_BLOCK, d.defaultStream(), m, 2000);
    d.launch(module.kernel("chase"), ONE_BLOCK, d.defaultStream(), m);
    d.synchronize();
    d.tracer().flush();
    List<KernelRecord> ks = only(rs, KernelRecord.class).stream().filter(k -> k.name().equals("chase")).toList();
    double step = H200.dependentAccessNs();
    assertThat((double) ks.get(0).durationNs()).isCloseTo(1000 * step + H200.kernelOverheadNs(), within(1.0));
    assertThat((double) ks.get(1).durationNs()).isCloseTo(2000 * step + H200.kernelOverheadNs(), within(1.0));
    ByteBuffer view = m.hostView().orElseThrow();
    assertThat(view.isReadOnly()).isTrue();
    assertThat(view.getInt(0)).isEqualTo(2000);
  }

  @Test
  void aCapturedKernelTakesItsDataDependentChainAtEachReplay() {
    SimDevice d = Fixtures.open("");
    var module = d.load(CHASE_MODULE);
    DeviceMemory m = d.malloc(4);
    var s = d.createStream(0);
    d.beginCapture(s);
    d.launch(module.kernel("chase"), ONE_BLOCK, s, m);
    var graph = d.endCapture(s);
    List<TraceRecord> rs = Fixtures.trace(d);
    d.launch(module.kernel("set"), ONE_BLOCK, s, m, 500);
    d.launchGraph(graph, s);
    d.launch(module.kernel("set"), ONE_BLOCK, s, m, 1500);
    d.launchGraph(graph, s);
    d.synchronize();
    d.tracer().flush();
    List<KernelRecord> ks = only(rs, KernelRecord.class).stream().filter(k -> k.name().equals("chase")).toList();
    assertThat(ks).hasSize(2);
    assertThat((double) ks.get(1).durationNs() - H200.kernelOverheadNs())
        .isCloseTo(3.0 * (ks.get(0).durationNs() - H200.kernelOverheadNs()), within(2.0));
  }
}
