package io.gitm.tracer;

/** An {@code ncu --csv} file gitm cannot read; the message names the file and line. */
public final class NcuFormatException extends RuntimeException {
  public NcuFormatException(String message) {
    super(message);
  }
}
