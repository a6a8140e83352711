package io.gitm.tracer;

import java.io.IOException;

/**
 * A Kineto (Chrome trace-event) JSON file that cannot be imported: malformed, truncated, not a trace (each naming the
 * line and column where the parser could tell), or a trace without a device operation to import.
 */
public final class KinetoFormatException extends IOException {
  private final int line;
  private final int column;

  KinetoFormatException(int line, int column, String detail) {
    super((line > 0 ? "line " + line + ", column " + column + ": " : "") + detail);
    this.line = line;
    this.column = column;
  }

  /** The 1-based line of the problem, or -1 when the parser could not tell. */
  public int line() {
    return line;
  }

  /** The 1-based column of the problem, or -1 when the parser could not tell. */
  public int column() {
    return column;
  }
}
