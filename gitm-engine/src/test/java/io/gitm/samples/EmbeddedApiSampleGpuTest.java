package io.gitm.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.Gitm;
import io.gitm.api.Budget;
import io.gitm.device.DeviceProvider;
import io.gitm.report.Report;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded API's sample on a real GPU: {@link ScaleEngine} optimized by {@link Gitm#optimize} on the NVIDIA
 * backend (found on the class path, as it is in the GPU suite), its kernel compiled from source at run time.
 */
@Tag("gpu")
class EmbeddedApiSampleGpuTest {
  @TempDir
  Path store;

  @Test
  void aUsersOwnEngineIsOptimizedOnTheGpuAndTheReportNamesTheRealDevice() throws Exception {
    Optional<DeviceProvider> nvidia = DeviceProvider.all().stream().filter(p -> p.kind().equals("nvidia")).findFirst();
    Assumptions.assumeTrue(nvidia.isPresent(), "no GPU usable: the nvidia backend is not on the class path");
    DeviceProvider.Probe probe = nvidia.get().probe();
    Assumptions.assumeTrue(probe.usable(), () -> "no GPU usable: " + probe.reason());

    Gitm.Optimization o = Gitm.optimize(new ScaleEngine(), Budget.parse("45s"), 0.15,
        Gitm.Options.defaults().withDevice("nvidia", Map.of()).withStore(store));

    assertThat(o.status()).isIn(Report.Status.TARGET_REACHED, Report.Status.TARGET_MISSED,
        Report.Status.TARGET_NOT_REACHABLE);
    String report = Files.readString(o.report());
    assertThat(report).contains("scale-sample").contains("NVIDIA").doesNotContain("SIMULATED device");
    // written the straightforward way (pageable buffers, an allocation per batch): something passes a gate
    assertThat(o.keptLevers()).isNotEmpty();
    assertThat(o.gain()).isGreaterThan(1.0);
    Path copy = System.getenv("GITM_FIXTURE_OUT") == null ? null : Path.of(System.getenv("GITM_FIXTURE_OUT"));
    if (copy != null && Files.isDirectory(copy)) {
      Files.copy(o.report(), copy.resolve("embedded-api-sample-report.md"),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
