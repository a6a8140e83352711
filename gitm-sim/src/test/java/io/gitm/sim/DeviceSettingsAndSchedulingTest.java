package io.gitm.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.device.DeviceRequest;
import io.gitm.device.Kernel;
import io.gitm.device.Module;
import io.gitm.device.SchedulingMode;
import io.gitm.device.Stream;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.TraceRecord;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The context scheduling mode and the device settings (power limit, SM clock) the simulated device is opened with. */
class DeviceSettingsAndSchedulingTest {
  static SimDevice open(SchedulingMode mode, String faults, Map<String, String> settings) {
    Map<String, String> o = new HashMap<>(settings);
    o.put("faults", faults);
    o.put("jitter", "0");
    return (SimDevice) new SimDeviceProvider().open(new DeviceRequest(0, mode, o));
  }

  /** Runs compute kernels for about 50 ms of simulated time and samples at the end. */
  static StateSample busy(SimDevice d) {
    Module m = d.load(Fixtures.MODULE);
    Kernel k = m.kernel("fma_loop");
    for (int i = 0; i < 100; i++) {
      d.launch(k, Fixtures.BIG, d.defaultStream(), 2.5e10);
    }
    d.synchronize();
    return d.sampler().sample();
  }

  @Test
  void anSmClockSettingLocksTheClockAndDefaultUnlocksAClockDrop() {
    StateSample locked = busy(open(SchedulingMode.AUTO, "", Map.of("sm-clock-mhz", "1500")));
    assertThat(locked.get(StateField.SM_CLOCK)).isEqualTo(1500.0);
    assertThat((long) locked.get(StateField.CLOCK_EVENT_REASONS) & 0x2).isEqualTo(0x2);
    StateSample dropped = busy(open(SchedulingMode.AUTO, "clock-drop", Map.of()));
    assertThat(dropped.get(StateField.SM_CLOCK)).isEqualTo(990.0);
    StateSample restored = busy(open(SchedulingMode.AUTO, "clock-drop", Map.of("sm-clock-mhz", "default")));
    assertThat(restored.get(StateField.SM_CLOCK)).isEqualTo(1980.0);
    assertThat((long) restored.get(StateField.CLOCK_EVENT_REASONS) & 0x2).isZero();
  }

  @Test
  void aPowerLimitSettingReplacesTheDefaultAndAPowerCapFault() {
    StateSample capped = busy(open(SchedulingMode.AUTO, "", Map.of("power-limit-w", "300")));
    assertThat(capped.get(StateField.POWER_LIMIT)).isEqualTo(300.0);
    assertThat(capped.get(StateField.POWER)).isLessThanOrEqualTo(300.0);
    assertThat(capped.get(StateField.SM_CLOCK)).isLessThan(1980.0);
    assertThat((long) capped.get(StateField.CLOCK_EVENT_REASONS) & 0x4).isEqualTo(0x4);
    StateSample restored = busy(open(SchedulingMode.AUTO, "power-cap:watts=300", Map.of("power-limit-w", "default")));
    assertThat(restored.get(StateField.POWER_LIMIT)).isEqualTo(700.0);
    assertThat(restored.get(StateField.SM_CLOCK)).isEqualTo(1980.0);
  }

  @Test
  void settingsOutsideWhatTheBoardAllowsAreOneLineErrors() {
    assertThatThrownBy(() -> open(SchedulingMode.AUTO, "", Map.of("power-limit-w", "900")))
        .hasMessage("sim option power-limit-w=900 is outside (82..700] for this preset");
    assertThatThrownBy(() -> open(SchedulingMode.AUTO, "", Map.of("sm-clock-mhz", "100")))
        .hasMessage("sim option sm-clock-mhz=100 is outside [345..1980] for this preset");
    assertThatThrownBy(() -> open(SchedulingMode.AUTO, "", Map.of("sm-clock-mhz", "fast")))
        .hasMessage("sim option sm-clock-mhz='fast' is not a number or 'default'");
  }

  /** Host time of a stream synchronization that waits for a 1 ms kernel. */
  static long waitNanos(SimDevice d) {
    Module m = d.load(Fixtures.MODULE);
    Kernel k = m.kernel("fma_loop");
    Stream s = d.createStream(0);
    d.launch(k, Fixtures.BIG, s, 5e10);
    long t0 = d.clock().nanos();
    s.synchronize();
    return d.clock().nanos() - t0;
  }

  @Test
  void blockingSyncAndYieldWakeLaterThanSpinAndOnlyBlockingSyncSleeps() {
    SimDevice spin = open(SchedulingMode.SPIN, "", Map.of());
    SimDevice auto = open(SchedulingMode.AUTO, "", Map.of());
    SimDevice yield = open(SchedulingMode.YIELD, "", Map.of());
    SimDevice blocking = open(SchedulingMode.BLOCKING_SYNC, "", Map.of());
    long s = waitNanos(spin);
    assertThat(waitNanos(auto)).isEqualTo(s);
    assertThat(waitNanos(yield) - s).isEqualTo(SimDevice.YIELD_WAKE_NS);
    assertThat(waitNanos(blocking) - s).isEqualTo(SimDevice.BLOCKING_WAKE_NS);
    assertThat(blocking.scheduling()).isEqualTo(SchedulingMode.BLOCKING_SYNC);
    assertThat(blocking.hostSleptNanos()).isGreaterThan(SimDevice.BLOCKING_WAKE_NS);
    assertThat(spin.hostSleptNanos()).isZero();
    assertThat(yield.hostSleptNanos()).isZero();
  }

  @Test
  void aStreamsPriorityIsKnownByItsTraceIdAndTheCarveoutIsADriverCall() {
    SimDevice d = open(SchedulingMode.AUTO, "", Map.of());
    List<TraceRecord> rs = Fixtures.trace(d);
    Stream s = d.createStream(-2);
    assertThat(d.streamPriority(s.id())).isEqualTo(-2);
    assertThat(d.streamPriority(d.defaultStream().id())).isZero();
    s.close();
    assertThat(d.streamPriority(s.id())).isEqualTo(-2);
    assertThatThrownBy(() -> d.streamPriority(999)).hasMessage("the simulated device has no stream 999");
    d.load(Fixtures.MODULE).kernel("saxpy").setPreferredSharedCarveout(0);
    d.tracer().flush();
    assertThat(Fixtures.only(rs, ApiCallRecord.class).stream().map(ApiCallRecord::name))
        .contains("cuFuncSetAttribute");
  }
}
