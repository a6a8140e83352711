package io.gitm.workloads.hft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.device.Device;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.SchedulingMode;
import io.gitm.device.HostMemoryKind;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.ExecutionConfig.Allocation;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The workload's output through the kernels' emulations equals the plain-Java reference under every honoured knob. */
class LobEquivalenceTest {
  static final HftLobWorkload.Params SMALL = new HftLobWorkload.Params(11, 40, 6000, 700, 10, 128, 7, null);

  @TempDir
  static Path data;

  static OutputDigest reference;
  static ItchFile file;

  /** The small dataset pinned in {@code dir}, and the reference's output on it. */
  record Fixture(Path dir, ItchFile file, OutputDigest reference) {
    static Fixture in(Path dir) {
      ItchFile f = HftDataset.load(dir, SMALL.datasetName(),
          () -> ItchGenerator.of(SMALL.seed(), SMALL.instruments(), SMALL.bookMessages()).generate()).itch();
      LobDigest d = new LobDigest(f.instruments());
      LobReference.run(f, SMALL.batchMessages(), SMALL.weightSeed()).forEach(d::add);
      return new Fixture(dir, f, d.digest());
    }

    OutputDigest run(Device device, ExecutionConfig config) {
      try (Workload.Session s = new HftLobWorkload(SMALL).open(device, config, dir)) {
        long messages = 0;
        while (s.hasNext()) {
          messages += s.step().units();
        }
        assertThat(messages).isEqualTo(file.count());
        return s.output();
      }
    }
  }

  static Fixture fixture;

  @BeforeAll
  static void referenceOutput() {
    fixture = Fixture.in(data);
    file = fixture.file();
    reference = fixture.reference();
  }

  static Stream<Arguments> configs() {
    ExecutionConfig s = ExecutionConfig.shipped();
    ExecutionConfig pinnedAsync = s.withHostMemory(HostMemoryKind.PINNED).withStreams(1, true, false);
    return Stream.of(
        Arguments.of("shipped", s),
        Arguments.of("pinned", s.withHostMemory(HostMemoryKind.PINNED)),
        Arguments.of("pool", s.withAllocation(Allocation.POOL, 1L << 30)),
        Arguments.of("preallocated", s.withAllocation(Allocation.PREALLOCATED, 0)),
        Arguments.of("async copies", s.withStreams(1, true, false)),
        Arguments.of("copy/compute overlap", pinnedAsync.withStreams(1, true, true)),
        Arguments.of("3 streams, sync copies", s.withStreams(3, false, false)),
        Arguments.of("4 streams, async, overlap, pool", pinnedAsync.withStreams(4, true, true)
            .withAllocation(Allocation.POOL, 0)),
        Arguments.of("2 streams, stream priority", s.withStreams(2, false, false).withLatencyStreamPriority(-2)),
        Arguments.of("4 streams, async, overlap, priority", pinnedAsync.withStreams(4, true, true)
            .withLatencyStreamPriority(-3)),
        Arguments.of("graph", pinnedAsync.withAllocation(Allocation.PREALLOCATED, 0).withGraphCapture(true)),
        Arguments.of("graph on 2 streams", pinnedAsync.withStreams(2, true, false)
            .withAllocation(Allocation.PREALLOCATED, 0).withGraphCapture(true)),
        Arguments.of("block 32", s.withBlockSize(32)),
        Arguments.of("block 1024", s.withBlockSize(1024)),
        Arguments.of("carve-out", s.withSharedCarveout(100)),
        Arguments.of("L2 window on 2 streams", s.withStreams(2, false, false).withL2PersistBytes(1 << 20)),
        Arguments.of("L2 window with overlap", pinnedAsync.withStreams(1, true, true).withL2PersistBytes(1 << 20)),
        Arguments.of("coalesce 3", s.withBatchCoalesce(3)),
        Arguments.of("warp book", s.withKernelVariants(Map.of("lob_book", "warp"))),
        Arguments.of("warp book, block 32, graph, coalesce 2", pinnedAsync.withAllocation(Allocation.PREALLOCATED, 0)
            .withGraphCapture(true).withBlockSize(32).withBatchCoalesce(2)
            .withKernelVariants(Map.of("lob_book", "warp"))),
        Arguments.of("coalesce 4, graph, 2 streams", pinnedAsync.withStreams(2, true, false)
            .withAllocation(Allocation.PREALLOCATED, 0).withGraphCapture(true).withBatchCoalesce(4)));
  }

