package io.gitm.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.trace.DeviceKind;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.commonmark.Extension;
import org.commonmark.ext.gfm.tables.TableBlock;
import org.commonmark.ext.gfm.tables.TableCell;
import org.commonmark.ext.gfm.tables.TableRow;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.CustomBlock;
import org.commonmark.node.CustomNode;
import org.commonmark.node.Emphasis;
import org.commonmark.node.HtmlBlock;
import org.commonmark.node.HtmlInline;
import org.commonmark.node.Link;
import org.commonmark.node.Node;
import org.commonmark.node.StrongEmphasis;
import org.commonmark.parser.Parser;
import org.commonmark.renderer.html.HtmlRenderer;
import org.junit.jupiter.api.Test;

/** The Markdown report as GitHub would render it: commonmark-java with GFM tables stands in for GitHub. */
class MarkdownReportTest {
  private static final List<Extension> GFM = List.of(TablesExtension.create());
  private static final Parser PARSER = Parser.builder().extensions(GFM).build();

  private static Node parse(String md) {
    return PARSER.parse(md);
  }

  /** Every table row of the document, as the number of cells it has and the table's header width. */
  private static List<int[]> rowWidths(Node doc) {
    List<int[]> rows = new ArrayList<>();
    doc.accept(new AbstractVisitor() {
      @Override
      public void visit(CustomBlock block) {
        if (block instanceof TableBlock table) {
          int header = -1;
          for (Node section = table.getFirstChild(); section != null; section = section.getNext()) {
            for (Node row = section.getFirstChild(); row != null; row = row.getNext()) {
              if (row instanceof TableRow) {
                int cells = 0;
                for (Node c = row.getFirstChild(); c != null; c = c.getNext()) {
                  cells += c instanceof TableCell ? 1 : 0;
                }
                if (header < 0) {
                  header = cells;
                }
                rows.add(new int[] {cells, header});
              }
            }
          }
          return;
        }
        visitChildren(block);
      }
    });
    return rows;
  }

  @Test
  void hostileNamesLeaveEveryTableRowAsWideAsItsHeader() {
    String md = Reports.markdown(SampleReports.hostile());
    List<int[]> rows = rowWidths(parse(md));
    assertThat(rows).hasSizeGreaterThan(20);
    // A row whose text opened a new cell has more cells in the source; GFM drops extra cells silently, so count the
    // unescaped pipes of each table line as well.
    for (String line : md.lines().filter(l -> l.startsWith("|")).toList()) {
      assertThat(cellCount(line)).as(line).isEqualTo(cellCount(headerOf(md, line)));
    }
    for (int[] r : rows) {
      assertThat(r[0]).isEqualTo(r[1]);
    }
  }

  /** Cells of a GFM table line: pipes not escaped by a backslash, less the outer two. */
  private static int cellCount(String line) {
    int pipes = 0;
    for (int i = 0; i < line.length(); i++) {
      if (line.charAt(i) == '\\' && i + 1 < line.length() && line.charAt(i + 1) == '|') {
        i++;
      } else if (line.charAt(i) == '|') {
        pipes++;
      }
    }
    return pipes - 1;
  }

  private static String headerOf(String md, String line) {
    List<String> lines = md.lines().toList();
    int i = lines.indexOf(line);
    while (i > 0 && lines.get(i - 1).startsWith("|")) {
      i--;
    }
    return lines.get(i);
  }

  /** How many nodes of each markup kind the document has (HTML, links, emphasis, code spans). */
  private static java.util.Map<String, Integer> markup(Node doc) {
    java.util.Map<String, Integer> counts = new java.util.TreeMap<>();
    doc.accept(new AbstractVisitor() {
      @Override
      public void visit(HtmlInline n) {
        counts.merge("inline HTML", 1, Integer::sum);
      }

      @Override
      public void visit(HtmlBlock n) {
        counts.merge("HTML block", 1, Integer::sum);
      }

      @Override
      public void visit(Link n) {
        counts.merge("link", 1, Integer::sum);
        visitChildren(n);
      }

      @Override
      public void visit(Emphasis n) {
        counts.merge("emphasis", 1, Integer::sum);
        visitChildren(n);
      }

      @Override
      public void visit(StrongEmphasis n) {
        counts.merge("strong", 1, Integer::sum);
        visitChildren(n);
      }

      @Override
      public void visit(org.commonmark.node.Code n) {
        counts.merge("code", 1, Integer::sum);
      }

      @Override
      public void visit(CustomNode n) {
        visitChildren(n);
      }

      @Override
      public void visit(CustomBlock n) {
        visitChildren(n);
      }
    });
    return counts;
  }

  @Test
  void hostileNamesAddNoHtmlLinkOrEmphasis() {
    Node doc = parse(Reports.markdown(SampleReports.hostile()));
    java.util.Map<String, Integer> hostile = markup(doc);
    java.util.Map<String, Integer> plain = markup(parse(Reports.markdown(
        SampleReports.build(java.util.function.UnaryOperator.identity(), false,
        SampleReports.score(java.util.function.UnaryOperator.identity())))));
    assertThat(hostile).doesNotContainKeys("inline HTML", "HTML block", "link");
    assertThat(hostile.get("emphasis")).isEqualTo(plain.get("emphasis"));
    assertThat(hostile.get("strong")).isEqualTo(plain.get("strong"));
    String html = HtmlRenderer.builder().extensions(GFM).build().render(doc);
    assertThat(html).doesNotContainIgnoringCase("<script").doesNotContainIgnoringCase("<img")
        .doesNotContainIgnoringCase("<svg").contains("&lt;script&gt;alert(1)&lt;/script&gt;")
        .contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;");
  }

