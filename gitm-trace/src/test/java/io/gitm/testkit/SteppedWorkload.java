package io.gitm.testkit;

import io.gitm.device.Device;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.IterationResult;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import io.gitm.workload.WorkloadSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A workload whose every step moves a {@link FakeTicker} by a fixed wall time (and whose first opening, where a
 * dataset is generated, by another), so that a run's budget is spent by the job's own work and not by the machine's
 * speed: a run on it does the same phases and trials on a busy machine as on an idle one.
 */
public final class SteppedWorkload implements Workload {
  private final Workload workload;
  private final FakeTicker wall;
  private final Duration step;
  private final Duration firstOpen;
  private final Runnable afterStep;
  private final AtomicBoolean opened = new AtomicBoolean();

  /**
   * @param step wall time each step takes
   * @param firstOpen wall time the first session takes to open
   * @param afterStep run after each step has moved the clock (a test's pause, say)
   */
  public SteppedWorkload(Workload workload, FakeTicker wall, Duration step, Duration firstOpen, Runnable afterStep) {
    this.workload = workload;
    this.wall = wall;
    this.step = step;
    this.firstOpen = firstOpen;
    this.afterStep = afterStep;
  }

  /** {@code workload} with each step taking {@code step}, and nothing else. */
  public SteppedWorkload(Workload workload, FakeTicker wall, Duration step) {
    this(workload, wall, step, Duration.ZERO, () -> {});
  }

  @Override
  public WorkloadSpec spec() {
    return workload.spec();
  }

  @Override
  public Workload withInput(io.gitm.workload.WorkloadInput input) {
    return new SteppedWorkload(workload.withInput(input), wall, step, firstOpen, afterStep);
  }

  @Override
  public java.util.List<String> inputFormats() {
    return workload.inputFormats();
  }

  @Override
  public java.util.Optional<io.gitm.workload.InputFingerprint> input() {
    return workload.input();
  }

  @Override
  public java.util.Optional<io.gitm.workload.OutputScore> score() {
    return workload.score();
  }

  @Override
  public Session open(Device device, ExecutionConfig config, Path dataDir) {
    Session s = workload.open(device, config, dataDir);
    if (!opened.getAndSet(true)) {
      wall.advance(firstOpen.toNanos());
    }
    return new Session() {
      @Override
      public IterationResult step() {
        IterationResult r = s.step();
        wall.advance(step.toNanos());
        afterStep.run();
        return r;
      }

      @Override
      public boolean hasNext() {
        return s.hasNext();
      }

      @Override
      public OutputDigest output() {
        return s.output();
      }

      @Override
      public void close() {
        s.close();
      }
    };
  }
}
