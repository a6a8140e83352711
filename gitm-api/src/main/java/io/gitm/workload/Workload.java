package io.gitm.workload;

import io.gitm.device.Device;
import java.nio.file.Path;

/**
 * A managed GPU job that runs in gitm's process on the runtime facade. Its code is fixed; an
 * {@link ExecutionConfig} changes how it executes. Built-in workloads and a user's own engine implement this.
 */
public interface Workload {
  WorkloadSpec spec();

  /**
   * Prepares a run on {@code device} under {@code config}: loads modules, reads or generates its input under
   * {@code dataDir}, allocates what lives for the whole run.
   */
  Session open(Device device, ExecutionConfig config, Path dataDir);

  /** One prepared run of a workload. */
  interface Session extends AutoCloseable {
    /** Runs one iteration (e.g. one batch) and returns what it measured, timed on {@link Device#clock()}. */
    IterationResult step();

    /** Whether another {@link #step()} has input; a session may wrap around its input instead. */
    boolean hasNext();

    /** A digest of everything the job has output so far, for equivalence checks. */
    OutputDigest output();

    @Override
    void close();
  }
}
