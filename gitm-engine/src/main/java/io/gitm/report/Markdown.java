package io.gitm.report;

import io.gitm.report.Report.Claim;
import io.gitm.report.Report.Evidence;
import io.gitm.report.Report.EvidenceRef;
import io.gitm.report.Report.Hypothesis;
import io.gitm.report.Report.PhaseUse;
import io.gitm.report.Report.Trial;
import io.gitm.report.Report.Violation;
import io.gitm.trace.DeviceKind;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The report as GitHub-flavoured Markdown, for a pull request. Text from the data is escaped so that no name can
 * open a table cell, a link, an HTML element or an emphasis: identifiers go in code spans, free text has its
 * Markdown punctuation backslash-escaped, and line breaks become spaces.
 */
final class Markdown {
  private Markdown() {}

  static String render(Report r) {
    StringBuilder s = new StringBuilder(8192);
    String tag = tag(r);
    s.append("# gitm run ").append(code(r.run().id())).append(tag).append("\n\n");
    if (r.run().sample()) {
      s.append("> **SAMPLE report.** Every figure below is invented, to show what a report looks like; none was"
          + " measured.\n\n");
    }
    if (r.run().device().kind() == DeviceKind.SIMULATED) {
      s.append("> **Simulated device.** Every figure in this report comes from gitm's model of a GPU, not from a"
          + " measurement on real hardware.\n\n");
    }
    summary(s, r, tag);
    if (r.run().score() != null) {
      ScoreTable.markdown(s, r.run().score(), tag);
    }
    qualification(s, r, tag);
    claims(s, r, tag);
    trials(s, r, tag);
    hypotheses(s, r, tag);
    breakdowns(s, r.charts().breakdowns(), tag);
    violations(s, r, tag);
    phases(s, r, tag);
    if (!r.notes().isEmpty()) {
      s.append("## Notes").append(tag).append("\n\n");
      for (String n : r.notes()) {
        s.append("- ").append(text(n)).append("\n");
      }
      s.append("\n");
    }
    s.append("---\n").append(footer(r)).append("\n");
    return s.toString();
  }

  /** The label every section header carries: simulated device, sample figures, or nothing. */
  static String tag(Report r) {
    StringBuilder t = new StringBuilder();
    if (r.run().device().kind() == DeviceKind.SIMULATED) {
      t.append(" · SIMULATED device");
    }
    if (r.run().sample()) {
      t.append(" · SAMPLE (invented figures)");
    }
    return t.toString();
  }

  static String footer(Report r) {
    String device = r.run().device().kind() == DeviceKind.SIMULATED ? "a SIMULATED device" : "a real device";
    return "Written by gitm " + text(r.run().gitmVersion()) + " at " + r.run().endedAt() + " for a run on " + device
        + (r.run().sample() ? "; SAMPLE report with invented figures" : "") + ". Schema version "
        + r.schemaVersion() + "; the same data is in `report.json`, with charts in `report.html`.";
  }

