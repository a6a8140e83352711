package io.gitm.nvidia.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.api.Ticker;
import io.gitm.device.Blas;
import io.gitm.device.Device;
import io.gitm.device.DeviceException;
import io.gitm.device.DeviceMemory;
import io.gitm.device.DeviceRequest;
import io.gitm.device.MathMode;
import io.gitm.nvidia.cuda.CudaProvider;
import io.gitm.trace.ClockReason;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("gpu")
class NvmlGpuTest {
  static final Set<StateField> CORE = EnumSet.of(StateField.GPU_UTILIZATION, StateField.MEMORY_UTILIZATION,
      StateField.MEMORY_USED, StateField.MEMORY_FREE, StateField.MEMORY_TOTAL, StateField.POWER, StateField.SM_CLOCK,
      StateField.MEMORY_CLOCK, StateField.GRAPHICS_CLOCK, StateField.TEMPERATURE, StateField.CLOCK_EVENT_REASONS);

  static List<NvmlSampler> samplers() {
    try {
      List<NvmlSampler> all = NvmlSampler.all(Ticker.system());
      Assumptions.assumeFalse(all.isEmpty(), "NVML sees no device");
      return all;
    } catch (DeviceException e) {
      Assumptions.abort("NVML not usable: " + e.getMessage());
      throw e;
    }
  }

  @Test
  void everyDeviceSampleHasTheCoreFields() {
    for (NvmlSampler s : samplers()) {
      StateSample x = s.sample();
      System.out.println("[gpu] NVML " + s.index() + " " + s.name() + ": " + x.present());
      System.out.println("[gpu] clock events: " + ClockReason.decode((long) x.get(StateField.CLOCK_EVENT_REASONS)));
      System.out.println("[gpu] unsupported: " + s.unsupportedReasons());
      assertThat(x.device()).isEqualTo(s.index());
      for (StateField f : CORE) {
        assertThat(x.has(f)).as(f + " present").isTrue();
      }
      assertThat(x.get(StateField.MEMORY_TOTAL)).isEqualTo(x.get(StateField.MEMORY_USED)
          + x.get(StateField.MEMORY_FREE), org.assertj.core.data.Offset.offset(x.get(StateField.MEMORY_TOTAL) * 0.05));
      assertThat(x.get(StateField.POWER)).isBetween(5.0, 2000.0);
      assertThat(x.get(StateField.TEMPERATURE)).isBetween(5.0, 110.0);
      assertThat(s.uuid()).startsWith("GPU-");
    }
  }

