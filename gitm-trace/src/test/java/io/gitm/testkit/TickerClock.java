package io.gitm.testkit;

import io.gitm.api.Ticker;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A calendar clock that reads a ticker: the instant {@code epoch} plus the ticker's reading, in UTC. */
public final class TickerClock extends Clock {
  private final Ticker wall;
  private final Instant epoch;

  public TickerClock(Ticker wall, Instant epoch) {
    this.wall = wall;
    this.epoch = epoch;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("a test clock stays in UTC");
  }

  @Override
  public Instant instant() {
    return epoch.plusNanos(wall.nanos());
  }
}
