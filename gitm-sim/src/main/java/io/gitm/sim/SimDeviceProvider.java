package io.gitm.sim;

import io.gitm.device.Device;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;

/**
 * The {@code sim} backend: always usable. Options: {@code preset} (h200, h100, a100; default h200), {@code seed}
 * (a long; default 0), {@code faults} (see {@code docs/sim.md}), {@code jitter} (log-sd of device-time noise,
 * 0..0.5; default 0.02), and the device settings a class-C lever makes: {@code power-limit-w} (board power limit,
 * watts, above idle power and at most the preset's limit, or {@code default}) and {@code sm-clock-mhz} (SM clock lock,
 * from the idle to the boost clock, or {@code default}: unlocked). The request's scheduling mode is honoured.
 */
public final class SimDeviceProvider implements DeviceProvider {
  @Override
  public String kind() {
    return "sim";
  }

  @Override
  public Probe probe() {
    return Probe.ok("simulated device (presets h200, h100, a100); outputs are labelled simulated", 1);
  }

  @Override
  public Device open(DeviceRequest request) {
    DeviceRequest r = request == null ? DeviceRequest.first() : request;
    if (r.ordinal() != 0) {
      throw new IllegalArgumentException("the simulated backend has one device (ordinal 0), asked for " + r.ordinal());
    }
    for (String k : r.options().keySet()) {
      if (!k.equals("preset") && !k.equals("seed") && !k.equals("faults") && !k.equals("jitter")
          && !k.equals(POWER_LIMIT_W) && !k.equals(SM_CLOCK_MHZ)) {
        throw new IllegalArgumentException("unknown sim option '" + k + "': use preset, seed, faults, jitter, "
            + POWER_LIMIT_W + " or " + SM_CLOCK_MHZ);
      }
    }
    SimSpec spec = SimSpec.preset(r.option("preset", "h200"));
    long seed;
    String s = r.option("seed", "0");
    try {
      seed = Long.parseLong(s.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("sim option seed='" + s + "' is not an integer");
    }
    double jitter;
    String j = r.option("jitter", "0.02");
    try {
      jitter = Double.parseDouble(j.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("sim option jitter='" + j + "' is not a number");
    }
    if (!(jitter >= 0 && jitter <= 0.5)) {
      throw new IllegalArgumentException("sim option jitter=" + j + " is outside 0..0.5");
    }
    double power = setting(r, POWER_LIMIT_W, spec.powerLimitW(), spec.idlePowerW(), spec.powerLimitW(), false);
    double clock = setting(r, SM_CLOCK_MHZ, spec.boostClockMHz(), spec.idleClockMHz(), spec.boostClockMHz(), true);
    return new SimDevice(spec, seed, r.option("faults", ""), jitter, r.scheduling(), power, clock);
  }

  private static final String POWER_LIMIT_W = DeviceRequest.POWER_LIMIT_W;
  private static final String SM_CLOCK_MHZ = DeviceRequest.SM_CLOCK_MHZ;

  /** A device setting's value: NaN when absent, {@code fallback} for {@code default}, else a number in range. */
  private static double setting(DeviceRequest r, String key, double fallback, double low, double high,
      boolean lowInclusive) {
    String v = r.options().get(key);
    if (v == null) {
      return Double.NaN;
    }
    if (v.strip().equalsIgnoreCase("default")) {
      return fallback;
    }
    double x;
    try {
      x = Double.parseDouble(v.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("sim option " + key + "='" + v + "' is not a number or 'default'");
    }
    if (!(lowInclusive ? x >= low : x > low) || !(x <= high)) {
      throw new IllegalArgumentException("sim option " + key + "=" + v + " is outside " + (lowInclusive ? "[" : "(")
          + fmt(low) + ".." + fmt(high) + "] for this preset");
    }
    return x;
  }

  private static String fmt(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}
