package io.gitm.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.report.Report.KernelResidual;
import io.gitm.report.Report.Lane;
import io.gitm.report.Report.Series;
import io.gitm.report.Report.Span;
import io.gitm.report.Report.SpanKind;
import io.gitm.report.Report.Timeline;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PlotsTest {

  private static int count(String s, String part) {
    int n = 0;
    for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
      n++;
    }
    return n;
  }

  @Test
  void aMillionTinySpansDrawAsAFewMarksAndTheChartSaysSo() {
    Random rnd = new Random(1);
    List<Span> spans = new ArrayList<>();
    long t = 0;
    for (int i = 0; i < 1_000_000; i++) {
      t += 200 + rnd.nextInt(300);
      spans.add(new Span("k" + (i % 7), t, t + 150, i % 5 == 0 ? SpanKind.COPY : SpanKind.KERNEL));
    }
    Timeline big = new Timeline("a long window", List.of(new Lane("stream 7", spans)));
    String html = Plots.timelines(big, null);
    int marks = count(html, "<rect") - 1;  // less the lane's background
    assertThat(marks).isBetween(1, Plots.MAX_MARKS_PER_LANE);
    assertThat(html.length()).isLessThan(400_000);
    assertThat(html).contains("1000000 spans drawn as " + marks + " marks");
  }

  @Test
  void largeSpansStayApartEvenWhenBackToBack() {
    List<Span> spans = List.of(new Span("a", 0, 1_000_000, SpanKind.KERNEL),
        new Span("b", 1_000_000, 2_000_000, SpanKind.KERNEL), new Span("c", 2_000_000, 3_000_000, SpanKind.COPY));
    String html = Plots.timelines(new Timeline("three", List.of(new Lane("s", spans))), null);
    assertThat(count(html, "class=\"span ")).isEqualTo(3);
    assertThat(html).doesNotContain("merged into one mark");
  }

  @Test
  void spansPastTheCapOfAStreamAreLeftOutAndCounted() {
    List<Span> spans = new ArrayList<>();
    // 600 spans over 924 px: each about 0.5 px wide with a 1.1 px gap, so none merge and more than the cap remain.
    for (int i = 0; i < 600; i++) {
      spans.add(new Span("k", i * 1_600L, i * 1_600L + 500, SpanKind.KERNEL));
    }
    String html = Plots.timelines(new Timeline("dense", List.of(new Lane("s", spans))), null);
    assertThat(count(html, "class=\"span kernel\"")).isEqualTo(Plots.MAX_MARKS_PER_LANE);
    assertThat(html).contains((600 - Plots.MAX_MARKS_PER_LANE) + " spans past the first " + Plots.MAX_MARKS_PER_LANE
        + " marks of a stream are not drawn");
  }

  @Test
  void onlyTheBusiestStreamsAreDrawnAndTheRestAreCounted() {
    List<Lane> lanes = new ArrayList<>();
    for (int i = 0; i < Plots.MAX_LANES + 6; i++) {
      lanes.add(new Lane("stream " + i, List.of(new Span("k", 0, 1_000L * (i + 1), SpanKind.KERNEL))));
    }
    String html = Plots.timelines(new Timeline("many streams", lanes), null);
    assertThat(html).contains(">stream " + (Plots.MAX_LANES + 5) + "<").doesNotContain(">stream 0<")
        .contains("only the " + Plots.MAX_LANES + " busiest streams are drawn; 6 more are left out");
  }

  @Test
  void beforeAndAfterShareOneTimeAxis() {
    Timeline before = new Timeline("before",
        List.of(new Lane("s", List.of(new Span("k", 0, 2_000_000, SpanKind.KERNEL)))));
    Timeline after = new Timeline("after",
        List.of(new Lane("s", List.of(new Span("k", 5_000, 1_005_000, SpanKind.KERNEL)))));
    String html = Plots.timelines(before, after);
    List<String> widths = new ArrayList<>();
    var m = java.util.regex.Pattern.compile("class=\"span kernel\"").matcher(html);
    var w = java.util.regex.Pattern.compile("<rect x=\"[0-9.]+\" y=\"[0-9.]+\" width=\"([0-9.]+)\""
        + "[^>]*class=\"span kernel\"").matcher(html);
    while (w.find()) {
      widths.add(w.group(1));
    }
    assertThat(m.results().count()).isEqualTo(2);
    assertThat(Double.parseDouble(widths.get(1)) * 2).isCloseTo(Double.parseDouble(widths.get(0)),
        org.assertj.core.data.Offset.offset(0.3));
  }

  @Test
  void residualsAreCappedWorstFirst() {
    List<KernelResidual> ks = new ArrayList<>();
    for (int i = 0; i < Plots.MAX_KERNELS + 10; i++) {
      ks.add(new KernelResidual("kernel_" + i, 1_000 + 100 * i, 500, 1_000, 10));
    }
    String html = Plots.residuals(ks);
    assertThat(count(html, "class=\"obs ")).isEqualTo(Plots.MAX_KERNELS);
    assertThat(html).contains(">kernel_" + (Plots.MAX_KERNELS + 9) + "<").doesNotContain(">kernel_0<")
        .contains("10 more are left out");
  }

  @Test
  void residualsWithZeroBoundsStillDrawOnALogScale() {
    String html = Plots.residuals(List.of(new KernelResidual("k", 0, 0, 0, 1), new KernelResidual("j", 500, 0, 0, 1)));
    assertThat(html).contains("<svg").doesNotContain("NaN").doesNotContain("Infinity");
  }

  @Test
  void longTelemetryIsReducedToPerPixelExtremesKeepingSpikes() {
    List<Double> t = new ArrayList<>();
    List<Double> v = new ArrayList<>();
    for (int i = 0; i < 100_000; i++) {
      t.add(i / 100.0);
      v.add(i == 54_321 ? 900.0 : 300.0);
    }
    String html = Plots.telemetry(List.of(new Series("board power", "W", t, v)));
    String points = html.substring(html.indexOf("points=\"") + 8, html.indexOf('"', html.indexOf("points=\"") + 8));
    int n = points.split(" ").length;
    assertThat(n).isLessThanOrEqualTo(2 * (int) Math.ceil(Plots.NARROW));
    assertThat(html).contains("100000 samples drawn as each pixel column's minimum and maximum")
        .contains("max 900");
    // The spike's column reaches the top of the value range: the smallest y of the line is the plot's top area.
    double minY = java.util.Arrays.stream(points.split(" ")).mapToDouble(p -> Double.parseDouble(p.split(",")[1]))
        .min().orElseThrow();
    assertThat(minY).isLessThan(20);
  }

  @Test
  void telemetryIsShownInReadableUnitsWithItsAxesSaid() {
    List<Double> t = List.of(0.0, 1.0, 2.0);
    String memory = Plots.telemetry(List.of(new Series("memory used", "B", t,
        List.of(40.0 * (1L << 30), 60.0 * (1L << 30), 80.0 * (1L << 30)))));
    assertThat(memory).contains("<strong>Memory used</strong> (GiB): min 40, mean 60, max 80 GiB")
        .contains("↑ Memory used, GiB").contains("seconds since the first sample, on the trace clock")
        .doesNotContain("85899345920").doesNotContain("seconds since the run started");
    String small = Plots.telemetry(List.of(new Series("memory used", "B", t, List.of(0.0, 512.0 * (1 << 20),
        1.0 * (1 << 20)))));
    assertThat(small).contains("(MiB)").contains("max 512 MiB");
    String temperature = Plots.telemetry(List.of(new Series("temperature", "C", t, List.of(40.0, 41.0, 42.0))));
    assertThat(temperature).contains("<strong>Temperature</strong> (°C)").contains("max 42 °C");
    String clock = Plots.telemetry(List.of(new Series("sm clock", "MHz", t, List.of(1980.0, 1700.0, 1980.0))));
    assertThat(clock).contains("<strong>SM clock</strong> (MHz)").contains("↑ SM clock, MHz");
  }

  @Test
  void aSingleSampleOrAFlatSeriesIsDrawnWithoutDividingByZero() {
    String one = Plots.telemetry(List.of(new Series("SM clock", "MHz", List.of(3.0), List.of(1980.0))));
    String flat = Plots.telemetry(
        List.of(new Series("SM clock", "MHz", List.of(0.0, 1.0, 2.0), List.of(5.0, 5.0, 5.0))));
    assertThat(one).contains("<circle").doesNotContain("NaN");
    assertThat(flat).contains("<polyline").doesNotContain("NaN");
  }

  @Test
  void trialChartHandlesManyTrialsAndSaysHowManyItDrew() {
    List<Report.Trial> trials = new ArrayList<>();
    for (int i = 1; i <= Plots.MAX_TRIALS + 20; i++) {
      trials.add(new Report.Trial(i, List.of("lever-" + i), "A", 0.01, 0.01, new Report.Estimate(0.0, -0.01, 0.01),
          0.9, Report.Verdict.ROLLED_BACK, "not significant", 4, 1));
    }
    String html = Plots.trials(trials);
    assertThat(count(html, "class=\"meas rolled\"")).isEqualTo(Plots.MAX_TRIALS);
    assertThat(html).contains("Only the first " + Plots.MAX_TRIALS + " of " + (Plots.MAX_TRIALS + 20) + " trials");
  }

  @Test
  void ticksFallOnAOneTwoFiveGrid() {
    assertThat(Plots.niceTicks(0, 10, 5)).containsExactly(0.0, 2.0, 4.0, 6.0, 8.0, 10.0);
    assertThat(Plots.niceTicks(-0.03, 0.087, 6)).contains(0.0).allSatisfy(v -> assertThat(Math.round(v * 1000) % 20)
        .isZero());
    assertThat(Plots.niceTicks(5, 5, 5)).containsExactly(5.0);
    List<Double> ticks = Plots.niceTicks(2.35, 3.15, 5);
    assertThat(ticks.stream().map(v -> Plots.tickLabel(v, ticks)).toList()).containsExactly("2.4", "2.6", "2.8", "3.0");
    List<Double> big = Plots.niceTicks(1890, 1995, 5);
    assertThat(big.stream().map(v -> Plots.tickLabel(v, big)).toList()).containsExactly("1900", "1920", "1940", "1960",
        "1980");
  }

  @Test
  void decadesAndShortenedNamesReadWell() {
    assertThat(Plots.decade(2)).isEqualTo("100 ns");
    assertThat(Plots.decade(3)).isEqualTo("1 µs");
    assertThat(Plots.decade(7)).isEqualTo("10 ms");
    assertThat(Plots.decade(10)).isEqualTo("10 s");
    assertThat(Plots.shorten("lob_route_scatter", 8)).isEqualTo("lob_rou…");
    assertThat(Plots.shorten("😀😀😀😀", 3)).isEqualTo("😀😀…");
  }

  @Test
  void svgCoordinatesHaveOneDecimalAndRefuseNonFiniteValues() {
    assertThat(Svg.n(12.34)).isEqualTo("12.3");
    assertThat(Svg.n(-0.04)).isEqualTo("0");
    assertThat(Svg.n(-0.46)).isEqualTo("-0.5");
    assertThat(Svg.n(7)).isEqualTo("7");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Svg.n(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
