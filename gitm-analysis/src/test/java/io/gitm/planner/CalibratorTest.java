package io.gitm.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.data.Percentage.withPercentage;

import io.gitm.device.HardwareSpec;
import io.gitm.device.MathMode;
import io.gitm.trace.Precision;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class CalibratorTest {
  private static final Calibrator.Options OPTIONS = new Calibrator.Options(64L << 20, 4096, 8L << 20, 200, 5, 1, 3);

  @Test
  void recoversTheCeilingsOfADeviceWithKnownOnes() {
    FakeTimedDevice d = new FakeTimedDevice();
    Calibrator.Calibration c = new Calibrator(d, OPTIONS).run();
    HardwareSpec s = c.spec();

    assertThat(s.memoryBandwidth()).isCloseTo(d.memoryBandwidth, withPercentage(2));
    assertThat(s.flopsFor(Precision.FP32)).isCloseTo(d.flops.get(MathMode.DEFAULT), withPercentage(1));
    assertThat(s.flopsFor(Precision.TF32)).isCloseTo(d.flops.get(MathMode.TF32), withPercentage(1));
    assertThat(s.flopsFor(Precision.BF16)).isCloseTo(d.flops.get(MathMode.BF16), withPercentage(1));
    assertThat(s.hostToDevicePinned()).isCloseTo(d.pinnedBandwidth, withPercentage(0.1));
    assertThat(s.deviceToHostPinned()).isCloseTo(d.pinnedBandwidth, withPercentage(0.1));
    assertThat(s.hostToDevicePageable()).isCloseTo(d.pageableBandwidth, withPercentage(0.1));
    assertThat(s.deviceToHostPageable()).isCloseTo(d.pageableBandwidth, withPercentage(0.1));
    assertThat(s.launchLatencyNs()).isBetween((double) d.launchNs, d.launchNs + 700.0);
    assertThat(s.eventResolutionNs()).isEqualTo(d.eventResolutionNs, within(1e-9));
    assertThat(s.smClockMHz()).isEqualTo(1980.0);
    assertThat(s.deviceName()).isEqualTo("Fake GPU");
    assertThat(s.uuid()).isEqualTo("GPU-fake");
    assertThat(s.driver()).isEqualTo("fake-1");
    assertThat(c.deviceKind()).isEqualTo("simulated");
    assertThat(c.measurements()).containsKeys("device_copy_bandwidth", "gemm_default", "gemm_tf32", "gemm_bf16",
        "h2d_pinned", "d2h_pageable", "launch_latency", "event_resolution");
    assertThat(c.measurements().get("gemm_tf32").n()).isEqualTo(OPTIONS.repeats());
  }

  @Test
  void leavesTheMathModeAsItFoundIt() {
    FakeTimedDevice d = new FakeTimedDevice();
    d.blas().setMathMode(MathMode.BF16);
    new Calibrator(d, OPTIONS).run();
    assertThat(d.blas().mathMode()).isEqualTo(MathMode.BF16);
  }

  @Test
  void statsAreMediansWithTheirExtremes() {
    Calibrator.Stat s = Calibrator.Stat.of("B/s", new double[] {5, 1, 3, 100, 4});
    assertThat(s.median()).isEqualTo(4);
    assertThat(s.min()).isEqualTo(1);
    assertThat(s.max()).isEqualTo(100);
    assertThat(s.n()).isEqualTo(5);
    assertThat(Calibrator.Stat.of("x", new double[] {1, 2, 3, 4}).median()).isEqualTo(2.5);
  }

  @Test
  void writesTheSpecAsJsonKeyedByDeviceUuidAndDriver(@TempDir Path tmp) throws Exception {
    Path out = tmp.resolve("specs/h.json");
    Calibrator.calibrate(new FakeTimedDevice(), OPTIONS, out);
    JsonNode j = JsonMapper.builder().build().readTree(Files.readString(out));
    assertThat(j.at("/spec/deviceName").asString()).isEqualTo("Fake GPU");
    assertThat(j.at("/spec/uuid").asString()).isEqualTo("GPU-fake");
    assertThat(j.at("/spec/driver").asString()).isEqualTo("fake-1");
    assertThat(j.at("/spec/flops/TF32").asDouble()).isPositive();
    assertThat(j.at("/measurements/h2d_pinned/median").asDouble()).isPositive();
    assertThat(Files.list(out.getParent())).containsExactly(out);
  }

  @Test
  void nonsensicalOptionsAreRejectedWithTheValues() {
    assertThatThrownBy(() -> new Calibrator.Options(0, 10, 10, 10, 1, 0, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0 B copy");
  }
}