  @Test
  void hostileNamesReadBackWordForWordInTheRenderedText() {
    String html =
        HtmlRenderer.builder().extensions(GFM).build().render(parse(Reports.markdown(SampleReports.hostile())));
    String text = unescape(html.replaceAll("<[^>]+>", ""));
    for (String h : SampleReports.HOSTILE) {
      assertThat(text).as(h).contains(h.replace('\n', ' '));
    }
  }

  private static String unescape(String s) {
    Matcher m = Pattern.compile("&(lt|gt|quot|amp|#39);").matcher(s);
    StringBuilder b = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(b, Matcher.quoteReplacement(switch (m.group(1)) {
        case "lt" -> "<";
        case "gt" -> ">";
        case "quot" -> "\"";
        case "#39" -> "'";
        default -> "&";
      }));
    }
    return m.appendTail(b).toString();
  }

  @Test
  void everySectionHeaderOfASimulatedRunSaysSo() {
    String md = Reports.markdown(SampleReports.hostile());
    List<String> headers = md.lines().filter(l -> l.startsWith("#") && !l.startsWith("###")).toList();
    assertThat(headers).hasSizeGreaterThanOrEqualTo(8).allSatisfy(h -> assertThat(h).contains("SIMULATED device"));
    assertThat(md).contains("> **Simulated device.**");
  }

  @Test
  void aSampleIsLabeledOnEverySectionHeader() {
    String md = Reports.markdown(SampleReports.sample());
    assertThat(md.lines().filter(l -> l.startsWith("## ")).toList())
        .allSatisfy(h -> assertThat(h).contains("SAMPLE (invented figures)"));
    assertThat(md).contains("> **SAMPLE report.**");
  }

  @Test
  void aRealRunCarriesNoSimulatedLabelButNamesItsDeviceReal() {
    String md = Reports.markdown(SampleReports.bare(DeviceKind.REAL));
    assertThat(md).doesNotContainIgnoringCase("simulated").contains("(**real**, backend `nvidia`");
  }

  @Test
  void summaryClaimsTrialsAndPhasesCarryTheirFigures() {
    String md = Reports.markdown(SampleReports.sample());
    assertThat(md).contains("| status | **target not reachable** |")
        .contains("**12.17 M messages/s**")
        .contains("gain **+10.2% (95% CI +7.9% to +12.4%)**")
        .contains("- floor diagnosis: kernels run on average within 9%")
        .contains("- **intervention**: `pinned-host-memory`: host staging buffers allocated as pinned memory (trial 1)")
        .contains("- **measured delta**: +6.9% (95% CI +5.1% to +8.6%)")
        .contains("| 4 | `graph-capture` | A | +4.5% ± 2.5% | −1.8% (95% CI −3.0% to −0.6%) | 0.004"
            + " | rolled back |")
        .contains("| 6 | `copy-compute-overlap` | A | +3.0% ± 1.8% | not measured | – | rolled back |")
        .contains("| apply | 40.0 s | 52.3 s | 12.3 s |")
        .contains("The run kept within its budget of 2 min 00 s");
  }

  @Test
  void aScoredRunShowsItsScoreTableBesideWhatProducedTheOutputAndNaWhereUndefined() {
    String md = Reports.markdown(SampleReports.scored());
    assertThat(md).contains("KITTI object benchmark AP over 3 of 3 labelled frames")
        .contains("**What produced the output:** seeded, untrained weights")
        .contains("| | objects | BEV AP R40 |").contains("| Car easy | 4 | 12.50 |")
        .contains("| Cyclist hard | 0 | n/a |");
    assertThat(md.indexOf("## Output score")).isGreaterThan(md.indexOf("## Summary"))
        .isLessThan(md.indexOf("## Qualification"));
    assertThat(Reports.markdown(SampleReports.sample())).doesNotContain("Output score");
  }

  @Test
  void aGainChainedFromTrialsWithoutAConfirmationShowsNoIntervalRatherThanAPointOne() {
    assertThat(Fmt.pctCi(new Report.Estimate(0.26, 0.26, 0.26))).isEqualTo("+26.0% (no interval: not measured as"
        + " one figure)");
    assertThat(Fmt.pctCi(new Report.Estimate(0.102, 0.079, 0.124))).isEqualTo("+10.2% (95% CI +7.9% to +12.4%)");
  }

  @Test
  void anInterruptedRunWithNoDataSaysWhatIsMissingInWords() {
    String md = Reports.markdown(SampleReports.bare(DeviceKind.SIMULATED));
    assertThat(md).contains("| status | **interrupted** |").contains("| final | not measured |")
        .contains("The qualification did not run").contains("This run makes no claim.")
        .contains("No lever was tried in this run.").contains("No cause was attributed.")
        .contains("No invariant was violated.").contains("Interrupted by the user");
  }

  @Test
  void codeSpansSurviveBackticksAndPipes() {
    assertThat(Markdown.code("a`b")).isEqualTo("`` a`b ``");
    assertThat(Markdown.code("a|b")).isEqualTo("`a\\|b`");
    assertThat(Markdown.code("x\\|y")).isEqualTo("x\\\\\\|y");
    assertThat(Markdown.code("line\nbreak")).isEqualTo("`line break`");
    assertThat(Markdown.code(" ")).isEqualTo("(blank)");
    assertThat(Markdown.text("<b>*x*</b> & $y$")).isEqualTo("\\<b\\>\\*x\\*\\</b\\> \\& \\$y\\$");
  }
}
