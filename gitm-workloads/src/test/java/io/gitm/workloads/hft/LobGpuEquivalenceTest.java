package io.gitm.workloads.hft;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.device.Device;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.OutputDigest;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** On a real GPU the CUDA kernels give the reference's output, under every honoured knob. */
@Tag("gpu")
class LobGpuEquivalenceTest {
  @TempDir
  static Path data;

  static Device gpu;
  static String why;
  static LobEquivalenceTest.Fixture fixture;

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
    fixture = LobEquivalenceTest.Fixture.in(data);
  }

  @AfterAll
  static void closeGpu() {
    if (gpu != null) {
      gpu.close();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.gitm.workloads.hft.LobEquivalenceTest#configs")
  void outputOnTheGpuEqualsReferenceUnderEveryHonouredKnob(String name, ExecutionConfig config) {
    Assumptions.assumeTrue(gpu != null, () -> why);
    OutputDigest out = fixture.run(gpu, config);
    assertThat(out.sha256()).as("books and features").isEqualTo(fixture.reference().sha256());
    assertThat(out.maxRelativeDifference(fixture.reference())).as("signals")
        .isLessThanOrEqualTo(HftLobWorkload.SIGNAL_TOLERANCE);
  }
}
