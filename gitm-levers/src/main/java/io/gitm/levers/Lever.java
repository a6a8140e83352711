package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.trace.TraceChange;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * One intervention of the library: a pure map from a {@link Setup} to another that really changes how the job runs.
 * Reverting a lever is returning to the anchor setup, so a lever holds no state. What it is ({@link #spec}) is data;
 * what it does is {@link #check}, {@link #apply} and, where replay models it, {@link #counterfactual}.
 */
public interface Lever {
  /** Its id, description, the causes it addresses, its safety class and scope. */
  LeverSpec spec();

  /** Stable id, e.g. {@code pinned-host-memory}; used in journals, reports and {@code --levers}. */
  default String id() {
    return spec().id();
  }

  /** What it does, in one sentence. */
  default String description() {
    return spec().description();
  }

  /** The causes it addresses. */
  default Set<Cause> addresses() {
    return spec().addresses();
  }

  default SafetyClass safety() {
    return spec().safety();
  }

  /** Which kind of job it acts on. */
  default Scope scope() {
    return spec().scope();
  }

  /** Whether it applies in {@code context}, and if not, why not. */
  Applicability check(LeverContext context);

  /** The setup with this lever applied. Must change something when {@link #check} says it applies. */
  Setup apply(Setup setup, LeverContext context);

  /**
   * How the captured trace would run under this lever, for counterfactual replay: its own change, which the ranking
   * composes after those of levers already kept; empty when replay does not model it (the agent then has only its
   * prior).
   */
  default Optional<TraceChange> counterfactual() {
    return Optional.empty();
  }

  /**
   * The gain this lever expects from what the facts show (e.g. the share of device time in FP32 GEMMs for TF32), as
   * a fraction (0.2 = 20% better); empty when it has no estimate of its own (the attributed causes it addresses then
   * give its prior).
   */
  default OptionalDouble expectedGain(LeverContext context) {
    return OptionalDouble.empty();
  }

  /**
   * What {@link #expectedGain} read from the facts, in words, for the report's evidence (e.g. "the traced span spent
   * 90% in FP32 GEMM kernels without tensor cores"); empty when it has no estimate of its own.
   */
  default Optional<String> expectationBasis(LeverContext context) {
    return Optional.empty();
  }

  /**
   * Whether the lever replaces the job's kernels with others (a math mode's tensor-core GEMMs, a kernel variant)
   * rather than changing how the same kernels are run: the kernels' floor of the qualification gate does not bound it.
   */
  default boolean changesKernels() {
    return false;
  }

  /** The change to arithmetic of FP32 matrix products and convolutions computed in TF32 on tensor cores. */
  String TF32_MATH = "tf32-math";

  /**
   * The changes to the job's arithmetic this lever makes that other levers make by another route (e.g.
   * {@link #TF32_MATH}, reached through PyTorch's flags in the process, PyTorch's environment variable or cuBLAS's):
   * a trial whose output changed or held NaN under one of them rules the others out for the rest of the search, their
   * outputs being the same. Empty for a lever no other lever duplicates.
   */
  default Set<String> numerics() {
    return Set.of();
  }

  /** Extra wall-clock cost of one trial with this lever, beyond running the job (e.g. reopening the device). */
  default double trialCostSeconds() {
    return 0;
  }

  /** The kind of job a lever acts on. */
  enum Scope {
    /** A managed workload in gitm's process, through its {@code ExecutionConfig} or the device context. */
    MANAGED,
    /** A black-box process, through its environment, CPU affinity or priority. */
    PROCESS,
    /** The device itself (class C). */
    DEVICE
  }

  /**
   * Whether a lever applies, and why (not).
   *
   * @param never it cannot apply to this job whatever else is kept (the workload does not honour its knob, a process
   *     lever on a managed job …), as opposed to a lever that may apply once others are kept
   */
  record Applicability(boolean applies, String reason, boolean never) {
    public static Applicability yes(String reason) {
      return new Applicability(true, reason, false);
    }

    public static Applicability no(String reason) {
      return new Applicability(false, reason, false);
    }

    /** It cannot apply to this job, whatever else is kept. */
    public static Applicability never(String reason) {
      return new Applicability(false, reason, true);
    }
  }
}
