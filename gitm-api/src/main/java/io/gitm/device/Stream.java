package io.gitm.device;

/** An ordered queue of device work. */
public interface Stream extends AutoCloseable {
  /** The backend's id for this stream, as trace records carry it. */
  int id();

  int priority();

  /** Blocks the host until all work queued so far is done. */
  void synchronize();

  /** Makes later work on this stream wait for {@code event}. */
  void waitEvent(Event event);

  @Override
  void close();
}
