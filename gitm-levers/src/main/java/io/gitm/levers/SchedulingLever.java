package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.device.SchedulingMode;
import io.gitm.trace.DeviceKind;
import java.util.Locale;
import java.util.Set;

/**
 * How the job's host thread waits for the device (the context's {@code CU_CTX_SCHED_*} flag, fixed when the device
 * is opened, so a trial reopens it). {@code SPIN} resumes at once after each wait and keeps a core busy while it
 * waits (from {@code AUTO} it applies only where CUDA's heuristic may not spin: more contexts than logical CPUs, or
 * CPUs unknown); {@code YIELD} and {@code BLOCKING_SYNC} give the core to the job's other host threads and
 * resume later after each wait, so they apply only where host threads outnumber CPUs. Replay does not model it: it
 * times waits with its replaying device's own (default) mode.
 */
record SchedulingLever(SchedulingMode mode) implements Restarting {
  SchedulingLever {
    if (mode == null || mode == SchedulingMode.AUTO) {
      throw new IllegalArgumentException("a scheduling lever needs SPIN, YIELD or BLOCKING_SYNC, got " + mode);
    }
  }

  @Override
  public LeverSpec spec() {
    String description = switch (mode) {
      case SPIN -> "open the device context with spin-waiting: the host resumes as soon as the device is done";
      case YIELD -> "open the device context with yield-waiting: the waiting host thread yields its core";
      case BLOCKING_SYNC -> "open the device context with blocking sync: the waiting host thread sleeps";
      case AUTO -> throw new IllegalStateException();
    };
    return new LeverSpec("sched-" + mode.name().toLowerCase(Locale.ROOT).replace('_', '-'), description,
        mode == SchedulingMode.SPIN ? Set.of(Cause.SYNCHRONOUS_HOST_CALLS) : Set.of(Cause.LAUNCH_BOUND_HOST),
        SafetyClass.A, Scope.MANAGED);
  }

  @Override
  public Applicability check(LeverContext c) {
    if (c.workload() == null) {
      return Applicability.no("it sets the scheduling mode of a context gitm opens, and this is a process job");
    }
    SchedulingMode now = c.setup().scheduling();
    if (now == mode) {
      return Applicability.no("the context is already opened with " + mode);
    }
    if (mode != SchedulingMode.SPIN) {
      double threads = c.fact(LeverContext.FACT_HOST_THREADS, Double.NaN);
      double cpus = c.setup().cpus().isEmpty() ? c.fact(LeverContext.FACT_HOST_CPUS, Double.NaN)
          : c.setup().cpus().size();
      if (Double.isNaN(threads) || Double.isNaN(cpus)) {
        return Applicability.no("giving up the core while waiting helps only when host threads outnumber CPUs, and "
            + "the host's threads or CPUs are unknown");
      }
      if (threads <= cpus) {
        return Applicability.no("the job's " + (long) threads + " busy host thread(s) have " + (long) cpus
            + " CPU(s): a waiting thread keeps none from running");
      }
      return Applicability.yes((long) threads + " busy host threads share " + (long) cpus + " CPU(s)");
    }
    if (now == SchedulingMode.AUTO) {
      String spins = autoSpins(c);
      if (spins != null) {
        return Applicability.no("AUTO already spins here: " + spins);
      }
    }
    return Applicability.yes("the context waits with " + now);
  }

  /**
   * Why {@code AUTO} resolves to spinning in {@code c}, or null when it may not or that is unknown. CUDA's heuristic
   * spins while the process's active contexts do not outnumber the logical CPUs; a managed job holds at most
   * {@link #MANAGED_CONTEXTS} at once (a gate's two arms side by side). The simulated device's AUTO always spins.
   */
  static String autoSpins(LeverContext c) {
    if (c.device() != null && c.device().kind() == DeviceKind.SIMULATED) {
      return "the simulated device's AUTO spins";
    }
    double cpus = c.fact(LeverContext.FACT_HOST_CPUS, Double.NaN);
    if (!Double.isNaN(cpus) && cpus >= MANAGED_CONTEXTS) {
      return "at most " + MANAGED_CONTEXTS + " contexts on " + (long) cpus + " logical CPUs";
    }
    return null;
  }

  /** Device contexts a managed job may hold at once: a gate's two arms, when their setups open the device apart. */
  static final int MANAGED_CONTEXTS = 2;

  @Override
  public Setup apply(Setup s, LeverContext c) {
    return s.withScheduling(mode);
  }
}
