package io.gitm.run;

import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.api.Ticker;
import io.gitm.device.DeviceInfo;
import io.gitm.device.HardwareSpec;
import io.gitm.job.Job;
import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.Setup;
import io.gitm.search.Gate;
import io.gitm.sim.SimSpec;
import io.gitm.store.RunDir;
import io.gitm.trace.TraceRecord;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import io.gitm.workload.InputFingerprint;
import io.gitm.workload.OutputScore;

/**
 * What a run optimizes: a managed workload that gitm runs in its own process on a device it opens
 * ({@link ManagedTarget}), a black-box process that gitm starts and watches from outside ({@link ProcessTarget}), or
 * a PyTorch process started once and steered while it runs ({@link LiveTarget}).
 * Each kind says what differs between them: how the job is profiled, the job the agent measures, which levers can
 * reach it, the device model its counterfactual replay runs on (if any), what the report notes about it, and what is
 * written to the run folder so that a resumed run continues the same job.
 *
 * <p>Closing a target releases what its profile holds (a managed workload's opened device); the run closes it once
 * the profile phase is over, and the apply phase opens what it needs again per setup.
 */
public sealed interface RunTarget extends AutoCloseable permits ManagedTarget, ProcessTarget, LiveTarget {
  /** How reports and the run folder name the job. */
  String name();

  /** Why this device (or none) was chosen, as the run's device description keeps it. */
  String choiceReason();

  /** The device the profile runs on, as the run and its report describe it. */
  DeviceInfo info();

  /** How the device was asked for ({@code request.kind}, {@code request.<option>}), so that a resume asks alike. */
  Map<String, String> requestDescription();

  /** Files of a fresh run's folder that a resumed run reads back to continue the same job, by name (JSON values). */
  Map<String, Object> resumeFiles();

  /** The user's input the job runs on, once set up ({@code --input}); empty for a generated dataset. */
  default Optional<InputFingerprint> input() {
    return Optional.empty();
  }

  /** The output scored against the ground truth the user's input carried, so far; empty when it carries none. */
  default Optional<OutputScore> score() {
    return Optional.empty();
  }

  /** What the device knows to be true of the job (a simulated device's planted faults); empty for most. */
  Optional<Record> groundTruth();

  /**
   * Readies the job before the run's budget is split into phases, so that what the job does once (read or generate
   * its dataset, load its kernels) does not eat a phase; returns each part done with its wall time on {@code wall}.
   * Nothing by default. A target that was set up releases what it readied when it is closed.
   *
   * @throws RuntimeException when the job cannot be readied (its input is missing or corrupt)
   */
  default Map<String, Duration> setUp(Ticker wall) {
    return Map.of();
  }

  /**
   * The profile phase: a baseline of the shipped setup and the run's trace ({@code in.tracePath()}).
   *
   * @throws RunLoop.RunFailure when the job cannot be profiled; the failure is journaled first
   */
  Profile profile(Profile.Input in) throws IOException;

  /** What the interrupted run's profile found, read back from its folder around its {@code baseline}. */
  default Profile reuse(RunDir run, Profiler.Baseline baseline) throws IOException {
    return new Profile(baseline, List.of(), Map.of());
  }

  /** Facts read off the profile's trace beyond those every lever sees. */
  default Map<String, Double> traceFacts(List<TraceRecord> records) {
    return Map.of();
  }

  /** The device model counterfactual replay runs on; empty where the job's trace cannot be replayed. */
  Optional<SimSpec> replaySpec(DeviceInfo info, HardwareSpec hw);

  /** How the gates measure this job, sized to its baseline. */
  Tuning tune(Profiler.Baseline baseline, Gate.Options gate, PhasePlan plan);

  /** The job the agent measures in the apply phase; the caller closes it. */
  Job.Closeable openJob(RunDir run, Ticker wall, Profiler.Baseline baseline, Tuning tuning);

  /** What the levers check their preconditions against, for the shipped setup. */
  LeverContext leverContext(DeviceInfo info, List<Hypothesis> hypotheses, Map<String, Double> facts, Setup shipped);

  /** Whether {@code lever} can reach this kind of job. */
  boolean admits(Lever lever);

  /** How far a class-B lever may move the job's output. */
  double outputTolerance();

  boolean higherIsBetter();

  /** What a reader of the report should know about the job, with its profile's own notes. */
  List<String> notes(Profiler.Baseline baseline, List<String> profileNotes);

  /**
   * The final setup's short trace for the report's "after" timeline, or why there is none.
   *
   * @param outcome what the optimization did, or null when it failed
   */
  AfterTrace traceAfter(Outcome outcome, Profiler.Baseline baseline, RunClock clock, RunLoop.Control control);

  @Override
  void close();
}
