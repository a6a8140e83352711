package io.gitm.telemetry;

import io.gitm.api.Ticker;
import io.gitm.device.StateSampler;
import io.gitm.trace.StateSample;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Samples device state at a fixed rate on its own daemon thread, so the job it watches never waits for it: every
 * period each sampler is read once, the samples go to a bounded {@link SampleRing} and to every {@link SampleSink}.
 * Time comes from the injected {@link Ticker}; when the loop falls behind (a slow sampler or sink), the periods it
 * missed are skipped and counted, never run in a burst. A sampler or sink that throws is counted and the loop goes on.
 * {@link #runDue()} does one step without the thread, which is how tests drive it with a hand-moved ticker.
 */
public final class TelemetryLoop implements AutoCloseable {
  /** The highest rate accepted. */
  public static final double MAX_HZ = 1000;
  public static final double DEFAULT_HZ = 1;

  /** How the loop waits between steps; {@code LockSupport::parkNanos} in production. */
  @FunctionalInterface
  public interface Parker {
    void park(long nanos);
  }

  private final List<StateSampler> samplers;
  private final Ticker ticker;
  private final long periodNs;
  private final SampleRing ring;
  private final List<SampleSink> sinks = new CopyOnWriteArrayList<>();
  private final Parker parker;
  private final AtomicLong samples = new AtomicLong();
  private final AtomicLong missedPeriods = new AtomicLong();
  private final AtomicLong samplerErrors = new AtomicLong();
  private final AtomicLong sinkErrors = new AtomicLong();
  private volatile @Nullable Thread thread;
  private volatile boolean running;
  private long nextDue;
  private boolean started;

  public TelemetryLoop(List<? extends StateSampler> samplers, Ticker ticker, double hz, int ringCapacity) {
    this(samplers, ticker, hz, ringCapacity, LockSupport::parkNanos);
  }

  public TelemetryLoop(List<? extends StateSampler> samplers, Ticker ticker, double hz, int ringCapacity,
      Parker parker) {
    if (samplers == null || samplers.isEmpty()) {
      throw new IllegalArgumentException("telemetry needs at least one sampler");
    }
    if (!(hz > 0 && hz <= MAX_HZ)) {
      throw new IllegalArgumentException("sampling rate must be in (0, " + (int) MAX_HZ + "] Hz, got " + hz);
    }
    this.samplers = List.copyOf(samplers);
    this.ticker = ticker;
    this.periodNs = Math.max(1, Math.round(1e9 / hz));
    this.ring = new SampleRing(ringCapacity);
    this.parker = parker;
  }

  public TelemetryLoop addSink(SampleSink sink) {
    sinks.add(sink);
    return this;
  }

  public long periodNs() {
    return periodNs;
  }

  public SampleRing ring() {
    return ring;
  }

  /** Sampling rounds done (each reads every sampler once). */
  public long rounds() {
    return samples.get();
  }

  public long missedPeriods() {
    return missedPeriods.get();
  }

  public long samplerErrors() {
    return samplerErrors.get();
  }

  public long sinkErrors() {
    return sinkErrors.get();
  }

  /** Starts the daemon thread; the first round is taken at once. */
  public synchronized TelemetryLoop start() {
    if (thread != null) {
      throw new IllegalStateException("telemetry loop already started");
    }
    running = true;
    Thread t = new Thread(this::loop, "gitm-telemetry");
    t.setDaemon(true);
    thread = t;
    t.start();
    return this;
  }

  private void loop() {
    while (running) {
      long wait = runDue();
      if (running && wait > 0) {
        parker.park(wait);
      }
    }
  }

  /**
   * Takes a round if one is due at the ticker's time, and returns the nanoseconds until the next one is due. The
   * first call always takes a round.
   */
  public synchronized long runDue() {
    long now = ticker.nanos();
    if (!started) {
      started = true;
      nextDue = now;
    }
    if (now < nextDue) {
      return nextDue - now;
    }
    long late = (now - nextDue) / periodNs;
    if (late > 0) {
      missedPeriods.addAndGet(late);
    }
    round();
    nextDue += (late + 1) * periodNs;
    return Math.max(0, nextDue - ticker.nanos());
  }

  private void round() {
    for (StateSampler s : samplers) {
      StateSample sample;
      try {
        sample = s.sample();
      } catch (RuntimeException e) {
        samplerErrors.incrementAndGet();
        continue;
      }
      ring.add(sample);
      for (SampleSink sink : sinks) {
        try {
          sink.accept(sample);
        } catch (RuntimeException e) {
          sinkErrors.incrementAndGet();
        }
      }
    }
    samples.incrementAndGet();
  }

  /** Stops the thread (waiting for the round in progress), then closes the sinks. */
  @Override
  public void close() {
    Thread t;
    synchronized (this) {
      running = false;
      t = thread;
    }
    if (t != null) {
      LockSupport.unpark(t);
      boolean interrupted = false;
      while (t.isAlive()) {
        try {
          t.join(1000);
          LockSupport.unpark(t);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    for (SampleSink sink : sinks) {
      try {
        sink.close();
      } catch (RuntimeException e) {
        sinkErrors.incrementAndGet();
      }
    }
    sinks.clear();
  }
}
