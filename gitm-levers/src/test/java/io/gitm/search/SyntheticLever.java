package io.gitm.search;

import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.LeverSpec;
import io.gitm.levers.SafetyClass;
import io.gitm.levers.Setup;
import java.util.Set;
import java.util.TreeMap;

/**
 * A lever for tests: applying it marks its id in the setup, where a {@link SyntheticJob} reads it. A lever that
 * needs the device reopened marks the environment (so its setup cannot be open beside the anchor); any other marks
 * the configuration's kernel variants.
 */
record SyntheticLever(String id, SafetyClass safety, boolean reopen, boolean applies, double trialCostSeconds,
    String needs) implements Lever {
  SyntheticLever(String id, SafetyClass safety, boolean reopen, boolean applies, double trialCostSeconds) {
    this(id, safety, reopen, applies, trialCostSeconds, null);
  }

  /** A lever that applies only once lever {@code first} is in the setup (as graph capture needs async copies). */
  static SyntheticLever needing(String id, String first) {
    return new SyntheticLever(id, SafetyClass.A, false, true, 0, first);
  }

  /**
   * A lever that applies only while lever {@code other} is not in the setup (as a pool threshold before
   * preallocation).
   */
  static SyntheticLever excludedBy(String id, String other) {
    return new SyntheticLever(id, SafetyClass.A, false, true, 0, "!" + other);
  }

  static final String VARIANT = "lever:";
  static final String ENV = "GITM_SYNTHETIC_";

  static SyntheticLever a(String id) {
    return new SyntheticLever(id, SafetyClass.A, false, true, 0);
  }

  static SyntheticLever b(String id) {
    return new SyntheticLever(id, SafetyClass.B, false, true, 0);
  }

  static SyntheticLever c(String id) {
    return new SyntheticLever(id, SafetyClass.C, true, true, 0);
  }

  static SyntheticLever reopening(String id) {
    return new SyntheticLever(id, SafetyClass.A, true, true, 0);
  }

  static SyntheticLever notApplying(String id) {
    return new SyntheticLever(id, SafetyClass.A, false, false, 0);
  }

  @Override
  public LeverSpec spec() {
    return new LeverSpec(id, "synthetic lever " + id, Set.of(), safety, Scope.MANAGED);
  }

  @Override
  public Applicability check(LeverContext context) {
    if (needs != null && needs.startsWith("!") && SyntheticJob.levers(context.setup()).contains(needs.substring(1))) {
      return Applicability.no("synthetic lever " + id + " does not apply beside " + needs.substring(1));
    }
    if (needs != null && !needs.startsWith("!") && !SyntheticJob.levers(context.setup()).contains(needs)) {
      return Applicability.no("synthetic lever " + id + " needs " + needs + " first");
    }
    return applies ? Applicability.yes("synthetic") : Applicability.no("synthetic lever " + id + " never applies");
  }

  @Override
  public Setup apply(Setup setup, LeverContext context) {
    if (reopen) {
      return setup.withEnvironment(ENV + id, "1");
    }
    TreeMap<String, String> variants = new TreeMap<>(setup.config().kernelVariants());
    variants.put(VARIANT + id, "on");
    return setup.withConfig(setup.config().withKernelVariants(variants));
  }
}
