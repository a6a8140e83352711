package io.gitm.trace;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A change to how a recorded trace's host program would run, for counterfactual replay: a set of primitive
 * {@link Transform}s, each of which does one thing differently (copies pinned, allocations pooled, launches graphed,
 * kernels in another precision …). A lever states what it would change as such a value, and the replay engine
 * interprets it; neither knows the other.
 *
 * <p>A change is a value: the same transforms make equal changes whatever order they were given in. A transform that
 * sets what an earlier one set (the target precision of the same source precision, the host gap factor, the faults)
 * replaces it, and one that leaves the run as it was (host gaps times 1, no faults) is not held.
 *
 * @param transforms the transforms, one per thing they set, in a fixed order
 */
public record TraceChange(List<Transform> transforms) {
  public TraceChange {
    if (transforms == null) {
      throw new IllegalArgumentException("a trace change needs a list of transforms (empty for none)");
    }
    SortedMap<Integer, Transform> bySlot = new TreeMap<>();
    for (Transform t : transforms) {
      if (t == null) {
        throw new IllegalArgumentException("a trace change holds a null transform");
      }
      bySlot.put(slot(t), t);
    }
    bySlot.values().removeIf(TraceChange::neutral);
    transforms = List.copyOf(bySlot.values());
  }

  /** No change: the trace replayed as it was (a check of the model against the trace). */
  public static TraceChange none() {
    return new TraceChange(List.of());
  }

  public static TraceChange of(Transform... transforms) {
    return new TraceChange(List.of(transforms));
  }

  /** This change with {@code t} too (in place of what this change set to what {@code t} sets). */
  public TraceChange with(Transform t) {
    List<Transform> all = new ArrayList<>(transforms);
    all.add(t);
    return new TraceChange(all);
  }

  /** This change followed by {@code later}: where both set the same thing, {@code later}'s transform holds. */
  public TraceChange and(TraceChange later) {
    List<Transform> all = new ArrayList<>(transforms);
    all.addAll(later.transforms);
    return new TraceChange(all);
  }

  /** One thing a recorded run would do differently. */
  public sealed interface Transform
      permits PinnedCopies, PoolAllocations, GraphLaunches, CopiesOnSideStream, KernelPrecision, HostGapScale,
      DeviceFaults {
  }

  /** Pageable host copies become pinned: asynchronous, at the pinned rate. */
  public record PinnedCopies() implements Transform {
  }

  /** Plain allocations and frees become stream-ordered pool calls, which do not synchronize. */
  public record PoolAllocations() implements Transform {
  }

  /**
   * Each run of consecutive launches becomes one graph launch: one launch's host cost, and the host gaps inside the
   * run vanish.
   */
  public record GraphLaunches() implements Transform {
  }

  /** Asynchronous host-to-device copies run on a stream of their own, which their stream waits for. */
  public record CopiesOnSideStream() implements Transform {
  }

  /** Kernels declared in precision {@code from} run in {@code to} (FP32 to TF32: a math-mode change). */
  public record KernelPrecision(Precision from, Precision to) implements Transform {
    public KernelPrecision {
      if (from == null || to == null) {
        throw new IllegalArgumentException("a precision change needs the precision it changes and the new one");
      }
    }
  }

  /** The host time between calls times {@code factor} (1 = unchanged; 0 = host-bound gaps removed). */
  public record HostGapScale(double factor) implements Transform {
    public HostGapScale {
      if (!(factor >= 0) || Double.isInfinite(factor)) {
        throw new IllegalArgumentException("host gap scale must be a non-negative number, got " + factor);
      }
    }
  }

  /**
   * The replaying device runs with the faults of {@code spec}, in the simulator's fault syntax ({@code ""}: none, the
   * faults of the recorded run removed).
   */
  public record DeviceFaults(String spec) implements Transform {
    public DeviceFaults {
      spec = spec == null ? "" : spec;
    }
  }

  /** What a transform sets: two transforms of one slot cannot both hold. */
  private static int slot(Transform t) {
    return switch (t) {
      case PinnedCopies _ -> 0;
      case PoolAllocations _ -> 1;
      case GraphLaunches _ -> 2;
      case CopiesOnSideStream _ -> 3;
      case HostGapScale _ -> 4;
      case DeviceFaults _ -> 5;
      case KernelPrecision k -> 6 + k.from().ordinal();
    };
  }

  /** Whether {@code t} leaves a run as it was recorded. */
  private static boolean neutral(Transform t) {
    return t instanceof HostGapScale h && h.factor() == 1 || t instanceof DeviceFaults f && f.spec().isEmpty();
  }
}
