package io.gitm.run;

import io.gitm.report.Report;
import io.gitm.report.Reports;
import io.gitm.search.Agent;
import io.gitm.search.TrialRecord;
import io.gitm.trace.DeviceKind;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Phase 5, report: the final setup's "after" trace, the run's status, the reports ({@code report.md},
 * {@code report.html}, {@code report.json}) and the run in brief ({@code outcome.json}), then the journal's end.
 */
final class ReportStep {
  /** The journal entry that closes a run stopped from outside, which a resume continues (an ended run it refuses). */
  static final String INTERRUPTED = "interrupted";
  /** The output scored against the ground truth the user's input carried, as the report holds it. */
  static final String SCORE = "score.json";

  private ReportStep() {}

  /**
   * What the optimization left to report.
   *
   * @param outcome what attribute, rank and apply did, or null when the optimization failed
   * @param failure why it failed, in one line, or null
   * @param interrupted whether the apply phase's thread had been interrupted (a stop request cut it)
   */
  record Optimized(Outcome outcome, String failure, boolean interrupted) {}

  static RunLoop.Result run(RunLoop.Request req, Profiled p, Optimized o, Instant started, PhaseLog log)
      throws IOException {
    RunClock clock = log.clock();
    AfterTrace after = req.job().traceAfter(o.outcome(), p.baseline(), clock, log.control());
    long tr = clock.wall().nanos();
    log.events().phase(Phase.REPORT, clock.remaining(Phase.REPORT));
    Report.Status status = status(req, o, log.control());
    List<String> notes = notes(req, p, o);
    Map<String, Object> brief;
    try {
      log.used(Phase.REPORT, clock.since(tr));
      if (after.note() != null) {
        notes.add(after.note());
      }
      Report report = ReportAssembly.build(req, p, o.outcome(), after, new ReportAssembly.Ending(status, started,
          log.journal().now(), clock.plan(), log.used(), notes));
      Reports.write(p.run().dir(), report);
      if (report.run().score() != null) {
        p.run().writeJson(SCORE, report.run().score());
      }
      brief = summary(req, clock, p.baseline(), o.outcome(), status);
      if (report.run().score() != null) {
        brief.put("score", report.run().score());
      }
      p.run().writeJson("outcome.json", brief);
    } catch (IOException | RuntimeException e) {
      String why = Failures.describe(e);
      log.failed("report", why);
      throw new RunLoop.RunFailure("run " + p.run().id() + " ran, but its report could not be written: " + why, e);
    }
    return end(req, p, o, status, brief, log);
  }

  private static Report.Status status(RunLoop.Request req, Optimized o, RunLoop.Control control) {
    Outcome outcome = o.outcome();
    boolean wasInterrupted = control.stopRequested() || o.interrupted()
        || (outcome != null && outcome.agent().stopReason() == Agent.StopReason.INTERRUPTED);
    return o.failure() != null ? Report.Status.FAILED : wasInterrupted ? Report.Status.INTERRUPTED
        : outcome.agent().reached(req.target().fraction()) ? Report.Status.TARGET_REACHED
        : !outcome.ranked().qualification().reachable() ? Report.Status.TARGET_NOT_REACHABLE
        : Report.Status.TARGET_MISSED;
  }

  /** What a reader of the report should know before the report's own notes. */
  private static List<String> notes(RunLoop.Request req, Profiled p, Optimized o) {
    List<String> notes = new ArrayList<>();
    notes.add("ceilings: " + p.ceilings().note());
    notes.addAll(req.job().notes(p.baseline(), p.profile().notes()));
    if (p.info().kind() == DeviceKind.SIMULATED) {
      notes.add("every figure comes from gitm's simulated device, not from a GPU");
    }
    if (o.failure() != null) {
      notes.add("the optimization failed: " + o.failure());
    }
    Outcome outcome = o.outcome();
    if (outcome != null) {
      notes.add("search: " + outcome.agent().detail());
      double modelError = outcome.ranked().ranking().replayModelError();
      if (Double.isFinite(modelError)) {
        notes.add(String.format(Locale.ROOT, "counterfactual replay of the unchanged trace landed %.0f%%"
            + " from the observed time: predictions are relative to it", modelError * 100));
      }
      outcome.agent().notTried().forEach((k, v) -> notes.add("lever " + k + " not tried: " + v));
    }
    return notes;
  }

