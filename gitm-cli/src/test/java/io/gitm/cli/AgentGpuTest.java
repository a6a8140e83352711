package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.api.Ticker;
import io.gitm.device.DeviceException;
import io.gitm.nvidia.nvml.NvmlSampler;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@code gitm agent} on a real GPU: every GPU NVML sees, with dcgm-exporter's names and labels, labelled real. */
@Tag("gpu")
class AgentGpuTest {
  @Test
  void servesEveryGpuThatNvmlSeesLabelledReal() throws Exception {
    List<NvmlSampler> gpus;
    try {
      gpus = NvmlSampler.all(Ticker.system());
    } catch (DeviceException | LinkageError e) {
      Assumptions.abort("NVML not usable: " + e.getMessage());
      return;
    }
    Assumptions.assumeFalse(gpus.isEmpty(), "NVML sees no device");
    try (BackgroundCli agent = BackgroundCli.start("agent", "--device", "nvidia", "--listen", "127.0.0.1:0",
        "--sample-hz", "10", "--duration", "4s")) {
      String url = agent.await("^metrics  (http://127\\.0\\.0\\.1:\\d+/metrics)$").group(1);
      Thread.sleep(1500);
      var f = AgentCommandTest.scrape(url);
      var sm = f.get("DCGM_FI_DEV_SM_CLOCK").samples();
      assertThat(sm).hasSize(gpus.size());
      for (NvmlSampler g : gpus) {
        var s = sm.stream().filter(x -> x.labels().get("gpu").equals(Integer.toString(g.index()))).findFirst()
            .orElseThrow();
        assertThat(s.labels()).containsEntry("UUID", g.uuid()).containsEntry("device", "nvidia" + g.index())
            .containsEntry("modelName", g.name()).containsEntry("gitm_device_kind", "real");
        assertThat(s.value()).isPositive();
        System.out.println("[gpu] agent: " + s.labels() + " SM clock " + s.value() + " MHz");
      }
      for (String name : List.of("DCGM_FI_DEV_MEM_CLOCK", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE",
          "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS")) {
        assertThat(f.get(name).samples()).as(name).hasSize(gpus.size());
      }
      CliResult r = agent.join();
      assertThat(r.code()).as(r.err()).isZero();
      System.out.println("[gpu] " + r.out().lines().filter(l -> l.startsWith("stopped")).findFirst().orElse(""));
    }
  }
}
