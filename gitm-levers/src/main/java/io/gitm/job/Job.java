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
