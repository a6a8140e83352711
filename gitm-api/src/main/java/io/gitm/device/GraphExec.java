package io.gitm.device;

/** An instantiated graph: work captured from a stream, replayed with one launch. */
public interface GraphExec extends AutoCloseable {
  /** How many nodes the graph holds. */
  int nodes();

  @Override
  void close();
}
