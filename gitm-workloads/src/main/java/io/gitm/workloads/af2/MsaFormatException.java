package io.gitm.workloads.af2;

/** A FASTA or A3M file that cannot be read: malformed at {@link #line()} (1-based) of {@link #source()}. */
public final class MsaFormatException extends IllegalArgumentException {
  private final String source;
  private final int line;

  MsaFormatException(String source, int line, String what) {
    super(source + " line " + line + ": " + what);
    this.source = source;
    this.line = line;
  }

  /** The file (or other source) the text came from. */
  public String source() {
    return source;
  }

  /** The line the problem is on, counted from 1. */
  public int line() {
    return line;
  }
}
