package io.gitm.nvidia.cupti;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.TraceRecord;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Real CUPTI activity records recorded on the H200 by {@link CuptiFixtureRecorder} (CUDA 13.0, driver 580) decode
 * into the records of the work that produced them: the launches, both host memory kinds, the memset.
 */
class RecordedCuptiFixtureTest {
  static final String FIXTURE = "/cupti/h200-driver580-inprocess.cuptiraw";
  RawActivityFile fixture;

  @BeforeEach
  void load() throws IOException {
    try (InputStream in = getClass().getResourceAsStream(FIXTURE)) {
      Assumptions.assumeTrue(in != null, "fixture " + FIXTURE + " not recorded yet: run scripts/gpu.d/20-cupti.sh "
          + "on the GPU machine and commit its $OUT/cupti/fixtures/ files under src/test/resources/cupti/");
      fixture = RawActivityFile.decode(in.readAllBytes());
    }
  }

  List<TraceRecord> decodeAll(ActivityDecoder decoder, List<String> names) {
    List<TraceRecord> out = new ArrayList<>();
    try (Arena a = Arena.ofConfined()) {
      for (RawActivityFile.Raw r : fixture.records) {
        MemorySegment seg = a.allocate(CuptiLayout.MAX_SIZE, 8);
        MemorySegment.copy(MemorySegment.ofArray(r.bytes()), 0, seg, 0, r.bytes().length);
        if (!r.name().isEmpty()) {
          seg.set(ValueLayout.ADDRESS_UNALIGNED, CuptiLayout.Kernel.NAME, a.allocateFrom(r.name()));
        }
        TraceRecord t = decoder.decode(seg);
        if (t != null) {
          out.add(t);
          names.add(r.name());
        }
      }
    }
    return out;
  }

  @Test
  void recordedRecordsDecodeIntoTheWorkThatProducedThem() {
    ActivityDecoder decoder = new ActivityDecoder((domain, cbid) -> fixture.callbackNames.get(
        ((long) domain << 32) | Integer.toUnsignedLong(cbid)), fixture.clockOffsetNs);
    List<TraceRecord> records = decodeAll(decoder, new ArrayList<>());
    assertThat(records.size() + decoder.invalid()).isEqualTo(fixture.records.size());
    List<KernelRecord> kernels = records.stream().filter(r -> r instanceof KernelRecord).map(r -> (KernelRecord) r)
        .toList();
    assertThat(kernels).hasSize(CuptiFixtureRecorder.LAUNCHES)
        .allSatisfy(k -> assertThat(k.name()).isEqualTo("gitm_axpb"));
    assertThat(kernels).extracting(k -> k.grid().x()).containsOnly(CuptiFixtureRecorder.N / 256);
    assertThat(records).filteredOn(r -> r instanceof CopyRecord c && c.srcKind() == MemoryKind.PAGEABLE).hasSize(1);
    assertThat(records).filteredOn(r -> r instanceof CopyRecord c && c.srcKind() == MemoryKind.PINNED).hasSize(1);
    assertThat(records).filteredOn(r -> r instanceof CopyRecord c && c.dstKind() == MemoryKind.PINNED).hasSize(1);
    assertThat(records).filteredOn(r -> r instanceof MemsetRecord).hasSize(1);
    assertThat(records).filteredOn(r -> r instanceof ApiCallRecord a && a.kind() == ApiKind.LAUNCH)
        .hasSize(CuptiFixtureRecorder.LAUNCHES);
    assertThat(records).allSatisfy(r -> assertThat(r.endNs()).isGreaterThanOrEqualTo(r.startNs()));
  }
}