  @Test
  void unsupportedFieldsAreRecordedOnceAndNeverCountedAsErrors() {
    for (NvmlSampler s : samplers()) {
      s.sample();
      Map<StateField, String> first = s.unsupportedReasons();
      List<StateSample> xs = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        xs.add(s.sample());
      }
      assertThat(s.unsupportedReasons()).isEqualTo(first);
      assertThat(s.errors()).isZero();
      assertThat(s.supported()).doesNotContainAnyElementsOf(first.keySet());
      for (StateSample x : xs) {
        for (StateField f : first.keySet()) {
          assertThat(x.has(f)).as(f + " is unsupported, so NaN").isFalse();
        }
      }
      StateSample last = xs.getLast();
      for (StateField f : s.supported()) {
        if (f != StateField.PCIE_TX && f != StateField.PCIE_RX && f != StateField.NVLINK_TX
            && f != StateField.NVLINK_RX) {
          assertThat(last.has(f)).as(f + " supported, so read").isTrue();
        }
      }
    }
  }

  @Test
  void throughputCountersGiveNonNegativeRatesAfterTheFirstSample() {
    for (NvmlSampler s : samplers()) {
      s.sample();
      LockSupport.parkNanos(20_000_000);
      StateSample x = s.sample();
      for (StateField f : List.of(StateField.PCIE_TX, StateField.PCIE_RX, StateField.NVLINK_TX,
          StateField.NVLINK_RX)) {
        if (s.supported().contains(f) && x.has(f)) {
          assertThat(x.get(f)).as(f.name()).isGreaterThanOrEqualTo(0);
        }
      }
      System.out.println("[gpu] PCIe/NVLink B/s: tx " + x.get(StateField.PCIE_TX) + " rx " + x.get(StateField.PCIE_RX)
          + " nvlink tx " + x.get(StateField.NVLINK_TX) + " rx " + x.get(StateField.NVLINK_RX));
    }
  }

  @Test
  void perProcessQueryListsProcessesWithoutFailing() {
    Assumptions.assumeTrue(new CudaProvider().probe().usable(), "no CUDA device usable");
    try (Device d = new CudaProvider().open(DeviceRequest.first()); DeviceMemory m = d.malloc(256L << 20)) {
      NvmlSampler s = (NvmlSampler) d.sampler();
      List<ProcessUsage> ps = s.processes();
      System.out.println("[gpu] processes on device: " + ps + " (this pid " + ProcessHandle.current().pid() + ")");
      assertThat(ps).allSatisfy(p -> assertThat(p.usedMemoryBytes()).isGreaterThanOrEqualTo(0));
    }
  }

  @Test
  void samplingBenchmarkPrintsMicrosecondsPerFullSample() {
    for (NvmlSampler s : samplers()) {
      double[] us = NvmlSamplingBench.measure(s, 200, 2000);
      Arrays.sort(us);
      System.out.printf("[gpu] NVML full sample, device %d: median %.1f us, p10 %.1f, p90 %.1f, max %.1f (n=%d)%n",
          s.index(), us[us.length / 2], us[us.length / 10], us[us.length * 9 / 10], us[us.length - 1], us.length);
      assertThat(us[us.length / 2]).isPositive();
    }
  }

  /** Writes real samples, idle and under GEMM load, into $GITM_FIXTURE_OUT for the CI fixture tests. */
  @Test
  void capturesNvmlFixturesWhenAskedTo() throws Exception {
    String dir = System.getenv("GITM_FIXTURE_OUT");
    Assumptions.assumeTrue(dir != null && !dir.isBlank(), "GITM_FIXTURE_OUT not set");
    Assumptions.assumeTrue(new CudaProvider().probe().usable(), "no CUDA device usable");
    Path out = Files.createDirectories(Path.of(dir));
    try (Device d = new CudaProvider().open(DeviceRequest.first())) {
      NvmlSampler s = (NvmlSampler) d.sampler();
      String driver = d.info().driverVersion();
      List<StateSample> idle = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        idle.add(s.sample());
        LockSupport.parkNanos(50_000_000);
      }
      Files.writeString(out.resolve("nvml-idle-" + driver + ".json"), NvmlJson.fixture("idle", driver,
          d.info().name(), d.info().uuid(), s.unsupportedReasons(), idle));
      int n = 8192;
      List<StateSample> busy = new ArrayList<>();
      try (DeviceMemory a = d.malloc(4L * n * n); DeviceMemory b = d.malloc(4L * n * n);
          DeviceMemory c = d.malloc(4L * n * n)) {
        d.memsetAsync(a, 0, 0x3c, 4L * n * n, d.defaultStream());
        d.memsetAsync(b, 0, 0x3c, 4L * n * n, d.defaultStream());
        Blas blas = d.blas();
        blas.setMathMode(MathMode.TF32);
        for (int i = 0; i < 40; i++) {
          for (int k = 0; k < 4; k++) {
            blas.sgemm(d.defaultStream(), false, false, n, n, n, 1f, a, n, b, n, 0f, c, n);
          }
          busy.add(s.sample());
          d.synchronize();
        }
        blas.setMathMode(MathMode.DEFAULT);
      }
      Files.writeString(out.resolve("nvml-gemm-load-" + driver + ".json"), NvmlJson.fixture("gemm-load", driver,
          d.info().name(), d.info().uuid(), s.unsupportedReasons(), busy));
      System.out.println("[gpu] NVML fixtures written to " + out);
    }
  }
}
