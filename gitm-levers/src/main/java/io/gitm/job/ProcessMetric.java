package io.gitm.job;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * How a black-box job's headline number is read after each run.
 *
 * <ul>
 *   <li>{@code WALL}: the process's wall time in seconds, as gitm measures it from start to exit (lower is better);
 *   <li>{@code REGEX}: the last match of {@code regex} in the job's stdout, else in its stderr; its first group (or
 *       the whole match when it has none) is the number;
 *   <li>{@code FILE}: a file the job writes ({@code file}, relative to its working directory): its whole text is the
 *       number, or, with a {@code regex}, the last match in it as for {@code REGEX};
 *   <li>{@code STEPS}: a PyTorch job's own optimizer steps per second after its warm-up steps, as gitm's Python hook
 *       counted them ({@link TorchHook}; higher is better);
 *   <li>{@code SAMPLES}: the samples per second of the same steps, from the batch sizes of the DataLoader batches.
 * </ul>
 *
 * @param regex the pattern's source, or null for {@code WALL} (and a plain {@code FILE})
 * @param name how reports name the metric, e.g. {@code it/s} or {@code wall s}
 */
public record ProcessMetric(Kind kind, String regex, String file, boolean higherIsBetter, String name) {
  public enum Kind {
    WALL, REGEX, FILE, STEPS, SAMPLES
  }

  public ProcessMetric {
    if (kind == null) {
      throw new IllegalArgumentException("a metric needs a kind (wall, regex or file)");
    }
    if ((kind == Kind.STEPS || kind == Kind.SAMPLES) && (!higherIsBetter || regex != null || file != null)) {
      throw new IllegalArgumentException("--metric " + kind.name().toLowerCase(java.util.Locale.ROOT) + " is a rate"
          + " counted by gitm's Python hook: higher is better, and it takes no pattern or file");
    }
    if (kind == Kind.WALL && higherIsBetter) {
      throw new IllegalArgumentException("--metric wall is a time: lower is better");
    }
    if (kind == Kind.REGEX && (regex == null || regex.isEmpty())) {
      throw new IllegalArgumentException("--metric-regex needs a pattern");
    }
    if (kind == Kind.FILE && (file == null || file.isBlank())) {
      throw new IllegalArgumentException("--metric-file needs a path");
    }
    if (regex != null) {
      if (kind == Kind.WALL) {
        throw new IllegalArgumentException("--metric wall takes no pattern");
      }
      try {
        Pattern.compile(regex, Pattern.MULTILINE);
      } catch (PatternSyntaxException e) {
        throw new IllegalArgumentException("--metric-regex '" + regex + "' is not a valid pattern: "
            + e.getDescription() + " near index " + e.getIndex());
      }
    }
    if (name == null || name.isBlank()) {
      name = switch (kind) {
        case WALL -> "wall s";
        case REGEX -> label(regex);
        case FILE -> Path.of(file).getFileName().toString();
        case STEPS -> "steps/s";
        case SAMPLES -> "samples/s";
      };
    }
  }

  /** A name read off a pattern: its literal text before the first group ({@code it/s} of {@code it/s: ([0-9.]+)}). */
  static String label(String regex) {
    int g = regex.indexOf('(');
    String head = (g < 0 ? regex : regex.substring(0, g)).replaceAll("\\\\(.)", "$1")
        .replaceAll("[\\^$*+?\\[\\]{}|]", "").replaceAll("[\\s:=]+$", "").strip();
    return head.isEmpty() || head.length() > 40 ? "metric" : head;
  }

  /** A metric counted by the hook: {@code STEPS} or {@code SAMPLES}. */
  public static ProcessMetric counted(Kind kind) {
    return new ProcessMetric(kind, null, null, true, null);
  }

  /** Whether the metric is read from gitm's Python hook, which must then be on. */
  public boolean needsHook() {
    return kind == Kind.STEPS || kind == Kind.SAMPLES;
  }

  public static ProcessMetric wall() {
    return new ProcessMetric(Kind.WALL, null, null, false, "wall s");
  }

  /** Why a run gave no number: the message names the pattern or file and what was found instead. */
  public static final class Missing extends Exception {
    public Missing(String message) {
      super(message);
    }
  }

  /**
   * The run's number.
   *
   * @param workdir where the job ran (a relative metric file resolves there)
   */
  public double read(String stdout, String stderr, Path workdir, double wallSeconds) throws Missing {
    return read(stdout, stderr, workdir, wallSeconds, TorchHook.Report.NONE);
  }

