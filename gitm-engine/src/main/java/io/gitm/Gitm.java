package io.gitm;

import io.gitm.api.Budget;
import io.gitm.api.Target;
import io.gitm.api.Ticker;
import io.gitm.device.Device;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.Devices;
import io.gitm.levers.Setup;
import io.gitm.report.Report;
import io.gitm.run.ManagedTarget;
import io.gitm.run.RunEvents;
import io.gitm.run.RunLoop;
import io.gitm.search.Gate;
import io.gitm.store.RunStore;
import io.gitm.workload.Workload;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The embedded API: optimizes a user's own engine (anything implementing {@link Workload}) the way {@code gitm run}
 * optimizes a built-in workload — profile, attribute, rank, apply behind rollback gates, report — within a
 * wall-clock budget, and returns the setup to run it under.
 *
 * <pre>{@code
 * Gitm.Optimization o = Gitm.optimize(new MyEngine(), Budget.parse("10m"), 0.15);
 * ExecutionConfig best = o.setup().config();   // run the engine under this from now on
 * System.out.println(o.report());              // report.md, with report.html and report.json beside it
 * }</pre>
 */
public final class Gitm {
  private Gitm() {}

  /**
   * How to run.
   *
   * @param device {@code auto} (a usable GPU, else the simulated device), {@code sim} or {@code nvidia}
   * @param deviceOptions backend options (for {@code sim}: {@code preset}, {@code seed}, {@code faults})
   * @param store the run store's root (null: {@code $GITM_SCRATCH}, else {@code ~/.cache/gitm})
   * @param dataDir the engine's input folder (null: a folder named after the engine under the system's temp folder)
   * @param levers when not empty, only these lever ids
   * @param wall the clock the budget is measured on (null: the host's monotonic clock)
   * @param clock the calendar time the journal and reports are stamped with (null: the system's, in UTC)
   */
  public record Options(String device, Map<String, String> deviceOptions, Path store, Path dataDir,
      List<String> levers, boolean allowDeviceSettings, RunEvents listener, Ticker wall, Clock clock) {
    public Options {
      device = device == null ? "auto" : device;
      deviceOptions = Map.copyOf(deviceOptions == null ? Map.of() : deviceOptions);
      levers = List.copyOf(levers == null ? List.of() : levers);
      listener = listener == null ? RunEvents.none() : listener;
      wall = wall == null ? Ticker.system() : wall;
      clock = clock == null ? Clock.systemUTC() : clock;
    }

    public static Options defaults() {
      return new Options("auto", Map.of(), null, null, List.of(), false, null, null, null);
    }

    public Options withDevice(String kind, Map<String, String> options) {
      return new Options(kind, options, store, dataDir, levers, allowDeviceSettings, listener, wall, clock);
    }

    public Options withStore(Path root) {
      return new Options(device, deviceOptions, root, dataDir, levers, allowDeviceSettings, listener, wall, clock);
    }

    public Options withListener(RunEvents l) {
      return new Options(device, deviceOptions, store, dataDir, levers, allowDeviceSettings, l, wall, clock);
    }

    /** Options whose run measures its budget on {@code w} and stamps its journal and reports with {@code c}. */
    public Options withClocks(Ticker w, Clock c) {
      return new Options(device, deviceOptions, store, dataDir, levers, allowDeviceSettings, listener, w, c);
    }
  }

  /**
   * What an optimization found.
   *
   * @param gain the final setup's improvement over the shipped one (1.2 = 20% better; 1 = nothing kept)
   * @param setup the setup to run the engine under: the shipped one, or one that passed every gate
   * @param report the Markdown report (the HTML and JSON ones are beside it)
   */
  public record Optimization(String runId, Path folder, Report.Status status, double gain, List<String> keptLevers,
      Setup setup, Path report) {}

  /** Optimizes {@code engine} on the best device here, towards {@code target} (0.15 = 15%). */
  public static Optimization optimize(Workload engine, Budget budget, double target) {
    return optimize(engine, budget, target, Options.defaults());
  }

  public static Optimization optimize(Workload engine, Budget budget, double target, Options options) {
    if (engine == null || budget == null) {
      throw new IllegalArgumentException("optimize needs an engine and a budget");
    }
    budget.requireRunnable();
    Ticker wall = options.wall();
    long startedAt = wall.nanos();
    Target t = new Target(target);
    Devices.Choice choice = Devices.choose(options.device(), DeviceProvider.all());
    try {
      RunStore store = RunStore.open(options.store() != null ? options.store()
          : RunStore.defaultRoot(System.getenv()));
      Path data = options.dataDir() != null ? options.dataDir() : Path.of(System.getProperty("java.io.tmpdir"),
          "gitm-data", engine.spec().name().replaceAll("[^A-Za-z0-9._-]", "_"));
      Files.createDirectories(data);
      DeviceRequest request = new DeviceRequest(0, null, options.deviceOptions());
      Device device = choice.provider().open(request);
      ManagedTarget job = new ManagedTarget(engine, device, choice.provider(), choice.reason(), request, data, 0, 0,
          options.allowDeviceSettings());
      RunLoop.Request req = new RunLoop.Request(job, budget, t, store, null, null, Gate.Options.defaults(),
          options.levers(), "Gitm.optimize(" + engine.spec().name() + ", " + budget + ", " + t + ")", version());
      RunLoop.Result r = RunLoop.run(req, wall, options.clock(), options.listener(), RunLoop.Control.none(),
          startedAt);
      Setup setup = r.search() == null ? Setup.shipped() : r.search().anchor();
      List<String> kept = r.search() == null ? List.of() : r.search().keptLevers();
      return new Optimization(r.run().id(), r.run().dir(), r.status(), r.gain(), kept, setup,
          r.run().dir().resolve("report.md"));
    } catch (IOException e) {
      throw new UncheckedIOException("gitm could not write its run: " + e.getMessage(), e);
    }
  }

  /**
   * The gitm build, as reports name it: the version ({@code dev} when not from a packaged jar) and the git commit the
   * build was made from ({@code 0.1.0-SNAPSHOT (git 1a2b3c4)}; {@code +dirty} with uncommitted changes; {@code git
   * unknown} when built outside git).
   */
  public static String version() {
    String v = Gitm.class.getPackage().getImplementationVersion();
    return (v == null ? "dev" : v) + " (git " + commit() + ")";
  }

  /** The build's git commit from {@code io/gitm/build.properties}, written by the build; {@code unknown} without it. */
  static String commit() {
    try (InputStream in = Gitm.class.getResourceAsStream("/io/gitm/build.properties")) {
      if (in == null) {
        return "unknown";
      }
      Properties p = new Properties();
      p.load(in);
      String c = p.getProperty("commit", "").strip();
      return c.isEmpty() ? "unknown" : c;
    } catch (IOException e) {
      return "unknown";
    }
  }
}
