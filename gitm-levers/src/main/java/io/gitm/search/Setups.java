package io.gitm.search;

import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.SafetyClass;
import io.gitm.levers.Setup;
import io.gitm.rank.Candidate;
import java.util.ArrayList;
import java.util.List;

/**
 * Levers put to setups in the job's context: whether one applies to a setup (and why not), and several applied on
 * top of one, each once its precondition holds. A lever whose check or apply throws is taken as not applying.
 */
final class Setups {
  private final LeverContext context;

  Setups(LeverContext context) {
    this.context = context;
  }

  /** What a lever applied to {@code s} checks against and reads. */
  LeverContext on(Setup s) {
    return context.withSetup(s);
  }

  /** The job's output tolerance: its workload's, else {@code otherwise} (a process job's). */
  double tolerance(double otherwise) {
    return context.workload() != null ? context.workload().outputTolerance() : otherwise;
  }

  /** Whether class-C levers (device settings) may be used. */
  boolean allowDeviceSettings() {
    return context.allowDeviceSettings();
  }

  boolean applies(Candidate c, Setup on) {
    try {
      Lever.Applicability a = c.lever().check(on(on));
      return a != null && a.applies();
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** Why {@code lever} may not be tried on {@code on}, or null when it may. */
  String whyNot(Lever lever, Setup on) {
    try {
      if (lever.safety() == null) {
        return "it declares no safety class";
      }
      if (lever.safety() == SafetyClass.C && !context.allowDeviceSettings()) {
        return "it changes device settings (class C), which needs --allow-device-settings";
      }
      Lever.Applicability a = lever.check(on(on));
      if (a == null) {
        return "its precondition check gave no answer";
      }
      return a.applies() ? null : "it does not apply: " + a.reason();
    } catch (RuntimeException e) {
      return "its precondition check failed: " + e.getMessage();
    }
  }

  /**
   * {@code levers} applied on top of {@code from}, each once its precondition holds (in their order where several
   * do), or null when some never applies or cannot be applied.
   */
  Built arrange(Setup from, List<Candidate> levers) {
    List<Candidate> left = new ArrayList<>(levers);
    List<Candidate> order = new ArrayList<>();
    Setup s = from;
    while (!left.isEmpty()) {
      Setup next = null;
      Candidate used = null;
      for (Candidate c : left) {
        if (applies(c, s)) {
          try {
            next = c.lever().apply(s, on(s));
          } catch (RuntimeException e) {
            next = null;
          }
          if (next != null) {
            used = c;
            break;
          }
        }
      }
      if (used == null) {
        return null;
      }
      left.remove(used);
      order.add(used);
      s = next;
    }
    return new Built(s, order);
  }

  /** Levers applied one after another: the setup and the order they were applied in. */
  record Built(Setup setup, List<Candidate> order) {
  }
}
