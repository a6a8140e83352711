package io.gitm.workloads.hft;

/** An ITCH file that cannot be read: truncated or malformed at {@link #offset()} (bytes from the file's start). */
public final class ItchFormatException extends IllegalArgumentException {
  private final long offset;

  ItchFormatException(long offset, String what) {
    super("ITCH 5.0 input malformed at byte offset " + offset + ": " + what);
    this.offset = offset;
  }

  public long offset() {
    return offset;
  }
}
