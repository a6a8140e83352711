package io.gitm.report;

/**
 * The "Output score" section of both report pages: how the output was scored, what produced it, and the table, a
 * value per row and column ("n/a" where undefined), numbers as {@link Fmt#num} writes them.
 */
final class ScoreTable {
  private ScoreTable() {}

  static void markdown(StringBuilder s, Report.Score score, String tag) {
    s.append("## Output score").append(tag).append("\n\n");
    s.append(Markdown.text(score.method())).append("\n\n");
    s.append("**What produced the output:** ").append(Markdown.text(score.model())).append("\n\n");
    s.append("| |");
    for (String c : score.columns()) {
      s.append(' ').append(Markdown.text(c)).append(" |");
    }
    s.append("\n|---|");
    s.append("---:|".repeat(score.columns().size()));
    s.append('\n');
    for (Report.ScoreRow r : score.rows()) {
      s.append("| ").append(Markdown.text(r.name())).append(" |");
      for (Double v : r.values()) {
        s.append(' ').append(value(v)).append(" |");
      }
      s.append('\n');
    }
    s.append('\n');
  }

  static void html(StringBuilder h, Report.Score score, String tags) {
    Html.section(h, "score", "Output score", tags);
    h.append("<p>").append(Html.escape(score.method())).append("</p>\n");
    h.append("<p><strong>What produced the output:</strong> ").append(Html.escape(score.model())).append("</p>\n");
    h.append("<table><tr><th></th>");
    for (String c : score.columns()) {
      h.append("<th>").append(Html.escape(c)).append("</th>");
    }
    h.append("</tr>");
    for (Report.ScoreRow r : score.rows()) {
      h.append("<tr><td>").append(Html.escape(r.name())).append("</td>");
      for (Double v : r.values()) {
        h.append("<td class=\"num\">").append(Html.escape(value(v))).append("</td>");
      }
      h.append("</tr>");
    }
    h.append("</table>\n</section>\n");
  }

  private static String value(Double v) {
    return v == null || !Double.isFinite(v) ? "n/a" : Fmt.num(v);
  }
}
