package io.gitm.tracer;

import java.io.IOException;

/**
 * A file that is not an Nsight Systems SQLite export gitm can read: not a SQLite database, a corrupt or truncated one,
 * a database of another program, or an export of a schema version gitm does not support. The message says which.
 */
public final class NsysFormatException extends IOException {
  NsysFormatException(String message) {
    super(message);
  }

  NsysFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
