package io.gitm.run;

import io.gitm.job.LiveJob;
import io.gitm.stats.Sample;
import io.gitm.store.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A live run's step rate over time with every switch marked, from its job's windows and switches: {@code steps.md}
 * (a table) and {@code steps.svg} (the windows' rates against the job's time, a vertical line at each switch) in the
 * run folder, and the report's notes on them ({@code steps.jsonl} holds the same, as the job measured it).
 */
final class LiveSeries {
  private static final int WIDTH = 900;
  private static final int HEIGHT = 320;
  private static final int PAD = 50;

  private LiveSeries() {}

  /** Writes the table and the chart into {@code runDir} and returns the notes on them. */
  static List<String> write(Path runDir, LiveJob job) {
    List<LiveJob.Window> windows = job.windows();
    List<LiveJob.Switch> switches = job.switches();
    try {
      AtomicFiles.write(runDir.resolve("steps.md"), table(windows, switches).getBytes(StandardCharsets.UTF_8));
      AtomicFiles.write(runDir.resolve("steps.svg"), svg(windows, switches).getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the live run's step-rate series", e);
    }
    List<String> notes = new ArrayList<>();
    Map<String, List<Double>> by = new LinkedHashMap<>();
    for (LiveJob.Window w : windows) {
      by.computeIfAbsent(w.settings().toString(), k -> new ArrayList<>()).add(w.stepsPerSecond());
    }
    StringBuilder sb = new StringBuilder("step rate over time, every switch marked: steps.svg and steps.md in the"
        + " run folder (" + windows.size() + " windows, " + switches.size() + " switches); median steps/s by"
        + " settings:");
    by.forEach((k, v) -> sb.append(String.format(Locale.ROOT, " %s %.4g (%d windows);", k,
        Sample.median(v.stream().mapToDouble(Double::doubleValue).toArray()), v.size())));
    notes.add(sb.substring(0, sb.length() - 1));
    notes.add("the job " + (job.alive() ? "runs on (pid " + job.pid() + ")" : "has exited") + " with " + job.current()
        + " since gitm detached");
    return notes;
  }

  static String table(List<LiveJob.Window> windows, List<LiveJob.Switch> switches) {
    StringBuilder s = new StringBuilder("# Step rate of the live job\n\n| from (s) | to (s) | steps | steps/s | what |"
        + " settings |\n|---:|---:|---:|---:|---|---|\n");
    int k = 0;
    for (LiveJob.Window w : windows) {
      while (k < switches.size() && switches.get(k).step() <= w.from()) {
        appendSwitch(s, switches.get(k++));
      }
      s.append(String.format(Locale.ROOT, "| %.3f | %.3f | %d | %.4g | %s | %s |%n", w.startSeconds(), w.endSeconds(),
          w.steps(), w.stepsPerSecond(), w.label(), w.settings()));
    }
    while (k < switches.size()) {
      appendSwitch(s, switches.get(k++));
    }
    return s.toString();
  }

  private static void appendSwitch(StringBuilder s, LiveJob.Switch w) {
    s.append(String.format(Locale.ROOT, "| %.3f | | | | **switch** at step %d (%s) | %s |%n", w.atSeconds(), w.step(),
        w.why(), w.to()));
  }

  static String svg(List<LiveJob.Window> windows, List<LiveJob.Switch> switches) {
    double tMax = 1e-9;
    double rMax = 1e-9;
    for (LiveJob.Window w : windows) {
      tMax = Math.max(tMax, w.endSeconds());
      rMax = Math.max(rMax, w.stepsPerSecond());
    }
    for (LiveJob.Switch w : switches) {
      tMax = Math.max(tMax, Double.isFinite(w.atSeconds()) ? w.atSeconds() : 0);
    }
    StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\""
        + " width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">%n", WIDTH, HEIGHT));
    s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"16\">steps/s of the live job over its time (s); dashed:"
        + " a switch of settings</text>%n", PAD));
    s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n", PAD,
        HEIGHT - PAD, WIDTH - PAD, HEIGHT - PAD));
    s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%.4g</text><text x=\"%d\" y=\"%d\">%.1f s</text>%n",
        4, PAD, rMax, WIDTH - PAD - 20, HEIGHT - PAD + 16, tMax));
    for (LiveJob.Switch w : switches) {
      if (Double.isFinite(w.atSeconds())) {
        double x = x(w.atSeconds(), tMax);
        s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"gray\""
            + " stroke-dasharray=\"4 3\"><title>step %d: %s</title></line>%n", x, PAD, x, HEIGHT - PAD, w.step(),
            escape(w.to().toString())));
      }
    }
    for (LiveJob.Window w : windows) {
      double y = HEIGHT - PAD - (HEIGHT - 2.0 * PAD) * w.stepsPerSecond() / rMax;
      s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\""
          + " stroke-width=\"3\"><title>%.4g steps/s, %s: %s</title></line>%n", x(w.startSeconds(), tMax), y,
          x(w.endSeconds(), tMax), y, w.label().equals("gate") ? "steelblue" : "darkorange", w.stepsPerSecond(),
          escape(w.label()), escape(w.settings().toString())));
    }
    return s.append("</svg>\n").toString();
  }

  private static double x(double t, double tMax) {
    return PAD + (WIDTH - 2.0 * PAD) * Math.max(0, t) / tMax;
  }

  private static String escape(String t) {
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
