package io.gitm.job;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Debian's PyTorch for the hook's tests: {@code /usr/bin/python3} that imports torch, installed by
 * {@code scripts/install-python-torch.sh} when missing (unless {@code -Dgitm.installTorch=false}). A test that needs
 * it is skipped without it, and fails where it is required (CI=true, or {@code -Dgitm.requireTorch=true}).
 */
final class PythonTorch {
  static final Path PYTHON = Path.of("/usr/bin/python3");
  private static String missing;
  private static boolean looked;

  private PythonTorch() {}

  /** Skips or fails the calling test when PyTorch cannot be had; returns the interpreter. */
  static synchronized Path require() {
    if (!looked) {
      looked = true;
      missing = find();
    }
    if (missing != null && (Boolean.getBoolean("gitm.requireTorch") || "true".equals(System.getenv("CI")))) {
      throw new AssertionError(missing + " (required: CI=true or -Dgitm.requireTorch=true)");
    }
    Assumptions.assumeTrue(missing == null, () -> missing);
    return PYTHON;
  }

  private static String find() {
    if (imports()) {
      return null;
    }
    if ("false".equals(System.getProperty("gitm.installTorch"))) {
      return "/usr/bin/python3 cannot import torch and -Dgitm.installTorch=false: run scripts/install-python-torch.sh";
    }
    Path script = repoRoot().resolve("scripts/install-python-torch.sh");
    try {
      Path log = Files.createTempFile("install-python-torch", ".log");
      Process p = new ProcessBuilder("bash", script.toString()).redirectErrorStream(true)
          .redirectOutput(log.toFile()).start();
      if (!p.waitFor(20, TimeUnit.MINUTES)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
      }
      if (imports()) {
        return null;
      }
      List<String> lines = Files.readAllLines(log);
      return "/usr/bin/python3 cannot import torch and scripts/install-python-torch.sh could not install it: "
          + (lines.isEmpty() ? "no output" : lines.getLast());
    } catch (IOException e) {
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
      return p.waitFor(5, TimeUnit.MINUTES) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  static Path repoRoot() {
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

  /** The hook tests' Python folder (jobs/ and test_torch_hook.py). */
  static Path tests() {
    return repoRoot().resolve("gitm-levers/src/test/python");
  }
}
