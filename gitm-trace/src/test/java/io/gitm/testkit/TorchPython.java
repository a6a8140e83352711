package io.gitm.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Assumptions;

/**
 * The CPU PyTorch the tests of gitm's Python hook run on: Debian's torch for {@code /usr/bin/python3}. A test class
 * calls {@link #requireTorch()} first: skipped where that interpreter has no torch, a failure where {@code CI=true}.
 */
public final class TorchPython {
  public static final Path PYTHON = Path.of("/usr/bin/python3");
  /** How long a test waits for something that must happen: a bound only a hang reaches, however busy the host. */
  public static final Duration LIVENESS = Duration.ofMinutes(3);

  private TorchPython() {}

  public static void requireTorch() throws Exception {
    boolean has = Files.isExecutable(PYTHON) && new ProcessBuilder(PYTHON.toString(), "-c", "import torch")
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor() == 0;
    if (!has && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI=true, but /usr/bin/python3 cannot import torch: the hook's tests must run there");
    }
    Assumptions.assumeTrue(has, "/usr/bin/python3 has no torch: the hook's tests need it (CI=true makes this a"
        + " failure)");
  }

  /**
   * Asks a job of the hook's test scripts to stop (their {@code --stop} file, {@code stop} in {@code dir}) and waits
   * for the account it writes when it ends ({@code out.json} in {@code dir}); returns that file.
   */
  public static Path stopAndAwait(Path dir) throws Exception {
    Files.writeString(dir.resolve("stop"), "");
    Path out = dir.resolve("out.json");
    if (!waitFor(() -> Files.isRegularFile(out))) {
      throw new AssertionError("the job did not write " + out + " within " + LIVENESS);
    }
    return out;
  }

  /** Whether {@code file} exists and was last written after {@code millis} (epoch milliseconds). */
  public static boolean modifiedAfter(Path file, long millis) {
    try {
      return Files.isRegularFile(file) && Files.getLastModifiedTime(file).toMillis() > millis;
    } catch (java.io.IOException e) {
      return false;
    }
  }

  /** Waits for {@code condition} up to {@link #LIVENESS}; whether it came. */
  public static boolean waitFor(BooleanSupplier condition) throws InterruptedException {
    long until = System.nanoTime() + LIVENESS.toNanos();
    while (System.nanoTime() < until) {
      if (condition.getAsBoolean()) {
        return true;
      }
      Thread.sleep(50);
    }
    return condition.getAsBoolean();
  }
}
