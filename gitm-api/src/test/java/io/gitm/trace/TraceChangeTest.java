package io.gitm.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.trace.TraceChange.DeviceFaults;
import io.gitm.trace.TraceChange.GraphLaunches;
import io.gitm.trace.TraceChange.HostGapScale;
import io.gitm.trace.TraceChange.KernelPrecision;
import io.gitm.trace.TraceChange.PinnedCopies;
import io.gitm.trace.TraceChange.PoolAllocations;
import org.junit.jupiter.api.Test;

class TraceChangeTest {
  @Test
  void theSameTransformsMakeEqualChangesWhateverTheirOrder() {
    TraceChange a = TraceChange.of(new PinnedCopies(), new GraphLaunches(), new HostGapScale(0.5));
    TraceChange b = TraceChange.none().with(new HostGapScale(0.5)).with(new GraphLaunches()).with(new PinnedCopies());
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a.with(new PinnedCopies())).as("a transform held twice is held once").isEqualTo(a);
  }

  @Test
  void aLaterTransformOfTheSameSlotReplacesTheEarlierOne() {
    TraceChange tf32 = TraceChange.of(new KernelPrecision(Precision.FP32, Precision.TF32));
    assertThat(tf32.with(new KernelPrecision(Precision.FP32, Precision.BF16)).transforms())
        .containsExactly(new KernelPrecision(Precision.FP32, Precision.BF16));
    assertThat(tf32.with(new KernelPrecision(Precision.INT32, Precision.FP32)).transforms()).hasSize(2);
    assertThat(TraceChange.of(new HostGapScale(0.5)).and(TraceChange.of(new HostGapScale(0.25))))
        .isEqualTo(TraceChange.of(new HostGapScale(0.25)));
  }

  @Test
  void transformsThatLeaveTheRunAsRecordedAreNotHeld() {
    assertThat(TraceChange.of(new HostGapScale(1), new DeviceFaults(""), new DeviceFaults(null)))
        .isEqualTo(TraceChange.none());
    assertThat(TraceChange.of(new HostGapScale(0.5)).with(new HostGapScale(1))).isEqualTo(TraceChange.none());
    assertThat(TraceChange.of(new DeviceFaults("clock-drop:mhz=660")).with(new DeviceFaults("")))
        .isEqualTo(TraceChange.none());
  }

  @Test
  void composingKeepsWhatEitherSideChanges() {
    TraceChange kept = TraceChange.of(new PinnedCopies());
    assertThat(kept.and(TraceChange.of(new PoolAllocations())))
        .isEqualTo(TraceChange.of(new PoolAllocations(), new PinnedCopies()));
    assertThat(kept.and(TraceChange.none())).isEqualTo(kept);
  }

  @Test
  void badTransformsAreRefused() {
    assertThatThrownBy(() -> new HostGapScale(-1)).hasMessageContaining("non-negative");
    assertThatThrownBy(() -> new HostGapScale(Double.POSITIVE_INFINITY)).hasMessageContaining("non-negative");
    assertThatThrownBy(() -> new KernelPrecision(null, Precision.TF32)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TraceChange.none().with(null)).isInstanceOf(IllegalArgumentException.class);
  }
}
