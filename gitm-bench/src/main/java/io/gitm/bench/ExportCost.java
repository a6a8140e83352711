package io.gitm.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metrics exporter's own cost: {@code gitm agent} on the simulated device is started as a process of its own,
 * scraped like Prometheus would scrape it (and, in some configurations, pushing over OTLP to a receiver here that
 * accepts and drops every request), and its CPU time (utime + stime of {@code /proc/PID/stat}), resident memory
 * ({@code VmRSS}) and Java heap in use (its own {@code jvm_memory_used_bytes}) are read over a measured window after a
 * warm-up. An idle JVM with the same flags is measured the same way, so that the JVM's own footprint can be told
 * apart from the exporter's. Linux only.
 *
 * <pre>
 * java -cp gitm-bench/target/gitm-bench.jar io.gitm.bench.ExportCost [warmupSeconds] [measureSeconds]
 *     [scrapeEverySeconds]
 * </pre>
 * Defaults: 20 s warm-up, 60 s measured, a scrape every 15 s. Prints one Markdown table row per configuration.
 */
public final class ExportCost {
  private static final Pattern URL = Pattern.compile("^metrics  (http://\\S+/metrics)");
  private static final Pattern HEAP = Pattern.compile("^jvm_memory_used_bytes\\{area=\"heap\"} (\\S+)$",
      Pattern.MULTILINE);
  private static final Pattern MISSED = Pattern.compile("^gitm_exporter_missed_periods_total (\\S+)$",
      Pattern.MULTILINE);
  private static final Pattern ROUNDS = Pattern.compile("^gitm_exporter_sampling_rounds_total (\\S+)$",
      Pattern.MULTILINE);
  static final List<String> DEFAULT_JVM = List.of();
  static final List<String> LEAN_JVM = List.of("-XX:+UseSerialGC", "-Xms16m", "-Xmx64m", "-XX:TieredStopAtLevel=1",
      "-Xss512k");

  private ExportCost() {
  }

  /** One measured configuration. {@code hz == 0} is the idle JVM. */
  record Config(String jvm, List<String> jvmFlags, double hz, boolean otlp) {
    String label() {
      if (hz == 0) {
        return "idle JVM (no gitm)";
      }
      return "agent " + (hz == Math.rint(hz) ? Long.toString((long) hz) : Double.toString(hz)) + " Hz, "
          + (otlp ? "Prometheus + OTLP" : "Prometheus");
    }
  }

  record Result(Config config, double cpuSeconds, double windowSeconds, double rssMeanMiB, double rssMaxMiB,
      double heapMeanMiB, double heapMaxMiB, long scrapes, long otlpRequests, double rounds, double missed) {
    String row() {
      return String.format(Locale.ROOT, "| %s | %s | %.3f | %.2f %% | %.1f | %.1f | %s | %s | %d | %d | %s |",
          config.jvm(), config.label(), cpuSeconds, 100 * cpuSeconds / windowSeconds, rssMeanMiB, rssMaxMiB,
          Double.isNaN(heapMeanMiB) ? "-" : String.format(Locale.ROOT, "%.1f", heapMeanMiB),
          Double.isNaN(heapMaxMiB) ? "-" : String.format(Locale.ROOT, "%.1f", heapMaxMiB), scrapes, otlpRequests,
          Double.isNaN(missed) ? "-" : String.format(Locale.ROOT, "%.0f / %.0f", missed, rounds));
    }
  }

  public static void main(String[] args) throws Exception {
    long warmup = args.length > 0 ? Long.parseLong(args[0]) : 20;
    long measure = args.length > 1 ? Long.parseLong(args[1]) : 60;
    long scrapeEvery = args.length > 2 ? Long.parseLong(args[2]) : 15;
    if (warmup < 0 || measure <= 0 || scrapeEvery <= 0) {
      throw new IllegalArgumentException("warm-up must be 0 or more, the window and the scrape interval positive: "
          + warmup + ", " + measure + ", " + scrapeEvery);
    }
    if (!Files.isDirectory(Path.of("/proc/self"))) {
      throw new IllegalStateException("ExportCost reads /proc: it runs on Linux only");
    }
    List<Config> configs = new ArrayList<>();
    for (var jvm : List.of(List.of("default", DEFAULT_JVM), List.of("lean", LEAN_JVM))) {
      @SuppressWarnings("unchecked")
      List<String> flags = (List<String>) jvm.get(1);
      String name = (String) jvm.get(0);
      configs.add(new Config(name, flags, 0, false));
      for (double hz : new double[] {1, 100}) {
        for (boolean otlp : new boolean[] {false, true}) {
          configs.add(new Config(name, flags, hz, otlp));
        }
      }
    }
    System.out.printf(Locale.ROOT, "warm-up %d s, measured %d s, a scrape every %d s; OTLP push every 10 s;"
        + " %s, %d CPUs, %s%n", warmup, measure, scrapeEvery, System.getProperty("java.vm.version"),
        Runtime.getRuntime().availableProcessors(), LEAN_JVM);
    System.out.println("| JVM | configuration | CPU s | CPU (% of one core) | RSS mean MiB | RSS max MiB"
        + " | heap used mean MiB | heap used max MiB | scrapes | OTLP requests | missed / rounds |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|---|");
    for (Config c : configs) {
      System.out.println(measure(c, warmup, measure, scrapeEvery).row());
    }
  }

