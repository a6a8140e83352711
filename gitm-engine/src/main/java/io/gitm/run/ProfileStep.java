package io.gitm.run;

import io.gitm.analysis.Ceilings;
import io.gitm.device.DeviceInfo;
import io.gitm.device.HardwareSpec;
import io.gitm.store.Journal;
import io.gitm.store.RunDir;
import io.gitm.store.RunInfo;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.tracer.TraceReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Phase 1, profile: opens the run's folder (or takes over the interrupted run's), tells the run's header, journals
 * the start (or the resume), profiles the target's shipped setup (unless the interrupted run did) into
 * {@code trace.gtrace} and {@code baseline.json}, and reads the trace back with the ceilings it is analysed against.
 * The target is closed when the step ends.
 */
final class ProfileStep {
  static final String TRACE = "trace.gtrace";
  static final String BASELINE = "baseline.json";
  /** The user's input the workload ran on (its path, sha256, size, format and what was found in it). */
  static final String INPUT = RunDir.INPUT_FILE;

  private ProfileStep() {}

  /**
   * The profile phase of a run whose set-up is done.
   *
   * @param setUp what was done before the budget was split into phases (told, and journaled with the start)
   * @param lease holds the run folder's lock from the folder's first write on
   */
  static Profiled run(RunLoop.Request req, RunClock clock, SetUp setUp, Clock time, RunEvents events,
      RunLoop.Control control, RunLease lease) throws IOException {
    RunTarget target = req.job();
    try (target) {
      DeviceInfo info = target.info();
      Map<String, String> device = device(info, target);
      RunDir run = open(req, info, device, clock.plan(), time, events, lease);
      events.line("set-up   " + setUp.describe());
      Resume resume = Resume.of(req.previous(), run);
      try (Journal j = run.journal()) {
        RunJournal journal = new RunJournal(j, time);
        if (req.resumed() == null) {
          Map<String, Object> start = new LinkedHashMap<>();
          start.put("budget", req.budget().toString());
          start.put("target", req.target().toString());
          start.put("device", device);
          start.put("setUp", setUp.json());
          start.put("options", req.options());
          journal.append("start", start);
        } else {
          journal.append("resume", Map.of("completedTrials", resume.completed().size(), "profiled",
              resume.profiled(), "usedSeconds", clock.elapsed().toMillis() / 1000.0, "setUp", setUp.json()));
        }
        Measured m = resume.profiled() ? reuse(target, run, events)
            : measure(target, run, clock, control, journal, events);
        return read(target, run, info, device, resume, m, req);
      }
    }
  }

  /**
   * The run's folder: the interrupted run's, or a new one with the files a resume reads back. Tells the header, and
   * writes what the device knows to be true of the job.
   */
  private static RunDir open(RunLoop.Request req, DeviceInfo info, Map<String, String> device, PhasePlan plan,
      Clock time, RunEvents events, RunLease lease) throws IOException {
    RunTarget target = req.job();
    boolean fresh = req.resumed() == null;
    RunDir run = fresh ? RunDir.create(req.store(), new RunInfo(null, target.name(), req.command(),
        req.budget().toString(), req.target().toString(), device, null, req.gitmVersion()), time) : req.resumed();
    lease.take(run);
    if (!fresh) {
      checkUnchanged(run, req.previous());
      checkSameInput(run, target);
    }
    if (fresh) {
      for (Map.Entry<String, Object> f : target.resumeFiles().entrySet()) {
        run.writeJson(f.getKey(), f.getValue());
      }
    }
    events.header(run.id(), info.name() + " [" + RunLoop.label(info.kind()) + "]", budgetLine(req, plan));
    if (fresh && target.input().isPresent()) {
      run.writeJson(INPUT, target.input().get());
    }
    if (fresh) {
      Optional<Record> truth = target.groundTruth();
      if (truth.isPresent()) {
        run.writeJson("ground-truth.json", truth.get());
      }
    }
    return run;
  }

  /**
   * Refuses to resume a run whose journal changed since the resume read it (its writer went on until the lock was
   * taken) or that has ended: the resume would continue from a state that is no longer the run's.
   */
  private static void checkUnchanged(RunDir run, Journal.Contents previous) throws IOException {
    Path file = run.dir().resolve(RunDir.JOURNAL_FILE);
    Journal.Contents now = Files.exists(file) ? Journal.read(file) : new Journal.Contents(List.of(), null);
    int before = previous == null ? 0 : previous.entries().size();
    if (now.entries().stream().anyMatch(e -> e.type().equals("end"))) {
      throw new RunLoop.RunFailure("run " + run.id() + " has ended since the resume read its journal; nothing to"
          + " resume", null);
    }
    if (now.entries().size() != before) {
      throw new RunLoop.RunFailure("run " + run.id() + "'s journal changed since the resume read it (" + before
          + " entries, now " + now.entries().size() + "): resume it again", null);
    }
  }

