package io.gitm.nvidia.cupti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.device.UnsupportedFeatureException;
import io.gitm.nvidia.ffm.NativeLibraries;
import io.gitm.nvidia.ffm.NativeLibrary;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The tracer's CUPTI is the library {@code gitm doctor} reports: both come from one search, so where one finds
 * CUPTI the other loads that very file, and where one does not the other says it is missing.
 */
class CuptiLibraryTest {
  @Test
  void theTracerLoadsCuptiFromWhereTheSharedSearchFindsIt() {
    Optional<NativeLibrary> found = NativeLibraries.tryFind("cupti");
    if (found.isPresent()) {
      assertThat(Cupti.instance().library).isSameAs(found.get());
      assertThat(found.get().soname()).isEqualTo("libcupti.so.13");
    } else {
      assertThatThrownBy(Cupti::instance).isInstanceOf(UnsupportedFeatureException.class)
          .hasMessageContaining("libcupti.so.13");
    }
  }

  @Test
  void whereCuptiLoadsTheTracersProbeNamesItsFile() {
    Optional<NativeLibrary> found = NativeLibraries.tryFind("cupti");
    var probe = CuptiTracer.create().availability();
    if (found.isEmpty()) {
      assertThat(probe.usable()).isFalse();
      assertThat(probe.reason()).startsWith("CUPTI unavailable");
    } else if (probe.usable()) {
      assertThat(probe.reason()).contains(found.get().origin());
    }
  }
}
