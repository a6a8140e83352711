package io.gitm.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Assumptions;

/**
 * The CPU PyTorch the tests of gitm's Python hook run on: Debian's torch for {@code /usr/bin/python3}. A test class
 * calls {@link #requireTorch()} first: installed by {@code scripts/install-python-torch.sh} where missing, skipped
 * where it still cannot be had, a failure where {@code CI=true}.
 */
public final class TorchPython {
  public static final Path PYTHON = Path.of("/usr/bin/python3");
  /** How long a test waits for something that must happen: a bound only a hang reaches, however busy the host. */
  public static final Duration LIVENESS = Duration.ofMinutes(3);

  private TorchPython() {}

  private static String missing;
  private static boolean looked;

  /**
   * Skips or fails the calling test when torch cannot be had; installs it first with
   * {@code scripts/install-python-torch.sh} when it is missing (unless {@code -Dgitm.installTorch=false}).
   */
  public static synchronized void requireTorch() {
    if (!looked) {
      looked = true;
      missing = find();
    }
    if (missing != null && (Boolean.getBoolean("gitm.requireTorch") || "true".equals(System.getenv("CI")))) {
      throw new AssertionError(missing + " (required: CI=true or -Dgitm.requireTorch=true)");
    }
    Assumptions.assumeTrue(missing == null, () -> missing + " (CI=true makes this a failure)");
  }

  private static String find() {
    if (imports()) {
      return null;
    }
    if ("false".equals(System.getProperty("gitm.installTorch"))) {
      return "/usr/bin/python3 cannot import torch and -Dgitm.installTorch=false: run scripts/install-python-torch.sh";
    }
    try {
      Path log = Files.createTempFile("install-python-torch", ".log");
      Process p = new ProcessBuilder("bash", repoRoot().resolve("scripts/install-python-torch.sh").toString())
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      if (!p.waitFor(20, java.util.concurrent.TimeUnit.MINUTES)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
      }
      if (imports()) {
        return null;
      }
      java.util.List<String> lines = Files.readAllLines(log);
      return "/usr/bin/python3 cannot import torch and scripts/install-python-torch.sh could not install it: "
          + (lines.isEmpty() ? "no output" : lines.getLast());
    } catch (java.io.IOException e) {
      return "cannot run scripts/install-python-torch.sh: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted while installing PyTorch";
    }
  }

  private static boolean imports() {
    if (!Files.isExecutable(PYTHON)) {
      return false;
    }
    try {
      Process p = new ProcessBuilder(PYTHON.toString(), "-c", "import torch, numpy").redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      return p.waitFor(5, java.util.concurrent.TimeUnit.MINUTES) && p.exitValue() == 0;
    } catch (java.io.IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The checkout's root: the folder above the tests' working folder that holds {@code run-tests}. */
  public static Path repoRoot() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isExecutable(p.resolve("run-tests"))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException("the tests run outside gitm's checkout (no run-tests above "
          + Path.of("").toAbsolutePath() + ")");
    }
    return p;
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
