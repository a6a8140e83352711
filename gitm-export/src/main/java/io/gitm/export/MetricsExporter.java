package io.gitm.export;

import io.gitm.api.Ticker;
import io.gitm.device.StateSampler;
import io.gitm.run.RunEvents;
import io.gitm.telemetry.SampleSink;
import io.gitm.telemetry.TelemetryLoop;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Device state telemetry and a run's progress, exported while gitm works: as Prometheus metrics on
 * {@code GET /metrics} (text format 0.0.4, dcgm-exporter's names and labels for the device fields) and pushed over
 * OTLP/HTTP to a collector (the same metrics, and the run's phases and trials as spans). Devices are added with the
 * labels that name them; their samples come from a telemetry loop the exporter runs ({@link #sample}) or from any
 * loop through {@link #sink()}. A run's progress comes from wrapping its listener ({@link #around}).
 *
 * <p>Closing stops the loop, pushes what OTLP has pending and stops serving.
 */
public final class MetricsExporter implements AutoCloseable {
  /** The Prometheus port when none is given: next to dcgm-exporter's 9400, so that both can run on one node. */
  public static final int DEFAULT_PORT = 9401;
  public static final Duration DEFAULT_OTLP_INTERVAL = Duration.ofSeconds(10);

  /**
   * What to export to.
   *
   * @param prometheus where to serve {@code /metrics}, or null for no Prometheus endpoint
   * @param otlp the collector's OTLP/HTTP base URL ({@code http://host:4318}), or null for no push
   * @param otlpInterval how often metrics are pushed
   * @param hostname the {@code Hostname} label and OTLP {@code host.name}; null for this machine's name
   * @param version gitm's version, as OTLP's {@code service.version}
   */
  public record Options(InetSocketAddress prometheus, URI otlp, Duration otlpInterval, String hostname,
      String version) {
    public Options {
      if (otlpInterval == null || otlpInterval.isNegative() || otlpInterval.isZero()) {
        throw new IllegalArgumentException("OTLP push interval must be positive, got " + otlpInterval);
      }
      if (otlp != null) {
        checkOtlp(otlp);
      }
      hostname = hostname == null || hostname.isBlank() ? localHostname() : hostname;
      version = version == null ? "" : version;
    }
  }

  private final Board board;
  private final Ticker ticker;
  private final PrometheusText text = new PrometheusText();
  private final PrometheusServer prometheus;
  private final Otlp otlp;
  private final String hostname;
  private volatile TelemetryLoop loop;
  private volatile Spans spans = Spans.none();

  private MetricsExporter(Options o, Ticker ticker, Clock clock) throws IOException {
    this.ticker = ticker;
    this.board = new Board(ticker);
    this.hostname = o.hostname();
    this.prometheus = o.prometheus() == null ? null : new PrometheusServer(o.prometheus(), board, text);
    Otlp push = null;
    if (o.otlp() != null) {
      try {
        push = new Otlp(o.otlp(), o.otlpInterval(), board, o.hostname(), o.version(), ticker, clock);
      } catch (RuntimeException e) {
        if (prometheus != null) {
          prometheus.close();
        }
        throw e;
      }
      board.watch(push);
    }
    this.otlp = push;
  }

  /**
   * Starts serving and pushing as {@code options} say. Fails with a one-line message when the Prometheus address
   * cannot be bound.
   */
  public static MetricsExporter start(Options options, Ticker ticker, Clock clock) throws IOException {
    try {
      return new MetricsExporter(options, ticker, clock);
    } catch (BindException e) {
      throw new IOException("cannot listen on " + describe(options.prometheus()) + ": " + e.getMessage(), e);
    }
  }

  /** Serves {@code device}'s state from its next sample on; its series appear once a sample arrives. */
  public void addDevice(DeviceLabels device) {
    board.addDevice(device);
  }

  /** Stops serving device {@code gpu}'s state: its series disappear (the device was closed). */
  public void removeDevice(int gpu) {
    board.removeDevice(gpu);
  }

  /** Where samples go: each one becomes its device's current state. */
  public SampleSink sink() {
    return board::accept;
  }

  /**
   * Samples {@code samplers} at {@code hz} on a telemetry loop of the exporter's own (its thread, its ticker), which
   * closing the exporter stops. The loop's counters are exported too ({@code gitm_exporter_*}).
   */
  public synchronized TelemetryLoop sample(List<? extends StateSampler> samplers, double hz) {
    if (loop != null) {
      throw new IllegalStateException("the exporter samples already");
    }
    TelemetryLoop l = new TelemetryLoop(samplers, ticker, hz, 64).addSink(sink());
    board.watch(l, hz);
    loop = l;
    l.start();
    return l;
  }

  /**
   * A listener that passes every event to {@code delegate} first, then records the run's progress as metrics and,
   * with OTLP, as spans.
   */
  public RunEvents around(RunEvents delegate) {
    Spans s = otlp == null ? Spans.none() : otlp.spans();
    spans = s;
    RunProgress p = new RunProgress(delegate, ticker, s, board);
    board.watch(p);
    return p;
  }

  /** The address {@code /metrics} is served on (the real port when port 0 was asked for). */
  public Optional<InetSocketAddress> prometheusAddress() {
    return Optional.ofNullable(prometheus).map(PrometheusServer::address);
  }

  public String hostname() {
    return hostname;
  }

  /** OTLP exports sent so far and how many failed (0 and 0 without OTLP). */
  public long otlpExports() {
    return otlp == null ? 0 : otlp.exports();
  }

  public long otlpFailures() {
    return otlp == null ? 0 : otlp.failures();
  }

  /** What a scrape would return now. */
  public String scrape() {
    return text.write(board.collect());
  }

  @Override
  public void close() {
    TelemetryLoop l = loop;
    if (l != null) {
      l.close();
    }
    spans.end();
    try {
      if (otlp != null) {
        otlp.close();
      }
    } finally {
      if (prometheus != null) {
        prometheus.close();
      }
    }
  }

  /**
   * Parses {@code HOST:PORT} ({@code [v6]:PORT} for IPv6; {@code :PORT} for every interface); the message of the
   * exception is one line fit for a user.
   */
  public static InetSocketAddress parseListen(String text) {
    String s = text == null ? "" : text.strip();
    int colon = s.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("listen address '" + s + "' has no port: give HOST:PORT, e.g. 127.0.0.1:"
          + DEFAULT_PORT + " (or :PORT for every interface)");
    }
    String host = s.substring(0, colon);
    String portText = s.substring(colon + 1);
    int port;
    try {
      port = Integer.parseInt(portText);
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("listen address '" + s + "': port '" + portText
          + "' is not a number from 0 to 65535");
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    } else if (host.contains(":")) {
      throw new IllegalArgumentException("listen address '" + s + "': write an IPv6 host in brackets, e.g. [::1]:"
          + port);
    }
    if (host.isEmpty()) {
      return new InetSocketAddress(port);
    }
    InetSocketAddress a = new InetSocketAddress(host, port);
    if (a.isUnresolved()) {
      throw new IllegalArgumentException("listen address '" + s + "': unknown host '" + host + "'");
    }
    return a;
  }

  /** Parses an OTLP/HTTP base URL ({@code http://host:4318}); the message of the exception is one line. */
  public static URI parseOtlp(String text) {
    URI u;
    try {
      u = new URI(text == null ? "" : text.strip());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("OTLP endpoint '" + text + "' is not a URL: " + e.getReason());
    }
    checkOtlp(u);
    return u;
  }

  private static void checkOtlp(URI u) {
    if (u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https"))
        || u.getHost() == null) {
      throw new IllegalArgumentException("OTLP endpoint '" + u + "' must be an http:// or https:// URL with a host,"
          + " e.g. http://127.0.0.1:4318 (the collector's OTLP/HTTP port)");
    }
    if (u.getQuery() != null || u.getFragment() != null) {
      throw new IllegalArgumentException("OTLP endpoint '" + u + "' takes no query or fragment: give the base URL,"
          + " /v1/metrics and /v1/traces are added");
    }
  }

  private static String describe(InetSocketAddress a) {
    return a == null ? "?" : (a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress()) + ":"
        + a.getPort();
  }

  /** This machine's host name, as dcgm-exporter's {@code Hostname} label has it. */
  public static String localHostname() {
    try {
      String h = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
      if (!h.isEmpty()) {
        return h;
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: the environment, then the resolver
    }
    String env = System.getenv("HOSTNAME");
    if (env != null && !env.isBlank()) {
      return env.strip();
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "localhost";
    }
  }
}
