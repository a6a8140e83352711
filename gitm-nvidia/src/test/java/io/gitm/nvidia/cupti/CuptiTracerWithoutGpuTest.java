package io.gitm.nvidia.cupti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.api.Ticker;
import io.gitm.device.UnsupportedFeatureException;
import io.gitm.nvidia.ffm.NativeLibraries;
import io.gitm.trace.ClockDomain;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Where there is no NVIDIA driver, the tracer says so (with a fix) instead of claiming it can trace, and start()
 * throws a typed exception that leaves no tracer holding the process's CUPTI.
 */
class CuptiTracerWithoutGpuTest {
  @Test
  void withoutADriverTracingIsUnavailableAndStartThrowsTyped() {
    Assumptions.assumeTrue(NativeLibraries.tryFind("cuda").isEmpty(),
        "an NVIDIA driver is present: this test is about machines without one");
    CuptiTracer t = new CuptiTracer(List.of(), Map.of(), Ticker.system());
    var probe = t.availability();
    assertThat(probe.usable()).isFalse();
    assertThat(probe.reason()).isNotBlank();
    assertThat(probe.fix()).isNotBlank();
    assertThatThrownBy(() -> t.start(r -> { })).isInstanceOf(UnsupportedFeatureException.class);
    // nothing is left holding CUPTI: a second start fails the same way, not with "another tracer is tracing"
    assertThatThrownBy(() -> t.start(r -> { })).isInstanceOf(UnsupportedFeatureException.class);
    t.stop();
    t.flush();
  }

  @Test
  void metaIsOnTheHostMonotonicClockAndSaysAlignmentIsPendingBeforeStart() {
    CuptiTracer t = new CuptiTracer(List.of(), Map.of("k", "v"), Ticker.system());
    var meta = t.meta();
    assertThat(meta.source()).isEqualTo("cupti");
    assertThat(meta.clock()).isEqualTo(ClockDomain.HOST_MONOTONIC);
    assertThat(meta.attributes()).containsEntry("k", "v").containsKey("clock.alignment");
    assertThat(meta.attributes().get("clock.alignment")).contains("not measured");
  }

  @Test
  void cuptiErrorCodesCarryTheirNamesAndPermissionClass() {
    CuptiException e = new CuptiException("cuptiActivityEnable", 35, "");
    assertThat(e.codeName()).isEqualTo("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
    assertThat(e.profilingNotPermitted()).isTrue();
    assertThat(e.getMessage()).contains("cuptiActivityEnable").contains("(35)");
    assertThat(new CuptiException("f", 999, "").codeName()).isEqualTo("CUPTI_ERROR_UNKNOWN");
    assertThat(new CuptiException("f", 1, "").profilingNotPermitted()).isFalse();
    assertThat(new CuptiException("f", 4242, "").codeName()).isEqualTo("CUPTI_ERROR_4242");
  }
}
