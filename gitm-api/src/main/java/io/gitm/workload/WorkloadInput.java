package io.gitm.workload;

import java.nio.file.Path;
import java.util.Map;

/**
 * A user's own input for a managed workload, in place of its generated dataset: a file or folder, and the
 * workload's options for reading it (e.g. hft-lob's {@code symbols}); a workload refuses an option it does not know.
 */
public record WorkloadInput(Path path, Map<String, String> options) {
  public WorkloadInput {
    if (path == null) {
      throw new IllegalArgumentException("an input needs a path");
    }
    options = Map.copyOf(options);
  }

  public static WorkloadInput of(Path path) {
    return new WorkloadInput(path, Map.of());
  }
}
