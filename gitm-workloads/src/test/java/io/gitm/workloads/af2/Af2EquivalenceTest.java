package io.gitm.workloads.af2;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.device.Device;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.SchedulingMode;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.ExecutionConfig.Allocation;
import io.gitm.workload.IterationResult;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * On the simulated device (every kernel and GEMM emulated), the workload's output matches the plain-Java reference
 * within {@link #REFERENCE_TOLERANCE} under every honoured knob, and every class-A knob leaves it bit-identical.
 */
class Af2EquivalenceTest {
  /**
   * Largest relative difference (against max(1, |value|)) between the device's output values and the reference's:
   * float32 with the kernels' summation orders against double sums, through two blocks.
   */
  static final double REFERENCE_TOLERANCE = 2e-4;

  /** Small and uneven: tiles and chunks end part-way, heads of 8 and 4, two blocks. */
  static final Af2Workload.Params SMALL = new Af2Workload.Params(13, 7, 16, 8, 2, 2, 2, 4, 8, 2, 12, 3, 11L, 5L, null,
      null);

  @TempDir
  static Path data;

  static Fixture fixture;

  /** The small generated alignment pinned in {@code data}, and the reference's output on it. */
  record Fixture(Path data, Af2Reference.Output output, OutputDigest reference) {
    static Fixture in(Path data) {
      Msa msa = Af2Dataset.load(data, SMALL.inputName(), () -> new MsaGenerator(SMALL.seed(), SMALL.nRes(),
          SMALL.nSeq()).generate());
      Features f = msa.features(SMALL.nSeq());
      Af2Reference.Output out = Af2Reference.run(Weights.seeded(SMALL.dims(), SMALL.weightSeed()), f);
      return new Fixture(data, out, Af2Output.digest(out.single(), out.pair(), f.nRes(), SMALL.pairChannels()));
    }

    /** The output after {@code steps} steps of a session on {@code device}. */
    OutputDigest run(Device device, ExecutionConfig config, int steps) {
      try (Workload.Session s = new Af2Workload(SMALL).open(device, config, data)) {
        for (int i = 0; i < steps; i++) {
          IterationResult r = s.step();
          assertThat(r.units()).isEqualTo(SMALL.nRes());
        }
        return s.output();
      }
    }
  }

  @BeforeAll
  static void referenceOutput() {
    fixture = Fixture.in(data);
  }

  static Device simulated() {
    return DeviceProvider.all().stream().filter(p -> p.kind().equals("sim")).findFirst()
        .orElseThrow(() -> new AssertionError("the sim backend (gitm-sim) is not on the test class path"))
        .open(new DeviceRequest(0, SchedulingMode.AUTO, Map.of("preset", "h200")));
  }

  static Stream<Arguments> configs() {
    ExecutionConfig s = ExecutionConfig.shipped();
    ExecutionConfig pinnedAsync = s.withHostMemory(HostMemoryKind.PINNED).withStreams(1, true, false);
    ExecutionConfig graph = pinnedAsync.withAllocation(Allocation.PREALLOCATED, 0).withGraphCapture(true);
    Map<String, String> chunked = Map.of(Af2Workload.ATTENTION_FAMILY, "chunked");
    return Stream.of(
        Arguments.of("shipped", s),
        Arguments.of("pinned", s.withHostMemory(HostMemoryKind.PINNED)),
        Arguments.of("async copies", s.withStreams(1, true, false)),
        Arguments.of("pool", s.withAllocation(Allocation.POOL, 1L << 30)),
        Arguments.of("preallocated", s.withAllocation(Allocation.PREALLOCATED, 0)),
        Arguments.of("2 streams", s.withStreams(2, false, false)),
        Arguments.of("3 streams, pool, async", pinnedAsync.withStreams(3, true, false).withAllocation(Allocation.POOL,
            0)),
        Arguments.of("chunked attention", s.withKernelVariants(chunked)),
        Arguments.of("graph", graph),
        Arguments.of("graph, chunked, warmup", graph.withKernelVariants(chunked).withWarmup(true)),
        Arguments.of("graph, pageable synchronous copies", s.withAllocation(Allocation.PREALLOCATED, 0)
            .withGraphCapture(true)),
        Arguments.of("graph, pageable queued copies", s.withStreams(1, true, false)
            .withAllocation(Allocation.PREALLOCATED, 0).withGraphCapture(true)),
        Arguments.of("warmup", s.withWarmup(true)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configs")
  void outputOnTheSimulatedDeviceMatchesTheReferenceAndIsBitIdenticalUnderEveryClassAKnob(String name,
      ExecutionConfig config) {
    OutputDigest shipped;
    OutputDigest out;
    try (Device sim = simulated()) {
      shipped = fixture.run(sim, ExecutionConfig.shipped(), 1);
      out = fixture.run(sim, config, 2);
    }
    assertThat(out.maxRelativeDifference(fixture.reference())).as("against the reference")
        .isLessThanOrEqualTo(REFERENCE_TOLERANCE);
    assertThat(out.sha256()).as("bit-identical to the shipped configuration").isEqualTo(shipped.sha256());
  }

  @Test
  void referenceOutputIsOfOrderOneAndNotConstant() {
    float[] pair = fixture.output().pair();
    double max = 0;
    double min = Double.POSITIVE_INFINITY;
    for (float v : pair) {
      max = Math.max(max, Math.abs(v));
      min = Math.min(min, Math.abs(v));
    }
    assertThat(max).isBetween(0.1, 100.0);
    assertThat(max - min).isGreaterThan(0.1);
  }
}
