package io.gitm.testkit;

import io.gitm.api.Ticker;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A ticker moved by hand (and by synthetic jobs, one block at a time): time in a test that no machine's speed moves.
 */
public final class FakeTicker implements Ticker {
  private final AtomicLong nanos = new AtomicLong();

  @Override
  public long nanos() {
    return nanos.get();
  }

  public void advance(long n) {
    nanos.addAndGet(n);
  }

  public void advanceSeconds(double s) {
    advance((long) (s * 1e9));
  }
}
