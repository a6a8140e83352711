package io.gitm.levers;

import io.gitm.device.MathMode;
import io.gitm.device.SchedulingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The intervention library: every lever gitm knows, by id. Kernel-variant levers exist per workload (one per variant
 * it ships, id {@code kernel-variant:<family>=<variant>}); {@link #all()} lists the others, {@link #candidates} adds
 * the variants of the context's workload.
 */
public final class Levers {
  private static final List<Lever> FIXED = concat(List.of(
      new PinnedHostMemory(),
      new AsyncCopies(),
      new PoolAllocation(),
      new PoolReleaseThreshold(),
      new Preallocate(),
      new GraphCapture(),
      new PipelineStreams(2),
      new PipelineStreams(4),
      new StreamPriority(),
      new CopyComputeOverlap(),
      new OccupancyBlockSize(),
      new MathModeLever(MathMode.TF32),
      new MathModeLever(MathMode.BF16),
      new L2PersistWindow(),
      new SharedCarveout(),
      new SchedulingLever(SchedulingMode.SPIN),
      new SchedulingLever(SchedulingMode.YIELD),
      new SchedulingLever(SchedulingMode.BLOCKING_SYNC),
      new Warmup(),
      new HostCpuAffinity(Lever.Scope.MANAGED),
      new BatchCoalesce(2),
      new BatchCoalesce(4),
      EnvironmentLever.expandableSegments(),
      EnvironmentLever.deviceMaxConnections(),
      EnvironmentLever.eagerModuleLoading(),
      EnvironmentLever.tf32Override(),
      EnvironmentLever.torchTf32(),
      EnvironmentLever.cudaMallocAsync(),
      new OmpThreads(),
      new HostCpuAffinity(Lever.Scope.PROCESS),
      DeviceSettingLever.powerLimit(),
      DeviceSettingLever.smClock()), TorchLever.all());

  private static final Map<String, Lever> BY_ID = index();

  private Levers() {
  }

  private static List<Lever> concat(List<Lever> a, List<? extends Lever> b) {
    List<Lever> l = new ArrayList<>(a);
    l.addAll(b);
    return List.copyOf(l);
  }

  private static Map<String, Lever> index() {
    Map<String, Lever> m = new LinkedHashMap<>();
    for (Lever l : FIXED) {
      if (m.put(l.id(), l) != null) {
        throw new IllegalStateException("two levers with id " + l.id());
      }
    }
    return m;
  }

  /** Every lever but the per-workload kernel variants, in a fixed order. */
  public static List<Lever> all() {
    return FIXED;
  }

  /** The lever with id {@code id}; a {@code kernel-variant:<family>=<variant>} id makes that variant's lever. */
  public static Lever byId(String id) {
    if (id == null || id.isBlank()) {
      throw new IllegalArgumentException("no lever id given");
    }
    String k = id.strip();
    Lever l = BY_ID.get(k);
    if (l != null) {
      return l;
    }
    if (k.startsWith(KernelVariant.PREFIX)) {
      return KernelVariant.parse(k);
    }
    throw new IllegalArgumentException("unknown lever '" + k + "'; known: " + String.join(", ", BY_ID.keySet())
        + ", " + KernelVariant.PREFIX + "<family>=<variant>");
  }

  /** {@link #all()} and one lever per kernel variant the context's workload ships besides each family's default. */
  public static List<Lever> candidates(LeverContext context) {
    List<Lever> out = new ArrayList<>(FIXED);
    if (context.workload() != null) {
      for (var e : new TreeMap<>(context.workload().kernelVariants()).entrySet()) {
        // the first variant is the family's default, which the shipped setup already runs: choosing it again would
        // only undo another variant the gate kept
        for (String v : new LinkedHashSet<>(e.getValue().subList(Math.min(1, e.getValue().size()),
            e.getValue().size()))) {
          out.add(new KernelVariant(e.getKey(), v));
        }
      }
    }
    return out;
  }

  /** The candidates whose precondition holds in {@code context}. */
  public static List<Lever> applicable(LeverContext context) {
    return candidates(context).stream().filter(l -> l.check(context).applies()).toList();
  }
}
