package io.gitm.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.device.Device;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.HardwareSpec;
import io.gitm.device.SchedulingMode;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.Precision;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProviderTest {

  private static Device open(Map<String, String> options) {
    return new SimDeviceProvider().open(new DeviceRequest(0, SchedulingMode.AUTO, options));
  }

  @Test
  void serviceLoaderFindsTheAlwaysUsableSimBackend() {
    DeviceProvider p = DeviceProvider.all().stream().filter(x -> x.kind().equals("sim")).findFirst().orElseThrow();
    assertThat(p.probe().usable()).isTrue();
  }

  @Test
  void theDeviceSaysEverywhereThatItIsSimulated() {
    Device d = open(Map.of());
    assertThat(d.info().kind()).isEqualTo(DeviceKind.SIMULATED);
    assertThat(d.info().name().toLowerCase(Locale.ROOT)).contains("simulated").contains("h200");
    assertThat(d.info().multiprocessors()).isEqualTo(132);
    assertThat(d.tracer().meta().clock()).isEqualTo(ClockDomain.SIMULATED);
    assertThat(d.tracer().meta().kind()).isEqualTo(DeviceKind.SIMULATED);
  }

  @Test
  void presetsDiffer() {
    assertThat(open(Map.of("preset", "a100")).info().multiprocessors()).isEqualTo(108);
    assertThat(open(Map.of("preset", "h100")).info().totalMemoryBytes()).isEqualTo(80_000_000_000L);
  }

  @Test
  void badOptionsFailWithOneLine() {
    assertThatThrownBy(() -> open(Map.of("preset", "v100"))).hasMessage(
        "unknown sim preset 'v100': use h200, h100 or a100");
    assertThatThrownBy(() -> open(Map.of("seed", "x"))).hasMessage("sim option seed='x' is not an integer");
    assertThatThrownBy(() -> open(Map.of("colour", "red"))).hasMessageContaining("unknown sim option 'colour'");
    assertThatThrownBy(() -> open(Map.of("faults", "meteor"))).hasMessageContaining("unknown fault 'meteor'");
  }

  @Test
  void aCalibratedSpecReplacesThePresetsMeasuredCeilings() {
    HardwareSpec cal = new HardwareSpec("NVIDIA H200", "GPU-1234", "580.159.04", 132, 1980, 0, 0, 3.2e12,
        Map.of(Precision.BF16, 7.5e14), 5.0e10, 5.1e10, 2.0e10, 2.1e10, 4200, 0, "calibrate 2026-11-29");
    SimSpec s = SimSpec.fromCalibration(cal, "h200");
    assertThat(s.hardware().memoryBandwidth()).isEqualTo(3.2e12);
    assertThat(s.hardware().flopsFor(Precision.BF16)).isEqualTo(7.5e14);
    assertThat(s.hardware().flopsFor(Precision.FP32))
        .isEqualTo(SimSpec.preset("h200").hardware().flopsFor(Precision.FP32));
    assertThat(s.hardware().memoryBytes()).isEqualTo(SimSpec.preset("h200").hardware().memoryBytes());
    assertThat(s.hardware().launchLatencyNs()).isEqualTo(4200);
    assertThat(s.preset()).isEqualTo("calibrated:h200");
    assertThat(SimDevice.open(s, 0, "").info().name()).contains("Simulated NVIDIA H200");
  }
}
