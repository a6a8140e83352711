package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * {@code OMP_NUM_THREADS} of a black-box job set to its share of the CPUs it may use (its pinned CPUs, else the
 * host's), divided among the job's busy processes ({@link LeverContext#FACT_JOB_PROCESSES}) when there are several, so
 * that the OpenMP thread pools of its processes (each sized to every core by default) do not oversubscribe the cores
 * and starve the thread that launches GPU work.
 */
record OmpThreads() implements Restarting {
  static final String VARIABLE = "OMP_NUM_THREADS";

  private static final LeverSpec SPEC = new LeverSpec("env-omp-threads",
      "set OMP_NUM_THREADS to the job's CPUs divided among its busy processes", Set.of(Cause.LAUNCH_BOUND_HOST),
      SafetyClass.A, Scope.PROCESS);

  @Override
  public LeverSpec spec() {
    return SPEC;
  }

  @Override
  public Applicability check(LeverContext c) {
    Applicability no = Checks.processJob(c);
    if (no != null) {
      return no;
    }
    int n = threads(c, c.setup());
    if (n < 1) {
      return Applicability.no("the CPUs the process may use are unknown (no " + LeverContext.FACT_HOST_CPUS
          + " fact and no pinning)");
    }
    if (Integer.toString(n).equals(c.setup().environment().get(VARIABLE))) {
      return Applicability.no(VARIABLE + "=" + n + " is already set");
    }
    double procs = c.fact(LeverContext.FACT_JOB_PROCESSES, 1);
    return Applicability.yes("the job may use " + cpus(c, c.setup()) + " CPU(s)" + (procs > 1 ? " across "
        + (int) procs + " busy processes: " + n + " threads each" : ""));
  }

  /** The job's CPUs divided among its busy processes, or -1 when its CPUs are unknown. */
  static int threads(LeverContext c, Setup s) {
    int cpus = cpus(c, s);
    if (cpus < 1) {
      return -1;
    }
    double procs = c.fact(LeverContext.FACT_JOB_PROCESSES, 1);
    return procs > 1 ? Math.max(1, (int) (cpus / procs)) : cpus;
  }

  private static int cpus(LeverContext c, Setup s) {
    if (!s.cpus().isEmpty()) {
      return s.cpus().size();
    }
    double cpus = c.fact(LeverContext.FACT_HOST_CPUS, Double.NaN);
    return cpus >= 1 ? (int) cpus : -1;
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    int n = threads(c, s);
    if (n < 1) {
      throw new IllegalArgumentException(id() + " needs the " + LeverContext.FACT_HOST_CPUS + " fact or pinned CPUs");
    }
    return s.withEnvironment(VARIABLE, Integer.toString(n));
  }

  /**
   * With several busy processes, each sizing its OpenMP pool to every core, the cores are oversubscribed about as many
   * times as there are processes: a strong prior (a quarter per extra process, at most doubling the speed); without
   * that fact, none of its own.
   */
  @Override
  public OptionalDouble expectedGain(LeverContext c) {
    double procs = c.fact(LeverContext.FACT_JOB_PROCESSES, Double.NaN);
    return procs > 1 ? OptionalDouble.of(Math.min(1.0, 0.25 * (procs - 1))) : OptionalDouble.empty();
  }

  @Override
  public Optional<String> expectationBasis(LeverContext c) {
    double procs = c.fact(LeverContext.FACT_JOB_PROCESSES, Double.NaN);
    if (!(procs > 1)) {
      return Optional.empty();
    }
    return Optional.of(String.format(Locale.ROOT, "the traced run had %.0f processes busy at once (fact %s)"
        + " on %.0f CPUs, each with a thread pool as large as the machine by default", procs,
        LeverContext.FACT_JOB_PROCESSES, c.fact(LeverContext.FACT_HOST_CPUS, Runtime.getRuntime()
            .availableProcessors())));
  }
}
