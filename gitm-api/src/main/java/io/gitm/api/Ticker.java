package io.gitm.api;

/**
 * A source of monotonic nanoseconds. The engine reads time only through a ticker, so tests drive it by hand and
 * the simulated device supplies its own simulated time.
 */
@FunctionalInterface
public interface Ticker {
  long nanos();

  /** The host's monotonic clock. */
  static Ticker system() {
    return System::nanoTime;
  }
}
