package io.gitm.trace;

/** The direction of a memory copy. */
public enum CopyKind {
  HTOD, DTOH, DTOD, HTOH, PTOP, UNKNOWN
}
