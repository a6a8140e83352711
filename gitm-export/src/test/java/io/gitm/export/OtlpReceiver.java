package io.gitm.export;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.GZIPInputStream;

/**
 * A collector endpoint for the tests: OTLP/HTTP with protobuf bodies on {@code /v1/metrics} and {@code /v1/traces}
 * (the JDK's HTTP server), each request decoded with the protocol's generated classes and kept. A body that is not
 * protobuf of the right message is answered 400, as a collector would.
 */
public final class OtlpReceiver implements AutoCloseable {
  public final List<ExportMetricsServiceRequest> metrics = new CopyOnWriteArrayList<>();
  public final List<ExportTraceServiceRequest> traces = new CopyOnWriteArrayList<>();
  final List<String> contentTypes = new CopyOnWriteArrayList<>();
  private final HttpServer server;

  public OtlpReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    server.createContext("/v1/metrics", ex -> handle(ex, true));
    server.createContext("/v1/traces", ex -> handle(ex, false));
    server.start();
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  private void handle(HttpExchange ex, boolean isMetrics) throws IOException {
    try (ex) {
      contentTypes.add(String.valueOf(ex.getRequestHeaders().getFirst("Content-Type")));
      if (!ex.getRequestMethod().equals("POST")) {
        ex.sendResponseHeaders(405, -1);
        return;
      }
      byte[] body;
      try (InputStream in = "gzip".equals(ex.getRequestHeaders().getFirst("Content-Encoding"))
          ? new GZIPInputStream(ex.getRequestBody()) : ex.getRequestBody()) {
        body = in.readAllBytes();
      }
      byte[] answer;
      try {
        if (isMetrics) {
          metrics.add(ExportMetricsServiceRequest.parseFrom(body));
          answer = ExportMetricsServiceResponse.getDefaultInstance().toByteArray();
        } else {
          traces.add(ExportTraceServiceRequest.parseFrom(body));
          answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
        }
      } catch (com.google.protobuf.InvalidProtocolBufferException e) {
        ex.sendResponseHeaders(400, -1);
        return;
      }
      ex.getResponseHeaders().set("Content-Type", "application/x-protobuf");
      ex.sendResponseHeaders(200, answer.length);
      ex.getResponseBody().write(answer);
    }
  }

  /** Every metric received, in order. */
  public List<Metric> allMetrics() {
    List<Metric> out = new ArrayList<>();
    for (var r : metrics) {
      for (var rm : r.getResourceMetricsList()) {
        for (var sm : rm.getScopeMetricsList()) {
          out.addAll(sm.getMetricsList());
        }
      }
    }
    return out;
  }

  /** The data points of the last export of metric {@code name}. */
  public List<NumberDataPoint> lastPoints(String name) {
    List<Metric> m = allMetrics().stream().filter(x -> x.getName().equals(name)).toList();
    if (m.isEmpty()) {
      throw new AssertionError("no metric " + name + " received; got " + allMetrics().stream().map(Metric::getName)
          .distinct().toList());
    }
    Metric last = m.getLast();
    return last.hasGauge() ? last.getGauge().getDataPointsList() : last.getSum().getDataPointsList();
  }

  public List<Span> allSpans() {
    List<Span> out = new ArrayList<>();
    for (var r : traces) {
      for (var rs : r.getResourceSpansList()) {
        for (var ss : rs.getScopeSpansList()) {
          out.addAll(ss.getSpansList());
        }
      }
    }
    return out;
  }

  public static Map<String, String> attributes(List<KeyValue> kvs) {
    Map<String, String> m = new LinkedHashMap<>();
    for (KeyValue kv : kvs) {
      var v = kv.getValue();
      m.put(kv.getKey(), switch (v.getValueCase()) {
        case STRING_VALUE -> v.getStringValue();
        case INT_VALUE -> Long.toString(v.getIntValue());
        case DOUBLE_VALUE -> Double.toString(v.getDoubleValue());
        case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
        default -> v.toString();
      });
    }
    return m;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