  static Result measure(Config c, long warmup, long measure, long scrapeEvery) throws Exception {
    AtomicLong otlpRequests = new AtomicLong();
    HttpServer receiver = otlpReceiver(otlpRequests);
    Process p = new ProcessBuilder(command(c, receiver.getAddress().getPort())).redirectErrorStream(true).start();
    ScheduledExecutorService every = Executors.newScheduledThreadPool(1);
    try (HttpClient http = HttpClient.newHttpClient()) {
      BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      String url = metricsUrl(out);
      if (p.isAlive() && url == null && c.hz() != 0) {
        throw new IllegalStateException("the agent printed no metrics URL");
      }
      CompletableFuture.runAsync(() -> out.lines().forEach(l -> { }));
      List<Double> heap = new ArrayList<>();
      AtomicLong scrapes = new AtomicLong();
      String[] lastBody = {""};
      boolean[] measuring = {false};
      String target = url;
      if (target != null) {
        every.scheduleAtFixedRate(() -> {
          try {
            String body = http.send(HttpRequest.newBuilder(URI.create(target)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
            synchronized (heap) {
              lastBody[0] = body;
              if (measuring[0]) {
                scrapes.incrementAndGet();
                Matcher m = HEAP.matcher(body);
                if (m.find()) {
                  heap.add(Double.parseDouble(m.group(1)) / (1 << 20));
                }
              }
            }
          } catch (IOException | InterruptedException e) {
            // the agent is stopping
          }
        }, 0, scrapeEvery, TimeUnit.SECONDS);
      }
      Thread.sleep(TimeUnit.SECONDS.toMillis(warmup));
      long pid = p.pid();
      long ticks0 = cpuTicks(pid);
      long t0 = System.nanoTime();
      long otlp0 = otlpRequests.get();
      synchronized (heap) {
        measuring[0] = true;
      }
      List<Double> rss = new ArrayList<>();
      long end = t0 + TimeUnit.SECONDS.toNanos(measure);
      while (System.nanoTime() < end) {
        rss.add(rssKiB(pid) / 1024.0);
        Thread.sleep(1000);
      }
      long ticks1 = cpuTicks(pid);
      double window = (System.nanoTime() - t0) / 1e9;
      String body;
      synchronized (heap) {
        measuring[0] = false;
        body = lastBody[0];
      }
      double rounds = number(ROUNDS, body);
      double missed = number(MISSED, body);
      return new Result(c, (ticks1 - ticks0) / (double) clockTicks(), window,
          rss.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN),
          rss.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN),
          heap.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN),
          heap.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN), scrapes.get(),
          otlpRequests.get() - otlp0, rounds, missed);
    } finally {
      every.shutdownNow();
      p.destroy();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
      receiver.stop(0);
    }
  }

  /** A started HTTP server on a free local port that takes OTLP pushes and counts them. */
  private static HttpServer otlpReceiver(AtomicLong requests) throws IOException {
    HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    receiver.createContext("/", ex -> {
      try (ex) {
        ex.getRequestBody().readAllBytes();
        requests.incrementAndGet();
        ex.getResponseHeaders().set("Content-Type", "application/x-protobuf");
        ex.sendResponseHeaders(200, -1);
      }
    });
    receiver.start();
    return receiver;
  }

  /** The command line of the measured JVM: idle, or the agent pushing OTLP to {@code otlpPort} when asked to. */
  private static List<String> command(Config c, int otlpPort) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(c.jvmFlags());
    cmd.add("--enable-native-access=ALL-UNNAMED");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    if (c.hz() == 0) {
      cmd.add(Idle.class.getName());
    } else {
      cmd.addAll(List.of("io.gitm.cli.Main", "agent", "--device", "sim", "--listen", "127.0.0.1:0", "--sample-hz",
          Double.toString(c.hz())));
      if (c.otlp()) {
        cmd.addAll(List.of("--otlp", "http://127.0.0.1:" + otlpPort, "--otlp-interval", "10s"));
      }
    }
    return cmd;
  }

  /** The metrics URL the agent prints; null when the process says "ready" (the idle JVM) or ends first. */
  private static String metricsUrl(BufferedReader out) throws IOException {
    for (String line; (line = out.readLine()) != null; ) {
      Matcher m = URL.matcher(line);
      if (m.find()) {
        return m.group(1);
      }
      if (line.equals("ready")) {
        break;
      }
    }
    return null;
  }

  private static double number(Pattern p, String body) {
    Matcher m = p.matcher(body);
    return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
  }

  /** utime + stime of process {@code pid}, in clock ticks. */
  static long cpuTicks(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // after the command: state is field 3, utime field 14, stime field 15
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  static long rssKiB(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
      }
    }
    throw new IOException("no VmRSS for process " + pid);
  }

  private static long clockTicks() {
    try {
      Process g = new ProcessBuilder("getconf", "CLK_TCK").start();
      String s = new String(g.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      g.waitFor();
      return Long.parseLong(s);
    } catch (IOException | NumberFormatException | InterruptedException e) {
      return 100;
    }
  }

  /** A JVM that does nothing: the baseline footprint of the flags measured. */
  public static final class Idle {
    private Idle() {
    }

    public static void main(String[] args) throws InterruptedException {
      System.out.println("ready");
      System.out.flush();
      Thread.sleep(Long.MAX_VALUE);
    }
  }
}
