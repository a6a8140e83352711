package io.gitm.tracer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.gitm.trace.TraceRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceCorruptionTest {
  @TempDir
  Path dir;

  /** Offsets of each block header in a trace file, and of the end marker last. */
  private static List<Integer> blockOffsets(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    List<Integer> offsets = new ArrayList<>();
    int pos = TraceFormat.HEADER_BYTES + b.getInt(12);
    while (true) {
      offsets.add(pos);
      int len = b.getInt(pos);
      if (len == 0) {
        return offsets;
      }
      pos += TraceFormat.BLOCK_HEADER_BYTES + len;
    }
  }

  @Test
  void truncationAtEveryByteIsReportedWithAnOffsetAndNoRecordOfTheCutBlockIsHandedOut() throws Exception {
    Path whole = dir.resolve("whole.gtrace");
    List<TraceRecord> records = new ArrayList<>(Samples.everyType());
    records.addAll(Samples.kernels(40));
    Samples.write(whole, Samples.META, 256, records);
    byte[] bytes = Files.readAllBytes(whole);
    List<Integer> blocks = blockOffsets(bytes);
    assertThat(blocks.size()).isGreaterThan(4);

    Path cut = dir.resolve("cut.gtrace");
    for (int length = 0; length < bytes.length; length++) {
      Files.write(cut, Arrays.copyOf(bytes, length));
      List<TraceRecord> seen = new ArrayList<>();
      try (TraceReader r = TraceReader.open(cut)) {
        r.read(seen::add);
        fail("a trace cut to " + length + " of " + bytes.length + " bytes was read without error");
      } catch (TraceFormatException e) {
        assertThat(e.getMessage()).contains("at byte offset " + e.offset());
        assertThat(e.offset()).isBetween(0L, (long) length);
      }
      int wholeBlocks = 0;
      for (int i = 0; i + 1 < blocks.size(); i++) {
        if (blocks.get(i + 1) <= length) {
          wholeBlocks = i + 1;
        }
      }
      int before = wholeBlocks;
      assertThat(seen).as("records read from a file cut at %d", length)
          .isEqualTo(records.subList(0, seen.size()));
      assertThat(seen.size()).isLessThanOrEqualTo(recordsInBlocks(whole, before));
    }
  }

  /** Records held by the first {@code n} blocks of a file. */
  private static int recordsInBlocks(Path file, int n) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    List<Integer> offsets = blockOffsets(bytes);
    int strings = 0;
    int total = 0;
    for (int i = 0; i < n; i++) {
      int at = offsets.get(i);
      total += b.getInt(at + 4);
      int len = b.getInt(at);
      int p = at + TraceFormat.BLOCK_HEADER_BYTES;
      int end = p + len;
      while (p < end) {
        int tag = bytes[p];
        if (tag == TraceFormat.TAG_STRING) {
          strings++;
          p += 9 + b.getInt(p + 5);
        } else if (tag == TraceFormat.TAG_STATE) {
          p += 14 + 9 * (bytes[p + 13] & 0xff);
        } else {
          p += 1 + TraceFormat.FIXED_BODY_BYTES[tag];
        }
      }
    }
    return total - strings;
  }

  @Test
  void eachKindOfTruncationNamesWhatIsMissing() throws Exception {
    Path whole = dir.resolve("whole.gtrace");
    Samples.write(whole, Samples.META, 256, Samples.kernels(30));
    byte[] bytes = Files.readAllBytes(whole);
    List<Integer> blocks = blockOffsets(bytes);
    int end = blocks.getLast();

    assertThat(error(Arrays.copyOf(bytes, 0))).hasMessage("not a gitm trace: the file is empty (at byte offset 0)");
    assertThat(error(Arrays.copyOf(bytes, 11))).hasMessage("truncated or corrupt at byte offset 0: the header is cut"
        + " short (the file has 11 bytes)");
    assertThat(error(Arrays.copyOf(bytes, 40))).hasMessageStartingWith("truncated or corrupt at byte offset 12: the"
        + " meta of");
    assertThat(error(Arrays.copyOf(bytes, blocks.get(1) + 5))).hasMessage("truncated or corrupt at byte offset "
        + blocks.get(1) + ": a block header is cut short (the file ends at byte " + (blocks.get(1) + 5) + ")");
    assertThat(error(Arrays.copyOf(bytes, blocks.get(2) + 40))).hasMessageStartingWith(
        "truncated or corrupt at byte offset " + blocks.get(2) + ": a block of ");
    assertThat(error(Arrays.copyOf(bytes, end))).hasMessage("truncated or corrupt at byte offset " + end
        + ": the file ends without the end marker (the writer did not close it)");
  }

  @Test
  void aCorruptBlockFailsItsCrcCheckAndOnlyEarlierBlocksAreHandedOut() throws Exception {
    Path f = dir.resolve("crc.gtrace");
    List<TraceRecord> records = Samples.kernels(50);
    Samples.write(f, Samples.META, 512, records);
    byte[] bytes = Files.readAllBytes(f);
    List<Integer> blocks = blockOffsets(bytes);
    int second = blocks.get(1);
    bytes[second + TraceFormat.BLOCK_HEADER_BYTES + 30] ^= 0x10;
    Files.write(f, bytes);

    List<TraceRecord> seen = new ArrayList<>();
    try (TraceReader r = TraceReader.open(f)) {
      assertThatThrownBy(() -> r.read(seen::add)).isInstanceOf(TraceFormatException.class)
          .hasMessageStartingWith("truncated or corrupt at byte offset " + second + ": block CRC mismatch");
    }
    assertThat(seen).hasSize(recordsInBlocks(f, 1)).isEqualTo(records.subList(0, seen.size()));

    List<TraceRecord> iterated = new ArrayList<>();
    try (TraceReader r = TraceReader.open(f)) {
      Iterator<TraceRecord> it = r.iterator();
      assertThatThrownBy(() -> it.forEachRemaining(iterated::add)).isInstanceOf(UncheckedIOException.class)
          .hasCauseInstanceOf(TraceFormatException.class);
      assertThatThrownBy(it::hasNext).as("a failed reader stays failed").isInstanceOf(UncheckedIOException.class);
    }
    assertThat(iterated).isEqualTo(seen);
  }

  @Test
  void anUnknownTagIsAnErrorNamingTheRecordOffset() throws Exception {
    Raw raw = new Raw();
    int blockAt = raw.size();
    raw.block(2, new byte[] {1, 1, 0, 0, 0, 1, 0, 0, 0, 'k'}, new byte[] {42, 0, 0, 0});
    raw.end();
    assertThat(error(raw.bytes())).hasMessage("truncated or corrupt at byte offset " + (blockAt + 12 + 10)
        + ": unknown record tag 42");
  }

  @Test
  void anUnknownEnumOrdinalIsAnError() throws Exception {
    ByteBuffer copy = ByteBuffer.allocate(1 + TraceFormat.FIXED_BODY_BYTES[3]).order(ByteOrder.LITTLE_ENDIAN);
    copy.put((byte) 3).put((byte) 6).put((byte) 0).put((byte) 0).putLong(8).putInt(0).putInt(0).putLong(0).putLong(0)
        .putLong(1);
    Raw raw = new Raw();
    int blockAt = raw.size();
    raw.block(1, copy.array());
    raw.end();
    assertThat(error(raw.bytes())).hasMessage("truncated or corrupt at byte offset " + (blockAt + 12)
        + ": unknown copy kind ordinal 6");
  }

  @Test
  void anUndefinedStringIdIsAnError() throws Exception {
    ByteBuffer marker = ByteBuffer.allocate(1 + TraceFormat.FIXED_BODY_BYTES[9]).order(ByteOrder.LITTLE_ENDIAN);
    marker.put((byte) 9).putInt(5).putLong(1).putLong(0).putLong(0);
    Raw raw = new Raw();
    int blockAt = raw.size();
    raw.block(1, marker.array());
    raw.end();
    assertThat(error(raw.bytes())).hasMessage("truncated or corrupt at byte offset " + (blockAt + 12)
        + ": string id 5 is not defined");
  }

  @Test
  void aStringDefinedOutOfOrderIsAnError() throws Exception {
    Raw raw = new Raw();
    raw.block(1, new byte[] {1, 2, 0, 0, 0, 1, 0, 0, 0, 'k'});
    raw.end();
    assertThat(error(raw.bytes())).hasMessageContaining("string id 2 defined out of order (expected 1)");
  }

  @Test
  void aRecordCountThatDisagreesWithThePayloadIsAnError() throws Exception {
    Raw raw = new Raw();
    raw.block(3, new byte[] {1, 1, 0, 0, 0, 1, 0, 0, 0, 'k'});
    raw.end();
    assertThat(error(raw.bytes())).hasMessageContaining("the block holds 1 records, its header says 3");
  }

  @Test
  void anIntervalThatEndsBeforeItStartsIsAnError() throws Exception {
    ByteBuffer ov = ByteBuffer.allocate(1 + TraceFormat.FIXED_BODY_BYTES[7]).order(ByteOrder.LITTLE_ENDIAN);
    ov.put((byte) 7).put((byte) 0).putLong(1).putLong(100).putLong(50);
    Raw raw = new Raw();
    raw.block(1, ov.array());
    raw.end();
    assertThat(error(raw.bytes())).hasMessageContaining("invalid record 1: interval ends before it starts");
  }

  @Test
  void aRecordStartingBeforeTheClocksZeroIsAnErrorNamingTheRecord() throws Exception {
    ByteBuffer fine = overhead(10, 20);
    ByteBuffer bad = overhead(Long.MIN_VALUE, 0);
    Raw raw = new Raw();
    raw.block(2, fine.array(), bad.array());
    raw.end();
    TraceFormatException e = error(raw.bytes());
    assertThat(e).hasMessageContaining("record 2 starts at " + Long.MIN_VALUE + " ns, more than 2^62 ns (146 years)"
        + " from its clock's zero");
    assertThat(e.offset()).isGreaterThan(0);
  }

  private static ByteBuffer overhead(long startNs, long endNs) {
    ByteBuffer ov = ByteBuffer.allocate(1 + TraceFormat.FIXED_BODY_BYTES[7]).order(ByteOrder.LITTLE_ENDIAN);
    return ov.put((byte) 7).put((byte) 0).putLong(1).putLong(startNs).putLong(endNs);
  }

  @Test
  void bytesAfterTheEndMarkerAreAnError() throws Exception {
    Raw raw = new Raw();
    raw.end();
    int after = raw.size();
    raw.out.write(7);
    assertThat(error(raw.bytes())).hasMessage("truncated or corrupt at byte offset " + after
        + ": 1 bytes follow the end marker");
  }

  @Test
  void anUnknownVersionIsRefused() throws Exception {
    byte[] bytes = new Raw().endAndGet();
    bytes[8] = 4;
    assertThat(error(bytes))
        .hasMessage("unsupported trace version 4 at byte offset 8 (this gitm reads versions 1 to 3)");
  }

  @Test
  void aHostOperationRecordInAFileOfAnOlderVersionIsAnError() throws Exception {
    Raw raw = new Raw();
    int blockAt = raw.size();
    raw.block(1, new byte[] {12});
    raw.end();
    assertThat(error(raw.bytes())).hasMessage("truncated or corrupt at byte offset " + (blockAt + 12)
        + ": record tag 12 in a file of a version that has no such records");
  }

  @Test
  void aFileThatIsNotATraceIsNamedSo() throws Exception {
    assertThat(error("{\"traceEvents\": []}".getBytes(StandardCharsets.UTF_8)))
        .hasMessage("not a gitm trace: the file does not start with \"GITMTRC1\" (at byte offset 0)");
  }

  @Test
  void aMetaThatIsNotJsonIsAnError() throws Exception {
    Raw raw = new Raw("{not json".getBytes(StandardCharsets.UTF_8));
    raw.end();
    assertThat(error(raw.bytes())).hasMessageStartingWith("truncated or corrupt at byte offset 16: the meta is not"
        + " valid JSON");
  }

  private TraceFormatException error(byte[] content) throws IOException {
    Path f = Files.createTempFile(dir, "bad", ".gtrace");
    Files.write(f, content);
    try (TraceReader r = TraceReader.open(f)) {
      r.read(x -> {});
    } catch (TraceFormatException e) {
      return e;
    }
    throw new AssertionError("no error reading a bad trace");
  }

  /** A trace file built byte by byte, with correct CRCs unless the test breaks them. */
  private static final class Raw {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Raw() {
      this(TraceFormat.metaToJson(Samples.META));
    }

    Raw(byte[] meta) {
      out.writeBytes("GITMTRC1".getBytes(StandardCharsets.US_ASCII));
      out.writeBytes(le(1));
      out.writeBytes(le(meta.length));
      out.writeBytes(meta);
    }

    int size() {
      return out.size();
    }

    void block(int count, byte[]... parts) {
      ByteArrayOutputStream p = new ByteArrayOutputStream();
      for (byte[] part : parts) {
        p.writeBytes(part);
      }
      byte[] payload = p.toByteArray();
      CRC32 crc = new CRC32();
      crc.update(payload);
      out.writeBytes(le(payload.length));
      out.writeBytes(le(count));
      out.writeBytes(le((int) crc.getValue()));
      out.writeBytes(payload);
    }

    void end() {
      out.writeBytes(new byte[12]);
    }

    byte[] endAndGet() {
      end();
      return bytes();
    }

    byte[] bytes() {
      return out.toByteArray();
    }

    private static byte[] le(int v) {
      return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array();
    }
  }
}
