package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.os.CpuAffinity;
import java.util.Set;

/**
 * The job's host thread (a managed job's: the thread that runs its iterations) or a process job's threads pinned to
 * one CPU: a CPU of the GPU's NUMA node when known ({@link LeverContext#FACT_GPU_LOCAL_CPU}), else the host's last
 * CPU (away from CPU 0, which takes most interrupts). The thread stops migrating between cores and keeps its caches.
 * Managed jobs pin through {@link CpuAffinity} (Linux only). Replay does not model it: the trace does not show
 * migrations.
 */
record HostCpuAffinity(Scope scope) implements Lever {
  HostCpuAffinity {
    if (scope != Scope.MANAGED && scope != Scope.PROCESS) {
      throw new IllegalArgumentException("CPU affinity acts on a managed or a process job, not " + scope);
    }
  }

  @Override
  public LeverSpec spec() {
    return new LeverSpec(scope == Scope.MANAGED ? "cpu-affinity" : "process-cpu-affinity",
        "pin the job's host " + (scope == Scope.MANAGED ? "thread" : "threads") + " to one CPU near the GPU",
        Set.of(Cause.LAUNCH_BOUND_HOST), SafetyClass.A, scope);
  }

  @Override
  public Applicability check(LeverContext c) {
    if (scope == Scope.MANAGED && c.workload() == null) {
      return Applicability.no("it pins a managed job's host thread, and this is a process job (see "
          + "process-cpu-affinity)");
    }
    if (scope == Scope.PROCESS) {
      Applicability no = Checks.processJob(c);
      if (no != null) {
        return no;
      }
      double procs = c.fact(LeverContext.FACT_JOB_PROCESSES, 1);
      if (procs > 1) {
        return Applicability.no("the job runs " + (int) procs + " busy processes: pinning them all to one CPU would"
            + " serialize them");
      }
      Applicability torch = torchThreads(c);
      if (torch != null) {
        return torch;
      }
    }
    if (scope == Scope.MANAGED && !CpuAffinity.supported()) {
      return Applicability.no("pinning threads is unsupported here: " + CpuAffinity.unsupportedReason());
    }
    int cpu = cpu(c);
    if (cpu < 0) {
      return Applicability.no("the host's CPUs are unknown (no " + LeverContext.FACT_GPU_LOCAL_CPU + " or "
          + LeverContext.FACT_HOST_CPUS + " fact)");
    }
    if (c.setup().cpus().equals(Set.of(cpu))) {
      return Applicability.no("the job is already pinned to CPU " + cpu);
    }
    return Applicability.yes(c.setup().cpus().isEmpty() ? "the job's threads may run on any CPU"
        : "the job is pinned to CPUs " + c.setup().cpus());
  }

  /**
   * Why a PyTorch job is not pinned, or null: torch's intra-op thread pool of several threads, or DataLoader worker
   * processes (the job's or asked of the hook), which inherit the affinity, would all share the one CPU.
   */
  private static Applicability torchThreads(LeverContext c) {
    double threads = c.fact(LeverContext.FACT_TORCH_THREADS, Double.NaN);
    if (threads > 1) {
      return Applicability.no("torch runs " + (int) threads + " intra-op threads in the job: pinning them to one CPU"
          + " would serialize them");
    }
    if (c.fact(LeverContext.FACT_TORCH_LOADER_WORKERS, 0) > 0
        || TorchLever.asked(c.setup()).contains(TorchLever.Kind.LOADER_WORKERS.hookName)) {
      return Applicability.no("the job's DataLoader workers would inherit the one CPU and load on it one at a time");
    }
    return null;
  }

  /** The CPU to pin to, or -1 when the facts do not say. */
  private static int cpu(LeverContext c) {
    double local = c.fact(LeverContext.FACT_GPU_LOCAL_CPU, Double.NaN);
    if (local >= 0) {
      return (int) local;
    }
    double cpus = c.fact(LeverContext.FACT_HOST_CPUS, Double.NaN);
    return cpus >= 1 ? (int) cpus - 1 : -1;
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    int cpu = cpu(c);
    if (cpu < 0) {
      throw new IllegalArgumentException(id() + " needs the " + LeverContext.FACT_GPU_LOCAL_CPU + " or "
          + LeverContext.FACT_HOST_CPUS + " fact");
    }
    return s.withCpus(Set.of(cpu));
  }
}
