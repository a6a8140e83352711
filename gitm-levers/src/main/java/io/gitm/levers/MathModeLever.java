package io.gitm.levers;

import io.gitm.device.MathMode;
import io.gitm.trace.Precision;
import io.gitm.trace.TraceChange;
import io.gitm.trace.TraceChange.KernelPrecision;
import io.gitm.workload.Knob;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * GEMMs on FP32 data computed on tensor cores in TF32 or BF16 (cuBLAS math mode): several times the FP32 rate, with
 * inputs rounded to 10 or 7 mantissa bits. Numerics change (class B): the output must stay within the workload's
 * declared tolerance. It addresses no cause of the taxonomy: it raises the ceiling a compute-bound GEMM is held to.
 */
record MathModeLever(MathMode mode) implements Lever {
  MathModeLever {
    if (mode == null || mode == MathMode.DEFAULT) {
      throw new IllegalArgumentException("a math-mode lever needs TF32 or BF16, got " + mode);
    }
  }

  @Override
  public LeverSpec spec() {
    return new LeverSpec("math-mode-" + mode.name().toLowerCase(Locale.ROOT),
        "compute FP32 GEMMs in " + mode + " on tensor cores (cuBLAS math mode)", Set.of(), SafetyClass.B,
        Scope.MANAGED);
  }

  @Override
  public Applicability check(LeverContext c) {
    Applicability no = Checks.honours(c, Knob.MATH_MODE);
    if (no != null) {
      return no;
    }
    if (!(c.workload().outputTolerance() > 0)) {
      return Applicability.no(c.workload().name() + " declares no output tolerance, so numerics may not change");
    }
    if (c.setup().config().mathMode() == mode) {
      return Applicability.no("GEMMs already run in " + mode);
    }
    no = Checks.capability(c, 8.0, mode + " tensor-core math");
    if (no == null) {
      no = Checks.observed(c, LeverContext.FACT_GEMMS, "GEMMs");
    }
    return no != null ? no : Applicability.yes("GEMMs run in " + c.setup().config().mathMode());
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    return s.withConfig(s.config().withMathMode(mode));
  }

  @Override
  public Optional<TraceChange> counterfactual() {
    return Optional.of(TraceChange.of(new KernelPrecision(Precision.FP32,
        mode == MathMode.TF32 ? Precision.TF32 : Precision.BF16)));
  }

  /** cuBLAS runs other GEMM kernels, in another precision. */
  @Override
  public boolean changesKernels() {
    return true;
  }
}
