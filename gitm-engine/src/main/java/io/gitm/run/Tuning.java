package io.gitm.run;

import io.gitm.search.Gate;
import java.time.Duration;

/**
 * How the gates measure a job, sized to its profile.
 *
 * @param blockIterations iterations of the workload per gate block
 * @param gate the gate's options, its watchdog sized to the job
 * @param expectedTrial what a trial is expected to take before any was measured
 */
record Tuning(int blockIterations, Gate.Options gate, Duration expectedTrial) {
  /** A block that takes this many times its expected wall time is a hang. */
  static final double HANG_FACTOR = 20;
  /** The shortest watchdog timeout of a block. */
  static final Duration MIN_BLOCK_TIMEOUT = Duration.ofSeconds(10);
  /** Device time a gate block should cover. */
  static final double BLOCK_DEVICE_NS = 50_000_000;

  /** Blocks of {@code perBlock} iterations under {@code gate}, with the trial time that follows from {@code b}. */
  static Tuning of(Profiler.Baseline b, int perBlock, Gate.Options gate) {
    return new Tuning(perBlock, gate, expectedTrial(b, gate, perBlock));
  }

  /**
   * Iterations per gate block: enough for a block to cover {@link #BLOCK_DEVICE_NS} of the job's time (so launch
   * jitter averages out), but few enough that a gate takes at most a twelfth of the apply window in wall time (so
   * the agent has room for a dozen trials); between 4 and 200, a multiple of 4.
   */
  static int blockIterations(Profiler.Baseline b, Gate.Options gate, PhasePlan plan) {
    double p50Ns = Math.max(1_000, b.latency().p50() * 1e6);
    int byDevice = (int) Math.ceil(BLOCK_DEVICE_NS / p50Ns);
    double wallPerIteration = b.wallSeconds() / Math.max(1, b.iterations());
    double blocksPerGate = 2.0 * (gate.pairs() + gate.warmupBlocks());
    double applySeconds = plan.window(Phase.APPLY).length().toMillis() / 1000.0;
    int byWall = wallPerIteration <= 0 ? Integer.MAX_VALUE
        : (int) Math.floor(applySeconds / 12 / blocksPerGate / wallPerIteration);
    // a multiple of 4, so that a block holds whole device batches when 2 or 4 input batches are coalesced
    int n = Math.clamp(Math.min(byDevice, byWall), 4, 200);
    return (n + 3) / 4 * 4;
  }

  /**
   * What a gate is expected to take before any was measured: its blocks (both arms' warm-up and measured pairs) of
   * {@code perBlock} iterations at the baseline's wall time per iteration. The agent starts no first trial that
   * would not end before the deadline.
   */
  static Duration expectedTrial(Profiler.Baseline b, Gate.Options gate, int perBlock) {
    double wallPerIteration = b.wallSeconds() / Math.max(1, b.iterations());
    if (!(wallPerIteration > 0) || Double.isInfinite(wallPerIteration)) {
      return Duration.ZERO;
    }
    double blocks = 2.0 * (gate.pairs() + gate.warmupBlocks());
    return Duration.ofNanos((long) Math.min(1e15, blocks * perBlock * wallPerIteration * 1e9));
  }

  /**
   * The gate's options with the watchdog sized to the job: a block that takes {@link #HANG_FACTOR} times its expected
   * wall time (at least {@link #MIN_BLOCK_TIMEOUT}) is a hang. This also bounds how far past the budget a run can go
   * when a block hangs at the deadline; otherwise the agent starts no trial, and the gate no block, that would not
   * finish in time.
   */
  static Gate.Options gateFor(Gate.Options g, Profiler.Baseline b, int perBlock) {
    double expected = b.wallSeconds() / Math.max(1, b.iterations()) * perBlock;
    Duration timeout = Duration.ofMillis(Math.round(1000 * Math.max(MIN_BLOCK_TIMEOUT.toMillis() / 1000.0,
        HANG_FACTOR * expected)));
    return timeout.compareTo(g.blockTimeout()) < 0 ? g.withBlockTimeout(timeout) : g;
  }
}
