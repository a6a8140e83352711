package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.device.DeviceInfo;
import io.gitm.workload.WorkloadSpec;
import java.util.List;
import java.util.Map;

/**
 * What a lever's precondition may look at.
 *
 * @param workload the managed workload's spec (knobs it honours, variants it ships, output tolerance); null for a
 *     process job
 * @param device the device the job runs on; null when unknown
 * @param hypotheses the ranked attribution, best first
 * @param traceFacts facts read off the captured trace and the host, by name (the {@code FACT_*} constants, e.g.
 *     {@code streams}, {@code pageableCopies}, {@code plainAllocations}, {@code launches}, {@code gemms}); absent =
 *     unknown
 * @param allowDeviceSettings whether class-C levers may be used ({@code --allow-device-settings})
 * @param setup the setup a lever would be applied to (the agent's anchor): a lever already in effect there does
 *     not apply
 */
public record LeverContext(WorkloadSpec workload, DeviceInfo device, List<Hypothesis> hypotheses,
    Map<String, Double> traceFacts, boolean allowDeviceSettings, Setup setup) {
  /** Host-to-device or device-to-host copies whose host side was pageable. */
  public static final String FACT_PAGEABLE_COPIES = "pageableCopies";
  /** Plain (synchronizing) device allocations and frees, {@code cuMemAlloc}/{@code cuMemFree}. */
  public static final String FACT_PLAIN_ALLOCATIONS = "plainAllocations";
  /** Kernel launches (one per {@code cuLaunchKernel}; a graph launch counts once). */
  public static final String FACT_LAUNCHES = "launches";
  /** GEMM kernels (cuBLAS or the simulator's). */
  public static final String FACT_GEMMS = "gemms";
  /** Streams that carried device work. */
  public static final String FACT_STREAMS = "streams";
  /** Kernels launched with dynamic shared memory. */
  public static final String FACT_SHARED_MEMORY_KERNELS = "sharedMemoryKernels";
  /** Logical CPUs the job may run on. */
  public static final String FACT_HOST_CPUS = "hostCpus";
  /** A CPU of the NUMA node closest to the GPU (NVML's CPU affinity of the device). */
  public static final String FACT_GPU_LOCAL_CPU = "gpuLocalCpu";
  /** Host threads of the job that want a CPU at once (busy threads, e.g. data loaders and the launching thread). */
  public static final String FACT_HOST_THREADS = "hostThreads";
  /** Processes of a black-box job that were busy on the host at once (the most seen in its profile). */
  public static final String FACT_JOB_PROCESSES = "jobProcesses";
  /** Share of a traced span spent in FP32 GEMM kernels that do not use tensor cores. */
  public static final String FACT_FP32_GEMM_SHARE = "fp32GemmShare";
  /** Share of a traced span the host spent in device allocation and free calls. */
  public static final String FACT_ALLOCATION_SHARE = "allocationShare";
  /** The variable naming the framework levers gitm's Python hook applies ({@code name[=value]} items, commas). */
  public static final String TORCH_LEVERS_VARIABLE = "GITM_TORCH_LEVERS";
  /** Share of a traced span spent in convolution kernels (cuDNN's and CUTLASS's, by name). */
  public static final String FACT_CONV_SHARE = "convShare";
  /** Steps the job's main process made in its profiled run, as gitm's Python hook counted them (absent: no torch). */
  public static final String FACT_TORCH_STEPS = "torchSteps";
  /** Share of the job's steady steps spent waiting in DataLoader iterators for the next batch. */
  public static final String FACT_TORCH_DATA_WAIT_SHARE = "torchDataWaitShare";
  /** DataLoaders over map-style datasets the job made. */
  public static final String FACT_TORCH_MAP_LOADERS = "torchMapLoaders";
  /** DataLoaders over IterableDatasets the job made. */
  public static final String FACT_TORCH_ITERABLE_LOADERS = "torchIterableLoaders";
  /** The fewest workers ({@code num_workers}) of the job's map-style DataLoaders. */
  public static final String FACT_TORCH_LOADER_WORKERS = "torchLoaderWorkers";
  /** 1 when every DataLoader of the job pins its batches ({@code pin_memory}), else 0. */
  public static final String FACT_TORCH_PIN_MEMORY = "torchPinMemory";
  /** 1 when every DataLoader with workers keeps them between epochs ({@code persistent_workers}), else 0. */
  public static final String FACT_TORCH_PERSISTENT_WORKERS = "torchPersistentWorkers";
  /** 1 when the job allows TF32 for FP32 matrix products ({@code torch.backends.cuda.matmul.allow_tf32}), else 0. */
  public static final String FACT_TORCH_TF32 = "torchTf32";
  /** 1 when the job sets {@code torch.backends.cudnn.benchmark}, else 0. */
  public static final String FACT_TORCH_CUDNN_BENCHMARK = "torchCudnnBenchmark";
  /** 2-D convolution modules the job called. */
  public static final String FACT_TORCH_CONV_MODULES = "torchConvModules";
  /** Share of the 4-D inputs of those convolutions that were channels-last. */
  public static final String FACT_TORCH_CHANNELS_LAST_SHARE = "torchChannelsLastShare";
  /** Calls of {@code torch.compile} by the job. */
  public static final String FACT_TORCH_COMPILE = "torchCompile";
  /** Autocast regions the job entered. */
  public static final String FACT_TORCH_AUTOCAST = "torchAutocast";
  /** 1 when torch saw a CUDA device in the job, else 0. */
  public static final String FACT_TORCH_CUDA = "torchCuda";
  /** torch's intra-op threads in the job's main process (torch.get_num_threads) after its first steps. */
  public static final String FACT_TORCH_THREADS = "torchThreads";

  public LeverContext {
    hypotheses = List.copyOf(hypotheses == null ? List.of() : hypotheses);
    traceFacts = Map.copyOf(traceFacts == null ? Map.of() : traceFacts);
    setup = setup == null ? Setup.shipped() : setup;
  }

  /** A context whose setup is the job's shipped one. */
  public LeverContext(WorkloadSpec workload, DeviceInfo device, List<Hypothesis> hypotheses,
      Map<String, Double> traceFacts, boolean allowDeviceSettings) {
    this(workload, device, hypotheses, traceFacts, allowDeviceSettings, Setup.shipped());
  }

  /** This context, for a lever to be applied to {@code s}. */
  public LeverContext withSetup(Setup s) {
    return new LeverContext(workload, device, hypotheses, traceFacts, allowDeviceSettings, s);
  }

  public double fact(String name, double otherwise) {
    return traceFacts.getOrDefault(name, otherwise);
  }

  /** Whether the attribution names {@code cause} among its hypotheses. */
  public boolean suspects(Cause cause) {
    return hypotheses.stream().anyMatch(h -> h.cause() == cause);
  }
}
