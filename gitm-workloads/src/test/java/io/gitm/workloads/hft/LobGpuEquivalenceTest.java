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

  /** A few configurations the user's-file test runs: the shipped one, the warp book, a graph on two streams. */
  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> inputConfigs() {
    return LobEquivalenceTest.configs().filter(a -> java.util.Set.of("shipped", "warp book", "graph on 2 streams")
        .contains((String) a.get()[0]));
  }

  /**
   * A user's file (Python's struct and gzip, with an order of reference 0, a side 322 levels deep and a book of 1,780
   * live orders), streamed from disk, gives on the GPU the reference's books and features.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("inputConfigs")
  void aUsersGzippedFileStreamedOnTheGpuGivesTheReferenceOutput(String name, ExecutionConfig config)
      throws Exception {
    Assumptions.assumeTrue(gpu != null, () -> why);
    Path f = data.resolve("user-" + name.replace(' ', '-') + ".itch.gz");
    ItchInputTest.python(f, "--gzip", "--pick", "AAPL,MSFT");
    ItchInput in = ItchInput.scan(f, java.util.Set.of("AAPL", "MSFT"), 0);
    HftInput spec = HftInput.of(new io.gitm.workload.WorkloadInput(f, java.util.Map.of()));
    HftLobWorkload.Params sized = spec.sized(HftLobWorkload.Params.defaults().withBatchMessages(700), in);
    ItchFile whole = ItchInputTest.whole(in);
    LobDigest d = new LobDigest(whole.instruments());
    LobReference.run(whole, sized.batchMessages(), sized.weightSeed()).forEach(d::add);
    try (var s = new LobSession(gpu, config, sized, in)) {
      while (s.hasNext()) {
        s.step();
      }
      assertThat(s.output().sha256()).as("books and features").isEqualTo(d.digest().sha256());
      assertThat(s.output().maxRelativeDifference(d.digest())).as("signals")
          .isLessThanOrEqualTo(HftLobWorkload.SIGNAL_TOLERANCE);
    }
  }
}