  private static void summary(StringBuilder s, Report r, String tag) {
    Report.Run run = r.run();
    Report.Baseline b = r.baseline();
    String unit = b.metric().unit();
    s.append("## Summary").append(tag).append("\n\n");
    s.append("| | |\n|---|---|\n");
    row(s, "status", "**" + run.status().label() + "**");
    row(s, "workload", code(run.workload()));
    if (run.input() != null) {
      Report.Input in = run.input();
      row(s, "input", code(in.path()) + " (" + text(in.format()) + "; " + Fmt.bytes(in.bytes()) + ", sha256 "
          + code(in.sha256()) + ")" + (in.found().isEmpty() ? "" : "; " + text(in.foundLine())));
    }
    row(s, "device", text(run.device().name()) + " (**" + run.device().kind().label() + "**, backend "
        + code(run.device().backend()) + ", driver " + text(run.device().driver()) + ")");
    double used = r.phases().stream().mapToDouble(PhaseUse::usedSeconds).sum();
    row(s, "budget", Fmt.seconds(run.budgetSeconds()) + "; used " + Fmt.seconds(used)
        + (r.budgetOverrunSeconds() > 0 ? ", **over by " + Fmt.seconds(r.budgetOverrunSeconds()) + "**" : ""));
    row(s, "target", run.target() == null ? "none" : Fmt.pct(run.target()) + " " + text(b.metric().name()));
    row(s, "baseline", "**" + Fmt.value(b.value(), text(unit)) + "** (" + text(b.metric().name()) + ", "
        + (b.metric().higherIsBetter() ? "higher" : "lower") + " is better); latency p50 " + Fmt.ms(b.latencyP50Ms())
        + ", p99 " + Fmt.ms(b.latencyP99Ms()) + "; " + b.iterations() + " iterations");
    if (r.outcome() == null) {
      row(s, "final", "not measured");
    } else {
      Report.Outcome o = r.outcome();
      row(s, "final", "**" + Fmt.value(o.value(), text(unit)) + "**; gain **" + Fmt.pctCi(o.gain()) + "**"
          + (o.latencyP50Ms() == null ? "" : "; latency p50 " + Fmt.ms(o.latencyP50Ms()))
          + (o.latencyP99Ms() == null ? "" : ", p99 " + Fmt.ms(o.latencyP99Ms())) + "; " + o.iterations()
          + " iterations");
    }
    long kept = r.trials().stream().filter(t -> t.verdict() == Report.Verdict.KEPT).count();
    row(s, "levers", r.trials().size() + " tried, " + kept + " kept, " + (r.trials().size() - kept) + " rolled back");
    row(s, "gitm", text(run.gitmVersion()));
    row(s, "started", run.startedAt().toString());
    row(s, "ended", run.endedAt().toString());
    s.append("\n");
  }

  private static void qualification(StringBuilder s, Report r, String tag) {
    s.append("## Qualification").append(tag).append("\n\n");
    Report.Qualification q = r.qualification();
    if (q == null) {
      s.append("The qualification did not run, so whether the target can be met was not judged.\n\n");
      return;
    }
    s.append("- reachable headroom: **").append(Fmt.pctCi(q.headroom())).append("**\n");
    s.append("- target reachable: **").append(q.targetReachable() ? "yes" : "no").append("**");
    if (r.run().target() != null) {
      s.append(" (target ").append(Fmt.pct(r.run().target())).append(")");
    }
    s.append("\n");
    if (q.floorDiagnosis() != null) {
      s.append("- floor diagnosis: ").append(text(q.floorDiagnosis())).append("\n");
    }
    s.append("\n");
    if (!q.fingerprint().isEmpty()) {
      s.append("| fingerprint | value | unit |\n|---|---:|---|\n");
      for (Map.Entry<String, Report.Quantity> e : q.fingerprint().entrySet()) {
        s.append("| ").append(text(e.getKey())).append(" | ").append(Fmt.num(e.getValue().value())).append(" | ")
            .append(text(e.getValue().unit())).append(" |\n");
      }
      s.append("\n");
    }
  }

  private static void claims(StringBuilder s, Report r, String tag) {
    s.append("## Claims").append(tag).append("\n\n");
    if (r.claims().isEmpty()) {
      s.append("This run makes no claim.\n\n");
      return;
    }
    for (Claim c : r.claims()) {
      s.append("### ").append(code(c.id())).append(" ").append(text(c.statement())).append("\n\n");
      s.append("- **evidence**\n");
      for (EvidenceRef e : c.evidence()) {
        s.append("  - ").append(ref(r, e)).append("\n");
      }
      if (c.intervention() == null) {
        s.append("- **intervention**: none (a diagnosis no lever acted on)\n");
      } else {
        Report.Intervention i = c.intervention();
        s.append("- **intervention**: ").append(codes(i.levers())).append(": ").append(text(i.description()))
            .append(i.trial() == null ? "" : " (trial " + i.trial() + ")").append("\n");
        s.append("- **measured delta**: ").append(Fmt.pctCi(c.measuredDelta())).append("\n");
      }
      s.append("\n");
    }
  }

