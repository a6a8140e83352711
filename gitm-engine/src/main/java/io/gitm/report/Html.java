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
 * The report as one self-contained HTML page: no script, no external resource (a Content-Security-Policy forbids
 * both), charts as inline SVG. Every piece of text from the data is escaped by {@link #escape(String)}.
 */
final class Html {
  private Html() {}

  /** Text safe in HTML content and in quoted attribute values; control characters become U+FFFD. */
  static String escape(String s) {
    StringBuilder b = null;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      String rep = switch (c) {
        case '&' -> "&amp;";
        case '<' -> "&lt;";
        case '>' -> "&gt;";
        case '"' -> "&quot;";
        case '\'' -> "&#39;";
        case '\t', '\n' -> null;
        default -> Character.isISOControl(c) ? "\uFFFD" : null;
      };
      if (rep != null && b == null) {
        b = new StringBuilder(s.length() + 16).append(s, 0, i);
      }
      if (b != null) {
        if (rep != null) {
          b.append(rep);
        } else {
          b.append(c);
        }
      }
    }
    return b == null ? s : b.toString();
  }

  private static final String CSS = """
      :root{--ink:#1f2937;--mute:#6b7280;--line:#e5e7eb;--kernel:#2563eb;--copy:#ea580c;--other:#9ca3af;\
      --kept:#16a34a;--rolled:#dc2626;--sim:#7c2d12;--simbg:#ffedd5;--sample:#581c87;--samplebg:#f3e8ff}
      *{box-sizing:border-box}
      body{font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--ink);\
      margin:0 auto;max-width:1180px;padding:16px 24px 48px;background:#fff}
      h1{font-size:24px;margin:8px 0}
      h2{font-size:19px;margin:32px 0 10px;padding-bottom:4px;border-bottom:2px solid var(--line)}
      h3{font-size:15px;margin:18px 0 6px}
      code{font:12.5px/1.4 "DejaVu Sans Mono",ui-monospace,monospace;background:#f3f4f6;padding:1px 4px;\
      border-radius:3px;overflow-wrap:break-word}
      .tag{display:inline-block;font-size:11px;font-weight:700;letter-spacing:.04em;padding:2px 7px;margin-left:8px;\
      border-radius:10px;vertical-align:middle;text-transform:uppercase}
      .tag.sim{color:var(--sim);background:var(--simbg);border:1px solid #fdba74}
      .tag.sample{color:var(--sample);background:var(--samplebg);border:1px solid #d8b4fe}
      .banner{padding:10px 14px;border-radius:6px;margin:8px 0;font-weight:600}
      .banner.sim{color:var(--sim);background:var(--simbg);border:1px solid #fdba74}
      .banner.sample{color:var(--sample);background:var(--samplebg);border:1px solid #d8b4fe}
      nav{font-size:13px;color:var(--mute)} nav a{color:#1d4ed8;margin-right:10px}
      table{border-collapse:collapse;margin:8px 0 12px;font-size:13px}
      th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
      th{background:#f9fafb} td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
      table.kv th{width:140px}
      .kept{color:var(--kept);font-weight:600} .rolled{color:var(--rolled)}
      .big{font-size:16px;font-weight:700}
      .claim{border:1px solid var(--line);border-left:4px solid #1d4ed8;\
      border-radius:4px;padding:8px 14px;margin:10px 0}
      .claim ol{margin:2px 0 6px;padding-left:20px} .claim p{margin:2px 0 6px} .claim h3{margin:4px 0 8px}
      .chain{color:var(--mute);font-size:12px;text-transform:uppercase;letter-spacing:.05em}
      .diagnosis{background:#fef9c3;border:1px solid #fde047;border-radius:6px;padding:8px 12px}
      .empty{color:var(--mute);font-style:italic}
      .note,.legend{color:var(--mute);font-size:12.5px;margin:4px 0 12px}
      figure{margin:8px 0 16px} figcaption{margin-bottom:4px}
      .series-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(540px,1fr));gap:8px 16px}
      svg.chart{max-width:100%;height:auto;display:block;font:11px "DejaVu Sans",system-ui,sans-serif}
      svg .grid{stroke:#eef0f3;stroke-width:1} svg .grid.minor{stroke:#f6f7f9}
      svg .axis{stroke:#9ca3af;stroke-width:1} svg .zero{stroke:#6b7280;stroke-dasharray:4 3}
      svg .tick{fill:#6b7280} svg .axis-label{fill:#6b7280;font-style:italic}
      svg .lane{fill:#f9fafb} svg .stream{fill:var(--ink)} svg .stripe{fill:#fafafa}
      svg .span.kernel{fill:var(--kernel)} svg .span.copy{fill:var(--copy)} svg .span.other{fill:var(--other)}
      svg .band{fill:#dbeafe} svg .bound{stroke:#1e3a8a;stroke-width:1.5} svg .kernel-name{fill:var(--ink)}
      svg .obs{stroke:#fff;stroke-width:1.5} svg .obs.over{fill:var(--rolled)} svg .obs.within{fill:var(--kept)}
      svg .obs.under{fill:#d97706}
      svg .note-over{fill:var(--rolled)} svg .note-within{fill:var(--kept)} svg .note-under{fill:#d97706}
      svg .series-line{fill:none;stroke:var(--kernel);stroke-width:1.5} svg .point{fill:var(--kernel)}
      svg .pred{fill:#fff;stroke:#4b5563;stroke-width:1.5} \
      svg .pred-bar{stroke:#9ca3af;stroke-width:2;stroke-dasharray:3 2}
      svg .ci{stroke-width:2} svg .ci.kept{stroke:var(--kept)} svg .ci.rolled{stroke:var(--rolled)}
      svg .meas.kept{fill:var(--kept)} svg .meas.rolled{fill:var(--rolled)} svg .unmeasured{fill:#6b7280;font-size:16px}
      .sw{display:inline-block;width:12px;height:12px;margin:0 4px 0 10px;vertical-align:-1px;border-radius:2px}
      .sw.kernel{background:var(--kernel)} .sw.copy{background:var(--copy)} .sw.other{background:var(--other)}
      .sw.band{background:#dbeafe;border:1px solid #1e3a8a}
      svg .bd-idle,.sw.bd-idle{fill:#d1d5db;background:#d1d5db} svg .bd-compute,.sw.bd-compute{fill:var(--kernel);\
      background:var(--kernel)} svg .bd-noncompute,.sw.bd-noncompute{fill:var(--copy);background:var(--copy)}
      svg .bd-host,.sw.bd-host{fill:#7c3aed;background:#7c3aed} svg .bd-kernel,.sw.bd-kernel{fill:#f59e0b;\
      background:#f59e0b} svg .bd-other,.sw.bd-other{fill:#9ca3af;background:#9ca3af}
      svg .bd-queue,.sw.bd-queue{fill:#93c5fd;background:#93c5fd} svg .bd-median{stroke:#1e3a8a;stroke-width:2}
      svg .bd-max{fill:#1e3a8a}
      .dot{display:inline-block;width:10px;height:10px;border-radius:50%;margin:0 4px 0 10px;vertical-align:-1px}
      .dot.over,.dot.rolled{background:var(--rolled)} .dot.within,.dot.kept{background:var(--kept)}
      .dot.under{background:#d97706}
      .diamond{display:inline-block;width:9px;height:9px;border:1.5px solid #4b5563;transform:rotate(45deg);\
      margin:0 6px 0 12px}
      .cross{margin-left:10px;font-weight:700}
      footer{margin-top:40px;border-top:1px solid var(--line);padding-top:8px;color:var(--mute);font-size:12px}
      @media print{body{max-width:none} section{break-inside:avoid-page}}
      """;

  static String render(Report r) {
    StringBuilder h = new StringBuilder(32_768);
    String tags = tags(r);
    h.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n");
    h.append("<meta http-equiv=\"Content-Security-Policy\""
        + " content=\"default-src 'none'; style-src 'unsafe-inline'\"/>\n");
    h.append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n");
    h.append("<meta name=\"generator\" content=\"gitm ").append(escape(r.run().gitmVersion())).append("\"/>\n");
    h.append("<title>gitm run ").append(escape(r.run().id()))
        .append(r.run().device().kind() == DeviceKind.SIMULATED ? " (SIMULATED device)" : "")
        .append(r.run().sample() ? " (SAMPLE)" : "").append("</title>\n");
    h.append("<style>\n").append(CSS).append("</style>\n</head>\n<body>\n");
    h.append("<header>\n<h1>gitm run <code>").append(escape(r.run().id())).append("</code>").append(tags)
        .append("</h1>\n");
    if (r.run().sample()) {
      h.append("<div class=\"banner sample\">SAMPLE report: every figure on this page is invented, to show what a"
          + " report looks like; none was measured.</div>\n");
    }
    if (r.run().device().kind() == DeviceKind.SIMULATED) {
      h.append("<div class=\"banner sim\">SIMULATED device: every figure on this page comes from gitm's model of a GPU,"
          + " not from a measurement on real hardware.</div>\n");
    }
    h.append("<nav>");
    for (String[] s : List.of(new String[] {"summary", "Summary"}, new String[] {"qualification", "Qualification"},
        new String[] {"claims", "Claims"}, new String[] {"trials", "Trials"}, new String[] {"timeline", "Timeline"},
        new String[] {"residuals", "Residuals"}, new String[] {"telemetry", "Telemetry"},
        new String[] {"breakdowns", "Breakdowns"},
        new String[] {"hypotheses", "Hypotheses"}, new String[] {"violations", "Violations"},
        new String[] {"phases", "Phases"})) {
      h.append("<a href=\"#").append(s[0]).append("\">").append(s[1]).append("</a>");
      if (s[0].equals("summary") && r.run().score() != null) {
        h.append("<a href=\"#score\">Output score</a>");
      }
    }
    h.append("</nav>\n</header>\n");
    summary(h, r, tags);
    if (r.run().score() != null) {
      ScoreTable.html(h, r.run().score(), tags);
    }
    qualification(h, r, tags);
    claims(h, r, tags);
    section(h, "trials", "Trials", tags);
    h.append(Plots.trials(r.trials()));
    trialTable(h, r);
    h.append("</section>\n");
    section(h, "timeline", "Stream timeline, before and after", tags);
    h.append(Plots.timelines(r.charts().before(), r.charts().after()));
    h.append("</section>\n");
    section(h, "residuals", "Kernels against the roofline", tags);
    h.append(Plots.residuals(r.charts().residuals()));
    h.append("</section>\n");
    section(h, "telemetry", "Device telemetry", tags);
    h.append(Plots.telemetry(r.charts().telemetry()));
    h.append("</section>\n");
    section(h, "breakdowns", "Breakdowns of the trace (HTA's definitions)", tags);
    h.append(BreakdownPlots.of(r.charts().breakdowns()));
    h.append("</section>\n");
    hypotheses(h, r, tags);
    violations(h, r, tags);
    phases(h, r, tags);
    if (!r.notes().isEmpty()) {
      section(h, "notes", "Notes", tags);
      h.append("<ul>");
      for (String n : r.notes()) {
        h.append("<li>").append(escape(n)).append("</li>");
      }
      h.append("</ul>\n</section>\n");
    }
    h.append("<footer>Written by gitm ").append(escape(r.run().gitmVersion())).append(" at ")
        .append(escape(r.run().endedAt().toString())).append(" for a run on ")
        .append(r.run().device().kind() == DeviceKind.SIMULATED ? "a <strong>SIMULATED</strong> device"
            : "a real device")
        .append(r.run().sample() ? "; <strong>SAMPLE</strong> report with invented figures" : "")
        .append(". Schema version ").append(r.schemaVersion())
        .append("; the same data is in <code>report.json</code>.</footer>\n</body>\n</html>\n");
    return h.toString();
  }

  /** The labels every section header carries. */
  private static String tags(Report r) {
    String t = "";
    if (r.run().device().kind() == DeviceKind.SIMULATED) {
      t += "<span class=\"tag sim\" title=\"every figure is modeled, not measured on a GPU\">simulated device</span>";
    }
    if (r.run().sample()) {
      t += "<span class=\"tag sample\" title=\"every figure is invented\">sample: invented figures</span>";
    }
    return t;
  }

  static void section(StringBuilder h, String id, String title, String tags) {
    h.append("<section id=\"").append(id).append("\">\n<h2>").append(escape(title)).append(tags).append("</h2>\n");
  }

  private static void summary(StringBuilder h, Report r, String tags) {
    Report.Run run = r.run();
    Report.Baseline b = r.baseline();
    String unit = b.metric().unit();
    section(h, "summary", "Summary", tags);
    h.append("<table class=\"kv\">");
    kv(h, "status", "<span class=\"big\">" + escape(run.status().label()) + "</span>");
    kv(h, "workload", "<code>" + escape(run.workload()) + "</code>");
    if (run.input() != null) {
      Report.Input in = run.input();
      kv(h, "input", "<code>" + escape(in.path()) + "</code> (" + escape(in.format()) + "; "
          + escape(Fmt.bytes(in.bytes())) + ", sha256 <code>" + escape(in.sha256()) + "</code>)"
          + (in.found().isEmpty() ? "" : "; " + escape(in.foundLine())));
    }
    kv(h, "device", escape(run.device().name()) + " (<strong>" + run.device().kind().label()
        + "</strong>, backend <code>" + escape(run.device().backend()) + "</code>, driver "
        + escape(run.device().driver()) + ")");
    double used = r.phases().stream().mapToDouble(PhaseUse::usedSeconds).sum();
    kv(h, "budget", escape(Fmt.seconds(run.budgetSeconds())) + "; used " + escape(Fmt.seconds(used))
        + (r.budgetOverrunSeconds() > 0 ? ", <strong class=\"rolled\">over by "
            + escape(Fmt.seconds(r.budgetOverrunSeconds())) + "</strong>" : ""));
    kv(h, "target", run.target() == null ? "none" : escape(Fmt.pct(run.target()) + " " + b.metric().name()));
    kv(h, "baseline", "<span class=\"big\">" + escape(Fmt.value(b.value(), unit)) + "</span> ("
        + escape(b.metric().name()) + ", " + (b.metric().higherIsBetter() ? "higher" : "lower")
        + " is better); latency p50 " + escape(Fmt.ms(b.latencyP50Ms())) + ", p99 " + escape(Fmt.ms(b.latencyP99Ms()))
        + "; " + b.iterations() + " iterations");
    if (r.outcome() == null) {
      kv(h, "final", "<span class=\"empty\">not measured</span>");
    } else {
      Report.Outcome o = r.outcome();
      kv(h, "final", "<span class=\"big\">" + escape(Fmt.value(o.value(), unit)) + "</span>; gain <span class=\"big"
          + (o.gain().low() > 0 ? " kept" : "") + "\">" + escape(Fmt.pct(o.gain().value())) + "</span> (95% CI "
          + escape(Fmt.pct(o.gain().low())) + " to " + escape(Fmt.pct(o.gain().high())) + ")"
          + (o.latencyP50Ms() == null ? "" : "; latency p50 " + escape(Fmt.ms(o.latencyP50Ms())))
          + (o.latencyP99Ms() == null ? "" : ", p99 " + escape(Fmt.ms(o.latencyP99Ms()))) + "; " + o.iterations()
          + " iterations");
    }
    long kept = r.trials().stream().filter(t -> t.verdict() == Report.Verdict.KEPT).count();
    kv(h, "levers", r.trials().size() + " tried, " + kept + " kept, " + (r.trials().size() - kept) + " rolled back");
    kv(h, "gitm", escape(run.gitmVersion()));
    kv(h, "started", escape(run.startedAt().toString()));
    kv(h, "ended", escape(run.endedAt().toString()));
    h.append("</table>\n</section>\n");
  }

  private static void kv(StringBuilder h, String k, String v) {
    h.append("<tr><th>").append(escape(k)).append("</th><td>").append(v).append("</td></tr>");
  }

  private static void qualification(StringBuilder h, Report r, String tags) {
    section(h, "qualification", "Qualification", tags);
    Report.Qualification q = r.qualification();
    if (q == null) {
      h.append("<p class=\"empty\">The qualification did not run, so whether the target can be met was not"
          + " judged.</p>\n");
      h.append("</section>\n");
      return;
    }
    h.append("<p>Reachable headroom: <strong>").append(escape(Fmt.pctCi(q.headroom()))).append("</strong>. Target ")
        .append(r.run().target() == null ? "" : escape(Fmt.pct(r.run().target())) + " ")
        .append(q.targetReachable() ? "<strong class=\"kept\">reachable</strong>"
            : "<strong class=\"rolled\">not reachable</strong>")
        .append(".</p>\n");
    if (q.floorDiagnosis() != null) {
      h.append("<p class=\"diagnosis\"><strong>Floor diagnosis:</strong> ").append(escape(q.floorDiagnosis()))
          .append("</p>\n");
    }
    if (!q.fingerprint().isEmpty()) {
      h.append("<table><tr><th>fingerprint</th><th>value</th><th>unit</th></tr>");
      for (Map.Entry<String, Report.Quantity> e : q.fingerprint().entrySet()) {
        h.append("<tr><td>").append(escape(e.getKey())).append("</td><td class=\"num\">")
            .append(escape(Fmt.num(e.getValue().value()))).append("</td><td>").append(escape(e.getValue().unit()))
            .append("</td></tr>");
      }
      h.append("</table>\n");
    }
    h.append("</section>\n");
  }

  private static void claims(StringBuilder h, Report r, String tags) {
    section(h, "claims", "Claims: claim → evidence → intervention → measured delta", tags);
    if (r.claims().isEmpty()) {
      h.append("<p class=\"empty\">This run makes no claim.</p>\n</section>\n");
      return;
    }
    for (Claim c : r.claims()) {
      h.append("<div class=\"claim\"><h3><code>").append(escape(c.id())).append("</code> ")
          .append(escape(c.statement())).append("</h3>");
      h.append("<div class=\"chain\">evidence</div><ol>");
      for (EvidenceRef e : c.evidence()) {
        h.append("<li>").append(ref(r, e)).append("</li>");
      }
      h.append("</ol>");
      h.append("<div class=\"chain\">intervention</div>");
      if (c.intervention() == null) {
        h.append("<p class=\"empty\">none: a diagnosis no lever acted on</p>");
      } else {
        Report.Intervention i = c.intervention();
        h.append("<p>").append(codes(i.levers())).append(": ").append(escape(i.description()))
            .append(i.trial() == null ? "" : " (<a href=\"#trial-" + i.trial() + "\">trial " + i.trial() + "</a>)")
            .append("</p>");
        h.append("<div class=\"chain\">measured delta</div><p><strong class=\"")
            .append(c.measuredDelta().low() > 0 ? "kept" : "rolled").append("\">")
            .append(escape(Fmt.pct(c.measuredDelta().value()))).append("</strong> (95% CI ")
            .append(escape(Fmt.pct(c.measuredDelta().low()))).append(" to ")
            .append(escape(Fmt.pct(c.measuredDelta().high()))).append(")</p>");
      }
      h.append("</div>\n");
    }
    h.append("</section>\n");
  }

  private static String ref(Report r, EvidenceRef e) {
    String note = e.note() == null ? "" : ": " + escape(e.note());
    return switch (e.kind()) {
      case VIOLATION -> {
        Violation v = r.violations().stream().filter(x -> x.id().equals(e.ref())).findFirst().orElseThrow();
        yield "violation <a href=\"#violation-" + escape(anchor(v.id())) + "\"><code>" + escape(v.id())
            + "</code></a> (" + escape(v.invariant()) + " on <code>" + escape(v.subject()) + "</code>, "
            + escape(Fmt.share(v.outsideBy())) + " outside its bound)" + note;
      }
      case HYPOTHESIS -> {
        Hypothesis x = r.hypotheses().stream().filter(y -> y.id().equals(e.ref())).findFirst().orElseThrow();
        yield "hypothesis <a href=\"#hypothesis-" + escape(anchor(x.id())) + "\"><code>" + escape(x.id())
            + "</code></a> (" + escape(x.label()) + ", effect " + escape(Fmt.pctCi(x.effect())) + ")" + note;
      }
      case TRACE -> "trace slice <code>" + escape(e.ref()) + "</code> from " + escape(Fmt.ns(e.startNs())) + " to "
          + escape(Fmt.ns(e.endNs())) + " (trace clock)" + note;
      case FACT -> "fact behind <code>" + escape(e.ref()) + "</code>'s expectation" + note;
      case GATE -> "gate of <a href=\"#trial-" + escape(e.ref().substring(e.ref().indexOf(' ') + 1)) + "\">"
          + escape(e.ref()) + "</a>" + note;
    };
  }

  /** An id as a fragment name: letters, digits, '-' and '_' kept, anything else as '_' and its code point. */
  private static String anchor(String id) {
    StringBuilder b = new StringBuilder();
    id.codePoints().forEach(c -> {
      if (c < 128 && (Character.isLetterOrDigit(c) || c == '-' || c == '_')) {
        b.appendCodePoint(c);
      } else {
        b.append('_').append(Integer.toHexString(c));
      }
    });
    return b.toString();
  }

  private static void trialTable(StringBuilder h, Report r) {
    if (r.trials().isEmpty()) {
      return;
    }
    h.append("<table><tr><th>#</th><th>levers</th><th>safety</th><th>predicted</th><th>measured (95% CI)</th>"
        + "<th>p</th><th>verdict</th><th>why</th><th>blocks</th><th>time</th></tr>");
    for (Trial t : r.trials()) {
      boolean kept = t.verdict() == Report.Verdict.KEPT;
      h.append("<tr id=\"trial-").append(t.index()).append("\"><td class=\"num\">").append(t.index())
          .append("</td><td>").append(codes(t.levers())).append("</td><td>").append(escape(t.safetyClass()))
          .append("</td><td class=\"num\">")
          .append(escape(Fmt.pct(t.predictedDelta()) + " ± " + Fmt.share(t.predictedUncertainty())))
          .append("</td><td class=\"num\">")
          .append(t.measuredDelta() == null ? "not measured" : escape(Fmt.pctCi(t.measuredDelta())))
          .append("</td><td class=\"num\">").append(t.pValue() == null ? "–" : escape(Fmt.p(t.pValue())))
          .append("</td><td class=\"").append(kept ? "kept" : "rolled").append("\">").append(t.verdict().label())
          .append("</td><td>").append(escape(t.reason())).append("</td><td class=\"num\">").append(t.blocks())
          .append("</td><td class=\"num\">").append(escape(Fmt.seconds(t.seconds()))).append("</td></tr>");
    }
    h.append("</table>\n");
  }

  private static void hypotheses(StringBuilder h, Report r, String tags) {
    section(h, "hypotheses", "Hypotheses (attributed causes)", tags);
    if (r.hypotheses().isEmpty()) {
      h.append("<p class=\"empty\">No cause was attributed.</p>\n</section>\n");
      return;
    }
    h.append("<table><tr><th>id</th><th>cause</th><th>effect on job time (95% CI)</th><th>p</th><th>confidence</th>"
        + "<th>evidence</th></tr>");
    for (Hypothesis x : r.hypotheses()) {
      h.append("<tr id=\"hypothesis-").append(escape(anchor(x.id()))).append("\"><td><code>").append(escape(x.id()))
          .append("</code></td><td>").append(escape(x.label())).append(" <code>").append(escape(x.cause()))
          .append("</code></td><td class=\"num\">").append(escape(Fmt.pctCi(x.effect())))
          .append("</td><td class=\"num\">").append(escape(Fmt.p(x.pValue())))
          .append("</td><td class=\"num\">").append(escape(Fmt.share(x.confidence())))
          .append("</td><td>");
      if (x.evidence().isEmpty()) {
        h.append("<span class=\"empty\">none</span>");
      } else {
        h.append("<ul>");
        for (Evidence e : x.evidence()) {
          h.append("<li><strong>").append(escape(e.kind())).append("</strong>: ").append(escape(e.summary()));
          if (!e.data().isEmpty()) {
            h.append(" <small>(").append(e.data().entrySet().stream()
                .map(d -> escape(d.getKey()) + " = <code>" + escape(Fmt.datum(d.getValue())) + "</code>")
                .collect(Collectors.joining(", "))).append(")</small>");
          }
          h.append("</li>");
        }
        h.append("</ul>");
      }
      h.append("</td></tr>");
    }
    h.append("</table>\n</section>\n");
  }

  private static void violations(StringBuilder h, Report r, String tags) {
    section(h, "violations", "Invariant violations", tags);
    if (r.violations().isEmpty()) {
      h.append("<p class=\"empty\">No invariant was violated.</p>\n</section>\n");
      return;
    }
    h.append("<table><tr><th>id</th><th>invariant</th><th>subject</th><th>observed</th><th>bound</th>"
        + "<th>outside by</th><th>how often</th><th>records</th></tr>");
    for (Violation v : r.violations()) {
      List<String> refs = v.records();
      String shown = refs.isEmpty() ? "–" : codes(refs.subList(0, Math.min(8, refs.size())))
          + (refs.size() > 8 ? " and " + (refs.size() - 8) + " more" : "");
      h.append("<tr id=\"violation-").append(escape(anchor(v.id()))).append("\"><td><code>").append(escape(v.id()))
          .append("</code></td><td>").append(escape(v.invariant()))
          .append("</td><td><code>").append(escape(v.subject()))
          .append("</code></td><td class=\"num\">").append(escape(Fmt.num(v.observed()) + " " + v.unit()))
          .append("</td><td class=\"num\">").append(escape(Fmt.num(v.bound()) + " " + v.unit()))
          .append("</td><td class=\"num\">").append(escape(Fmt.share(v.outsideBy()))).append("</td><td class=\"num\">")
          .append(v.occurrences()).append(" of ").append(v.checked()).append("</td><td>").append(shown)
          .append("</td></tr>");
    }
    h.append("</table>\n</section>\n");
  }

  private static void phases(StringBuilder h, Report r, String tags) {
    section(h, "phases", "Phases and budget", tags);
    if (r.phases().isEmpty()) {
      h.append("<p class=\"empty\">No phase time was recorded.</p>\n</section>\n");
      return;
    }
    h.append("<table><tr><th>phase</th><th>planned</th><th>used</th><th>over plan</th></tr>");
    double planned = 0;
    double used = 0;
    for (PhaseUse p : r.phases()) {
      planned += p.plannedSeconds();
      used += p.usedSeconds();
      double over = p.usedSeconds() - p.plannedSeconds();
      h.append("<tr><td>").append(escape(p.name())).append("</td><td class=\"num\">")
          .append(escape(Fmt.seconds(p.plannedSeconds()))).append("</td><td class=\"num\">")
          .append(escape(Fmt.seconds(p.usedSeconds()))).append("</td><td class=\"num\">")
          .append(over > 0 ? escape(Fmt.seconds(over)) : "–").append("</td></tr>");
    }
    h.append("<tr><th>total</th><td class=\"num\">").append(escape(Fmt.seconds(planned)))
        .append("</td><td class=\"num\">").append(escape(Fmt.seconds(used))).append("</td><td class=\"num\">")
        .append(used > planned ? escape(Fmt.seconds(used - planned)) : "–").append("</td></tr></table>\n");
    h.append("<p>").append(r.budgetOverrunSeconds() > 0
        ? "The run went <strong class=\"rolled\">" + escape(Fmt.seconds(r.budgetOverrunSeconds()))
            + " over</strong> its budget of " + escape(Fmt.seconds(r.run().budgetSeconds())) + "."
        : "The run kept within its budget of " + escape(Fmt.seconds(r.run().budgetSeconds()))
            + " (a phase may use time an earlier one left unused).").append("</p>\n</section>\n");
  }

  private static String codes(List<String> ids) {
    return ids.stream().map(i -> "<code>" + escape(i) + "</code>").collect(Collectors.joining(", "));
  }
}
