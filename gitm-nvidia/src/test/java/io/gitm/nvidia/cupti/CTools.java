package io.gitm.nvidia.cupti;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Finds gcc and the CUDA headers, and runs commands, for the tests that compile C. */
final class CTools {
  private CTools() {
  }

  static Optional<Path> onPath(String exe) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(":")) {
      Path p = Path.of(dir, exe);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** The CUDA include folder that has {@code cupti.h}: $CUDA_HOME, /usr/local/cuda, /usr/local/cuda-*. */
  static Optional<Path> cudaInclude() {
    List<Path> c = new ArrayList<>();
    String home = System.getenv("CUDA_HOME");
    if (home != null && !home.isBlank()) {
      c.add(Path.of(home, "include"));
      c.add(Path.of(home, "extras/CUPTI/include"));
    }
    c.add(Path.of("/usr/local/cuda/include"));
    try (Stream<Path> s = Files.list(Path.of("/usr/local"))) {
      s.filter(p -> p.getFileName().toString().startsWith("cuda-")).sorted().forEach(p -> c.add(p.resolve("include")));
    } catch (IOException e) {
      // no /usr/local: no candidates from it
    }
    return c.stream().filter(p -> Files.isRegularFile(p.resolve("cupti.h"))).findFirst();
  }

  /** Module-relative path of a source file (surefire runs tests in the module folder). */
  static Path source(String relative) {
    Path p = Path.of(relative);
    if (!Files.exists(p)) {
      throw new IllegalStateException(relative + " not found from " + Path.of("").toAbsolutePath());
    }
    return p;
  }

  /** Runs {@code cmd}; returns its stdout, or fails with its output when it exits non-zero. */
  static String run(List<String> cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("timed out: " + cmd);
    }
    String s = new String(out, StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", cmd) + " exited " + p.exitValue() + ":\n" + s);
    }
    return s;
  }
}
