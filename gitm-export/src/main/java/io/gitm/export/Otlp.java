package io.gitm.export;

import io.gitm.api.Ticker;
import io.gitm.run.Phase;
import io.gitm.search.TrialRecord;
import io.gitm.search.Verdict;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableDoubleMeasurement;
import io.opentelemetry.api.metrics.ObservableMeasurement;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.http.metrics.OtlpHttpMetricExporter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.common.Clock;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.common.export.MemoryMode;
import io.opentelemetry.sdk.common.export.RetryPolicy;
import io.opentelemetry.sdk.metrics.Aggregation;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.MetricExporter;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * OTLP/HTTP (protobuf) push of the board's families and of a run's spans through the OpenTelemetry SDK: metrics every
 * {@code interval} to {@code ENDPOINT/v1/metrics}, spans in batches to {@code ENDPOINT/v1/traces}. Families keep
 * their Prometheus names, except that a counter loses its {@code _total} suffix (OTLP names counters without it; a
 * Prometheus-side converter adds it back). Every instrument is registered once, from {@link Board#CATALOGUE}, and all
 * are recorded by one callback that collects the board once per export. The SDK's clock is the injected ticker,
 * anchored to the injected wall clock when the exporter starts.
 */
final class Otlp implements AutoCloseable {
  /** How long closing waits for each signal's last push. */
  private static final long FLUSH_SECONDS = 5;
  /** Each push: one attempt and two retries 0.2 s and 0.3 s later, so that a collector that is down costs little. */
  private static final RetryPolicy RETRY = RetryPolicy.builder().setMaxAttempts(3)
      .setInitialBackoff(Duration.ofMillis(200)).setMaxBackoff(Duration.ofSeconds(1)).setBackoffMultiplier(1.5).build();
  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  static final AttributeKey<String> SERVICE_NAME = AttributeKey.stringKey("service.name");
  static final AttributeKey<String> HOST_NAME = AttributeKey.stringKey("host.name");

  private final SdkMeterProvider meters;
  private final SdkTracerProvider tracers;
  private final Tracer tracer;
  private final Clock clock;
  private final AtomicLong exports = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();

  Otlp(URI endpoint, Duration interval, Board board, String hostname, String version, Ticker ticker,
      java.time.Clock wall) {
    String base = endpoint.toString().replaceAll("/+$", "");
    this.clock = anchored(ticker, wall);
    Resource resource = Resource.getDefault().merge(Resource.create(Attributes.of(SERVICE_NAME, "gitm",
        HOST_NAME, hostname, AttributeKey.stringKey("service.version"), version)));
    MetricExporter metricExporter = new CountingMetricExporter(
        OtlpHttpMetricExporter.builder().setEndpoint(base + "/v1/metrics").setRetryPolicy(RETRY).setTimeout(TIMEOUT)
            .build());
    this.meters = SdkMeterProvider.builder().setResource(resource).setClock(clock)
        .registerMetricReader(PeriodicMetricReader.builder(metricExporter).setInterval(interval).build()).build();
    Meter meter = meters.meterBuilder("io.gitm.telemetry.export").setInstrumentationVersion(version).build();
    Map<String, ObservableDoubleMeasurement> instruments = new HashMap<>();
    for (Family f : Board.CATALOGUE) {
      instruments.put(f.name(), f.type() == Family.Type.GAUGE
          ? meter.gaugeBuilder(f.name()).setDescription(f.help()).setUnit(f.otelUnit()).buildObserver()
          : meter.counterBuilder(otlpName(f)).ofDoubles().setDescription(f.help()).setUnit(f.otelUnit())
              .buildObserver());
    }
    List<ObservableMeasurement> all = new ArrayList<>(instruments.values());
    meter.batchCallback(() -> {
      for (Family f : board.collect()) {
        ObservableDoubleMeasurement m = instruments.get(f.name());
        if (m == null) {
          continue;
        }
        for (Family.Point p : f.points()) {
          m.record(p.value(), attributes(p));
        }
      }
    }, all.getFirst(), all.subList(1, all.size()).toArray(new ObservableMeasurement[0]));
    this.tracers = SdkTracerProvider.builder().setResource(resource).setClock(clock).addSpanProcessor(
        BatchSpanProcessor.builder(new CountingSpanExporter(
            OtlpHttpSpanExporter.builder().setEndpoint(base + "/v1/traces").setRetryPolicy(RETRY).setTimeout(TIMEOUT)
                .build())).build()).build();
    this.tracer = tracers.get("io.gitm.telemetry.export", version);
  }

  static String otlpName(Family f) {
    return f.type() == Family.Type.COUNTER && f.name().endsWith("_total")
        ? f.name().substring(0, f.name().length() - "_total".length()) : f.name();
  }

  private static Attributes attributes(Family.Point p) {
    if (p.labelNames().isEmpty()) {
      return Attributes.empty();
    }
    AttributesBuilder b = Attributes.builder();
    for (int i = 0; i < p.labelNames().size(); i++) {
      b.put(p.labelNames().get(i), p.labelValues().get(i));
    }
    return b.build();
  }

  /** Exports sent (metrics and span batches) and how many of them failed. */
  long exports() {
    return exports.get();
  }

  long failures() {
    return failures.get();
  }

  Spans spans() {
    return new RunSpans();
  }

  /** Pushes what is pending (a last collection of the metrics, the spans not yet sent) and stops the SDK. */
  @Override
  public void close() {
    tracers.forceFlush().join(FLUSH_SECONDS, TimeUnit.SECONDS);
    meters.forceFlush().join(FLUSH_SECONDS, TimeUnit.SECONDS);
    tracers.shutdown().join(FLUSH_SECONDS, TimeUnit.SECONDS);
    meters.shutdown().join(FLUSH_SECONDS, TimeUnit.SECONDS);
  }

  private static Clock anchored(Ticker ticker, java.time.Clock wall) {
    Instant i = wall.instant();
    long epoch0 = i.getEpochSecond() * 1_000_000_000L + i.getNano();
    long t0 = ticker.nanos();
    return new Clock() {
      @Override
      public long now() {
        return epoch0 + (ticker.nanos() - t0);
      }

      @Override
      public long nanoTime() {
        return ticker.nanos();
      }
    };
  }

  private final class RunSpans implements Spans {
    private Span run;
    private Span phase;

    @Override
    public synchronized void run(String id, String device, String budget) {
      end();
      run = tracer.spanBuilder("gitm run").setNoParent().setStartTimestamp(clock.now(), TimeUnit.NANOSECONDS)
          .setAttribute("gitm.run.id", id).setAttribute("gitm.device", device).setAttribute("gitm.budget", budget)
          .startSpan();
    }

    @Override
    public synchronized void phase(Phase p) {
      if (run == null) {
        return;
      }
      long now = clock.now();
      if (phase != null) {
        phase.end(now, TimeUnit.NANOSECONDS);
      }
      phase = tracer.spanBuilder(p.label().toLowerCase(Locale.ROOT)).setParent(Context.root().with(run))
          .setStartTimestamp(now, TimeUnit.NANOSECONDS).setAttribute("gitm.phase", p.label().toLowerCase(Locale.ROOT))
          .startSpan();
    }

    @Override
    public synchronized void trial(TrialRecord t) {
      Span parent = phase != null ? phase : run;
      if (parent == null) {
        return;
      }
      Verdict v = t.verdict();
      long end = clock.now();
      long start = end - Math.max(0, v.wallNanos());
      Span s = tracer.spanBuilder("trial " + String.join("+", t.levers())).setParent(Context.root().with(parent))
          .setStartTimestamp(start, TimeUnit.NANOSECONDS)
          .setAttribute("gitm.trial.index", t.index() + 1L)
          .setAttribute("gitm.trial.kind", t.kind().name().toLowerCase(Locale.ROOT))
          .setAttribute("gitm.trial.levers", String.join(",", t.levers()))
          .setAttribute("gitm.trial.outcome", v.outcome().name().toLowerCase(Locale.ROOT))
          .setAttribute("gitm.trial.kept", v.kept())
          .startSpan();
      if (Double.isFinite(v.gain())) {
        s.setAttribute("gitm.trial.gain", v.gain() - 1);
        s.setAttribute("gitm.trial.ci_low", v.ciLow() - 1);
        s.setAttribute("gitm.trial.ci_high", v.ciHigh() - 1);
        s.setAttribute("gitm.trial.p_value", v.pValue());
      }
      s.end(end, TimeUnit.NANOSECONDS);
    }

    @Override
    public synchronized void end() {
      long now = clock.now();
      if (phase != null) {
        phase.end(now, TimeUnit.NANOSECONDS);
        phase = null;
      }
      if (run != null) {
        run.end(now, TimeUnit.NANOSECONDS);
        run = null;
      }
    }
  }

  private void count(CompletableResultCode r) {
    exports.incrementAndGet();
    r.whenComplete(() -> {
      if (!r.isSuccess()) {
        failures.incrementAndGet();
      }
    });
  }

  private final class CountingMetricExporter implements MetricExporter {
    private final MetricExporter delegate;

    CountingMetricExporter(MetricExporter delegate) {
      this.delegate = delegate;
    }

    @Override
    public CompletableResultCode export(Collection<MetricData> metrics) {
      CompletableResultCode r = delegate.export(metrics);
      count(r);
      return r;
    }

    @Override
    public CompletableResultCode flush() {
      return delegate.flush();
    }

    @Override
    public CompletableResultCode shutdown() {
      return delegate.shutdown();
    }

    @Override
    public AggregationTemporality getAggregationTemporality(InstrumentType type) {
      return delegate.getAggregationTemporality(type);
    }

    @Override
    public Aggregation getDefaultAggregation(InstrumentType type) {
      return delegate.getDefaultAggregation(type);
    }

    @Override
    public MemoryMode getMemoryMode() {
      return delegate.getMemoryMode();
    }
  }

  private final class CountingSpanExporter implements SpanExporter {
    private final SpanExporter delegate;

    CountingSpanExporter(SpanExporter delegate) {
      this.delegate = delegate;
    }

    @Override
    public CompletableResultCode export(Collection<SpanData> spans) {
      CompletableResultCode r = delegate.export(spans);
      count(r);
      return r;
    }

    @Override
    public CompletableResultCode flush() {
      return delegate.flush();
    }

    @Override
    public CompletableResultCode shutdown() {
      return delegate.shutdown();
    }
  }
}
