package io.gitm.levers;

import io.gitm.device.Device;
import io.gitm.device.Kernel;
import io.gitm.device.KernelDef;
import io.gitm.device.KernelModule;
import io.gitm.device.LaunchConfig;
import io.gitm.device.Module;
import io.gitm.trace.Dim3;
import io.gitm.trace.Precision;
import io.gitm.trace.Work;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.IterationResult;
import io.gitm.workload.Knob;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import io.gitm.workload.WorkloadSpec;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A job whose one kernel stages tiles in dynamic shared memory (16 KiB a block of 128 threads), for the carve-out
 * lever: each step launches it over 8 blocks a multiprocessor of the h200 and waits. It honours
 * {@link Knob#SHARED_CARVEOUT}; its output is empty (the kernel's emulation writes nothing).
 */
final class SharedMemoryWorkload implements Workload {
  static final String KERNEL = "tile_stage";
  static final int SHARED_BYTES = 16 * 1024;
  static final int THREADS = 128;
  static final int BLOCKS = 132 * 8;
  static final int STEPS = 3;
  static final KernelModule MODULE = new KernelModule("tiles", "/kernels/tiles.cu", List.of(
      new KernelDef(KERNEL, (c, a) -> new Work(0, Precision.FP32, 64L << 20, 64L << 20), (c, a) -> {
      })));

  @Override
  public WorkloadSpec spec() {
    return new WorkloadSpec("shared-memory-test", "one kernel staging tiles in shared memory", List.of(MODULE),
        Set.of(Knob.SHARED_CARVEOUT), Map.of(), 0, "launches/s", true);
  }

  @Override
  public Session open(Device device, ExecutionConfig config, Path dataDir) {
    Module m = device.load(MODULE);
    Kernel k = m.kernel(KERNEL);
    if (config.sharedCarveoutPercent() >= 0) {
      k.setPreferredSharedCarveout(config.sharedCarveoutPercent());
    }
    return new Session() {
      int done;

      @Override
      public IterationResult step() {
        long t0 = device.clock().nanos();
        device.launch(k, new LaunchConfig(Dim3.of(BLOCKS), Dim3.of(THREADS), SHARED_BYTES), device.defaultStream());
        device.synchronize();
        done++;
        return new IterationResult(device.clock().nanos() - t0, 1, Map.of());
      }

      @Override
      public boolean hasNext() {
        return done < STEPS;
      }

      @Override
      public OutputDigest output() {
        return new OutputDigest("", new double[0]);
      }

      @Override
      public void close() {
        m.close();
      }
    };
  }
}
