package io.gitm.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.report.Report.Charts;
import io.gitm.trace.DeviceKind;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * The HTML page is also well-formed XML, so these tests read it with the JDK's XML parser and look at the element
 * tree itself: an unescaped name would either break the parse or add an element.
 */
class HtmlReportTest {

  static Document dom(String html) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setNamespaceAware(false);
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", false);
    f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
    f.setExpandEntityReferences(false);
    return f.newDocumentBuilder().parse(new InputSource(new StringReader(html)));
  }

  static List<Element> elements(Document d, String tag) {
    NodeList nl = d.getElementsByTagName(tag);
    List<Element> out = new ArrayList<>();
    for (int i = 0; i < nl.getLength(); i++) {
      out.add((Element) nl.item(i));
    }
    return out;
  }

  /** Every element name of the document, once each. */
  static java.util.Set<String> tags(Document d) {
    java.util.Set<String> out = new java.util.TreeSet<>();
    NodeList all = d.getElementsByTagName("*");
    for (int i = 0; i < all.getLength(); i++) {
      out.add(all.item(i).getNodeName().toLowerCase(java.util.Locale.ROOT));
    }
    return out;
  }

  @Test
  void hostileNamesAddNoElementAndNoAttribute() throws Exception {
    Document hostile = dom(Reports.html(SampleReports.hostile()));
    Document plain = dom(Reports.html(SampleReports.build(java.util.function.UnaryOperator.identity(), false,
        SampleReports.score(java.util.function.UnaryOperator.identity()))));
    assertThat(tags(hostile)).doesNotContain("script", "img", "iframe", "object", "embed", "link", "foreignobject")
        .isEqualTo(tags(plain));
    assertThat(hostile.getElementsByTagName("*").getLength()).isEqualTo(plain.getElementsByTagName("*").getLength());
    NodeList all = hostile.getElementsByTagName("*");
    for (int i = 0; i < all.getLength(); i++) {
      var attrs = all.item(i).getAttributes();
      for (int a = 0; a < attrs.getLength(); a++) {
        assertThat(attrs.item(a).getNodeName()).doesNotStartWithIgnoringCase("on");
      }
    }
  }

  @Test
  void hostileNamesShowAsTheirOwnText() throws Exception {
    Document doc = dom(Reports.html(SampleReports.hostile()));
    String text = doc.getDocumentElement().getTextContent();
    for (String h : SampleReports.HOSTILE) {
      assertThat(text).as(h).contains(h);
    }
    String raw = Reports.html(SampleReports.hostile());
    assertThat(raw).contains("&lt;script&gt;alert(1)&lt;/script&gt;")
        .contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;")
        .doesNotContainIgnoringCase("<script").doesNotContainIgnoringCase("<img");
  }

  @Test
  void aScoredRunHasAnOutputScoreSectionLinkedFromTheNavigationWithNaWhereUndefined() throws Exception {
    Document doc = dom(Reports.html(SampleReports.scored()));
    Element section = elements(doc, "section").stream().filter(e -> e.getAttribute("id").equals("score")).findFirst()
        .orElseThrow();
    assertThat(section.getTextContent()).contains("What produced the output: seeded, untrained weights")
        .contains("Car easy").contains("12.50").contains("n/a");
    assertThat(elements(doc, "a")).anySatisfy(a -> assertThat(a.getAttribute("href")).isEqualTo("#score"));
    assertThat(Reports.html(SampleReports.sample())).doesNotContain("#score").doesNotContain("Output score");
  }

  @Test
  void pageNeedsNothingFromOutsideAndRunsNoScript() throws Exception {
    String html = Reports.html(SampleReports.sample());
    Document doc = dom(html);
    assertThat(elements(doc, "script")).isEmpty();
    assertThat(elements(doc, "link")).isEmpty();
    assertThat(html).doesNotContain("src=").doesNotContain("url(").doesNotContain("@import");
    assertThat(elements(doc, "meta"))
        .anySatisfy(m -> assertThat(m.getAttribute("content")).contains("default-src 'none'"));
    for (Element a : elements(doc, "a")) {
      assertThat(a.getAttribute("href")).startsWith("#");
    }
  }

  @Test
  void everySectionHeaderOfASimulatedRunCarriesTheLabel() throws Exception {
    Document doc = dom(Reports.html(SampleReports.hostile()));
    List<Element> h2 = elements(doc, "h2");
    assertThat(h2).hasSizeGreaterThanOrEqualTo(10)
        .allSatisfy(h -> assertThat(h.getTextContent()).contains("simulated device"));
    assertThat(elements(doc, "h1").getFirst().getTextContent()).contains("simulated device");
    assertThat(elements(doc, "title").getFirst().getTextContent()).contains("SIMULATED");
    assertThat(doc.getDocumentElement().getTextContent()).contains("SIMULATED device: every figure on this page");
  }

  @Test
  void aSampleIsLabeledOnEverySectionHeader() throws Exception {
    Document doc = dom(Reports.html(SampleReports.sample()));
    assertThat(elements(doc, "h2"))
        .allSatisfy(h -> assertThat(h.getTextContent()).contains("sample: invented figures"));
    assertThat(doc.getDocumentElement().getTextContent())
        .contains("SAMPLE report: every figure on this page is invented");
  }

  @Test
  void aRealDeviceIsNamedRealAndNotLabeledSimulated() throws Exception {
    String html = Reports.html(SampleReports.bare(DeviceKind.REAL));
    assertThat(html).doesNotContainIgnoringCase("simulated").contains("<strong>real</strong>");
  }

  @Test
  void chartsAreInlineSvgWithTheirParts() throws Exception {
    Document doc = dom(Reports.html(SampleReports.sample()));
    List<Element> svgs = elements(doc, "svg");
    java.util.Map<String, Long> byClass = new java.util.TreeMap<>();
    for (Element s : svgs) {
      byClass.merge(s.getAttribute("class"), 1L, Long::sum);
    }
    assertThat(byClass).containsEntry("chart timeline", 2L).containsEntry("chart residuals", 1L)
        .containsEntry("chart telemetry", 4L).containsEntry("chart trials", 1L);
    String trials = svgText(svgs, "chart trials");
    // Two kept, three rolled back with a measurement, one with none.
    assertThat(count(trials, "class=\"meas kept\"")).isEqualTo(2);
    assertThat(count(trials, "class=\"meas rolled\"")).isEqualTo(3);
    assertThat(count(trials, "class=\"unmeasured\"")).isEqualTo(1);
    assertThat(count(trials, "class=\"pred\"")).isEqualTo(6);
    String residuals = svgText(svgs, "chart residuals");
    assertThat(count(residuals, "class=\"obs over\"")).isEqualTo(4);
    assertThat(count(residuals, "class=\"obs under\"")).isEqualTo(1);
    assertThat(count(residuals, "class=\"obs within\"")).isEqualTo(4);
    String timeline = svgText(svgs, "chart timeline");
    assertThat(timeline).contains("class=\"span kernel\"").contains("class=\"span copy\"")
        .contains("class=\"span other\"");
  }

  private static String svgText(List<Element> svgs, String cls) throws Exception {
    Element e = svgs.stream().filter(s -> s.getAttribute("class").equals(cls)).findFirst().orElseThrow();
    var t = javax.xml.transform.TransformerFactory.newInstance().newTransformer();
    var w = new java.io.StringWriter();
    t.transform(new javax.xml.transform.dom.DOMSource(e), new javax.xml.transform.stream.StreamResult(w));
    return w.toString();
  }

  private static int count(String s, String part) {
    int n = 0;
    for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
      n++;
    }
    return n;
  }

  @Test
  void emptyDataIsASentenceNotAnEmptyChart() throws Exception {
    Document doc = dom(Reports.html(SampleReports.bare(DeviceKind.SIMULATED)));
    assertThat(elements(doc, "svg")).isEmpty();
    String text = doc.getDocumentElement().getTextContent();
    assertThat(text).contains("No lever was tried in this run, so there is no trial history to chart.")
        .contains("No timeline was captured for this configuration.")
        .contains("No kernel was compared with the roofline in this run")
        .contains("No device telemetry was recorded in this run")
        .contains("The qualification did not run");
  }

  @Test
  void aTimelineWithStreamsButNoSpanSaysSo() throws Exception {
    Report s = SampleReports.sample();
    Report.Timeline empty = new Report.Timeline("nothing ran", List.of(new Report.Lane("stream 7", List.of())));
    Report r = new Report(s.run(), s.phases(), s.baseline(), s.outcome(), s.qualification(), s.violations(),
        s.hypotheses(), s.trials(), s.claims(), new Charts(empty, null, List.of(), List.of(
            new Report.Series("SM clock", "MHz", List.of(), List.of()))), s.notes());
    Document doc = dom(Reports.html(r));
    assertThat(doc.getDocumentElement().getTextContent()).contains("The timeline holds no span.")
        .contains("No sample was recorded.");
  }

  @Test
  void everySvgIdentifiesItselfForScreenReaders() throws Exception {
    for (Element s : elements(dom(Reports.html(SampleReports.hostile())), "svg")) {
      assertThat(s.getAttribute("role")).isEqualTo("img");
      assertThat(s.getAttribute("aria-label")).isNotBlank();
      Node first = s.getFirstChild();
      assertThat(first.getNodeName()).isEqualTo("title");
    }
  }

  @Test
  void controlCharactersInNamesDoNotBreakThePage() throws Exception {
    String html = Reports.html(SampleReports.build(n -> n + "\u0000\u0007\u001b[31m", false));
    assertThat(dom(html).getDocumentElement().getTextContent()).contains("\uFFFD[31m");
  }
}
