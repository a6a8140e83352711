package io.gitm.sim;

import io.gitm.trace.ClockReason;
import java.util.List;

/**
 * Power, temperature and the SM clock. Board power is idle power plus dynamic power proportional to multiprocessor
 * load (averaged over a 10 ms window) and to (clock / boost)^2.5; the die temperature follows a first-order RC model
 * towards ambient + power x resistance with time constant tau. The clock is the boost clock limited by, in turn: the
 * thermal slowdown (linear from the SW slowdown temperature, halved above the HW one), the power limit (the clock
 * at which the present load draws the limit), a locked clock, and an external power brake. The reasons are NVML's
 * {@code nvmlClocksEventReason*} bits ({@link io.gitm.trace.ClockReason}).
 */
final class Governor {

  private static final double POWER_EXPONENT = 2.5;
  /** Clock lost per degree above the SW slowdown temperature, as a share of the boost clock. */
  private static final double SW_SLOPE = 0.12;

  private final SimSpec spec;
  private final List<InjectedFault> faults;
  private double temperature;
  private long lastNs;
  /** Start of the bucket holding {@link #lastNs}. */
  private long bucketStart;
  private double factor = 1.0;
  private long reasons;
  private double power;
  /** Multiprocessor load averaged over the controller's window. */
  private double load;
  /** Time constant of the power controller's load average (model assumption). */
  private static final double LOAD_WINDOW_NS = 10e6;

  /** The power limit set when the device was opened, watts; NaN = as found (the default, lowered by faults). */
  private final double powerLimitSetting;
  /** The SM clock locked when the device was opened, MHz; NaN = as found (boost, or a fault's lock). */
  private final double clockSetting;

  Governor(SimSpec spec, List<InjectedFault> faults) {
    this(spec, faults, Double.NaN, Double.NaN);
  }

  /**
   * With device settings made at open: a power limit and an SM clock lock. Each replaces what the {@code power-cap}
   * or {@code clock-drop} faults set (a setting made by the job is the last one made); the clock setting equal to
   * the boost clock means unlocked.
   */
  Governor(SimSpec spec, List<InjectedFault> faults, double powerLimitSetting, double clockSetting) {
    this.spec = spec;
    this.faults = faults;
    this.powerLimitSetting = powerLimitSetting;
    this.clockSetting = clockSetting;
    this.power = spec.idlePowerW();
    this.temperature = spec.ambientC() + spec.idlePowerW() * spec.thermalResistanceCPerW();
    update(0, 0);
  }

  /** Integrates power and temperature up to the bucket holding {@code now}, bucket by bucket of {@code activity}. */
  void advance(long now, Activity activity) {
    if (now >= bucketStart && now - bucketStart < Activity.BUCKET_NS) {
      return; // the governor acts once per bucket
    }
    double tau = spec.thermalTauSeconds() * 1e9;
    long t = lastNs;
    while (t < now) {
      long bucket = t / Activity.BUCKET_NS;
      long next = Math.min(now, (bucket + 1) * Activity.BUCKET_NS);
      load += (activity.loadIn(bucket) - load) * (1 - Math.exp(-(next - t) / LOAD_WINDOW_NS));
      update(t, load);
      double target = ambient(t) + power * spec.thermalResistanceCPerW();
      temperature = target + (temperature - target) * Math.exp(-(next - t) / tau);
      t = next;
    }
    lastNs = now;
    bucketStart = now / Activity.BUCKET_NS * Activity.BUCKET_NS;
    update(now, load);
  }

  private double ambient(long t) {
    double a = spec.ambientC();
    for (InjectedFault f : faults) {
      if (f.name().equals("thermal") && f.activeAt(t)) {
        a += 60 * f.param("severity");
      }
    }
    return a;
  }

  private double powerLimit(long t) {
    if (!Double.isNaN(powerLimitSetting)) {
      return powerLimitSetting;
    }
    double limit = spec.powerLimitW();
    for (InjectedFault f : faults) {
      if (f.name().equals("power-cap") && f.activeAt(t)) {
        limit = Math.min(limit, f.param("watts"));
      }
    }
    return limit;
  }

  private void update(long t, double load) {
    long r = 0;
    double f = 1.0;
    if (temperature > spec.hwSlowdownC()) {
      f = 0.5;
      r |= ClockReason.HW_THERMAL_SLOWDOWN | ClockReason.HW_SLOWDOWN;
    } else if (temperature > spec.swSlowdownC()) {
      f = Math.max(0.5, 1 - SW_SLOPE * (temperature - spec.swSlowdownC()));
      r |= ClockReason.SW_THERMAL_SLOWDOWN;
    }
    double limit = powerLimit(t);
    double dyn = spec.dynamicPowerW();
    if (load > 0 && spec.idlePowerW() + dyn * load * Math.pow(f, POWER_EXPONENT) > limit) {
      double fp = Math.pow(Math.max(1e-6, (limit - spec.idlePowerW()) / (dyn * load)), 1 / POWER_EXPONENT);
      if (fp < f) {
        f = Math.max(0.1, fp);
        r |= ClockReason.SW_POWER_CAP;
      }
    }
    if (!Double.isNaN(clockSetting) && clockSetting < spec.boostClockMHz()) {
      double locked = clockSetting / spec.boostClockMHz();
      if (locked < f) {
        f = locked;
        r |= ClockReason.APPLICATIONS_CLOCKS_SETTING;
      }
    }
    for (InjectedFault x : faults) {
      if (!x.activeAt(t)) {
        continue;
      }
      if (x.name().equals("clock-drop") && Double.isNaN(clockSetting)) {
        double locked = x.param("mhz") / spec.boostClockMHz();
        if (locked < f) {
          f = locked;
          r |= ClockReason.APPLICATIONS_CLOCKS_SETTING;
        }
      } else if (x.name().equals("power-brake")) {
        f *= x.param("factor");
        r |= ClockReason.HW_POWER_BRAKE_SLOWDOWN | ClockReason.HW_SLOWDOWN;
      }
    }
    factor = f;
    reasons = r;
    power = spec.idlePowerW() + dyn * load * Math.pow(f, POWER_EXPONENT);
  }

  /** SM clock under load now, MHz. */
  double clockMHz() {
    return spec.boostClockMHz() * factor;
  }

  long reasons() {
    return reasons;
  }

  double temperatureC() {
    return temperature;
  }

  double powerW() {
    return power;
  }

  double powerLimitW() {
    return powerLimit(lastNs);
  }
}
