package io.gitm.cli;

import io.gitm.api.Ticker;
import io.gitm.store.RunStore;
import io.gitm.store.s3.S3Settings;
import io.gitm.store.s3.S3Sync;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gitm sync}: copies the run store to S3 ({@code GITM_S3_ROOT}): pinned datasets (a dataset whose bytes or pin
 * differ in S3 is refused, never overwritten), runs, traces and telemetry; and fetches the pinned datasets S3 holds
 * that the store lacks. {@code gitm run} does the same for its run when it ends ({@link #afterRun}). Exit 0 when
 * everything is in S3, 1 when something was refused or S3 failed, 2 for bad usage.
 */
@Command(name = "sync", mixinStandardHelpOptions = true,
    description = "Copy the run store to S3 ($GITM_S3_ROOT) and fetch the pinned datasets it lacks.",
    footer = {"", "Credentials come from the standard AWS chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE,"
        + " web identity, container or instance role); AWS_REGION sets the region. See docs/s3.md."})
final class SyncCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin
  StoreOptions storeOptions = new StoreOptions();

  @Option(names = "--s3-root", paramLabel = "s3://BUCKET/PREFIX",
      description = "Where to sync (default: $GITM_S3_ROOT).")
  String root;

  @Option(names = "--endpoint", paramLabel = "URL",
      description = "An S3-compatible server, addressed path-style (default: $GITM_S3_ENDPOINT; none: AWS).")
  String endpoint;

  @Option(names = "--run", paramLabel = "RUN",
      description = "Push this run only (with datasets, traces and telemetry); nothing is fetched.")
  String run;

  @Option(names = "--json", description = "Print the result as JSON.")
  boolean json;

  @Override
  public Integer call() {
    CommandLine cl = spec.commandLine();
    S3Settings settings = settings(cl, root, endpoint, System.getenv());
    RunStore store = storeOptions.open(cl);
    String runId = null;
    if (run != null) {
      try {
        io.gitm.store.RunDir r = store.run(run);
        if (!r.dir().toAbsolutePath().normalize().equals(store.runs().resolve(r.id()).normalize())) {
          throw new CommandLine.ParameterException(cl, "--run: " + run + " is not a run of the store " + store.root());
        }
        runId = r.id();
      } catch (IOException e) {
        throw new CommandLine.ParameterException(cl, "--run: " + Main.oneLine(e.getMessage()));
      }
    }
    PrintWriter out = cl.getOut();
    if (!json) {
      out.println("s3       " + settings.describe());
      out.flush();
    }
    S3Sync.Summary s;
    try (S3Sync sync = S3Sync.open(settings, Clock.systemUTC())) {
      S3Sync.Listener print = json ? S3Sync.Listener.none() : e -> print(out, e);
      s = runId == null ? sync.sync(store, print) : sync.pushRun(store, runId, print);
    } catch (IOException | RuntimeException e) {
      throw new CliFailure(
          "sync to " + settings.root() + " stopped: " + Main.oneLine(String.valueOf(e.getMessage())), e);
    } catch (LinkageError e) {
      throw new CliFailure("this build of gitm carries no S3 client (" + e + ")", e);
    }
    if (json) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("root", settings.root().toString());
      doc.put("endpoint", settings.endpoint() == null ? null : settings.endpoint().toString());
      doc.put("uploaded", s.uploaded());
      doc.put("uploadedBytes", s.uploadedBytes());
      doc.put("resumed", s.resumed());
      doc.put("reusedParts", s.reusedParts());
      doc.put("upToDate", s.upToDate());
      doc.put("downloaded", s.downloaded());
      doc.put("refused", s.refused());
      out.println(Json.write(doc));
    } else {
      out.println("sync     " + s.describe());
    }
    out.flush();
    if (!s.refused().isEmpty()) {
      throw new CliFailure(s.refused().size() + " refused (datasets are immutable): " + s.refused().getFirst());
    }
    return Main.OK;
  }

  /**
   * The settings from the options, else the environment ({@code GITM_S3_ROOT}, {@code GITM_S3_ENDPOINT}); a missing
   * or malformed one is bad usage.
   */
  static S3Settings settings(CommandLine cl, String root, String endpoint, Map<String, String> env) {
    Map<String, String> e = new LinkedHashMap<>(env);
    if (root != null) {
      e.put("GITM_S3_ROOT", root);
    }
    if (endpoint != null) {
      e.remove("GITM_S3_ENDPOINT");
    }
    if (root == null && e.get("GITM_S3_ROOT") == null) {
      throw new CommandLine.ParameterException(cl, "nowhere to sync to: set GITM_S3_ROOT to s3://bucket/prefix or give"
          + " --s3-root");
    }
    try {
      S3Settings s = S3Settings.fromEnvironment(e);
      return endpoint == null ? s : s.withEndpoint(S3Settings.parseEndpoint("--endpoint", endpoint));
    } catch (IllegalArgumentException x) {
      String m = x.getMessage();
      throw new CommandLine.ParameterException(cl, root != null ? m.replace("GITM_S3_ROOT", "--s3-root") : m);
    }
  }

  private static void print(PrintWriter out, S3Sync.Event e) {
    switch (e.kind()) {
      case UPLOADED -> out.println("upload   " + e.path() + " (" + size(e.bytes()) + ", " + e.detail() + ")");
      case DOWNLOADED -> out.println("download " + e.path() + " (" + size(e.bytes()) + ", " + e.detail() + ")");
      case REFUSED -> out.println("refused  " + e.path() + ": " + e.detail());
      case WAITING -> out.println("waiting  " + e.detail());
      case UP_TO_DATE, PART -> {
        return;
      }
    }
    out.flush();
  }

  private static String size(long bytes) {
    return bytes < 1024 ? bytes + " B" : bytes < (1 << 20) ? String.format(java.util.Locale.ROOT, "%.1f KiB",
        bytes / 1024.0) : String.format(java.util.Locale.ROOT, "%.1f MiB", bytes / (double) (1 << 20));
  }

  /** The least time the sync at the end of a run gets, even when the run used its whole budget. */
  static final Duration AFTER_RUN_FLOOR = Duration.ofSeconds(15);

  /**
   * What {@code gitm run} does when a run ends and {@code GITM_S3_ROOT} is set: pushes datasets, the run's folder,
   * traces and telemetry, and says so in one line (on standard error under {@code --json}, so that standard output
   * stays one JSON document). It takes at most what is left of the run's budget ({@code left}), or
   * {@link #AFTER_RUN_FLOOR} when less is left; a request S3 does not answer is said while it is tried again. A
   * failure, a refusal or giving up is a warning: the run's own outcome and exit status stand, and {@code gitm sync}
   * tries again.
   */
  static void afterRun(CommandLine cl, RunStore store, String runId, boolean json, Duration left) {
    afterRun(cl.getOut(), cl.getErr(), System.getenv(), store, runId, json, left, UnaryOperator.identity());
  }

  static void afterRun(PrintWriter out, PrintWriter err, Map<String, String> env, RunStore store, String runId,
      boolean json) {
    afterRun(out, err, env, store, runId, json, AFTER_RUN_FLOOR, UnaryOperator.identity());
  }

  /**
   * The sync at the end of a run, within {@code left} (at least {@link #AFTER_RUN_FLOOR}); {@code tune} adjusts the
   * settings the environment gives (retries, time limits).
   */
  static void afterRun(PrintWriter out, PrintWriter err, Map<String, String> env, RunStore store, String runId,
      boolean json, Duration left, UnaryOperator<S3Settings> tune) {
    if (env.get("GITM_S3_ROOT") == null || !Files.isDirectory(store.runs().resolve(runId))) {
      return;
    }
    PrintWriter w = json ? err : out;
    S3Settings settings;
    try {
      settings = tune.apply(S3Settings.fromEnvironment(env));
    } catch (IllegalArgumentException e) {
      err.println("gitm: warning: run " + runId + " not synced to S3: " + e.getMessage());
      err.flush();
      return;
    }
    Duration allowed = left == null || left.compareTo(AFTER_RUN_FLOOR) < 0 ? AFTER_RUN_FLOOR : left;
    S3Sync.Listener waits = e -> {
      if (e.kind() == S3Sync.Kind.WAITING) {
        w.println("s3       " + e.detail() + "; the sync gives up " + within(allowed) + " after the run");
        w.flush();
      }
    };
    try (S3Sync sync = S3Sync.open(settings.withLimits(settings.limits().atMost(allowed)), Clock.systemUTC(),
        Ticker.system(), allowed)) {
      S3Sync.Summary s = sync.pushRun(store, runId, waits);
      w.println("s3       " + settings.root() + ": " + s.describe());
      for (String r : s.refused()) {
        err.println("gitm: warning: refused " + r);
      }
    } catch (IOException | RuntimeException | LinkageError e) {
      err.println("gitm: warning: run " + runId + " not synced to " + settings.root() + ": "
          + Main.oneLine(String.valueOf(e.getMessage())) + " ('gitm sync' tries again)");
    }
    w.flush();
    err.flush();
  }

  private static String within(Duration d) {
    return d.toMillis() < 10_000 ? d.toMillis() + " ms" : d.toSeconds() + " s";
  }
}
