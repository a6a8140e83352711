package io.gitm.nvidia.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.gitm.device.DeviceProvider;
import io.gitm.device.DiagnosticCheck;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CudaProviderTest {
  @Test
  void serviceLoaderFindsTheNvidiaBackend() {
    assertThat(DeviceProvider.all()).anySatisfy(p -> assertThat(p.kind()).isEqualTo("nvidia"));
  }

  @Test
  void probeNeverThrows() {
    assertThatCode(() -> new CudaProvider().probe()).doesNotThrowAnyException();
  }

  @Test
  void withoutADriverProbeSaysWhyAndHowToFix() {
    DeviceProvider.Probe p = new CudaProvider().probe();
    assumeFalse(p.usable(), "a CUDA device is usable here");
    assertThat(p.reason()).isNotBlank();
    assertThat(p.fix()).contains("driver");
    assertThat(p.deviceCount()).isZero();
  }

  @Test
  void doctorListsEveryLibraryAndNcuAndTheProfilingHookWithoutThrowing() {
    List<DiagnosticCheck> checks = new CudaProvider().diagnostics();
    assertThat(checks).extracting(DiagnosticCheck::name)
        .contains("libcuda", "libnvidia-ml", "libcublas", "libnvrtc", "libcupti", "NVML", "CUDA driver API", "ncu",
            "profiling permission");
    assertThat(checks).allSatisfy(c -> assertThat(c.detail()).isNotBlank());
  }

  @Test
  void whichFindsExecutablesOnThePathOnly(@TempDir Path tmp) throws Exception {
    Path tool = Files.writeString(tmp.resolve("ncu"), "#!/bin/sh\n");
    assertThat(CudaProvider.which("ncu", tmp.toString())).isEmpty();
    tool.toFile().setExecutable(true);
    assertThat(CudaProvider.which("ncu", "/nonexistent:" + tmp)).contains(tool);
    assertThat(CudaProvider.which("ncu", null)).isEmpty();
  }
}
