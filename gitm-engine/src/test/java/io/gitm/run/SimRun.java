package io.gitm.run;

import io.gitm.api.Budget;
import io.gitm.api.Target;
import io.gitm.device.Device;
import io.gitm.device.DeviceRequest;
import io.gitm.search.Gate;
import io.gitm.search.TrialRecord;
import io.gitm.sim.SimDeviceProvider;
import io.gitm.store.Journal;
import io.gitm.store.RunDir;
import io.gitm.store.RunStore;
import io.gitm.testkit.FakeTicker;
import io.gitm.testkit.SteppedWorkload;
import io.gitm.testkit.TickerClock;
import io.gitm.workloads.hft.HftLobWorkload;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A run of a small hft-lob on the simulated device whose wall clock is a {@link FakeTicker} that only the job moves:
 * each step of the workload takes {@link #STEP} of wall time (or as set), whatever the machine's speed; gitm's start
 * and the workload's first opening may be given wall time of their own. The journal's clock
 * reads the same ticker from {@code epoch}, so a seeded run journals the same times every time.
 */
final class SimRun {
  /** Wall time one step of the workload takes. */
  static final Duration STEP = Duration.ofMillis(25);
  static final HftLobWorkload.Params PARAMS = new HftLobWorkload.Params(5, 128, 30_000, 1024, 10, 128, 7, null);

  final FakeTicker wall = new FakeTicker();
  final Clock clock;
  final Events events = new Events();
  private final Map<String, String> options;
  /** Wall time each step takes. */
  private Duration step = STEP;
  /** Wall time from gitm's start to the run's request (parsing, opening the device). */
  private Duration startUp = Duration.ZERO;
  /** Wall time the workload's first session takes to open (a dataset generated, kernels loaded). */
  private Duration firstOpen = Duration.ZERO;
  private String budget = "30s";

  SimRun(Instant epoch, Map<String, String> options) {
    this.clock = new TickerClock(wall, epoch);
    this.options = options;
  }

  /** Each step of the workload takes {@code d} of wall time. */
  SimRun step(Duration d) {
    step = d;
    return this;
  }

  /** The run's request comes {@code d} after gitm's start. */
  SimRun startUp(Duration d) {
    startUp = d;
    return this;
  }

  /** The workload's first session takes {@code d} to open. */
  SimRun firstOpen(Duration d) {
    firstOpen = d;
    return this;
  }

  SimRun budget(String b) {
    budget = b;
    return this;
  }

  /** A run of a 30 s budget towards 15%, at most 30 iterations profiled; a resume when {@code resumed} is given. */
  RunLoop.Request request(RunStore store, Path data, RunDir resumed) throws IOException {
    SimDeviceProvider provider = new SimDeviceProvider();
    DeviceRequest request = new DeviceRequest(0, null, options);
    Device device = provider.open(request);
    ManagedTarget job = new ManagedTarget(new SteppedWorkload(new HftLobWorkload(PARAMS), wall, step, firstOpen,
        () -> {}), device, provider,
        "--device sim", request, data, 30, 0, false);
    Journal.Contents previous = resumed == null ? null : Journal.read(resumed.dir().resolve(RunDir.JOURNAL_FILE));
    return new RunLoop.Request(job, Budget.parse(budget), Target.parse("15%"), store, resumed, previous,
        Gate.Options.defaults().withPairs(6), List.of(), "test", "test");
  }

  RunLoop.Result run(RunStore store, Path data, RunDir resumed) throws IOException {
    long started = wall.nanos();
    wall.advance(startUp.toNanos());
    return RunLoop.run(request(store, data, resumed), wall, clock, events, RunLoop.Control.none(), started);
  }

  /** What the run told, in order. */
  static final class Events implements RunEvents {
    final List<Phase> phases = new ArrayList<>();
    final List<String> lines = new ArrayList<>();
    final List<TrialRecord> trials = new ArrayList<>();
    final List<TrialRecord> reused = new ArrayList<>();
    final List<String> started = new ArrayList<>();
    String header;

    @Override
    public void header(String run, String device, String budget) {
      header = run + " | " + device + " | " + budget;
    }

    @Override
    public void phase(Phase p, Duration window) {
      phases.add(p);
    }

    @Override
    public void line(String s) {
      lines.add(s);
    }

    @Override
    public void trial(TrialRecord t, RunClock clock) {
      trials.add(t);
    }

    @Override
    public void reused(TrialRecord t, RunClock clock) {
      reused.add(t);
    }

    @Override
    public void trialStarted(String what, RunClock clock) {
      started.add(what);
    }
  }
}
