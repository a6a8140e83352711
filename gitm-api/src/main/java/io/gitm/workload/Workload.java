package io.gitm.workload;

import io.gitm.device.Device;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

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

  /**
   * This workload on the user's {@code input} instead of its generated dataset. The input is checked when a
   * session is first opened (a long read is set-up, not a phase); a bad option is refused here.
   *
   * @throws IllegalArgumentException when the workload takes no input, or an option is unknown or malformed
   */
  default Workload withInput(WorkloadInput input) {
    throw new IllegalArgumentException(spec().name() + " takes no --input");
  }

  /** The input formats {@link #withInput} reads, one line each, for the commands' help; empty when it takes none. */
  default List<String> inputFormats() {
    return List.of();
  }

  /** What the user's input was, once a session has read it; empty for a generated dataset or before. */
  default Optional<InputFingerprint> input() {
    return Optional.empty();
  }

  /**
   * What the output scored against the ground truth the user's input carried, over what sessions have output so far;
   * empty when the input carries none (or scoring was turned off), for a generated dataset, or before any session.
   */
  default Optional<OutputScore> score() {
    return Optional.empty();
  }

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
