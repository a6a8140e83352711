package io.gitm.trace;

/** What the tracer itself spent time on; later stages subtract these intervals before judging the job. */
public enum OverheadKind {
  BUFFER_FLUSH, INSTRUMENTATION, RESOURCE, SAMPLING, OTHER
}
