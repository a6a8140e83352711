package io.gitm.sim;

import static io.gitm.sim.Fixtures.BIG;
import static io.gitm.sim.Fixtures.SMALL;
import static io.gitm.sim.Fixtures.only;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.device.DeviceMemory;
import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.Kernel;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.TraceRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code time-slicing} fault: another context takes the device in turns with the job, so the job's kernels,
 * memsets and device copies run only in the job's slices, while the fault is active; host copies are not sliced.
 */
class TimeSlicingTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000 * MS;

  /** Position of {@code t} in the slice period that starts at {@code onset}: below {@code job} = the job's slice. */
  private static long phase(long t, long onset, long period) {
    return Math.floorMod(t - onset, period);
  }

  /** Small uploads, memsets and kernels, synchronized every few launches, until {@code untilNs} of simulated time. */
  private static List<TraceRecord> smallWork(String faults, long seed, double jitter, long untilNs) {
    SimDevice d = Fixtures.open(faults, seed, jitter);
    List<TraceRecord> rs = Fixtures.trace(d);
    Kernel k = d.load(Fixtures.MODULE).kernel("fma_loop");
    HostMemory in = d.allocHost(64 << 10, HostMemoryKind.PINNED);
    DeviceMemory m = d.malloc(64 << 10);
    int i = 0;
    while (d.clock().nanos() < untilNs) {
      d.copyAsync(m, 0, in, 0, 64 << 10, d.defaultStream());
      d.memsetAsync(m, 0, 0, 4 << 10, d.defaultStream());
      d.launch(k, SMALL, d.defaultStream(), 1e7);
      if (++i % 4 == 0) {
        d.synchronize();
      }
    }
    d.synchronize();
    d.tracer().stop();
    return rs;
  }

  @Test
  void whileActiveTheJobsKernelsAndMemsetsStartOnlyInItsSlicesAndNotSoBeforeTheOnsetOrAfterTheEnd() {
    long onset = 10 * MS;
    long end = 30 * MS;
    long job = 500_000;
    long period = job + 1_000_000;
    List<TraceRecord> rs = smallWork("time-slicing@10ms:sliceUs=1000:jobSliceUs=500:duration=20ms", 0, 0, 40 * MS);
    List<long[]> starts = new java.util.ArrayList<>();
    only(rs, KernelRecord.class).forEach(k -> starts.add(new long[] {k.startNs(), k.endNs()}));
    only(rs, MemsetRecord.class).forEach(k -> starts.add(new long[] {k.startNs(), k.endNs()}));
    int during = 0;
    int outsideInOtherPhase = 0;
    for (long[] op : starts) {
      if (op[0] >= onset && op[0] < end) {
        during++;
        assertThat(phase(op[0], onset, period)).as("start %d ns while the other context's slices run", op[0])
            .isLessThan(job);
      } else if (phase(op[0], onset, period) >= job) {
        outsideInOtherPhase++;
      }
    }
    assertThat(during).isGreaterThan(100);
    // outside the window the job's work starts whenever it is ready, including where the other's slices would fall
    assertThat(outsideInOtherPhase).isGreaterThan(100);
    // the copy engines are not time-sliced: uploads start in the other context's slices too
    assertThat(only(rs, CopyRecord.class).stream().filter(c -> c.startNs() >= onset && c.startNs() < end)
        .filter(c -> phase(c.startNs(), onset, period) >= job)).isNotEmpty();
  }

  /** The first kernel's record on a device with {@code faults}: a compute-bound kernel of {@code flops}. */
  private static KernelRecord oneKernel(String faults, double flops) {
    SimDevice d = Fixtures.open(faults);
    Kernel k = d.load(Fixtures.MODULE).kernel("fma_loop");
    List<TraceRecord> rs = Fixtures.trace(d);
    d.launch(k, BIG, d.defaultStream(), flops);
    d.synchronize();
    d.tracer().flush();
    return only(rs, KernelRecord.class).getFirst();
  }

  @Test
  void aKernelRunningAtTheEndOfTheJobsSliceIsPausedForTheOthersSlice() {
    // about 1.2 ms of compute, started early in a 1 ms job slice: it crosses one boundary
    KernelRecord plain = oneKernel("", 6e10);
    KernelRecord sliced = oneKernel("time-slicing:sliceUs=2000:jobSliceUs=1000", 6e10);
    assertThat(plain.startNs()).isLessThan(MS);
    assertThat(plain.endNs()).isBetween(MS + 1, 2 * MS);
    assertThat(sliced.startNs()).isEqualTo(plain.startNs());
    assertThat(sliced.durationNs()).isEqualTo(plain.durationNs() + 2 * MS);
    // the same kernel inside one slice is not paused
    KernelRecord inside = oneKernel("time-slicing:sliceUs=2000:jobSliceUs=3000", 6e10);
    assertThat(inside.durationNs()).isEqualTo(plain.durationNs());
  }

  @Test
  void aKernelLongerThanManySlicesIsPausedOnceForEachOfTheOthersSlicesItSpans() {
    // about 20 ms of compute in 1 ms job slices: paused for about 20 of the other's 0.5 ms slices
    KernelRecord plain = oneKernel("", 1e12);
    KernelRecord sliced = oneKernel("time-slicing:sliceUs=500:jobSliceUs=1000", 1e12);
    long crossings = (plain.startNs() + plain.durationNs() - 1) / MS;
    assertThat(crossings).isGreaterThan(10);
    assertThat(sliced.durationNs()).isEqualTo(plain.durationNs() + crossings * MS / 2);
  }

  @Test
  void aFaultOfZeroDurationNeverSlices() {
    assertThat(oneKernel("time-slicing:sliceUs=2000:jobSliceUs=1000:duration=0s", 6e10).durationNs())
        .isEqualTo(oneKernel("", 6e10).durationNs());
  }

  @Test
  void workStartingInTheOthersSliceRunsFromTheJobsNextAndPausesAtItsEnd() {
    TimeSlices t = new TimeSlices(0, Long.MAX_VALUE, 1_000, 2_000);
    assertThat(t.runnableFrom(1_500)).isEqualTo(3_000);
    assertThat(t.endOf(1_500, 500)).isEqualTo(3_500);
    // 1500 of work from 3000: 1000 in this slice, the other's 2000, then 500
    assertThat(t.endOf(3_000, 1_500)).isEqualTo(6_500);
    // a window that ends inside the other's slice hands the device back at its end
    TimeSlices ending = new TimeSlices(0, 2_000, 1_000, 2_000);
    assertThat(ending.runnableFrom(1_500)).isEqualTo(2_000);
    assertThat(ending.endOf(500, 1_000)).isEqualTo(2_500);
  }

  @Test
  void theSamplesShowTheOtherContextOnlyWhileTheFaultIsActive() {
    FaultSignatureTest.Run r = FaultSignatureTest.computeLoad("time-slicing@1s:sliceUs=1500:jobSliceUs=500:duration=1s",
        3);
    List<StateSample> before = r.samplesBetween(0, S);
    List<StateSample> during = r.samplesBetween(S, 2 * S);
    List<StateSample> after = r.samplesBetween(2 * S, 3 * S);
    assertThat(before).isNotEmpty();
    assertThat(during).isNotEmpty();
    assertThat(after).isNotEmpty();
    for (StateSample s : before) {
      assertThat(s.get(StateField.OTHER_PROCESSES)).as("before the onset at %d", s.timeNs()).isZero();
      assertThat(s.get(StateField.OTHER_SM_UTILIZATION)).isZero();
    }
    for (StateSample s : during) {
      assertThat(s.get(StateField.OTHER_PROCESSES)).as("other context at %d", s.timeNs()).isEqualTo(1);
      // 1.5 ms of every 2 ms
      assertThat(s.get(StateField.OTHER_SM_UTILIZATION)).isEqualTo(75);
    }
    for (StateSample s : after) {
      assertThat(s.get(StateField.OTHER_PROCESSES)).as("after the other context left, at %d", s.timeNs()).isZero();
      assertThat(s.get(StateField.OTHER_SM_UTILIZATION)).isZero();
    }
  }

  @Test
  void theSameSeedGivesTheSameRecords() {
    String spec = "time-slicing@2ms:sliceUs=700:jobSliceUs=300";
    assertThat(smallWork(spec, 5, 0.02, 8 * MS)).isEqualTo(smallWork(spec, 5, 0.02, 8 * MS));
  }

  @Test
  void badParametersFailWithOneLine() {
    assertThatThrownBy(() -> FaultParser.parse("time-slicing:sliceUs=0", 132, 1980, 700))
        .hasMessage("fault 'time-slicing' parameter 'sliceUs' = 0.0 is outside 1.0..1000000.0");
    assertThatThrownBy(() -> FaultParser.parse("time-slicing:jobSliceUs=2e6", 132, 1980, 700))
        .hasMessage("fault 'time-slicing' parameter 'jobSliceUs' = 2000000.0 is outside 1.0..1000000.0");
    assertThatThrownBy(() -> FaultParser.parse("time-slicing:slice=3", 132, 1980, 700))
        .hasMessage("fault 'time-slicing' has no parameter 'slice': it takes sliceUs, jobSliceUs, duration");
    assertThatThrownBy(() -> FaultParser.parse("time-slicing:sliceUs=-1", 132, 1980, 700))
        .hasMessageContaining("is not a non-negative number");
    assertThatThrownBy(() -> FaultParser.parse("time-slicing,time-slicing@1s", 132, 1980, 700))
        .hasMessageContaining("has 'time-slicing' twice").hasMessageNotContaining("\n");
  }
}
