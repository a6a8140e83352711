package io.gitm.levers;

import io.gitm.device.DeviceInfo;
import io.gitm.levers.Lever.Applicability;
import io.gitm.trace.DeviceKind;
import io.gitm.workload.Knob;

/** Precondition pieces levers share; each returns a refusal, or null when the condition holds. */
final class Checks {
  private Checks() {
  }

  /** A managed workload that honours {@code knob}. */
  static Applicability honours(LeverContext c, Knob knob) {
    if (c.workload() == null) {
      return Applicability.never("it acts on a managed workload's execution config, and this is a process job");
    }
    if (!c.workload().knobs().contains(knob)) {
      return Applicability.never(c.workload().name() + " does not honour the " + knob + " knob");
    }
    return null;
  }

  /** A process job (no managed workload). */
  static Applicability processJob(LeverContext c) {
    if (c.workload() != null) {
      return Applicability.never("it sets a black-box process's environment or affinity, and " + c.workload().name()
          + " is a managed job running inside gitm's process");
    }
    return null;
  }

  /** A known device of at least compute capability {@code major.minor}. */
  static Applicability capability(LeverContext c, double atLeast, String feature) {
    DeviceInfo d = c.device();
    if (d == null) {
      return Applicability.no("the device is unknown, and " + feature + " needs compute capability " + atLeast);
    }
    double cc = computeCapability(d);
    if (!(cc >= atLeast)) {
      return Applicability.no(feature + " needs compute capability " + atLeast + " or later; " + d.name() + " has "
          + d.computeCapability());
    }
    return null;
  }

  /** A fact that, when known, must be positive: otherwise the trace shows nothing for the lever to act on. */
  static Applicability observed(LeverContext c, String fact, String what) {
    double v = c.fact(fact, Double.NaN);
    if (!Double.isNaN(v) && v <= 0) {
      return Applicability.no("the trace shows no " + what);
    }
    return null;
  }

  /** Class C: allowed, and on a simulated device only. */
  static Applicability deviceSettingsAllowed(LeverContext c) {
    if (!c.allowDeviceSettings()) {
      return Applicability.no("it changes device settings (class C), which needs --allow-device-settings");
    }
    if (c.device() == null || c.device().kind() != DeviceKind.SIMULATED) {
      return Applicability.no("device settings are changed on the simulated device only, and this device is "
          + (c.device() == null ? "unknown" : c.device().kind() + " (" + c.device().name() + ")"));
    }
    return null;
  }

  /** {@code 9.0} from {@code "9.0"}; NaN when unreadable. */
  static double computeCapability(DeviceInfo d) {
    try {
      return Double.parseDouble(d.computeCapability().strip());
    } catch (RuntimeException e) {
      return Double.NaN;
    }
  }

  /**
   * Amdahl's gain of making {@code share} of the time {@code speedup} times faster, as a fraction (at least 0.5%);
   * empty when the share is unknown (NaN) or nothing is faster.
   */
  static java.util.OptionalDouble amdahl(double share, double speedup) {
    if (!(share >= 0) || speedup <= 1) {
      return java.util.OptionalDouble.empty();
    }
    double s = Math.min(1, share);
    return java.util.OptionalDouble.of(Math.max(0.005, 1 / (1 - s + s / speedup) - 1));
  }
}
