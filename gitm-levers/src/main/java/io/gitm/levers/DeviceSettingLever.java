package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.device.DeviceRequest;
import java.util.Set;

/**
 * A device setting restored to the board's default when the device is opened (class C): the power limit
 * ({@code power-limit-w=default}, when something lowered it and the clock throttles to stay under it) or the SM
 * clock ({@code sm-clock-mhz=default}: application clocks unlocked, when a clock lock holds it below boost). Used
 * only with {@code --allow-device-settings}, on the simulated device; the NVIDIA backend refuses device settings.
 * Replay does not model it: its replaying device keeps its own clock and power model.
 */
record DeviceSettingLever(String setting, Cause cause) implements Restarting {
  static final String DEFAULT = "default";

  DeviceSettingLever {
    if (!DeviceRequest.DEVICE_SETTINGS.contains(setting)) {
      throw new IllegalArgumentException("unknown device setting '" + setting + "': use one of "
          + DeviceRequest.DEVICE_SETTINGS);
    }
    if (cause == null) {
      throw new IllegalArgumentException("a device-setting lever names the cause it addresses");
    }
  }

  static DeviceSettingLever powerLimit() {
    return new DeviceSettingLever(DeviceRequest.POWER_LIMIT_W, Cause.POWER_THROTTLING);
  }

  static DeviceSettingLever smClock() {
    return new DeviceSettingLever(DeviceRequest.SM_CLOCK_MHZ, Cause.CLOCK_DROP);
  }

  @Override
  public LeverSpec spec() {
    boolean power = setting.equals(DeviceRequest.POWER_LIMIT_W);
    String description = power ? "restore the board's default power limit when the device is opened"
        : "unlock the SM clock (application clocks back to default) when the device is opened";
    return new LeverSpec(power ? "power-limit-restore" : "sm-clock-restore", description, Set.of(cause),
        SafetyClass.C, Scope.DEVICE);
  }

  @Override
  public Applicability check(LeverContext c) {
    Applicability no = Checks.deviceSettingsAllowed(c);
    if (no != null) {
      return no;
    }
    if (DEFAULT.equals(c.setup().deviceSettings().get(setting))) {
      return Applicability.no(setting + " is already restored to its default");
    }
    if (!c.suspects(cause)) {
      return Applicability.no("the attribution does not suspect " + cause.label());
    }
    return Applicability.yes("the attribution suspects " + cause.label());
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    return s.withDeviceSetting(setting, DEFAULT);
  }
}
