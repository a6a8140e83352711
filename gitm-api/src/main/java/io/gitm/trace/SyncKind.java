package io.gitm.trace;

/** What a synchronization waited for. */
public enum SyncKind {
  EVENT, STREAM_WAIT_EVENT, STREAM, CONTEXT, UNKNOWN
}
