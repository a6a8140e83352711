package io.gitm.nvidia.cupti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The raw-activity fixture format keeps each record's bytes, its kernel name apart, and the callback names. */
class RawActivityFileTest {
  @Test
  void capturedRecordsSurviveEncodingWithKernelNamePointersZeroed() {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment k = a.allocate(CuptiLayout.MAX_SIZE, 8);
      k.set(ValueLayout.JAVA_INT, 0, CuptiLayout.KIND_CONCURRENT_KERNEL);
      k.set(ValueLayout.JAVA_LONG, CuptiLayout.Kernel.START, 11);
      k.set(ValueLayout.ADDRESS, CuptiLayout.Kernel.NAME, a.allocateFrom("gitm_axpb"));
      MemorySegment api = a.allocate(CuptiLayout.MAX_SIZE, 8);
      api.set(ValueLayout.JAVA_INT, 0, CuptiLayout.KIND_DRIVER);
      api.set(ValueLayout.JAVA_INT, CuptiLayout.Api.CBID, 307);
      MemorySegment other = a.allocate(CuptiLayout.MAX_SIZE, 8);
      other.set(ValueLayout.JAVA_INT, 0, 11);
      RawActivityFile.Raw rk = RawActivityFile.capture(k);
      RawActivityFile.Raw ra = RawActivityFile.capture(api);
      assertThat(RawActivityFile.capture(other)).isNull();
      assertThat(rk.bytes()).hasSize((int) CuptiLayout.Kernel.SIZE);
      assertThat(ra.bytes()).hasSize((int) CuptiLayout.Api.SIZE);
      RawActivityFile f = new RawActivityFile(-5, List.of(rk, ra), Map.of((1L << 32) | 307, "cuLaunchKernel"));
      RawActivityFile back = RawActivityFile.decode(f.encode());
      assertThat(back.clockOffsetNs).isEqualTo(-5);
      assertThat(back.callbackNames).containsExactly(Map.entry((1L << 32) | 307, "cuLaunchKernel"));
      assertThat(back.records).hasSize(2);
      assertThat(back.records.getFirst().name()).isEqualTo("gitm_axpb");
      MemorySegment bytes = MemorySegment.ofArray(back.records.getFirst().bytes());
      assertThat(bytes.get(ValueLayout.JAVA_LONG_UNALIGNED, CuptiLayout.Kernel.NAME)).isZero();
      assertThat(bytes.get(ValueLayout.JAVA_LONG_UNALIGNED, CuptiLayout.Kernel.START)).isEqualTo(11);
      assertThat(back.records.get(1).bytes()).isEqualTo(ra.bytes());
    }
  }

  @Test
  void otherFilesAreRefusedByMagic() {
    assertThatThrownBy(() -> RawActivityFile.decode("GITMTRC1xxxxxxxxxxxxxxxx".getBytes()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("magic");
  }
}
