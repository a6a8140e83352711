package io.gitm.job;

import io.gitm.testkit.TorchPython;
import java.nio.file.Path;

/** The hook tests' interpreter and files: Debian's PyTorch through {@link TorchPython}. */
final class PythonTorch {
  static final Path PYTHON = TorchPython.PYTHON;

  private PythonTorch() {}

  /** Skips or fails the calling test when PyTorch cannot be had; returns the interpreter. */
  static Path require() {
    TorchPython.requireTorch();
    return PYTHON;
  }

  static Path repoRoot() {
    return TorchPython.repoRoot();
  }

  /** The hook tests' Python folder (jobs/ and test_torch_hook.py). */
  static Path tests() {
    return repoRoot().resolve("gitm-levers/src/test/python");
  }
}
