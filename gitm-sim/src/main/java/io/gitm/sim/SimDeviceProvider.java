package io.gitm.sim;

import io.gitm.device.Device;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;

/**
 * The {@code sim} backend: always usable. Options: {@code preset} (h200, h100, a100; default h200), {@code seed}
 * (a long; default 0), {@code faults} (see {@code docs/sim.md}), {@code jitter} (log-sd of device-time noise,
 * 0..0.5; default 0.02).
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
      if (!k.equals("preset") && !k.equals("seed") && !k.equals("faults") && !k.equals("jitter")) {
        throw new IllegalArgumentException("unknown sim option '" + k + "': use preset, seed, faults or jitter");
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
    return new SimDevice(spec, seed, r.option("faults", ""), jitter);
  }
}
