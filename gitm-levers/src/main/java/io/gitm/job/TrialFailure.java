package io.gitm.job;

/** Why a trial could not produce a measurement. A lever whose trial failed this way is rolled back. */
public final class TrialFailure extends Exception {
  /** The kind of failure, as the report names it. */
  public enum Kind {
    CRASH, HANG, OUT_OF_MEMORY, DEVICE_ERROR, NAN_OUTPUT, SETUP_REFUSED
  }

  private final Kind kind;

  public TrialFailure(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public TrialFailure(Kind kind, String message) {
    this(kind, message, null);
  }

  public Kind kind() {
    return kind;
  }
}