  /**
   * Refuses to resume a run on an input other than the one it read: the user's input ({@code --input}) must have the
   * sha256 the run's {@code input.json} keeps, so that the trials after the resume measure the same data as before.
   */
  private static void checkSameInput(RunDir run, RunTarget target) throws IOException {
    Path file = run.dir().resolve(INPUT);
    Optional<io.gitm.workload.InputFingerprint> now = target.input();
    if (!Files.exists(file)) {
      if (now.isPresent()) {
        throw new RunLoop.RunFailure("run " + run.id() + " ran on its workload's generated dataset, not on "
            + now.get().path() + ": a resume continues on the same data", null);
      }
      return;
    }
    Map<?, ?> was = RunLoop.JSON.readValue(file.toFile(), Map.class);
    if (now.isEmpty()) {
      throw new RunLoop.RunFailure("run " + run.id() + " ran on the input " + was.get("path") + ", which this"
          + " resume was not given", null);
    }
    if (!now.get().sha256().equals(was.get("sha256"))) {
      throw new RunLoop.RunFailure("the input " + now.get().path() + " is not the one run " + run.id() + " read"
          + " (sha256 " + was.get("sha256") + " then, " + now.get().sha256() + " now): a resume continues on the same"
          + " data", null);
    }
  }

  /** The run's device as {@code run.json} and the journal describe it. */
  private static Map<String, String> device(DeviceInfo info, RunTarget target) {
    Map<String, String> d = new LinkedHashMap<>();
    d.put("kind", info.kind().label());
    d.put("backend", info.backend());
    d.put("name", info.name());
    d.put("uuid", info.uuid());
    d.put("driver", info.driverVersion());
    d.put("chosen", target.choiceReason());
    d.putAll(target.requestDescription());
    return d;
  }

  /** The budget with its phase windows (what set-up left) and the target, as the header shows them. */
  private static String budgetLine(RunLoop.Request req, PhasePlan plan) {
    return req.budget() + " (" + (plan.setUp().isZero() ? "" : "set-up " + RunLoop.window(plan.setUp()) + ", ")
        + plan.windows().stream()
        .map(x -> x.phase().label().toLowerCase() + " " + RunLoop.window(x.length()))
        .collect(Collectors.joining(", ")) + "); target " + req.target();
  }

  /** A profile and the wall time it took. */
  private record Measured(Profile profile, Duration used) {}

  private static Measured reuse(RunTarget target, RunDir run, RunEvents events) throws IOException {
    Profiler.Baseline b = RunLoop.JSON.readValue(run.dir().resolve(BASELINE).toFile(), Profiler.Baseline.class);
    Profile profile = target.reuse(run, b);
    events.line("profile  reused from the interrupted run: " + b.iterations() + " iterations");
    return new Measured(profile, Duration.ZERO);
  }

  private static Measured measure(RunTarget target, RunDir run, RunClock clock, RunLoop.Control control,
      RunJournal journal, RunEvents events) throws IOException {
    Duration window = clock.remaining(Phase.PROFILE);
    events.phase(Phase.PROFILE, window);
    journal.append("phase-start", Map.of("phase", "profile", "seconds", window.toMillis() / 1000.0));
    long t0 = clock.wall().nanos();
    Profile p = target.profile(new Profile.Input(run, run.dir().resolve(TRACE), window, clock, control, journal));
    Profiler.Baseline b = p.baseline();
    run.writeJson(BASELINE, b);
    Duration used = clock.since(t0);
    journal.append("phase-end", Map.of("phase", "profile", "iterations", b.iterations(), "throughput",
        b.throughput()));
    events.line(String.format(Locale.ROOT, "profile  %d iterations, %s %s, latency p50 %.3f ms p99 %.3f ms,"
        + " tracing %s", b.iterations(), RunLoop.si(b.throughput()), b.metric(), b.latency().p50(),
        b.latency().p99(), b.tracing()));
    return new Measured(p, used);
  }

  /** The profile's trace read back, its facts, and the ceilings and device model it is read against. */
  private static Profiled read(RunTarget target, RunDir run, DeviceInfo info, Map<String, String> device,
      Resume resume, Measured m, RunLoop.Request req) throws IOException {
    TraceMeta meta;
    List<TraceRecord> records = new ArrayList<>();
    try (TraceReader r = TraceReader.open(run.dir().resolve(TRACE))) {
      meta = r.meta();
      r.read(records::add);
    }
    Profile profile = m.profile().withFacts(target.traceFacts(records));
    Path cal = req.store().hardwareSpec(info.name(), info.uuid(), info.driverVersion());
    Ceilings.Choice ceilings = Ceilings.forTrace(meta, cal);
    HardwareSpec hw = ceilings.spec();
    return new Profiled(run, info, device, resume, profile, m.used(), meta, records, ceilings,
        target.replaySpec(info, hw));
  }
}
