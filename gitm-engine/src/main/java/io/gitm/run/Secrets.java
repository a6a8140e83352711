package io.gitm.run;

import io.gitm.job.ProcessSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What no file that leaves the machine shows of a black-box job's environment: the value of every variable outside
 * gitm's default allow-list ({@link ProcessSpec#DEFAULT_ALLOWED}), that is of every variable given with {@code --env}
 * (set there or passed from gitm's environment) unless it is an allow-listed name. Reports, {@code run.json},
 * {@code process.json} and the journal carry such a variable's name with {@value #REDACTED}; the values a resume needs
 * are kept only in the run folder's {@code secrets.json} (mode 0600, never synced).
 */
public final class Secrets {
  /** What stands for a redacted value. */
  public static final String REDACTED = "<redacted>";

  private Secrets() {}

  /** Whether the value of {@code name} is redacted. */
  public static boolean redacted(String name) {
    return !ProcessSpec.DEFAULT_ALLOWED.contains(name);
  }

  /** {@code env} with every redacted variable's value replaced by {@value #REDACTED}. */
  public static Map<String, String> redact(Map<String, String> env) {
    Map<String, String> out = new TreeMap<>();
    env.forEach((k, v) -> out.put(k, redacted(k) ? REDACTED : v));
    return out;
  }

  /** The values {@link #redact} hides, by name. */
  public static Map<String, String> hidden(Map<String, String> env) {
    Map<String, String> out = new TreeMap<>();
    env.forEach((k, v) -> {
      if (redacted(k)) {
        out.put(k, v);
      }
    });
    return out;
  }

  /**
   * A redacted environment with its values put back from {@code kept}.
   *
   * @throws IllegalArgumentException naming the variables whose values {@code kept} lacks
   */
  public static Map<String, String> restore(Map<String, String> redactedEnv, Map<String, String> kept) {
    Map<String, String> out = new TreeMap<>();
    List<String> missing = new ArrayList<>();
    redactedEnv.forEach((k, v) -> {
      if (REDACTED.equals(v) && redacted(k)) {
        if (kept.containsKey(k)) {
          out.put(k, kept.get(k));
        } else {
          missing.add(k);
        }
      } else {
        out.put(k, v);
      }
    });
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException("the values of " + String.join(", ", missing) + " are not kept in this run"
          + " folder (its secrets.json is missing or lacks them), so the job's environment cannot be restored");
    }
    return out;
  }

  /**
   * A command line with the value of every {@code --env NAME=VALUE} (or {@code --env=NAME=VALUE}) replaced by
   * {@value #REDACTED}; what follows {@code --cmd} is the job's own and left as it is.
   */
  public static List<String> redactCommandLine(List<String> args) {
    List<String> out = new ArrayList<>(args.size());
    boolean value = false;
    boolean job = false;
    for (String a : args) {
      if (job) {
        out.add(a);
      } else if (value) {
        out.add(hideValue(a));
        value = false;
      } else if (a.equals("--env")) {
        out.add(a);
        value = true;
      } else if (a.startsWith("--env=")) {
        out.add("--env=" + hideValue(a.substring("--env=".length())));
      } else {
        out.add(a);
        job = a.equals("--cmd");
      }
    }
    return out;
  }

  private static String hideValue(String assignment) {
    int eq = assignment.indexOf('=');
    return eq < 0 ? assignment : assignment.substring(0, eq + 1) + REDACTED;
  }
}
