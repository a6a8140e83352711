package io.gitm.agents;

import io.gitm.api.Ticker;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker moved by hand (and by synthetic jobs, one block at a time). */
final class FakeTicker implements Ticker {
  private final AtomicLong nanos = new AtomicLong();

  @Override
  public long nanos() {
    return nanos.get();
  }

  void advance(long n) {
    nanos.addAndGet(n);
  }

  void advanceSeconds(double s) {
    advance((long) (s * 1e9));
  }
}
