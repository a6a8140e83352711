package io.gitm.device;

/** A marker in a stream; with timing enabled, two events give the device time between them. */
public interface Event extends AutoCloseable {
  void record(Stream stream);

  void synchronize();

  /** Device time from {@code start} to this event, in milliseconds; both must have completed. */
  float elapsedMillisSince(Event start);

  @Override
  void close();
}
