package io.gitm.workloads.kitti;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.device.Device;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.SchedulingMode;
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

/**
 * On the simulated device (every kernel and GEMM emulated) the detector's pillars equal the plain-Java reference's
 * exactly, NMS keeps the same anchors, and the kept boxes are within {@link #BOX_TOLERANCE}; every honoured knob
 * leaves the output bit-identical.
 */
class KittiEquivalenceTest {
  /**
   * Largest difference of a box value from the reference's, relative to max(1, |value|): the backbone's float GEMMs
   * against the reference's double sums, through four convolutions and the head.
   */
  static final double BOX_TOLERANCE = 1e-4;

  /** Small: 16 beams × 256 steps (about 3.5k points a frame), 0.64 m pillars, C 8, two frames. */
  static final KittiWorkload.Params SMALL = new KittiWorkload.Params(5L, 9L, 2, 16, 256, 0.64f, 12000, 32, 8, 512, 50,
      0.2f, 0.5f);

  @TempDir
  static Path data;

  static List<Scan> scans;

  @BeforeAll
  static void dataset() {
    scans = KittiDataset.load(data, SMALL.generator(), SMALL.frames());
  }

  static Device simulated() {
    return DeviceProvider.all().stream().filter(p -> p.kind().equals("sim")).findFirst()
        .orElseThrow(() -> new AssertionError("the sim backend (gitm-sim) is not on the test class path"))
        .open(new DeviceRequest(0, SchedulingMode.AUTO, Map.of("preset", "h200")));
  }

  static final ExecutionConfig PRE = ExecutionConfig.shipped().withAllocation(Allocation.PREALLOCATED, 0);

  /**
   * Runs every frame of {@code p} on {@code device} under {@code config} and checks each against the reference: the
   * pillars exactly (PREALLOCATED configurations, whose buffers outlive the step), the kept anchors exactly, the boxes
   * within {@link #BOX_TOLERANCE}.
   */
  static void matchesTheReference(Device device, Path data, KittiWorkload.Params p, ExecutionConfig config) {
    List<Scan> s = KittiDataset.load(data, p.generator(), p.frames());
    KittiWeights w = KittiWeights.seeded(p.channels(), p.weightSeed());
    try (KittiSession session = (KittiSession) new KittiWorkload(p).open(device, config, data)) {
      for (int f = 0; f < p.frames(); f++) {
        session.step();
        KittiReference.Output ref = KittiReference.run(p, w, s.get(f));
        if (config.allocation() == Allocation.PREALLOCATED && config.streams() == 1) {
          Pillars got = session.pillars();
          assertThat(got.cells()).as("pillar cells, frame %d", f).containsExactly(ref.pillars().cells());
          assertThat(got.points()).as("pillar points, frame %d", f).isDeepEqualTo(ref.pillars().points());
        }
        Detections d = session.detections(f);
        assertThat(d.anchors()).as("kept anchors, frame %d", f).isNotEmpty()
            .containsExactly(ref.detections().anchors());
        float[] a = d.boxes();
        float[] b = ref.detections().boxes();
        for (int i = 0; i < a.length; i++) {
          assertThat((double) Math.abs(a[i] - b[i]) / Math.max(1, Math.max(Math.abs(a[i]), Math.abs(b[i]))))
              .as("box value %d, frame %d", i, f).isLessThanOrEqualTo(BOX_TOLERANCE);
        }
      }
    }
  }

  void matchesTheReference(KittiWorkload.Params p) {
    try (Device sim = simulated()) {
      matchesTheReference(sim, data, p, PRE);
    }
  }

  @Test
  void pillarsEqualTheReferenceAndNmsKeepsTheSameBoxes() {
    matchesTheReference(SMALL);
  }

  @Test
  void detectionsAreWrittenAsAKittiResultFileWithScores(@TempDir Path out) {
    try (Device sim = simulated(); KittiSession s = (KittiSession) new KittiWorkload(SMALL).open(sim, PRE, data)) {
      s.step();
      Detections d = s.detections(0);
      Path f = out.resolve("000000.txt");
      Label.write(f, d.labels(Calibration.typical()));
      List<Label> back = Label.read(f);
      assertThat(back).hasSize(d.anchors().length);
      for (int k = 0; k < back.size(); k++) {
        assertThat(back.get(k).score()).isCloseTo(d.box(k).score(), org.assertj.core.data.Offset.offset(1e-4));
        assertThat(back.get(k).type()).isEqualTo(Box.CLASSES[d.box(k).cls()]);
        assertThat(back.get(k).z()).isCloseTo(d.box(k).x() - 0.27, org.assertj.core.data.Offset.offset(0.011));
      }
    }
  }

  @Test
  void cappedPillarsAndOverfullPillarsStillMatch() {
    // few pillars kept (the cap cuts the list) and 4 points a pillar (most near pillars overflow)
    matchesTheReference(SMALL.parse("maxPillars=300,maxPoints=4"));
  }

  static Stream<Arguments> configs() {
    ExecutionConfig s = ExecutionConfig.shipped();
    ExecutionConfig pinnedAsync = s.withHostMemory(HostMemoryKind.PINNED).withStreams(1, true, false);
    return Stream.of(
        Arguments.of("pinned", s.withHostMemory(HostMemoryKind.PINNED)),
        Arguments.of("pinned async", pinnedAsync),
        Arguments.of("pool", s.withAllocation(Allocation.POOL, 1L << 30)),
        Arguments.of("preallocated", PRE),
        Arguments.of("prefetch", pinnedAsync.withStreams(2, true, false)),
        Arguments.of("prefetch pageable pool", s.withStreams(2, true, false).withAllocation(Allocation.POOL, 0)),
        Arguments.of("scatter block 64", s.withBlockSize(64)),
        Arguments.of("occupancy block", s.withBlockSize(ExecutionConfig.OCCUPANCY_BLOCK_SIZE)),
        Arguments.of("graph", PRE.withGraphCapture(true)),
        Arguments.of("graph with copy", pinnedAsync.withAllocation(Allocation.PREALLOCATED, 0).withGraphCapture(true)),
        Arguments.of("graph with prefetch", pinnedAsync.withAllocation(Allocation.PREALLOCATED, 0)
            .withGraphCapture(true).withStreams(2, true, false)),
        Arguments.of("warmup", s.withWarmup(true)));
  }

  static OutputDigest run(ExecutionConfig c, int steps) {
    try (Device sim = simulated(); Workload.Session s = new KittiWorkload(SMALL).open(sim, c, data)) {
      for (int i = 0; i < steps; i++) {
        assertThat(s.step().units()).isEqualTo(1);
      }
      return s.output();
    }
  }

  static OutputDigest shipped;

  @ParameterizedTest(name = "{0}")
  @MethodSource("configs")
  void everyHonouredKnobLeavesTheOutputBitIdentical(String name, ExecutionConfig c) {
    if (shipped == null) {
      shipped = run(ExecutionConfig.shipped(), 3);
    }
    assertThat(run(c, 3)).isEqualTo(shipped);
  }
}
