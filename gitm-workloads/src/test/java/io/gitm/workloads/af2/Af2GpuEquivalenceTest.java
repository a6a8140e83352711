package io.gitm.workloads.af2;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.device.Device;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.MathMode;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * On a real GPU the CUDA kernels and cuBLAS give the reference's output within {@link
 * Af2EquivalenceTest#REFERENCE_TOLERANCE} under every honoured knob, and in the default math mode the same bits run
 * after run (two steps of a session, and two sessions).
 */
@Tag("gpu")
class Af2GpuEquivalenceTest {
  @TempDir
  static Path data;

  static Device gpu;
  static String why;
  static Af2EquivalenceTest.Fixture fixture;

  @BeforeAll
  static void openGpu() {
    Optional<DeviceProvider> nvidia = DeviceProvider.all().stream().filter(p -> p.kind().equals("nvidia")).findFirst();
    if (nvidia.isEmpty()) {
      why = "no GPU usable: the nvidia backend is not on the class path";
      return;
    }
    DeviceProvider.Probe probe = nvidia.get().probe();
    if (!probe.usable()) {
      why = "no GPU usable: " + probe.reason();
      return;
    }
    gpu = nvidia.get().open(DeviceRequest.first());
    fixture = Af2EquivalenceTest.Fixture.in(data);
  }

  @AfterAll
  static void closeGpu() {
    if (gpu != null) {
      gpu.close();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.gitm.workloads.af2.Af2EquivalenceTest#configs")
  void outputOnTheGpuMatchesTheReferenceUnderEveryHonouredKnob(String name, ExecutionConfig config) {
    Assumptions.assumeTrue(gpu != null, () -> why);
    OutputDigest out = fixture.run(gpu, config, 2);
    assertThat(out.maxRelativeDifference(fixture.reference()))
        .isLessThanOrEqualTo(Af2EquivalenceTest.REFERENCE_TOLERANCE);
  }

  @Test
  void defaultMathGivesTheSameBitsRunAfterRun() {
    Assumptions.assumeTrue(gpu != null, () -> why);
    String first;
    try (Workload.Session s = new Af2Workload(Af2EquivalenceTest.SMALL).open(gpu, ExecutionConfig.shipped(), data)) {
      s.step();
      first = s.output().sha256();
      s.step();
      assertThat(s.output().sha256()).as("second step of the session").isEqualTo(first);
    }
    assertThat(fixture.run(gpu, ExecutionConfig.shipped(), 1).sha256()).as("another session")
        .isEqualTo(first);
  }

  @Test
  void tensorCoreMathStaysWithinTheDeclaredTolerance() {
    Assumptions.assumeTrue(gpu != null, () -> why);
    OutputDigest fp32 = fixture.run(gpu, ExecutionConfig.shipped(), 1);
    for (MathMode m : new MathMode[] {MathMode.TF32, MathMode.BF16}) {
      OutputDigest reduced = fixture.run(gpu, ExecutionConfig.shipped().withMathMode(m), 1);
      assertThat(reduced.maxRelativeDifference(fp32)).as(m.name())
          .isLessThanOrEqualTo(Af2Workload.OUTPUT_TOLERANCE);
    }
  }
}
