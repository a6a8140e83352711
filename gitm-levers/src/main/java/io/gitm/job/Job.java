package io.gitm.job;


import io.gitm.levers.Setup;
import io.gitm.workload.OutputDigest;

/**
 * A job the agent measures under different setups: a managed workload on a device, a black-box process, or (in
 * tests) a seeded synthetic job. The agent never sees more of it than this.
 */
public interface Job {
  /** The headline metric's name and unit, e.g. {@code messages/s}. */
  String metric();

  boolean higherIsBetter();

  /**
   * Prepares the job under {@code setup} (a session, a process). May throw {@link TrialFailure} when the setup
   * cannot even start.
   */
  Run open(Setup setup) throws TrialFailure;

  /**
   * Whether the job's output is the same from run to run of one setup. A job whose own shipped runs disagree (a GPU
   * training whose reductions are not deterministic) cannot show a bit-identical output under any lever, so its
   * outputs are compared within the job's tolerance whatever a lever's safety class.
   */
  default boolean reproducibleOutput() {
    return true;
  }

  /**
   * Whether runs of {@code a} and {@code b} can be open at once, so that the gate interleaves their blocks (else it
   * measures them one session at a time): by default when the two open the device alike ({@link
   * Setup#sameDeviceOpen}); a live process, whose runs are views of the one process, can always.
   */
  default boolean sideBySide(Setup a, Setup b) {
    return a.sameDeviceOpen(b);
  }

  /**
   * Whether the gate should randomize the order of each pair of blocks (balanced within every two pairs) instead of
   * alternating it: for a job measured in windows of one running process, where a periodic phase of the job could
   * line up with a fixed alternation.
   */
  default boolean randomizedOrder() {
    return false;
  }

  /**
   * Told by the agent after each trial: the setup kept so far (its anchor). A job that holds a setup in force
   * between trials (a live process) switches to it; others ignore it.
   */
  default void kept(Setup anchor) {}

  /** A job that holds what it runs on (device contexts, process groups) until closed. */
  interface Closeable extends Job, AutoCloseable {
    @Override
    void close();
  }

  /** One prepared instance of the job under one setup. */
  interface Run extends AutoCloseable {
    /**
     * Runs one measurement block (a fixed amount of work, the same for every setup) and returns the metric over
     * it. Blocking; the agent runs it under a watchdog.
     */
    double block() throws TrialFailure;

    /** A digest of all output so far; two runs that did the same number of blocks are compared on it. */
    OutputDigest output();

    @Override
    void close();
  }
}
