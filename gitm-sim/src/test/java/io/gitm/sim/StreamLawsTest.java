package io.gitm.sim;

import static io.gitm.sim.Fixtures.BIG;
import static io.gitm.sim.Fixtures.SMALL;
import static io.gitm.sim.Fixtures.only;
import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.device.Event;
import io.gitm.device.Kernel;
import io.gitm.device.Stream;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StreamLawsTest {

  static int maxConcurrency(List<KernelRecord> ks) {
    int best = 0;
    for (KernelRecord a : ks) {
      int n = 0;
      for (KernelRecord b : ks) {
        if (b.startNs() <= a.startNs() && b.endNs() > a.startNs()) {
          n++;
        }
      }
      best = Math.max(best, n);
    }
    return best;
  }

  private static List<KernelRecord> onStreams(SimDevice d, int streams, io.gitm.device.LaunchConfig c, Object arg,
      String kernel) {
    Kernel k = d.load(Fixtures.MODULE).kernel(kernel);
    List<Stream> ss = new ArrayList<>();
    for (int i = 0; i < streams; i++) {
      ss.add(d.createStream(0));
    }
    List<TraceRecord> rs = Fixtures.trace(d);
    for (Stream s : ss) {
      d.launch(k, c, s, arg);
    }
    d.synchronize();
    d.tracer().flush();
    return only(rs, KernelRecord.class);
  }

  @Test
  void streamsOverlapUntilMultiprocessorsRunOut() {
    // 10 blocks hold 10 multiprocessors: 13 such kernels fit on 132, the rest wait
    List<KernelRecord> ks = onStreams(Fixtures.open(""), 20, SMALL, 2e9, "fma_loop");
    assertThat(maxConcurrency(ks)).isEqualTo(13);
    // kernels that fill the device run one at a time
    List<KernelRecord> big = onStreams(Fixtures.open(""), 4, BIG, 1e11, "fma_loop");
    assertThat(maxConcurrency(big)).isEqualTo(1);
  }

  @Test
  void aKernelOnAnotherStreamWaitsForMultiprocessorsHeldByEarlierWork() {
    SimDevice d = Fixtures.open("");
    Kernel k = d.load(Fixtures.MODULE).kernel("fma_loop");
    Stream a = d.createStream(0);
    Stream b = d.createStream(0);
    List<TraceRecord> rs = Fixtures.trace(d);
    d.launch(k, BIG, a, 1e11); // holds every multiprocessor
    d.launch(k, SMALL, a, 1e9); // queued behind it on the same stream
    d.launch(k, SMALL, b, 1e9); // ready at once, but no multiprocessor is free until the first ends
    d.synchronize();
    d.tracer().flush();
    List<KernelRecord> ks = only(rs, KernelRecord.class);
    assertThat(ks.get(2).startNs()).isGreaterThanOrEqualTo(ks.get(0).endNs());
    assertThat(ks.get(2).startNs()).isLessThan(ks.get(1).endNs()); // and then overlaps the second
  }

  @Test
  void workOnOneStreamRunsInOrder() {
    SimDevice d = Fixtures.open("");
    Kernel k = d.load(Fixtures.MODULE).kernel("fma_loop");
    List<TraceRecord> rs = Fixtures.trace(d);
    for (int i = 0; i < 5; i++) {
      d.launch(k, SMALL, d.defaultStream(), 1e9);
    }
    d.synchronize();
    d.tracer().flush();
    assertThat(maxConcurrency(only(rs, KernelRecord.class))).isEqualTo(1);
  }

  @Test
  void streamWaitOnAnEventOrdersWorkAcrossStreams() {
    for (boolean wait : new boolean[] {false, true}) {
      SimDevice d = Fixtures.open("");
      Kernel k = d.load(Fixtures.MODULE).kernel("fma_loop");
      Stream a = d.createStream(0);
      Stream b = d.createStream(0);
      Event e = d.createEvent(false);
      List<TraceRecord> rs = Fixtures.trace(d);
      d.launch(k, SMALL, a, 1e10);
      e.record(a);
      if (wait) {
        b.waitEvent(e);
      }
      d.launch(k, SMALL, b, 1e9);
      d.synchronize();
      d.tracer().flush();
      List<KernelRecord> ks = only(rs, KernelRecord.class);
      if (wait) {
        assertThat(ks.get(1).startNs()).isGreaterThanOrEqualTo(ks.get(0).endNs());
      } else {
        assertThat(ks.get(1).startNs()).isLessThan(ks.get(0).endNs());
      }
    }
  }

  @Test
  void eventSynchronizeWaitsForTheRecordedWorkOnlyAndTimesIt() {
    SimDevice d = Fixtures.open("");
    Kernel k = d.load(Fixtures.MODULE).kernel("fma_loop");
    Stream a = d.createStream(0);
    Event start = d.createEvent(true);
    Event end = d.createEvent(true);
    List<TraceRecord> rs = Fixtures.trace(d);
    start.record(a);
    d.launch(k, BIG, a, 1e11);
    end.record(a);
    d.launch(k, BIG, a, 1e11);
    end.synchronize();
    d.tracer().flush();
    List<KernelRecord> ks = only(rs, KernelRecord.class);
    assertThat(d.clock().nanos()).isGreaterThanOrEqualTo(ks.get(0).endNs()).isLessThan(ks.get(1).endNs());
    assertThat((double) end.elapsedMillisSince(start)).isGreaterThanOrEqualTo(ks.get(0).durationNs() / 1e6 * 0.999);
  }

  @Test
  void synchronizeWaitsForEveryStream() {
    SimDevice d = Fixtures.open("");
    List<KernelRecord> ks = onStreams(d, 3, BIG, 1e11, "fma_loop");
    long last = ks.stream().mapToLong(KernelRecord::endNs).max().orElseThrow();
    assertThat(d.clock().nanos()).isGreaterThanOrEqualTo(last);
  }
}
