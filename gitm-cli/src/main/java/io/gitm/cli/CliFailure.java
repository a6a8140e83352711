package io.gitm.cli;

/** A failure the CLI reports as one line on standard error with exit code 1. */
final class CliFailure extends RuntimeException {
  CliFailure(String message) {
    super(message);
  }

  CliFailure(String message, Throwable cause) {
    super(message, cause);
  }
}
