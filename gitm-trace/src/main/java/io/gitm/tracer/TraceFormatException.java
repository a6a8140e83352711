package io.gitm.tracer;

import java.io.IOException;

/**
 * A file that is not a gitm trace, or a trace that is truncated or corrupt. The message names the byte offset at which
 * reading failed; {@link #offset()} gives it as a number.
 */
public final class TraceFormatException extends IOException {
  private final long offset;

  TraceFormatException(long offset, String message) {
    super(message);
    this.offset = offset;
  }

  /** A truncated or corrupt trace: "truncated or corrupt at byte offset N: detail". */
  static TraceFormatException corrupt(long offset, String detail) {
    return new TraceFormatException(offset, "truncated or corrupt at byte offset " + offset + ": " + detail);
  }

  /** The byte offset in the file at which the problem was found. */
  public long offset() {
    return offset;
  }
}
