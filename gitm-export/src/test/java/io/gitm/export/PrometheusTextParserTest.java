package io.gitm.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The test-side parser reads the format's own example and refuses what a Prometheus server refuses. */
class PrometheusTextParserTest {
  private static final String SPEC_EXAMPLE = """
      # HELP http_requests_total The total number of HTTP requests.
      # TYPE http_requests_total counter
      http_requests_total{method="post",code="200"} 1027 1395066363000
      http_requests_total{method="post",code="400"}    3 1395066363000

      # Escaping in label values:
      msdos_file_access_time_seconds{path="C:\\\\DIR\\\\FILE.TXT",\
      error="Cannot find file:\\n\\"FILE.TXT\\""} 1.458255915e9

      # Minimalistic line:
      metric_without_timestamp_and_labels 12.47

      # A weird metric from before the epoch:
      something_weird{problem="division by zero"} +Inf -3982045

      # A histogram, which has a pretty complex representation in the text format:
      # HELP http_request_duration_seconds A histogram of the request duration.
      # TYPE http_request_duration_seconds histogram
      http_request_duration_seconds_bucket{le="0.05"} 24054
      http_request_duration_seconds_bucket{le="+Inf"} 144320
      http_request_duration_seconds_sum 53423
      http_request_duration_seconds_count 144320
      """;

  @Test
  void readsTheFormatsOwnExample() {
    var f = PrometheusTextParser.parse(SPEC_EXAMPLE);
    assertThat(f.get("http_requests_total").type()).isEqualTo("counter");
    assertThat(f.get("http_requests_total").help()).isEqualTo("The total number of HTTP requests.");
    assertThat(f.get("http_requests_total").value(Map.of("code", "400"))).isEqualTo(3);
    assertThat(f.get("http_requests_total").samples().getFirst().timestampMs()).isEqualTo(1395066363000L);
    var msdos = f.get("msdos_file_access_time_seconds").samples().getFirst();
    assertThat(msdos.labels()).containsEntry("path", "C:\\DIR\\FILE.TXT")
        .containsEntry("error", "Cannot find file:\n\"FILE.TXT\"");
    assertThat(msdos.value()).isEqualTo(1.458255915e9);
    assertThat(f.get("metric_without_timestamp_and_labels").value()).isEqualTo(12.47);
    assertThat(f.get("metric_without_timestamp_and_labels").type()).isEqualTo("untyped");
    assertThat(f.get("something_weird").value()).isInfinite();
    assertThat(f.get("something_weird").samples().getFirst().timestampMs()).isEqualTo(-3982045L);
    assertThat(f.get("http_request_duration_seconds").samples()).hasSize(4);
    assertThat(f).doesNotContainKey("http_request_duration_seconds_bucket");
  }

  @Test
  void helpTextUnescapesBackslashAndLineFeedOnly() {
    var f = PrometheusTextParser.parse("# HELP a x\\\\y\\nz \"q\"\n# TYPE a gauge\na NaN\n");
    assertThat(f.get("a").help()).isEqualTo("x\\y\nz \"q\"");
    assertThat(f.get("a").value()).isNaN();
  }

  @Test
  void refusesWhatAPrometheusServerRefuses() {
    assertThatThrownBy(() -> PrometheusTextParser.parse("a{b=\"c} 1\n")).hasMessageContaining("line 1");
    assertThatThrownBy(() -> PrometheusTextParser.parse("a 1x\n")).hasMessageContaining("not a number");
    assertThatThrownBy(() -> PrometheusTextParser.parse("a 1\n# TYPE a gauge\n")).hasMessageContaining("after its");
    assertThatThrownBy(() -> PrometheusTextParser.parse("# TYPE a gauge\n# TYPE a counter\n"))
        .hasMessageContaining("second TYPE");
    assertThatThrownBy(() -> PrometheusTextParser.parse("# TYPE a gauges\n")).hasMessageContaining("unknown type");
    assertThatThrownBy(() -> PrometheusTextParser.parse("a{b=\"1\"} 1\na{b=\"1\"} 2\n"))
        .hasMessageContaining("twice");
    assertThatThrownBy(() -> PrometheusTextParser.parse("a{b=\"1\",b=\"2\"} 1\n")).hasMessageContaining("twice");
    assertThatThrownBy(() -> PrometheusTextParser.parse("1a 1\n")).hasMessageContaining("invalid metric name");
    assertThatThrownBy(() -> PrometheusTextParser.parse("a-b 1\n")).hasMessageContaining("line 1");
    assertThatThrownBy(() -> PrometheusTextParser.parse("a{1b=\"x\"} 1\n")).hasMessageContaining("label name");
    assertThatThrownBy(() -> PrometheusTextParser.parse("a 1 1.5\n")).hasMessageContaining("timestamp");
    assertThatThrownBy(() -> PrometheusTextParser.parse("a 1")).hasMessageContaining("line feed");
    assertThatThrownBy(() -> PrometheusTextParser.parse("a{b=\"x\"}1\n")).hasMessageContaining("blank");
  }
}
