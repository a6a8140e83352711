package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * A variable set in a black-box process's environment, which its runtime reads at start (CUDA, PyTorch, OpenMP).
 * Not for managed jobs: their process (gitm's) is already running.
 *
 * @param shareFact the fact that gives the share of the traced span the variable speeds up, or null when it gives
 *     no estimate of its own
 * @param speedup how many times faster the variable makes that share
 */
record EnvironmentLever(LeverSpec spec, String variable, String value, String shareFact, double speedup)
    implements Restarting {
  EnvironmentLever {
    if (spec == null || variable == null || variable.isBlank() || value == null) {
      throw new IllegalArgumentException("an environment lever needs a spec, a variable and a value");
    }
  }

  /** A process lever that sets {@code variable} to {@code value}. */
  private static EnvironmentLever of(String id, String variable, String value, SafetyClass safety,
      Set<Cause> addresses, String description, String shareFact, double speedup) {
    return new EnvironmentLever(new LeverSpec(id, description, addresses, safety, Scope.PROCESS), variable, value,
        shareFact, speedup);
  }

  /** A process lever that sets {@code variable} to {@code value}, with no estimate of its own. */
  private static EnvironmentLever of(String id, String variable, String value, SafetyClass safety,
      Set<Cause> addresses, String description) {
    return of(id, variable, value, safety, addresses, description, null, 1);
  }

  @Override
  public Applicability check(LeverContext c) {
    Applicability no = Checks.processJob(c);
    if (no != null) {
      return no;
    }
    if (value.equals(c.setup().environment().get(variable))) {
      return Applicability.no(variable + "=" + value + " is already set");
    }
    if (changesKernels() && TorchLever.asked(c.setup()).contains(TorchLever.Kind.TF32.hookName)) {
      return Applicability.no("torch-tf32 already makes the FP32 products TF32");
    }
    return Applicability.yes(variable + " is " + (c.setup().environment().containsKey(variable)
        ? "set to " + c.setup().environment().get(variable) : "as the job found it"));
  }

  /**
   * With a share fact: the time in what the variable speeds up ({@code shareFact}) made {@code speedup} times
   * faster, Amdahl's way.
   */
  @Override
  public OptionalDouble expectedGain(LeverContext c) {
    return Checks.amdahl(shareFact == null ? Double.NaN : c.fact(shareFact, Double.NaN), speedup);
  }

  @Override
  public Optional<String> expectationBasis(LeverContext c) {
    OptionalDouble g = expectedGain(c);
    if (g.isEmpty()) {
      return Optional.empty();
    }
    String what = LeverContext.FACT_FP32_GEMM_SHARE.equals(shareFact)
        ? "FP32 GEMM kernels without tensor cores (by cuBLAS's kernel names)"
        : LeverContext.FACT_ALLOCATION_SHARE.equals(shareFact) ? "device allocation and free calls" : shareFact;
    return Optional.of(String.format(Locale.ROOT, "the traced run spent %.1f%% of its span in %s (fact %s);"
        + " %.0f× faster there would make the job %.0f%% faster", 100 * c.fact(shareFact, 0), what, shareFact,
        speedup, 100 * g.getAsDouble()));
  }

  /** The TF32 variables make cuBLAS pick tensor-core GEMM kernels in place of the FP32 ones. */
  @Override
  public boolean changesKernels() {
    return LeverContext.FACT_FP32_GEMM_SHARE.equals(shareFact);
  }

  @Override
  public Set<String> numerics() {
    return changesKernels() ? Set.of(TF32_MATH) : Set.of();
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    return s.withEnvironment(variable, value);
  }

  static EnvironmentLever expandableSegments() {
    return of("env-expandable-segments", "PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True",
        SafetyClass.A, Set.of(Cause.ALLOCATOR_STALL), "let PyTorch's caching allocator grow segments in place "
        + "instead of allocating and freeing new ones", LeverContext.FACT_ALLOCATION_SHARE, 3);
  }

  static EnvironmentLever deviceMaxConnections() {
    return of("env-device-max-connections", "CUDA_DEVICE_MAX_CONNECTIONS", "32", SafetyClass.A,
        Set.of(Cause.FALSE_SERIALIZATION), "give the process 32 hardware work queues instead of 8, so independent "
        + "streams do not share one");
  }

  static EnvironmentLever eagerModuleLoading() {
    return of("env-module-loading-eager", "CUDA_MODULE_LOADING", "EAGER", SafetyClass.A,
        Set.of(Cause.COLD_START), "load every kernel of a module when the process starts instead of at first launch");
  }

  static EnvironmentLever tf32Override() {
    return of("env-tf32-override", "NVIDIA_TF32_OVERRIDE", "1", SafetyClass.B, Set.of(),
        "let cuBLAS and cuDNN compute FP32 GEMMs and convolutions in TF32 on tensor cores (measured to take"
        + " effect for PyTorch 2.11's FP32 GEMMs on the H200, docs/evidence/2026-11-30-h200-s3.tar.xz)",
        LeverContext.FACT_FP32_GEMM_SHARE, 4);
  }

  static EnvironmentLever torchTf32() {
    return of("env-torch-tf32", "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "1", SafetyClass.B, Set.of(),
        "make PyTorch compute FP32 matrix products in TF32 on tensor cores, whatever the script chose (PyTorch reads"
        + " it in at::Context::allowTF32CuBLAS)", LeverContext.FACT_FP32_GEMM_SHARE, 4);
  }

  static EnvironmentLever cudaMallocAsync() {
    return of("env-cuda-malloc-async", "PYTORCH_CUDA_ALLOC_CONF", "backend:cudaMallocAsync",
        SafetyClass.A, Set.of(Cause.ALLOCATOR_STALL), "back PyTorch's allocator with CUDA's stream-ordered pool "
        + "(cudaMallocAsync) instead of its own cudaMalloc/cudaFree caching (empty_cache still trims the pool)",
        LeverContext.FACT_ALLOCATION_SHARE, 5);
  }
}