  private static String ref(Report r, EvidenceRef e) {
    String note = e.note() == null ? "" : ": " + text(e.note());
    return switch (e.kind()) {
      case VIOLATION -> {
        Violation v = r.violations().stream().filter(x -> x.id().equals(e.ref())).findFirst().orElseThrow();
        yield "violation " + code(v.id()) + " (" + text(v.invariant()) + " on " + code(v.subject()) + ", "
            + Fmt.share(v.outsideBy()) + " outside its bound)" + note;
      }
      case HYPOTHESIS -> {
        Hypothesis h = r.hypotheses().stream().filter(x -> x.id().equals(e.ref())).findFirst().orElseThrow();
        yield "hypothesis " + code(h.id()) + " (" + text(h.label()) + ", effect " + Fmt.pctCi(h.effect()) + ")" + note;
      }
      case TRACE -> "trace slice " + code(e.ref()) + " from " + Fmt.ns(e.startNs()) + " to " + Fmt.ns(e.endNs())
          + " (trace clock)" + note;
      case FACT -> "fact behind " + code(e.ref()) + "'s expectation" + note;
      case GATE -> "gate of " + text(e.ref()) + note;
    };
  }

  private static void trials(StringBuilder s, Report r, String tag) {
    s.append("## Trials").append(tag).append("\n\n");
    if (r.trials().isEmpty()) {
      s.append("No lever was tried in this run.\n\n");
      return;
    }
    s.append("| # | levers | safety | predicted | measured (95% CI) | p | verdict | why | blocks | time |\n");
    s.append("|---:|---|---|---:|---|---:|---|---|---:|---:|\n");
    for (Trial t : r.trials()) {
      s.append("| ").append(t.index()).append(" | ").append(codes(t.levers()))
          .append(" | ").append(text(t.safetyClass()))
          .append(" | ").append(Fmt.pct(t.predictedDelta())).append(" ± ").append(Fmt.share(t.predictedUncertainty()))
          .append(" | ").append(t.measuredDelta() == null ? "not measured" : Fmt.pctCi(t.measuredDelta()))
          .append(" | ").append(t.pValue() == null ? "–" : Fmt.p(t.pValue()))
          .append(" | ").append(t.verdict() == Report.Verdict.KEPT ? "**kept**" : "rolled back")
          .append(" | ").append(text(t.reason())).append(" | ").append(t.blocks()).append(" | ")
          .append(Fmt.seconds(t.seconds())).append(" |\n");
    }
    s.append("\n");
  }

  private static void hypotheses(StringBuilder s, Report r, String tag) {
    s.append("## Hypotheses").append(tag).append("\n\n");
    if (r.hypotheses().isEmpty()) {
      s.append("No cause was attributed.\n\n");
      return;
    }
    s.append("| id | cause | effect on job time (95% CI) | p | confidence |\n|---|---|---|---:|---:|\n");
    for (Hypothesis h : r.hypotheses()) {
      s.append("| ").append(code(h.id())).append(" | ").append(text(h.label())).append(" (").append(code(h.cause()))
          .append(") | ").append(Fmt.pctCi(h.effect())).append(" | ").append(Fmt.p(h.pValue())).append(" | ")
          .append(Fmt.share(h.confidence())).append(" |\n");
    }
    s.append("\n");
    for (Hypothesis h : r.hypotheses()) {
      if (h.evidence().isEmpty()) {
        continue;
      }
      s.append("Evidence for ").append(code(h.id())).append(" (").append(text(h.label())).append("):\n\n");
      for (Evidence e : h.evidence()) {
        s.append("- ").append(text(e.kind())).append(": ").append(text(e.summary()));
        if (!e.data().isEmpty()) {
          s.append(" (").append(e.data().entrySet().stream()
              .map(d -> text(d.getKey()) + " = " + code(Fmt.datum(d.getValue())))
              .collect(Collectors.joining(", "))).append(")");
        }
        s.append("\n");
      }
      s.append("\n");
    }
  }

