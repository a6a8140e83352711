package io.gitm.tracer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceRoundTripTest {
  @TempDir
  Path dir;

  @Test
  void everyRecordTypeRoundTripsWithTheMeta() throws Exception {
    Path f = dir.resolve("t.gtrace");
    List<TraceRecord> records = Samples.everyType();
    Samples.write(f, Samples.META, records);

    try (TraceReader r = TraceReader.open(f)) {
      assertThat(r.meta()).isEqualTo(Samples.META);
      List<TraceRecord> back = new ArrayList<>();
      assertThat(r.read(back::add)).isEqualTo(records.size());
      assertThat(back).containsExactlyElementsOf(records);
    }
  }

  @Test
  void stateFieldsThatWereNotReadStayNaNAndReadOnesKeepTheirExactValue() throws Exception {
    Path f = dir.resolve("s.gtrace");
    double[] v = new double[StateField.values().length];
    java.util.Arrays.fill(v, Double.NaN);
    v[StateField.POWER.ordinal()] = 151.123456789;
    v[StateField.MEMORY_USED.ordinal()] = 8.0e10;
    v[StateField.TEMPERATURE.ordinal()] = -0.0;
    v[StateField.PCIE_RX.ordinal()] = Double.POSITIVE_INFINITY;
    StateSample s = new StateSample(3, 77, v);
    Samples.write(f, Samples.META, List.of(s));

    StateSample back = (StateSample) Samples.readAll(f).getFirst();
    assertThat(back).isEqualTo(s);
    assertThat(back.present()).containsOnlyKeys(StateField.POWER, StateField.MEMORY_USED, StateField.TEMPERATURE,
        StateField.PCIE_RX);
    assertThat(back.get(StateField.SM_CLOCK)).isNaN();
    assertThat(Double.doubleToRawLongBits(back.get(StateField.TEMPERATURE)))
        .isEqualTo(Double.doubleToRawLongBits(-0.0));
  }

  @Test
  void hugeAndNonAsciiNamesRoundTripEvenWhenLargerThanABlock() throws Exception {
    Path f = dir.resolve("h.gtrace");
    String huge = "void kernel<" + "very::long::template::Argument<int, float>, ".repeat(30_000) + ">()";
    assertThat(huge.length()).isGreaterThan(10 * TraceFormat.BLOCK_TARGET_BYTES);
    List<TraceRecord> records = List.of(
        Samples.kernel(huge, 0, 1, 1, 0, 10),
        new MarkerRecord("Schritt ✓ 步骤 🚀", 1, 0, 5),
        Samples.kernel(huge, 0, 1, 2, 10, 20),
        new ApiCallRecord(ApiKind.LAUNCH, "cudaLaunchKernel", 1, 2, 9, 10));
    Samples.write(f, Samples.META, records);

    assertThat(Samples.readAll(f)).containsExactlyElementsOf(records);
  }

  @Test
  void manyBlocksRoundTripInOrderThroughTheVisitorAndTheIterator() throws Exception {
    Path f = dir.resolve("m.gtrace");
    List<TraceRecord> records = Samples.kernels(20_000);
    Samples.write(f, Samples.META, 512, records);

    try (TraceReader r = TraceReader.open(f)) {
      List<TraceRecord> back = new ArrayList<>();
      r.read(back::add);
      assertThat(back).containsExactlyElementsOf(records);
      assertThat(r.blocks()).isGreaterThan(1000);
    }
    try (TraceReader r = TraceReader.open(f)) {
      List<TraceRecord> back = new ArrayList<>();
      r.forEach(back::add);
      assertThat(back).containsExactlyElementsOf(records);
    }
  }

  @Test
  void writerCutsBlocksNearTheTargetSize() throws Exception {
    Path f = dir.resolve("b.gtrace");
    Samples.write(f, Samples.META, Samples.kernels(100_000));
    byte[] bytes = Files.readAllBytes(f);
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    int pos = TraceFormat.HEADER_BYTES + b.getInt(12);
    List<Integer> lengths = new ArrayList<>();
    while (true) {
      int len = b.getInt(pos);
      if (len == 0) {
        break;
      }
      lengths.add(len);
      pos += TraceFormat.BLOCK_HEADER_BYTES + len;
    }
    assertThat(pos + TraceFormat.BLOCK_HEADER_BYTES).isEqualTo(bytes.length);
    assertThat(lengths.subList(0, lengths.size() - 1))
        .allSatisfy(len -> assertThat(len).isBetween(TraceFormat.BLOCK_TARGET_BYTES - 200,
            TraceFormat.BLOCK_TARGET_BYTES));
  }

  @Test
  void equalNamesAreStoredOnceAndReadBackAsOneString() throws Exception {
    Path f = dir.resolve("n.gtrace");
    List<TraceRecord> records = Collections.nCopies(1000, Samples.kernel("same_kernel_name_" + "x".repeat(200), 0, 0, 1,
        0, 1));
    Samples.write(f, Samples.META, records);
    assertThat(Files.size(f)).isLessThan(1000L * 100);
    List<TraceRecord> back = Samples.readAll(f);
    assertThat(((KernelRecord) back.get(999)).name()).isSameAs(((KernelRecord) back.get(0)).name());
  }

  @Test
  void anEmptyTraceHoldsItsMetaAndNoRecords() throws Exception {
    Path f = dir.resolve("e.gtrace");
    TraceMeta meta = new TraceMeta("", ClockDomain.UNIX_EPOCH, List.of(), Map.of());
    Samples.write(f, meta, List.of());
    try (TraceReader r = TraceReader.open(f)) {
      assertThat(r.meta()).isEqualTo(meta);
      assertThat(r.iterator().hasNext()).isFalse();
    }
  }

  @Test
  void producersOnSeveralThreadsShareOneWriter() throws Exception {
    Path f = dir.resolve("c.gtrace");
    int threads = 4;
    int each = 5_000;
    CountDownLatch go = new CountDownLatch(1);
    try (TraceWriter w = TraceWriter.create(f, Samples.META, 1024)) {
      List<Thread> ts = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        ts.add(Thread.ofPlatform().start(() -> {
          try {
            go.await();
            for (int i = 0; i < each; i++) {
              w.accept(new ApiCallRecord(ApiKind.LAUNCH, "call" + (i % 10), id, i, i, i + 1));
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }));
      }
      go.countDown();
      for (Thread t : ts) {
        t.join();
      }
    }
    List<TraceRecord> back = Samples.readAll(f);
    assertThat(back).hasSize(threads * each);
    for (int t = 0; t < threads; t++) {
      long id = t;
      List<Long> corr = back.stream().map(r -> (ApiCallRecord) r).filter(a -> a.threadId() == id)
          .map(ApiCallRecord::correlationId).toList();
      assertThat(corr).hasSize(each).isSorted();
    }
  }

  @Test
  void fileLayoutIsExactlyTheOneTheSpecDescribes() throws Exception {
    Path f = dir.resolve("layout.gtrace");
    KernelRecord k = Samples.kernel("k", 1, 2, 3, 4, 5);
    Samples.write(f, Samples.META, List.of(k));

    byte[] meta = TraceFormat.metaToJson(Samples.META);
    assertThat(new String(meta, StandardCharsets.UTF_8)).isEqualTo("{\"source\":\"test\",\"clock\":\"HOST_MONOTONIC\","
        + "\"devices\":[{\"index\":0,\"name\":\"NVIDIA H200\",\"uuid\":\"GPU-1234\",\"kind\":\"REAL\"}],"
        + "\"attributes\":{\"driver\":\"580.159.04\"}}");
    ByteBuffer payload = ByteBuffer.allocate(1 + 4 + 4 + 1 + 1 + 72).order(ByteOrder.LITTLE_ENDIAN);
    payload.put((byte) 1).putInt(1).putInt(1).put((byte) 'k');
    payload.put((byte) 2).putInt(1).putInt(1).putInt(2).putLong(3).putLong(4).putLong(5)
        .putInt(128).putInt(2).putInt(1).putInt(256).putInt(1).putInt(1).putInt(32).putInt(1024).putInt(4096);
    assertThat(payload.remaining()).isZero();
    CRC32 crc = new CRC32();
    crc.update(payload.array());
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    expected.write("GITMTRC1".getBytes(StandardCharsets.US_ASCII));
    expected.write(le(3));
    expected.write(le(meta.length));
    expected.write(meta);
    expected.write(le(payload.capacity()));
    expected.write(le(2));
    expected.write(le((int) crc.getValue()));
    expected.write(payload.array());
    expected.write(le(0));
    expected.write(le(0));
    expected.write(le(0));

    assertThat(Files.readAllBytes(f)).isEqualTo(expected.toByteArray());
  }

  /**
   * {@code tracer/golden-v3.gtrace} holds {@link Samples#everyType()} with {@link Samples#META} in one block: a fixed
   * reference for other writers of the format (the C injection library). Set {@code -Dgitm.regenerateGolden=true}
   * to rewrite it after a deliberate format change.
   */
  @Test
  void theGoldenFileOfEveryRecordTypeReadsBackAndIsReproducedByteForByte() throws Exception {
    Path f = dir.resolve("golden.gtrace");
    Samples.write(f, Samples.META, Samples.everyType());
    if (Boolean.getBoolean("gitm.regenerateGolden")) {
      Files.copy(f, Path.of("src/test/resources/tracer/golden-v3.gtrace"),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    byte[] golden;
    try (var in = TraceRoundTripTest.class.getResourceAsStream("/tracer/golden-v3.gtrace")) {
      assertThat(in).as("test resource tracer/golden-v3.gtrace").isNotNull();
      golden = in.readAllBytes();
    }
    assertThat(Files.readAllBytes(f)).isEqualTo(golden);
    Path copy = dir.resolve("copy.gtrace");
    Files.write(copy, golden);
    try (TraceReader r = TraceReader.open(copy)) {
      assertThat(r.meta()).isEqualTo(Samples.META);
      List<TraceRecord> back = new ArrayList<>();
      r.read(back::add);
      assertThat(back).containsExactlyElementsOf(Samples.everyType());
      assertThat(r.blocks()).isEqualTo(1);
    }
  }

  /**
   * The committed traces written before state samples had the other-process fields (the golden files, the H200
   * CUPTI, declared-work and torch-injection traces) still read whole: their samples have neither field; a sample
   * with the two fields round-trips them at their ordinals (22 and 23, after the earlier 22 fields).
   */
  @Test
  void tracesWrittenBeforeTheOtherProcessFieldsStillRead() throws Exception {
    int samples = 0;
    for (String name : List.of("golden-v1.gtrace", "golden-v2.gtrace", "real/hft-lob-h200-cupti.gtrace",
        "real/hft-lob-h200-declared.gtrace", "real/torch-injection-h200.gtrace")) {
      Path copy = dir.resolve(name.replace('/', '-'));
      try (var in = TraceRoundTripTest.class.getResourceAsStream("/tracer/" + name)) {
        assertThat(in).as("test resource tracer/" + name).isNotNull();
        Files.write(copy, in.readAllBytes());
      }
      List<TraceRecord> back = Samples.readAll(copy);
      assertThat(back).as(name).isNotEmpty();
      for (TraceRecord r : back) {
        if (r instanceof StateSample x) {
          samples++;
          assertThat(x.has(StateField.OTHER_PROCESSES) || x.has(StateField.OTHER_SM_UTILIZATION))
              .as(name + " at " + x.timeNs()).isFalse();
        }
      }
    }
    assertThat(samples).as("state samples in the old traces").isPositive();
    assertThat(StateField.OTHER_PROCESSES.ordinal()).isEqualTo(22);
    assertThat(StateField.OTHER_SM_UTILIZATION.ordinal()).isEqualTo(23);
    Path f = dir.resolve("neighbour.gtrace");
    StateSample s = StateSample.of(0, 5, Map.of(StateField.SM_CLOCK, 1980.0, StateField.OTHER_PROCESSES, 2.0,
        StateField.OTHER_SM_UTILIZATION, 37.0));
    Samples.write(f, Samples.META, List.of(s));
    assertThat(Samples.readAll(f)).containsExactly(s);
  }

  /** A version-1 file (written before work and traffic records existed) still reads back whole. */
  @Test
  void aVersion1FileStillReads() throws Exception {
    Path copy = dir.resolve("v1.gtrace");
    try (var in = TraceRoundTripTest.class.getResourceAsStream("/tracer/golden-v1.gtrace")) {
      Files.write(copy, in.readAllBytes());
    }
    try (TraceReader r = TraceReader.open(copy)) {
      List<TraceRecord> back = new ArrayList<>();
      r.read(back::add);
      assertThat(back).containsExactlyElementsOf(Samples.everyTypeOfVersion1());
    }
  }

  /** A version-2 file (written before host operation and collective records existed) still reads back whole. */
  @Test
  void aVersion2FileStillReads() throws Exception {
    Path copy = dir.resolve("v2.gtrace");
    try (var in = TraceRoundTripTest.class.getResourceAsStream("/tracer/golden-v2.gtrace")) {
      Files.write(copy, in.readAllBytes());
    }
    try (TraceReader r = TraceReader.open(copy)) {
      List<TraceRecord> back = new ArrayList<>();
      r.read(back::add);
      assertThat(back).containsExactlyElementsOf(Samples.everyTypeOfVersion2());
    }
  }

  @Test
  void readingTwiceFromOneReaderIsRefused() throws Exception {
    Path f = dir.resolve("twice.gtrace");
    Samples.write(f, Samples.META, Samples.everyType());
    try (TraceReader r = TraceReader.open(f)) {
      r.read(x -> {});
      assertThatThrownBy(() -> r.read(x -> {})).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("streams its records once");
    }
  }

  private static byte[] le(int v) {
    return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array();
  }
}
