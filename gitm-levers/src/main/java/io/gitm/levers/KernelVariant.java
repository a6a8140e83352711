package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.workload.Knob;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One shipped variant of one kernel family ({@link io.gitm.workload.WorkloadSpec#kernelVariants()}; the first listed
 * is the family's default): a different implementation of the same computation, e.g. hft-lob's warp-per-instrument
 * book kernel. Its id is {@code kernel-variant:<family>=<variant>}. Replay does not model it: it would need the
 * variant's work model, which the trace does not carry.
 */
record KernelVariant(String family, String variant) implements Lever {
  static final String PREFIX = "kernel-variant:";

  KernelVariant {
    if (family == null || family.isBlank() || variant == null || variant.isBlank() || family.contains("=")) {
      throw new IllegalArgumentException("a kernel-variant lever needs a family and a variant, got '" + family + "' = '"
          + variant + "'");
    }
  }

  /** The lever named {@code id} ({@code kernel-variant:family=variant}). */
  static KernelVariant parse(String id) {
    String rest = id.substring(PREFIX.length());
    int eq = rest.indexOf('=');
    if (eq <= 0 || eq == rest.length() - 1) {
      throw new IllegalArgumentException("lever id '" + id + "' is not kernel-variant:<family>=<variant>");
    }
    return new KernelVariant(rest.substring(0, eq), rest.substring(eq + 1));
  }

  /** Class A: the workload ships its variants as interchangeable implementations of the same computation. */
  @Override
  public LeverSpec spec() {
    return new LeverSpec(PREFIX + family + "=" + variant,
        "run kernel family " + family + " with its shipped variant '" + variant + "'",
        Set.of(Cause.MEMORY_BOUND_BELOW_ROOFLINE, Cause.EXCESS_TRAFFIC), SafetyClass.A, Scope.MANAGED);
  }

  @Override
  public Applicability check(LeverContext c) {
    Applicability no = Checks.honours(c, Knob.KERNEL_VARIANT);
    if (no != null) {
      return no;
    }
    List<String> shipped = c.workload().kernelVariants().get(family);
    if (shipped == null || !shipped.contains(variant)) {
      return Applicability.no(c.workload().name() + " ships no variant '" + variant + "' of " + family
          + (shipped == null ? "" : " (it ships " + shipped + ")"));
    }
    String now = c.setup().config().kernelVariants().getOrDefault(family, shipped.getFirst());
    if (now.equals(variant)) {
      return Applicability.no(family + " already runs its '" + variant + "' variant");
    }
    return Applicability.yes(family + " runs its '" + now + "' variant");
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    Map<String, String> v = new TreeMap<>(s.config().kernelVariants());
    v.put(family, variant);
    return s.withConfig(s.config().withKernelVariants(v));
  }

  /** Another variant of the kernel runs. */
  @Override
  public boolean changesKernels() {
    return true;
  }
}
