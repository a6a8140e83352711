package io.gitm.tracer;

import java.io.IOException;

/** A Kineto (Chrome trace-event) JSON file that is malformed, truncated or not a trace; names the line and column. */
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
