package io.gitm.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A workload's pinned datasets, generated once per test JVM (by {@code gitm plan}, which opens the workload) and
 * copied into a test's data folder before it runs gitm there. A run's set-up then only verifies the dataset, so a test
 * about resuming, phases or reports does not spend a share of its budget generating one, however slow the machine.
 * Generation within a run's set-up is tested on its own (SetUpTest, MinimumBudgetTest).
 */
final class Datasets {
  private static final Map<String, Path> CACHE = new HashMap<>();

  private Datasets() {}

  /** Copies {@code workload}'s datasets into {@code scratch}'s {@code datasets/} folder. */
  static synchronized void seed(Path scratch, String workload) {
    Path cached = CACHE.computeIfAbsent(workload, Datasets::generate);
    Path domain = cached.resolve("datasets").resolve(RunCommand.DATASET_DOMAIN.get(workload));
    Path target = scratch.resolve("datasets").resolve(domain.getFileName());
    try (Stream<Path> files = Files.walk(domain)) {
      for (Path f : files.toList()) {
        Path to = target.resolve(domain.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else if (!Files.exists(to)) {
          Files.copy(f, to);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path generate(String workload) {
    if (!RunCommand.DATASET_DOMAIN.containsKey(workload)) {
      throw new IllegalArgumentException("no dataset domain for " + workload);
    }
    try {
      Path dir = Files.createTempDirectory("gitm-test-datasets-" + workload + "-");
      CliResult r = CliResult.run("plan", "--workload", workload, "--scratch", dir.toString());
      if (r.code() != 0) {
        throw new IllegalStateException("gitm plan --workload " + workload + " failed: " + r.err());
      }
      try (Stream<Path> s = Files.list(dir.resolve("datasets").resolve(RunCommand.DATASET_DOMAIN.get(workload)))) {
        if (s.findAny().isEmpty()) {
          throw new IllegalStateException("gitm plan --workload " + workload + " left no dataset");
        }
      }
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Seeds each of {@code workloads}. */
  static void seed(Path scratch, List<String> workloads) {
    workloads.forEach(w -> seed(scratch, w));
  }
}