  static OutputDigest runAll(Device device, ExecutionConfig config) {
    return fixture.run(device, config);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configs")
  void outputEqualsReferenceUnderEveryHonouredKnob(String name, ExecutionConfig config) {
    OutputDigest out = runAll(new EmulatedDevice(), config);
    assertThat(out.sha256()).as("books and features").isEqualTo(reference.sha256());
    assertThat(out.maxRelativeDifference(reference)).as("signals").isLessThanOrEqualTo(HftLobWorkload.SIGNAL_TOLERANCE);
  }

  static Device simulated() {
    return DeviceProvider.all().stream().filter(p -> p.kind().equals("sim")).findFirst()
        .orElseThrow(() -> new AssertionError("the sim backend (gitm-sim) is not on the test class path"))
        .open(new DeviceRequest(0, SchedulingMode.AUTO, Map.of("preset", "h200")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configs")
  void outputOnTheSimulatedDeviceEqualsReferenceUnderEveryHonouredKnob(String name, ExecutionConfig config) {
    try (Device sim = simulated()) {
      OutputDigest out = runAll(sim, config);
      assertThat(out.sha256()).as("books and features").isEqualTo(reference.sha256());
      assertThat(out.maxRelativeDifference(reference)).as("signals")
          .isLessThanOrEqualTo(HftLobWorkload.SIGNAL_TOLERANCE);
    }
  }

  @Test
  void referenceOutputIsNotTrivial() {
    List<BatchOutput> out = LobReference.run(file, SMALL.batchMessages(), SMALL.weightSeed());
    BatchOutput last = out.getLast();
    long twoSided = 0;
    long volume = 0;
    for (int i = 0; i < file.instruments(); i++) {
      twoSided += last.features()[i * LobLayout.FEAT + LobLayout.SPREAD] > 0 ? 1 : 0;
      for (BatchOutput b : out) {
        volume += b.features()[i * LobLayout.FEAT + LobLayout.TRADE_VOLUME];
      }
    }
    assertThat(twoSided).isGreaterThan(file.instruments() / 2);
    assertThat(volume).isPositive();
    assertThat(java.util.Arrays.stream(reference.values()).anyMatch(v -> Math.abs(v) > 1e-3)).isTrue();
  }

  @Test
  void preallocatedAllocatesNothingPerBatch() {
    EmulatedDevice a = new EmulatedDevice();
    runAll(a, ExecutionConfig.shipped().withAllocation(Allocation.PREALLOCATED, 0));
    EmulatedDevice b = new EmulatedDevice();
    runAll(b, ExecutionConfig.shipped());
    int batches = (file.count() + SMALL.batchMessages() - 1) / SMALL.batchMessages();
    assertThat(b.count("malloc", 0) - a.count("malloc", 0)).isEqualTo(9 * batches - 9);
    assertThat(a.liveBytes()).isZero();
    assertThat(b.liveBytes()).isZero();
  }

  @Test
  void poolAllocatesStreamOrdered() {
    EmulatedDevice d = new EmulatedDevice();
    runAll(d, ExecutionConfig.shipped().withAllocation(Allocation.POOL, 0));
    assertThat(d.count("mallocAsync", 0)).isEqualTo(d.count("freeAsync", 0)).isPositive();
  }

  @Test
  void graphReplaysOneLaunchPerBatch() {
    EmulatedDevice d = new EmulatedDevice();
    runAll(d, ExecutionConfig.shipped().withHostMemory(HostMemoryKind.PINNED).withStreams(1, true, false)
        .withAllocation(Allocation.PREALLOCATED, 0).withGraphCapture(true));
    int batches = (file.count() + SMALL.batchMessages() - 1) / SMALL.batchMessages();
    assertThat(d.count("launchGraph", 0)).isEqualTo(batches);
    assertThat(d.count("beginCapture", 0)).isBetween(1, 2); // the last, shorter batch is captured anew
    assertThat(d.count("launch", 0)).isEqualTo(8 * d.count("beginCapture", 0));
  }

  @Test
  void shippedConfigUsesPageableMemorySynchronousCopiesAndTheDefaultStream() {
    EmulatedDevice d = new EmulatedDevice();
    runAll(d, ExecutionConfig.shipped());
    assertThat(d.hostAllocs).doesNotContainKey(HostMemoryKind.PINNED);
    assertThat(d.count("copyAsync", 0)).isZero();
    assertThat(d.count("createStream", 0)).isZero();
    assertThat(d.calls).containsKey("launch:lob_book:block128").doesNotContainKey("launch:lob_book_warp:block128");
  }

  @Test
  void warpVariantLaunchesTheWarpKernelWithAWarpPerInstrument() {
    EmulatedDevice d = new EmulatedDevice();
    runAll(d, ExecutionConfig.shipped().withKernelVariants(Map.of("lob_book", "warp")));
    assertThat(d.calls).containsKey("launch:lob_book_warp:block128").doesNotContainKey("launch:lob_book:block128");
  }

  @Test
  void knobsReachTheDevice() {
    EmulatedDevice d = new EmulatedDevice();
    runAll(d, ExecutionConfig.shipped().withHostMemory(HostMemoryKind.PINNED).withStreams(2, true, true)
        .withLatencyStreamPriority(-3).withSharedCarveout(50).withBlockSize(256).withL2PersistBytes(4096));
    assertThat(d.hostAllocs).containsKey(HostMemoryKind.PINNED);
    assertThat(d.streamPriorities).contains(-3);
    assertThat(d.count("carveout", 0)).isEqualTo(8);
    assertThat(d.count("l2window", 0)).as("on the signal stream, which runs the book").isEqualTo(1);
    assertThat(d.count("waitEvent", 0)).isPositive();
    assertThat(d.calls).containsKey("launch:lob_book:block256");
  }

  @Test
  void theSignalStreamAloneTakesTheLatencyPriorityAndTheBulkStreamsKeepTheDefault() {
    EmulatedDevice d = new EmulatedDevice();
    runAll(d, ExecutionConfig.shipped().withStreams(3, false, false).withLatencyStreamPriority(-2));
    // one signal stream, three bulk streams
    assertThat(d.streamPriorities).containsExactlyInAnyOrder(-2, 0, 0, 0);
    EmulatedDevice one = new EmulatedDevice();
    runAll(one, ExecutionConfig.shipped().withHostMemory(HostMemoryKind.PINNED).withStreams(1, true, true));
    assertThat(one.streamPriorities).containsOnly(0);
  }

  @Test
  void unsupportedConfigurationsAreRefusedWithTheReason() {
    ExecutionConfig s = ExecutionConfig.shipped();
    assertThatThrownBy(() -> LobSession.check(s.withGraphCapture(true)))
        .hasMessageContaining("graphCapture needs PREALLOCATED");
    assertThatThrownBy(() -> LobSession.check(s.withAllocation(Allocation.PREALLOCATED, 0).withGraphCapture(true)))
        .hasMessageContaining("PINNED");
    assertThatThrownBy(() -> LobSession.check(s.withStreams(1, false, true))).hasMessageContaining("asyncCopies");
    assertThatThrownBy(() -> LobSession.check(s.withKernelVariants(Map.of("book", "smem"))))
        .hasMessageContaining("kernel variants for lob_book only");
    assertThatThrownBy(() -> LobSession.check(s.withKernelVariants(Map.of("lob_book", "smem"))))
        .hasMessageContaining("variant 'smem' unknown");
    assertThatThrownBy(() -> LobSession.check(s.withMathMode(io.gitm.device.MathMode.TF32)))
        .hasMessageContaining("math mode");
    assertThatThrownBy(() -> LobSession.check(s.withWarmup(true))).hasMessageContaining("does not offer a warm-up");
    assertThatThrownBy(() -> LobSession.check(s.withLatencyStreamPriority(-1)))
        .hasMessageContaining("needs streams > 1");
    assertThatThrownBy(() -> LobSession.check(s.withL2PersistBytes(1 << 20)))
        .hasMessageContaining("legacy default stream");
  }

  @Test
  void stepPastTheEndIsAnError() {
    try (Workload.Session s = new HftLobWorkload(SMALL).open(new EmulatedDevice(), ExecutionConfig.shipped(), data)) {
      while (s.hasNext()) {
        s.step();
      }
      assertThatThrownBy(s::step).isInstanceOf(IllegalStateException.class).hasMessageContaining("no input left");
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3})
  void bookCapacityOverflowIsAClearError(int streams) {
    HftLobWorkload.Params tight = new HftLobWorkload.Params(11, 40, 6000, 700, 3, 128, 7, null);
    EmulatedDevice device = new EmulatedDevice();
    try (Workload.Session s = new HftLobWorkload(tight).open(device, ExecutionConfig.shipped().withStreams(streams,
        true, false), data)) {
      assertThatThrownBy(() -> {
        while (s.hasNext()) {
          s.step();
        }
      }).isInstanceOf(IllegalStateException.class).hasMessageContaining("order table full")
          .hasMessageContaining("stock locate");
    }
    assertThat(device.liveBytes()).as("everything freed after the failure").isZero();
  }
}