  /** Journals the end and tells the result. */
  private static RunLoop.Result end(RunLoop.Request req, Profiled p, Optimized o, Report.Status status,
      Map<String, Object> brief, PhaseLog log) {
    RunClock clock = log.clock();
    double overrun = clock.overrunSeconds();
    // a run stopped from outside is journaled as interrupted, not ended: --resume continues it
    boolean stopped = status == Report.Status.INTERRUPTED || log.control().stopRequested();
    log.journal().record(stopped ? INTERRUPTED : "end", Map.of("status", status.name(), "overrunSeconds", overrun));
    double elapsed = clock.elapsedSeconds();
    Agent.Result search = o.outcome() == null ? null : o.outcome().agent();
    log.events().line(String.format(Locale.ROOT, "result   %s: %s; budget %s, used %.1f s (%+.1f s)",
        status.label(), search == null ? "no optimization" : String.format(Locale.ROOT,
            "%.1f%% better with %s", (search.totalGain() - 1) * 100,
            search.keptLevers().isEmpty() ? "nothing kept" : String.join(" + ", search.keptLevers())),
        req.budget(), elapsed, overrun));
    log.events().line("report   " + p.run().dir().resolve("report.md") + " (also report.html, report.json)");
    return new RunLoop.Result(p.run(), status, p.baseline(), search, p.device(), brief, o.failure());
  }

  /**
   * The run's outcome in brief, as {@code outcome.json} and {@code gitm run --json} carry it. As in every output, a
   * {@code gain} is a fraction (0.2: 20% better) and a {@code speedup} the ratio to the shipped setup (1.2).
   */
  static Map<String, Object> summary(RunLoop.Request req, RunClock clock, Profiler.Baseline b, Outcome o,
      Report.Status status) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("workload", req.job().name());
    doc.put("budget", req.budget().toString());
    doc.put("target", req.target().toString());
    doc.put("status", status.name());
    // the baseline without its output's values (a workload's whole output, megabytes for af2): baseline.json keeps
    // them for a resume; here the digest names the output
    @SuppressWarnings("unchecked")
    Map<String, Object> base = RunLoop.JSON.convertValue(b, Map.class);
    if (b != null && b.output() != null) {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("sha256", b.output().sha256());
      out.put("valueCount", b.output().values() == null ? 0 : b.output().values().length);
      base.put("output", out);
    }
    doc.put("baseline", base);
    doc.put("elapsedSeconds", clock.elapsedSeconds());
    doc.put("overrunSeconds", clock.overrunSeconds());
    if (o != null) {
      Agent.Result a = o.agent();
      doc.put("gain", a.totalGain() - 1);
      doc.put("speedup", a.totalGain());
      doc.put("kept", a.keptLevers());
      doc.put("trials", a.trials().size());
      doc.put("stopReason", a.stopReason().name());
      doc.put("hypotheses", o.analysis().hypotheses().stream().map(h -> h.cause().name()).toList());
      doc.put("qualification", o.ranked().qualification().summary());
      Map<String, Object> pred = new LinkedHashMap<>();
      for (TrialRecord t : a.trials()) {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("levers", t.levers());
        x.put("predictedSpeedup", t.predictedGain());
        x.put("measuredSpeedup", t.verdict().gain());
        x.put("outcome", t.verdict().outcome().name());
        pred.put(Integer.toString(t.index()), x);
      }
      doc.put("trialLog", pred);
    }
    return doc;
  }
}
