package io.gitm.cli;

import io.gitm.api.Budget;
import io.gitm.api.Ticker;
import io.gitm.export.MetricsExporter;
import io.gitm.telemetry.TelemetryLoop;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** Where metrics go and how often the device is sampled: shared by {@code gitm agent} and {@code gitm run}. */
final class ExportTargets {
  @Option(names = "--listen", paramLabel = "HOST:PORT",
      description = "Where to serve /metrics (default 127.0.0.1:" + MetricsExporter.DEFAULT_PORT + ", loopback only;"
          + " :PORT for every interface, port 0 for any free port).")
  String listen;

  @Option(names = "--otlp", paramLabel = "URL",
      description = "Push the metrics (and a run's phases and trials as spans) to this OTLP/HTTP collector, e.g."
          + " http://127.0.0.1:4318.")
  String otlp;

  @Option(names = "--otlp-interval", paramLabel = "DURATION", defaultValue = "10s",
      description = "How often metrics are pushed over OTLP. Default: ${DEFAULT-VALUE}.")
  String otlpInterval;

  @Option(names = "--sample-hz", paramLabel = "HZ", defaultValue = "1",
      description = "How often the device's state is sampled, up to 1000 Hz. Default: ${DEFAULT-VALUE}.")
  double sampleHz;

  @Option(names = "--hostname", paramLabel = "NAME",
      description = "The Hostname label (default: this machine's name).")
  String hostname;

  /** Starts the exporter: serving {@code /metrics} when {@code prometheus}, pushing when {@code --otlp} is given. */
  MetricsExporter start(CommandLine cl, boolean prometheus, Ticker ticker) {
    if (!(sampleHz > 0 && sampleHz <= TelemetryLoop.MAX_HZ)) {
      throw new CommandLine.ParameterException(cl, "--sample-hz must be above 0 and at most "
          + (int) TelemetryLoop.MAX_HZ + ", got " + sampleHz);
    }
    Duration interval = duration(cl, "--otlp-interval", otlpInterval);
    InetSocketAddress address = null;
    if (prometheus) {
      try {
        address = listen == null ? new InetSocketAddress("127.0.0.1", MetricsExporter.DEFAULT_PORT)
            : MetricsExporter.parseListen(listen);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(cl, "--listen: " + Main.oneLine(e.getMessage()));
      }
    }
    URI endpoint = null;
    if (otlp != null) {
      try {
        endpoint = MetricsExporter.parseOtlp(otlp);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(cl, "--otlp: " + Main.oneLine(e.getMessage()));
      }
    }
    if (hostname != null && hostname.isBlank()) {
      throw new CommandLine.ParameterException(cl, "--hostname is empty");
    }
    try {
      return MetricsExporter.start(new MetricsExporter.Options(address, endpoint, interval, hostname,
          VersionCommand.version()), ticker, Clock.systemUTC());
    } catch (IOException e) {
      throw new CliFailure(Main.oneLine(e.getMessage()), e);
    }
  }

  /** What the exporter serves and pushes, for a line of output. */
  static String describe(MetricsExporter e, URI otlp, String interval) {
    StringBuilder b = new StringBuilder();
    e.prometheusAddress().ifPresent(a -> b.append("http://").append(host(a)).append(':').append(a.getPort())
        .append("/metrics"));
    if (otlp != null) {
      b.append(b.isEmpty() ? "" : "; ").append("OTLP to ").append(otlp).append(" every ").append(interval);
    }
    return b.toString();
  }

  String describe(MetricsExporter e) {
    return describe(e, otlp == null ? null : MetricsExporter.parseOtlp(otlp), otlpInterval);
  }

  private static String host(InetSocketAddress a) {
    if (a.getAddress() == null) {
      return a.getHostString();
    }
    String h = a.getAddress().getHostAddress();
    return h.contains(":") ? "[" + h + "]" : h;
  }

  static Duration duration(CommandLine cl, String option, String text) {
    try {
      return Budget.parse(text).duration();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cl, option + ": '" + text + "' is not a duration: use numbers with"
          + " units d, h, m, s (e.g. 10s, 1m)");
    }
  }
}
