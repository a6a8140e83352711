package io.gitm.workloads.hft;

/** An ITCH file that cannot be read: truncated or malformed at {@link #offset()} (bytes from the file's start). */
public final class ItchFormatException extends IllegalArgumentException {
  private final long offset;
  private final String detail;

  ItchFormatException(long offset, String what) {
    super("ITCH 5.0 input malformed at byte offset " + offset + ": " + what);
    this.offset = offset;
    this.detail = what;
  }

  /** What is wrong, without the offset. */
  String detail() {
    return detail;
  }

  public long offset() {
    return offset;
  }
}
