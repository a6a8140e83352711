package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * A framework lever of a PyTorch job, applied from inside its interpreter by gitm's Python hook (the job's code
 * untouched): the setup names it in {@link #VARIABLE}, which the hook reads when the job imports torch, or, for the
 * Inductor knobs, sets the variable Inductor itself reads. Applicable only where the hook's facts of the profiled run
 * show what it acts on ({@code torch*} facts of {@link LeverContext}); a run whose hook could not apply it is a
 * refused setup, never a measurement.
 *
 * @param kind which lever
 */
record TorchLever(Kind kind) implements Restarting {
  /** The variable the hook reads its levers from: {@code name[=value]} items, comma-separated. */
  static final String VARIABLE = LeverContext.TORCH_LEVERS_VARIABLE;
  /** At most this many DataLoader workers, whatever the host has. */
  static final int MAX_WORKERS = 8;

  enum Kind {
    TF32("torch-tf32", "tf32", SafetyClass.B, Set.of(),
        "compute FP32 matrix products and convolutions on TF32 tensor cores"
            + " (torch.backends.cuda.matmul.allow_tf32 and torch.backends.cudnn.allow_tf32)"),
    CUDNN_BENCHMARK("torch-cudnn-benchmark", "cudnn-benchmark", SafetyClass.B, Set.of(),
        "let cuDNN time its convolution algorithms for each input shape and keep the fastest"
            + " (torch.backends.cudnn.benchmark)"),
    CHANNELS_LAST("torch-channels-last", "channels-last", SafetyClass.B, Set.of(),
        "store the convolution model's 4-D parameters and inputs channels-last (NHWC), the layout tensor-core"
            + " convolutions read"),
    THREADS("torch-threads", "threads", SafetyClass.B, Set.of(),
        "size torch's intra-op thread pool to the CPUs the job may use, shared among its busy processes"
            + " (torch.set_num_threads; class B: a reduction split over other threads may round differently)"),
    LOADER_WORKERS("torch-dl-workers", "dl-workers", SafetyClass.A, Set.of(),
        "load batches in DataLoader worker processes instead of the training loop's own (num_workers 0 -> N)"),
    LOADER_PIN_MEMORY("torch-dl-pin-memory", "dl-pin-memory", SafetyClass.A, Set.of(Cause.PAGEABLE_COPIES),
        "have the DataLoader put its batches in pinned host memory, so host-to-device copies are not staged"),
    LOADER_PERSISTENT("torch-dl-persistent-workers", "dl-persistent-workers", SafetyClass.A, Set.of(),
        "keep the DataLoader's workers between epochs instead of starting them again for each"),
    LOADER_PREFETCH("torch-dl-prefetch", "dl-prefetch-factor", SafetyClass.A, Set.of(),
        "have each DataLoader worker hold 4 batches ready instead of 2"),
    INDUCTOR_MAX_AUTOTUNE("torch-inductor-max-autotune", null, SafetyClass.B, Set.of(),
        "let TorchInductor benchmark Triton and cuBLAS variants of each kernel it compiles"
            + " (TORCHINDUCTOR_MAX_AUTOTUNE=1)"),
    INDUCTOR_COORDINATE_DESCENT("torch-inductor-coordinate-descent", null, SafetyClass.B, Set.of(),
        "let TorchInductor tune its Triton kernels' block sizes by coordinate descent"
            + " (TORCHINDUCTOR_COORDINATE_DESCENT_TUNING=1)");

    final String id;
    final String hookName;
    final SafetyClass safety;
    final Set<Cause> addresses;
    final String description;

    Kind(String id, String hookName, SafetyClass safety, Set<Cause> addresses, String description) {
      this.id = id;
      this.hookName = hookName;
      this.safety = safety;
      this.addresses = addresses;
      this.description = description;
    }
  }

  static List<TorchLever> all() {
    return Arrays.stream(Kind.values()).map(TorchLever::new).toList();
  }

  @Override
  public LeverSpec spec() {
    return new LeverSpec(kind.id, kind.description, kind.addresses, kind.safety, Scope.PROCESS);
  }

  @Override
  public Applicability check(LeverContext c) {
    Applicability no = Checks.processJob(c);
    if (no != null) {
      return no;
    }
    if (Double.isNaN(c.fact(LeverContext.FACT_TORCH_STEPS, Double.NaN))) {
      return Applicability.never("gitm's Python hook saw no torch in the job (not a PyTorch program, or the hook"
          + " is off)");
    }
    if (asked(c.setup()).contains(kind.hookName) || isSet(c.setup())) {
      return Applicability.no(kind.id + " is already applied");
    }
    return switch (kind) {
      case TF32 -> tf32(c);
      case CUDNN_BENCHMARK -> convs(c, LeverContext.FACT_TORCH_CUDNN_BENCHMARK, "the job already sets"
          + " torch.backends.cudnn.benchmark");
      case CHANNELS_LAST -> channelsLast(c);
      case THREADS -> threads(c);
      case LOADER_WORKERS -> loaderWorkers(c);
      case LOADER_PIN_MEMORY -> pinMemory(c);
      case LOADER_PERSISTENT, LOADER_PREFETCH -> withWorkers(c);
      case INDUCTOR_MAX_AUTOTUNE, INDUCTOR_COORDINATE_DESCENT -> c.fact(LeverContext.FACT_TORCH_COMPILE, 0) > 0
          ? Applicability.yes("the job calls torch.compile " + (int) c.fact(LeverContext.FACT_TORCH_COMPILE, 0)
              + " time(s)")
          : Applicability.never("the job does not call torch.compile, so TorchInductor compiles nothing");
    };
  }

  private static Applicability tf32(LeverContext c) {
    if (c.fact(LeverContext.FACT_TORCH_CUDA, 0) < 1) {
      return Applicability.never("torch saw no CUDA device: TF32 is a tensor-core mode");
    }
    if (c.fact(LeverContext.FACT_TORCH_TF32, 0) >= 1) {
      return Applicability.never("the job already allows TF32 for FP32 matrix products");
    }
    for (String v : List.of("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "NVIDIA_TF32_OVERRIDE")) {
      if ("1".equals(c.setup().environment().get(v))) {
        return Applicability.no(v + "=1 already makes the FP32 products TF32");
      }
    }
    return Applicability.yes("the job leaves FP32 matrix products at full FP32 precision");
  }

  private static Applicability threads(LeverContext c) {
    double now = c.fact(LeverContext.FACT_TORCH_THREADS, Double.NaN);
    int fit = OmpThreads.threads(c, c.setup());
    if (Double.isNaN(now)) {
      return Applicability.never("gitm's Python hook reported no intra-op thread count");
    }
    if (fit < 1) {
      return Applicability.no("the CPUs the job may use are unknown");
    }
    if (now <= fit) {
      return Applicability.never(String.format(Locale.ROOT, "the job's %d intra-op threads fit the %d CPU(s) it may"
          + " use per busy process", (int) now, fit));
    }
    return Applicability.yes(String.format(Locale.ROOT, "the job runs %d intra-op threads where %d CPU(s) per busy"
        + " process are free for them", (int) now, fit));
  }

  private static Applicability convs(LeverContext c, String setFact, String alreadySet) {
    if (c.fact(LeverContext.FACT_TORCH_CUDA, 0) < 1) {
      return Applicability.never("torch saw no CUDA device (cuDNN runs only there)");
    }
    if (c.fact(LeverContext.FACT_TORCH_CONV_MODULES, 0) < 1) {
      return Applicability.never("the job calls no 2-D convolution module");
    }
    if (setFact != null && c.fact(setFact, 0) >= 1) {
      return Applicability.never(alreadySet);
    }
    return Applicability.yes("the job calls " + (int) c.fact(LeverContext.FACT_TORCH_CONV_MODULES, 0)
        + " 2-D convolution module(s)");
  }

  private static Applicability channelsLast(LeverContext c) {
    Applicability a = convs(c, null, null);
    if (!a.applies()) {
      return a;
    }
    double share = c.fact(LeverContext.FACT_TORCH_CHANNELS_LAST_SHARE, 0);
    if (share >= 0.5) {
      return Applicability.never(String.format(Locale.ROOT, "%.0f%% of the convolutions' inputs are channels-last"
          + " already", 100 * share));
    }
    return a;
  }

  private static Applicability loaderWorkers(LeverContext c) {
    double map = c.fact(LeverContext.FACT_TORCH_MAP_LOADERS, 0);
    double iterable = c.fact(LeverContext.FACT_TORCH_ITERABLE_LOADERS, 0);
    if (map < 1) {
      return Applicability.never(iterable >= 1 ? "the job's DataLoaders iterate IterableDatasets: each worker would"
          + " iterate the whole dataset unless it shards itself by worker, so its data would repeat"
          : "the job makes no DataLoader");
    }
    if (c.fact(LeverContext.FACT_TORCH_LOADER_WORKERS, 0) >= 1) {
      return Applicability.never("the job's DataLoaders already have workers");
    }
    if (workers(c) < 1) {
      return Applicability.never("the job has no CPU to spare for a worker");
    }
    return Applicability.yes(String.format(Locale.ROOT, "the job's DataLoader loads in its main process and the"
        + " steps wait %.1f%% of their time for batches", 100 * c.fact(LeverContext.FACT_TORCH_DATA_WAIT_SHARE, 0)));
  }

  private static Applicability pinMemory(LeverContext c) {
    if (c.fact(LeverContext.FACT_TORCH_CUDA, 0) < 1) {
      return Applicability.never("torch saw no CUDA device: no batch is copied to one");
    }
    if (c.fact(LeverContext.FACT_TORCH_MAP_LOADERS, 0) + c.fact(LeverContext.FACT_TORCH_ITERABLE_LOADERS, 0) < 1) {
      return Applicability.never("the job makes no DataLoader");
    }
    if (c.fact(LeverContext.FACT_TORCH_PIN_MEMORY, 0) >= 1) {
      return Applicability.never("the job's DataLoaders already pin their batches");
    }
    return Applicability.yes("the job's DataLoader returns pageable batches");
  }

  private Applicability withWorkers(LeverContext c) {
    boolean workers = c.fact(LeverContext.FACT_TORCH_LOADER_WORKERS, 0) >= 1
        || asked(c.setup()).contains(Kind.LOADER_WORKERS.hookName);
    if (!workers) {
      return Applicability.no("the job's DataLoaders have no workers (torch-dl-workers first)");
    }
    if (kind == Kind.LOADER_PERSISTENT && c.fact(LeverContext.FACT_TORCH_PERSISTENT_WORKERS, 0) >= 1) {
      return Applicability.never("the job's DataLoaders already keep their workers");
    }
    return Applicability.yes("the job's DataLoaders load in workers");
  }

  /** Workers for a DataLoader: the CPUs the job may use, less one for the training loop, at most 8. */
  static int workers(LeverContext c) {
    int cpus = !c.setup().cpus().isEmpty() ? c.setup().cpus().size()
        : (int) c.fact(LeverContext.FACT_HOST_CPUS, Runtime.getRuntime().availableProcessors());
    return Math.min(MAX_WORKERS, cpus - 1);
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    return switch (kind) {
      case INDUCTOR_MAX_AUTOTUNE -> s.withEnvironment("TORCHINDUCTOR_MAX_AUTOTUNE", "1");
      case INDUCTOR_COORDINATE_DESCENT -> s.withEnvironment("TORCHINDUCTOR_COORDINATE_DESCENT_TUNING", "1");
      default -> {
        String item = switch (kind) {
          case LOADER_WORKERS -> kind.hookName + "=" + Math.max(1, workers(c.withSetup(s)));
          case LOADER_PREFETCH -> kind.hookName + "=4";
          case THREADS -> kind.hookName + "=" + Math.max(1, OmpThreads.threads(c, s));
          default -> kind.hookName;
        };
        String was = s.environment().get(VARIABLE);
        yield s.withEnvironment(VARIABLE, was == null || was.isBlank() ? item : was + "," + item);
      }
    };
  }

  private boolean isSet(Setup s) {
    return switch (kind) {
      case INDUCTOR_MAX_AUTOTUNE -> s.environment().containsKey("TORCHINDUCTOR_MAX_AUTOTUNE");
      case INDUCTOR_COORDINATE_DESCENT -> s.environment().containsKey("TORCHINDUCTOR_COORDINATE_DESCENT_TUNING");
      default -> false;
    };
  }

  /** The hook lever names a setup asks for. */
  static List<String> asked(Setup s) {
    String v = s.environment().get(VARIABLE);
    List<String> out = new ArrayList<>();
    if (v != null) {
      for (String item : v.split(",")) {
        String n = item.split("=", 2)[0].strip();
        if (!n.isEmpty()) {
          out.add(n);
        }
      }
    }
    return out;
  }

  /**
   * From the facts, Amdahl's way: TF32 makes the FP32 GEMM share 4× faster (PyTorch's CUDA notes give ~7× per large
   * GEMM on A100; the H200 measured 8.1× on an 8192³ GEMM); channels-last makes the convolution share 1.25× faster
   * (PyTorch's memory-format tutorial: 8–35% over 28 torchvision models); cuDNN benchmark 1.1× (3% measured on one
   * H200 shape, up to 2.4× reported on older GPUs); N DataLoader workers leave a 1/N of the data wait; the
   * others have no estimate of their own.
   */
  @Override
  public OptionalDouble expectedGain(LeverContext c) {
    return switch (kind) {
      case TF32 -> Checks.amdahl(c.fact(LeverContext.FACT_FP32_GEMM_SHARE, Double.NaN), 4);
      case CHANNELS_LAST -> Checks.amdahl(c.fact(LeverContext.FACT_CONV_SHARE, Double.NaN), 1.25);
      case CUDNN_BENCHMARK -> Checks.amdahl(c.fact(LeverContext.FACT_CONV_SHARE, Double.NaN), 1.1);
      case LOADER_WORKERS -> Checks.amdahl(c.fact(LeverContext.FACT_TORCH_DATA_WAIT_SHARE, Double.NaN),
          Math.max(1, workers(c)));
      case LOADER_PREFETCH -> Checks.amdahl(c.fact(LeverContext.FACT_TORCH_DATA_WAIT_SHARE, Double.NaN), 2);
      default -> OptionalDouble.empty();
    };
  }

  @Override
  public Optional<String> expectationBasis(LeverContext c) {
    OptionalDouble g = expectedGain(c);
    if (g.isEmpty()) {
      return Optional.empty();
    }
    String[] basis = switch (kind) {
      case TF32 -> new String[] {LeverContext.FACT_FP32_GEMM_SHARE, "FP32 GEMM kernels without tensor cores"};
      case CHANNELS_LAST, CUDNN_BENCHMARK -> new String[] {LeverContext.FACT_CONV_SHARE, "convolution kernels"};
      default -> new String[] {LeverContext.FACT_TORCH_DATA_WAIT_SHARE, "waiting for the DataLoader's next batch"};
    };
    return Optional.of(String.format(Locale.ROOT, "the profiled run spent %.1f%% of its %s in %s (fact %s);"
        + " expected %.0f%% faster", 100 * c.fact(basis[0], 0),
        basis[0].equals(LeverContext.FACT_TORCH_DATA_WAIT_SHARE) ? "steps" : "traced span", basis[1], basis[0],
        100 * g.getAsDouble()));
  }

  /** TF32 is the arithmetic the environment's TF32 levers also give. */
  @Override
  public Set<String> numerics() {
    return kind == Kind.TF32 ? Set.of(TF32_MATH) : Set.of();
  }

  /** TF32 and channels-last change which kernels run (tensor-core GEMMs, NHWC convolutions). */
  @Override
  public boolean changesKernels() {
    return kind == Kind.TF32 || kind == Kind.CHANNELS_LAST || kind == Kind.CUDNN_BENCHMARK;
  }
}
