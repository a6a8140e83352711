package io.gitm.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.device.StateSampler;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TelemetryLoopTest {
  private static final long SECOND = 1_000_000_000L;

  /** A sampler whose POWER reading counts its calls, stamped with the hand-driven clock. */
  static final class CountingSampler implements StateSampler {
    final AtomicLong clock;
    final int device;
    final AtomicInteger calls = new AtomicInteger();
    volatile boolean fail;

    CountingSampler(AtomicLong clock, int device) {
      this.clock = clock;
      this.device = device;
    }

    @Override
    public Set<StateField> supported() {
      return EnumSet.of(StateField.POWER);
    }

    @Override
    public StateSample sample() {
      int n = calls.incrementAndGet();
      if (fail) {
        throw new IllegalStateException("sampler broke");
      }
      return StateSample.of(device, clock.get(), Map.of(StateField.POWER, (double) n));
    }
  }

  @Test
  void firstStepSamplesAtOnceThenWaitsOnePeriod() {
    AtomicLong clock = new AtomicLong(5 * SECOND);
    CountingSampler s = new CountingSampler(clock, 0);
    TelemetryLoop loop = new TelemetryLoop(List.of(s), clock::get, 1, 16);

    assertThat(loop.runDue()).isEqualTo(SECOND);
    assertThat(s.calls).hasValue(1);
    clock.addAndGet(SECOND / 2);
    assertThat(loop.runDue()).isEqualTo(SECOND / 2);
    assertThat(s.calls).hasValue(1);
    clock.addAndGet(SECOND / 2);
    loop.runDue();
    assertThat(s.calls).hasValue(2);
    assertThat(loop.ring().snapshot()).extracting(StateSample::timeNs).containsExactly(5 * SECOND, 6 * SECOND);
  }

  @Test
  void everySamplerIsReadEachRoundAndEverySinkGetsEverySample() {
    AtomicLong clock = new AtomicLong();
    CountingSampler a = new CountingSampler(clock, 0);
    CountingSampler b = new CountingSampler(clock, 1);
    List<StateSample> sink1 = new CopyOnWriteArrayList<>();
    List<StateSample> sink2 = new CopyOnWriteArrayList<>();
    TelemetryLoop loop = new TelemetryLoop(List.of(a, b), clock::get, 100, 64).addSink(sink1::add).addSink(sink2::add);
    for (int i = 0; i < 5; i++) {
      loop.runDue();
      clock.addAndGet(10_000_000);
    }
    assertThat(loop.periodNs()).isEqualTo(10_000_000);
    assertThat(loop.rounds()).isEqualTo(5);
    assertThat(sink1).hasSize(10).isEqualTo(sink2);
    assertThat(sink1).extracting(StateSample::device).containsExactly(0, 1, 0, 1, 0, 1, 0, 1, 0, 1);
  }

  @Test
  void missedPeriodsAreSkippedAndCountedNotRunInABurst() {
    AtomicLong clock = new AtomicLong();
    CountingSampler s = new CountingSampler(clock, 0);
    TelemetryLoop loop = new TelemetryLoop(List.of(s), clock::get, 10, 16);
    loop.runDue();
    clock.addAndGet(350_000_000);
    long wait = loop.runDue();

    assertThat(s.calls).hasValue(2);
    assertThat(loop.missedPeriods()).isEqualTo(2);
    assertThat(wait).isEqualTo(50_000_000);
    assertThat(loop.runDue()).isEqualTo(50_000_000);
    assertThat(s.calls).hasValue(2);
  }

  @Test
  void ringKeepsTheNewestSamplesAndCountsTheDropped() {
    AtomicLong clock = new AtomicLong();
    CountingSampler s = new CountingSampler(clock, 0);
    TelemetryLoop loop = new TelemetryLoop(List.of(s), clock::get, 1, 3);
    for (int i = 0; i < 5; i++) {
      loop.runDue();
      clock.addAndGet(SECOND);
    }
    assertThat(loop.ring().snapshot()).extracting(x -> x.get(StateField.POWER)).containsExactly(3.0, 4.0, 5.0);
    assertThat(loop.ring().dropped()).isEqualTo(2);
    assertThat(loop.ring().written()).isEqualTo(5);
  }

  @Test
  void aFailingSamplerOrSinkIsCountedAndTheOthersGoOn() {
    AtomicLong clock = new AtomicLong();
    CountingSampler bad = new CountingSampler(clock, 0);
    bad.fail = true;
    CountingSampler good = new CountingSampler(clock, 1);
    List<StateSample> got = new CopyOnWriteArrayList<>();
    TelemetryLoop loop = new TelemetryLoop(List.of(bad, good), clock::get, 1, 8)
        .addSink(x -> {
          throw new IllegalStateException("sink broke");
        })
        .addSink(got::add);
    loop.runDue();
    clock.addAndGet(SECOND);
    loop.runDue();

    assertThat(loop.samplerErrors()).isEqualTo(2);
    assertThat(loop.sinkErrors()).isEqualTo(2);
    assertThat(got).hasSize(2).allSatisfy(x -> assertThat(x.device()).isEqualTo(1));
  }

  @Test
  void ratesOutsideTheSupportedRangeAreRejected() {
    AtomicLong clock = new AtomicLong();
    List<CountingSampler> one = List.of(new CountingSampler(clock, 0));
    assertThatThrownBy(() -> new TelemetryLoop(one, clock::get, 0, 8)).hasMessageContaining("sampling rate");
    assertThatThrownBy(() -> new TelemetryLoop(one, clock::get, 5000, 8)).hasMessageContaining("sampling rate");
    assertThatThrownBy(() -> new TelemetryLoop(one, clock::get, Double.NaN, 8)).hasMessageContaining("sampling rate");
    assertThatThrownBy(() -> new TelemetryLoop(List.of(), clock::get, 1, 8)).hasMessageContaining("sampler");
    assertThatThrownBy(() -> new TelemetryLoop(one, clock::get, 1, 0)).hasMessageContaining("capacity");
    assertThat(new TelemetryLoop(one, clock::get, 100, 8).periodNs()).isEqualTo(10_000_000);
  }

  @Test
  void theThreadSamplesUntilClosedAndThenClosesTheSinks() throws Exception {
    AtomicLong clock = new AtomicLong();
    CountingSampler s = new CountingSampler(clock, 0);
    CountDownLatch three = new CountDownLatch(3);
    AtomicBoolean sinkClosed = new AtomicBoolean();
    AtomicReferenceThread samplingThread = new AtomicReferenceThread();
    // each park moves the hand-driven clock one period on, so the thread samples without real waiting
    TelemetryLoop loop = new TelemetryLoop(List.of(s), clock::get, 100, 8, nanos -> clock.addAndGet(nanos));
    loop.addSink(new SampleSink() {
      @Override
      public void accept(StateSample sample) {
        samplingThread.set(Thread.currentThread());
        three.countDown();
      }

      @Override
      public void close() {
        sinkClosed.set(true);
      }
    });
    loop.start();
    assertThat(three.await(30, TimeUnit.SECONDS)).as("three samples taken").isTrue();
    loop.close();
    int after = s.calls.get();

    assertThat(samplingThread.get().getName()).isEqualTo("gitm-telemetry");
    assertThat(samplingThread.get().isDaemon()).isTrue();
    assertThat(samplingThread.get().isAlive()).isFalse();
    assertThat(sinkClosed).isTrue();
    assertThat(s.calls.get()).isEqualTo(after);
    assertThatThrownBy(loop::start).isInstanceOf(IllegalStateException.class);
  }

  private static final class AtomicReferenceThread extends java.util.concurrent.atomic.AtomicReference<Thread> {
  }
}