  /**
   * The run's number, a counted one from what the hook wrote in the run's folder ({@code hook}).
   *
   * @param workdir where the job ran (a relative metric file resolves there)
   */
  public double read(String stdout, String stderr, Path workdir, double wallSeconds, TorchHook.Report hook)
      throws Missing {
    return switch (kind) {
      case STEPS, SAMPLES -> counted(hook);
      case WALL -> wallSeconds;
      case REGEX -> {
        Double v = lastMatch(stdout);
        if (v == null) {
          v = lastMatch(stderr);
        }
        if (v == null) {
          throw new Missing("--metric-regex '" + regex + "' matched nothing in the job's stdout or stderr (last line: "
              + lastLine(stdout.isBlank() ? stderr : stdout) + ")");
        }
        yield v;
      }
      case FILE -> {
        Path f = workdir.resolve(file);
        if (!Files.isRegularFile(f)) {
          throw new Missing("metric file " + file + " was not written");
        }
        String text;
        try {
          text = Files.readString(f, StandardCharsets.UTF_8);
        } catch (IOException e) {
          throw new Missing("metric file " + file + " cannot be read: " + e.getMessage());
        }
        if (regex != null) {
          Double v = lastMatch(text);
          if (v == null) {
            throw new Missing("--metric-regex '" + regex + "' matched nothing in metric file " + file);
          }
          yield v;
        }
        yield number(text.strip(), "metric file " + file);
      }
    };
  }

  private double counted(TorchHook.Report hook) throws Missing {
    if (!hook.torch()) {
      throw new Missing("--metric " + name + " is counted by gitm's Python hook, and no process of the job imported"
          + " torch" + (hook.error() == null ? "" : " (the hook failed: " + hook.error() + ")")
          + ": use --metric-regex or --metric wall for a job that is not a PyTorch program");
    }
    if (hook.error() != null) {
      throw new Missing("gitm's Python hook failed and turned itself off, so it counted no steps: " + hook.error());
    }
    java.util.OptionalDouble v = kind == Kind.STEPS ? hook.stepsPerSecond() : hook.samplesPerSecond();
    if (v.isEmpty()) {
      throw new Missing(kind == Kind.STEPS
          ? "the job made " + hook.steps() + " step" + (hook.steps() == 1 ? "" : "s") + " (optimizer steps, or"
              + " forwards of its top module); a step rate needs at least 3"
          : "the hook saw no DataLoader batches to count samples in (" + hook.steps() + " steps): use --metric steps");
    }
    return v.getAsDouble();
  }

  private Double lastMatch(String text) throws Missing {
    Matcher m = Pattern.compile(regex, Pattern.MULTILINE).matcher(text);
    String last = null;
    while (m.find()) {
      last = m.groupCount() > 0 ? m.group(1) : m.group();
    }
    return last == null ? null : number(last.strip(), "the match of --metric-regex '" + regex + "'");
  }

  private static double number(String s, String what) throws Missing {
    try {
      double v = Double.parseDouble(s.replace("_", ""));
      if (!Double.isFinite(v)) {
        throw new Missing(what + " is " + s + ", not a finite number");
      }
      return v;
    } catch (NumberFormatException e) {
      throw new Missing(what + " is \"" + abbreviate(s) + "\", not a number");
    }
  }

  static String lastLine(String text) {
    String t = text == null ? "" : text.strip();
    if (t.isEmpty()) {
      return "the job printed nothing";
    }
    int nl = t.lastIndexOf('\n');
    return "\"" + abbreviate(nl < 0 ? t : t.substring(nl + 1).strip()) + "\"";
  }

  private static String abbreviate(String s) {
    return s.length() > 120 ? s.substring(0, 117) + "..." : s;
  }

  /** The metric as a person reads it in a report: kind, source and direction. */
  public String describe() {
    String dir = higherIsBetter ? "higher is better" : "lower is better";
    return switch (kind) {
      case WALL -> "wall time of the process, s (" + dir + ")";
      case REGEX -> "last match of /" + regex + "/ in the job's output (" + dir + ")";
      case FILE -> "metric file " + file + (regex == null ? "" : " matched by /" + regex + "/") + " (" + dir + ")";
      case STEPS -> "the job's optimizer steps per second after its warm-up steps, counted by gitm's Python hook ("
          + dir + ")";
      case SAMPLES -> "the job's samples per second (DataLoader batch sizes) after its warm-up steps, counted by"
          + " gitm's Python hook (" + dir + ")";
    };
  }
}