  /** The breakdowns of the shipped configuration's trace, where one was captured; the HTML report plots them. */
  private static void breakdowns(StringBuilder s, BreakdownChart b, String tag) {
    if (b == null) {
      return;
    }
    s.append("## Breakdowns (HTA's definitions)").append(tag).append("\n\n").append("Window: ").append(text(b.window()))
        .append(".\n\n| figure | time (ms) | share of the span |\n|---|---:|---:|\n");
    long span = Math.max(1, b.spanNs());
    row(s, "device span", b.spanNs(), span);
    row(s, "idle", b.idleNs(), span);
    row(s, "compute", b.computeNs(), span);
    row(s, "non-compute", b.nonComputeNs(), span);
    for (BreakdownChart.Part p : b.kernelTypes()) {
      row(s, "kernel type " + p.name(), p.ns(), span);
    }
    for (BreakdownChart.StreamIdle x : b.streams()) {
      row(s, x.stream() + " host wait", x.hostWaitNs(), span);
      row(s, x.stream() + " kernel wait", x.kernelWaitNs(), span);
      row(s, x.stream() + " other idle", x.otherNs(), span);
    }
    s.append("\nCommunication overlapped by computation: ").append(b.commCompOverlap() == null
        ? "no communication kernels" : Fmt.f("%.2f%%", 100 * b.commCompOverlap())).append(".\n\n");
    for (BreakdownChart.Queue q : b.queues()) {
      s.append("- queue length on ").append(text(q.stream())).append(": mean ").append(Fmt.f("%.2f", q.mean()))
          .append(", median ").append(Fmt.f("%.1f", q.median())).append(", most ").append(q.max()).append("\n");
    }
    for (String t : b.ties()) {
      s.append("- ").append(text(t)).append("\n");
    }
    s.append("\n");
    path(s, b.criticalPath());
  }

  /** The critical path of the breakdowns' window: its length by edge kind and the items with most time on it. */
  private static void path(StringBuilder s, BreakdownChart.PathChart p) {
    if (p == null) {
      return;
    }
    s.append("Critical path: ").append(Fmt.f("%.3f", p.lengthNs() / 1e6)).append(" ms over the window of ")
        .append(Fmt.f("%.3f", p.windowNs() / 1e6)).append(" ms").append(p.hostOperations() ? ""
            : " (no host operations in the trace: API calls only)")
        .append(".\n\n| edge kind | time (ms) | share of the path |\n|---|---:|---:|\n");
    long length = Math.max(1, p.lengthNs());
    for (BreakdownChart.Part k : p.byKind()) {
      s.append("| ").append(code(k.name())).append(" | ").append(Fmt.f("%.3f", k.ns() / 1e6)).append(" | ")
          .append(Fmt.f("%.1f%%", 100.0 * k.ns() / length)).append(" |\n");
    }
    s.append("\n| on the path | kind | times | time (ms) |\n|---|---|---:|---:|\n");
    for (BreakdownChart.PathItem i : p.top()) {
      s.append("| ").append(code(i.name())).append(" | ").append(i.kind()).append(" | ").append(i.count())
          .append(" | ").append(Fmt.f("%.3f", i.ns() / 1e6)).append(" |\n");
    }
    s.append("\n");
  }

  private static void row(StringBuilder s, String name, long ns, long span) {
    s.append("| ").append(text(name)).append(" | ").append(Fmt.f("%.3f", ns / 1e6)).append(" | ")
        .append(Fmt.f("%.2f%%", 100.0 * ns / span)).append(" |\n");
  }

  private static void violations(StringBuilder s, Report r, String tag) {
    s.append("## Invariant violations").append(tag).append("\n\n");
    if (r.violations().isEmpty()) {
      s.append("No invariant was violated.\n\n");
      return;
    }
    s.append("| id | invariant | subject | observed | bound | outside by | how often | records |\n");
    s.append("|---|---|---|---:|---:|---:|---:|---|\n");
    for (Violation v : r.violations()) {
      s.append("| ").append(code(v.id())).append(" | ").append(text(v.invariant()))
          .append(" | ").append(code(v.subject()))
          .append(" | ").append(Fmt.num(v.observed())).append(" ").append(text(v.unit()))
          .append(" | ").append(Fmt.num(v.bound())).append(" ").append(text(v.unit()))
          .append(" | ").append(Fmt.share(v.outsideBy()))
          .append(" | ").append(v.occurrences()).append(" of ").append(v.checked())
          .append(" | ").append(records(v.records())).append(" |\n");
    }
    s.append("\n");
  }

