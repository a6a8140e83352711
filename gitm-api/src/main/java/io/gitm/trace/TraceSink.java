package io.gitm.trace;

/** Where trace records go as they are produced (a file writer, a ring, the analysis). Thread-safe unless stated. */
@FunctionalInterface
public interface TraceSink {
  void accept(TraceRecord record);
}