  /** Record references, the first eight in full and the rest as a count. */
  private static String records(List<String> refs) {
    if (refs.isEmpty()) {
      return "–";
    }
    String shown = codes(refs.subList(0, Math.min(8, refs.size())));
    return refs.size() > 8 ? shown + " and " + (refs.size() - 8) + " more" : shown;
  }

  private static void phases(StringBuilder s, Report r, String tag) {
    s.append("## Phases").append(tag).append("\n\n");
    if (r.phases().isEmpty()) {
      s.append("No phase time was recorded.\n\n");
      return;
    }
    s.append("| phase | planned | used | over plan |\n|---|---:|---:|---:|\n");
    double planned = 0;
    double used = 0;
    for (PhaseUse p : r.phases()) {
      planned += p.plannedSeconds();
      used += p.usedSeconds();
      double over = p.usedSeconds() - p.plannedSeconds();
      s.append("| ").append(text(p.name())).append(" | ").append(Fmt.seconds(p.plannedSeconds())).append(" | ")
          .append(Fmt.seconds(p.usedSeconds())).append(" | ")
          .append(over > 0 ? Fmt.seconds(over) : "–").append(" |\n");
    }
    s.append("| **total** | ").append(Fmt.seconds(planned)).append(" | ").append(Fmt.seconds(used)).append(" | ")
        .append(used > planned ? Fmt.seconds(used - planned) : "–").append(" |\n\n");
    s.append(r.budgetOverrunSeconds() > 0
        ? "The run went **" + Fmt.seconds(r.budgetOverrunSeconds()) + " over** its budget of "
            + Fmt.seconds(r.run().budgetSeconds()) + ".\n\n"
        : "The run kept within its budget of " + Fmt.seconds(r.run().budgetSeconds())
            + " (a phase may use time an earlier one left unused).\n\n");
  }

  private static void row(StringBuilder s, String name, String value) {
    s.append("| ").append(name).append(" | ").append(value).append(" |\n");
  }

  private static String codes(List<String> ids) {
    return ids.stream().map(Markdown::code).collect(Collectors.joining(", "));
  }

  /**
   * An identifier as an inline code span that is safe in a table cell: the fence is longer than any run of
   * backticks inside, pipes are escaped for the table, line breaks become spaces. A name with a backslash is
   * written as escaped text instead, since table parsers disagree on a backslash before an escaped pipe.
   */
  static String code(String raw) {
    String s = oneLine(raw);
    if (s.isBlank()) {
      return "(blank)";
    }
    if (s.indexOf('\\') >= 0) {
      return text(s);
    }
    int longest = 0;
    int run = 0;
    for (int i = 0; i < s.length(); i++) {
      run = s.charAt(i) == '`' ? run + 1 : 0;
      longest = Math.max(longest, run);
    }
    String fence = "`".repeat(longest + 1);
    String body = s.replace("|", "\\|");
    boolean pad = longest > 0 || body.startsWith(" ") && body.endsWith(" ");
    return pad ? fence + " " + body + " " + fence : fence + body + fence;
  }

  /**
   * Free text, safe in a paragraph and in a table cell: every character Markdown, GitHub or HTML could take as
   * syntax (emphasis, code, links, HTML, entities, tables, math, headings) is backslash-escaped, and line breaks
   * become spaces.
   */
  static String text(String raw) {
    String s = oneLine(raw);
    StringBuilder b = new StringBuilder(s.length() + 8);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if ("\\`*_~[]<>&|#$!".indexOf(c) >= 0) {
        b.append('\\');
      }
      b.append(c);
    }
    return b.toString();
  }

  /** Line breaks and other control characters as spaces. */
  private static String oneLine(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      b.append(Character.isISOControl(c) || c == '\u2028' || c == '\u2029' ? ' ' : c);
    }
    return b.toString();
  }
}
