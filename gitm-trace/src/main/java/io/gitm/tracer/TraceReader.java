package io.gitm.tracer;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CollectiveRecord;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.Dim3;
import io.gitm.trace.HostOpRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.OverheadKind;
import io.gitm.trace.OverheadRecord;
import io.gitm.trace.Precision;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.TraceSink;
import io.gitm.trace.TrafficRecord;
import io.gitm.trace.WorkRecord;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Reads a {@code .gtrace} file (docs/trace-format.md) as a stream, one block at a time. Each block is read whole,
 * its CRC-32 checked and all its records decoded and validated (tags, enum ordinals, string ids, intervals) before any
 * of them is handed out, so a record of a bad block is never seen. A file that is truncated, corrupt or not a trace
 * gives a {@link TraceFormatException} naming the byte offset. A reader streams its records once, either through
 * {@link #read(TraceSink)} or through {@link #iterator()}. Not thread-safe.
 */
public final class TraceReader implements Iterable<TraceRecord>, Closeable {
  private static final CopyKind[] COPY_KINDS = CopyKind.values();
  private static final MemoryKind[] MEMORY_KINDS = MemoryKind.values();
  private static final Precision[] PRECISIONS = Precision.values();
  private static final SyncKind[] SYNC_KINDS = SyncKind.values();
  private static final ApiKind[] API_KINDS = ApiKind.values();
  private static final OverheadKind[] OVERHEAD_KINDS = OverheadKind.values();
  private static final int STATE_FIELDS = StateField.values().length;
  private static final int DIM_CACHE = 64;
  /**
   * Blocks are about 64 KiB; only a single huge string makes one larger. Bounds the buffer a corrupt length asks for.
   */
  private static final long MAX_BLOCK_BYTES = Integer.MAX_VALUE - 64;
  /** The farthest a time may lie from its clock's zero: two such times differ by less than {@code INT64_MAX}. */
  static final long MAX_ABS_TIME_NS = 1L << 62;

  private final Path file;
  private final FileChannel channel;
  private final long size;
  private final TraceMeta meta;
  /** The highest record tag the file's version may hold. */
  private final int lastTag;
  private final ByteBuffer blockHeader =
      ByteBuffer.allocate(TraceFormat.BLOCK_HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
  private final java.util.zip.CRC32 crc = new java.util.zip.CRC32();
  private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
  /** String table: id {@code i} is at index {@code i - 1}. */
  private final List<String> strings = new ArrayList<>();
  /** Reused {@link Dim3} instances: grids and blocks repeat, so most records share them. */
  private final Dim3[] dims = new Dim3[DIM_CACHE];
  private final ArrayList<TraceRecord> blockRecords = new ArrayList<>();
  private ByteBuffer payload = ByteBuffer.allocate(TraceFormat.BLOCK_TARGET_BYTES).order(ByteOrder.LITTLE_ENDIAN);
  private long offset;
  private long blocks;
  private long records;
  private boolean streamed;
  private boolean finished;
  private TraceFormatException failure;

  private TraceReader(Path file, FileChannel channel, long size, TraceMeta meta, long dataStart, int version) {
    this.file = file;
    this.lastTag = TraceFormat.lastTag(version);
    this.channel = channel;
    this.size = size;
    this.meta = meta;
    this.offset = dataStart;
  }

  /** Opens a trace and reads its header; the records are read on demand. */
  public static TraceReader open(Path file) throws IOException {
    FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
    try {
      long size = ch.size();
      ByteBuffer h = ByteBuffer.allocate(TraceFormat.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      readAt(ch, h, 0);
      if (size == 0) {
        throw new TraceFormatException(0, "not a gitm trace: the file is empty (at byte offset 0)");
      }
      int magicBytes = Math.min(h.position(), TraceFormat.MAGIC.length);
      if (!Arrays.equals(h.array(), 0, magicBytes, TraceFormat.MAGIC, 0, magicBytes)) {
        throw new TraceFormatException(0,
            "not a gitm trace: the file does not start with \"GITMTRC1\" (at byte offset 0)");
      }
      if (size < TraceFormat.HEADER_BYTES) {
        throw TraceFormatException.corrupt(0, "the header is cut short (the file has " + size + " bytes)");
      }
      int version = h.getInt(8);
      if (version < TraceFormat.OLDEST_VERSION || version > TraceFormat.VERSION) {
        throw new TraceFormatException(8, "unsupported trace version " + Integer.toUnsignedString(version)
            + " at byte offset 8 (this gitm reads versions " + TraceFormat.OLDEST_VERSION + " to " + TraceFormat.VERSION
            + ")");
      }
      long metaLength = Integer.toUnsignedLong(h.getInt(12));
      if (metaLength > size - TraceFormat.HEADER_BYTES) {
        throw TraceFormatException.corrupt(12, "the meta of " + metaLength + " bytes runs past the end of the file ("
            + size + " bytes)");
      }
      ByteBuffer m = ByteBuffer.allocate((int) metaLength);
      readAt(ch, m, TraceFormat.HEADER_BYTES);
      TraceMeta meta = TraceFormat.metaFromJson(m.array(), TraceFormat.HEADER_BYTES);
      return new TraceReader(file, ch, size, meta, TraceFormat.HEADER_BYTES + metaLength, version);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /** The trace's meta: source, clock domain, devices, attributes. */
  public TraceMeta meta() {
    return meta;
  }

  /** The file being read. */
  public Path file() {
    return file;
  }

  /** The file's size in bytes. */
  public long fileSize() {
    return size;
  }

  /** Blocks read so far. */
  public long blocks() {
    return blocks;
  }

  /** Records handed out so far (string definitions not counted). */
  public long records() {
    return records;
  }

  /**
   * Hands every record, in file order, to {@code sink}, and checks that the file ends with the end marker. Returns the
   * number of records.
   */
  public long read(TraceSink sink) throws IOException {
    startStreaming();
    long n = 0;
    while (nextBlock()) {
      for (int i = 0, size = blockRecords.size(); i < size; i++) {
        sink.accept(blockRecords.get(i));
      }
      n += blockRecords.size();
    }
    return n;
  }

  /**
   * The records in file order. A truncated or corrupt file makes {@code hasNext()} or {@code next()} throw an
   * {@link UncheckedIOException} whose cause is the {@link TraceFormatException}.
   */
  @Override
  public Iterator<TraceRecord> iterator() {
    startStreaming();
    return new Iterator<>() {
      private int i;

      @Override
      public boolean hasNext() {
        while (i >= blockRecords.size()) {
          try {
            if (!nextBlock()) {
              return false;
            }
          } catch (IOException e) {
            throw new UncheckedIOException(e.getMessage(), e);
          }
          i = 0;
        }
        return true;
      }

      @Override
      public TraceRecord next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return blockRecords.get(i++);
      }
    };
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }

  private void startStreaming() {
    if (streamed) {
      throw new IllegalStateException("a trace reader streams its records once; open " + file + " again");
    }
    streamed = true;
  }

  /** Reads, checks and decodes the next block into {@link #blockRecords}; false at the end marker. */
  private boolean nextBlock() throws IOException {
    blockRecords.clear();
    if (failure != null) {
      throw failure;
    }
    if (finished) {
      return false;
    }
    try {
      return loadBlock();
    } catch (TraceFormatException e) {
      failure = e;
      blockRecords.clear();
      throw e;
    }
  }

  private boolean loadBlock() throws IOException {
    long at = offset;
    if (size - at < TraceFormat.BLOCK_HEADER_BYTES) {
      throw TraceFormatException.corrupt(at, at == size
          ? "the file ends without the end marker (the writer did not close it)"
          : "a block header is cut short (the file ends at byte " + size + ")");
    }
    blockHeader.clear();
    readAt(channel, blockHeader, at);
    long length = Integer.toUnsignedLong(blockHeader.getInt(0));
    long count = Integer.toUnsignedLong(blockHeader.getInt(4));
    int storedCrc = blockHeader.getInt(8);
    if (length == 0) {
      if (count != 0 || storedCrc != 0) {
        throw TraceFormatException.corrupt(at, "an empty block that is not an end marker (record count " + count
            + ", crc " + Integer.toHexString(storedCrc) + ")");
      }
      long end = at + TraceFormat.BLOCK_HEADER_BYTES;
      if (end != size) {
        throw TraceFormatException.corrupt(end, (size - end) + " bytes follow the end marker");
      }
      finished = true;
      return false;
    }
    long payloadAt = at + TraceFormat.BLOCK_HEADER_BYTES;
    if (length > MAX_BLOCK_BYTES) {
      throw TraceFormatException.corrupt(at, "a block of " + length + " bytes is larger than any writer makes");
    }
    if (length > size - payloadAt) {
      throw TraceFormatException.corrupt(at, "a block of " + length + " bytes is cut short (the file ends at byte "
          + size + ")");
    }
    if (payload.capacity() < length) {
      payload = ByteBuffer.allocate((int) length).order(ByteOrder.LITTLE_ENDIAN);
    }
    payload.clear().limit((int) length);
    readAt(channel, payload, payloadAt);
    crc.reset();
    crc.update(payload.array(), 0, (int) length);
    int computed = (int) crc.getValue();
    if (computed != storedCrc) {
      throw TraceFormatException.corrupt(at, "block CRC mismatch (stored " + hex(storedCrc) + ", computed "
          + hex(computed) + ")");
    }
    payload.flip();
    decode(payload, payloadAt, count);
    offset = payloadAt + length;
    blocks++;
    records += blockRecords.size();
    return true;
  }

  private void decode(ByteBuffer b, long base, long count) throws TraceFormatException {
    long decoded = 0;
    while (b.hasRemaining()) {
      int start = b.position();
      if (decoded == count) {
        throw TraceFormatException.corrupt(base + start, "the block holds more than its " + count + " records");
      }
      int tag = b.get() & 0xff;
      if (tag > lastTag && tag <= TraceFormat.TAG_COLLECTIVE) {
        throw TraceFormatException.corrupt(base + start, "record tag " + tag + " in a file of a version that has no"
            + " such records");
      }
      try {
        switch (tag) {
          case TraceFormat.TAG_STRING -> defineString(b, base, start);
          case TraceFormat.TAG_KERNEL -> {
            need(b, TraceFormat.FIXED_BODY_BYTES[tag], base, start, "kernel");
            String name = string(b.getInt(), base, start);
            int device = b.getInt();
            int stream = b.getInt();
            long correlation = b.getLong();
            long startNs = b.getLong();
            long endNs = b.getLong();
            Dim3 grid = dim(b.getInt(), b.getInt(), b.getInt());
            Dim3 block = dim(b.getInt(), b.getInt(), b.getInt());
            blockRecords.add(new KernelRecord(name, device, stream, correlation, startNs, endNs, grid, block,
                b.getInt(), b.getInt(), b.getInt()));
          }
          case TraceFormat.TAG_COPY -> {
            need(b, TraceFormat.FIXED_BODY_BYTES[tag], base, start, "copy");
            CopyKind kind = ordinal(COPY_KINDS, b.get(), base, start, "copy kind");
            MemoryKind src = ordinal(MEMORY_KINDS, b.get(), base, start, "memory kind");
            MemoryKind dst = ordinal(MEMORY_KINDS, b.get(), base, start, "memory kind");
            long bytes = b.getLong();
            blockRecords.add(new CopyRecord(kind, bytes, src, dst, b.getInt(), b.getInt(), b.getLong(), b.getLong(),
                b.getLong()));
          }
          case TraceFormat.TAG_MEMSET -> {
            need(b, TraceFormat.FIXED_BODY_BYTES[tag], base, start, "memset");
            MemoryKind kind = ordinal(MEMORY_KINDS, b.get(), base, start, "memory kind");
            int value = b.getInt();
            long bytes = b.getLong();
            blockRecords.add(new MemsetRecord(bytes, value, kind, b.getInt(), b.getInt(), b.getLong(), b.getLong(),
                b.getLong()));
          }
          case TraceFormat.TAG_SYNC -> {
            need(b, TraceFormat.FIXED_BODY_BYTES[tag], base, start, "synchronization");
            SyncKind kind = ordinal(SYNC_KINDS, b.get(), base, start, "sync kind");
            blockRecords.add(new SyncRecord(kind, b.getInt(), b.getInt(), b.getLong(), b.getLong(), b.getLong()));
          }
          case TraceFormat.TAG_API -> {
            need(b, TraceFormat.FIXED_BODY_BYTES[tag], base, start, "API call");
            ApiKind kind = ordinal(API_KINDS, b.get(), base, start, "API kind");
            String name = string(b.getInt(), base, start);
            blockRecords.add(new ApiCallRecord(kind, name, b.getLong(), b.getLong(), b.getLong(), b.getLong()));
          }
          case TraceFormat.TAG_OVERHEAD -> {
            need(b, TraceFormat.FIXED_BODY_BYTES[tag], base, start, "overhead");
            OverheadKind kind = ordinal(OVERHEAD_KINDS, b.get(), base, start, "overhead kind");
            blockRecords.add(new OverheadRecord(kind, b.getLong(), b.getLong(), b.getLong()));
          }
          case TraceFormat.TAG_STATE -> blockRecords.add(stateSample(b, base, start));
          case TraceFormat.TAG_MARKER -> {
            need(b, TraceFormat.FIXED_BODY_BYTES[tag], base, start, "marker");
            String name = string(b.getInt(), base, start);
            blockRecords.add(new MarkerRecord(name, b.getLong(), b.getLong(), b.getLong()));
          }
          case TraceFormat.TAG_WORK -> {
            need(b, TraceFormat.FIXED_BODY_BYTES[tag], base, start, "work");
            String name = string(b.getInt(), base, start);
            int device = b.getInt();
            int stream = b.getInt();
            long correlation = b.getLong();
            long time = b.getLong();
            double flops = b.getDouble();
            Precision precision = ordinal(PRECISIONS, b.get(), base, start, "precision");
            blockRecords.add(new WorkRecord(name, device, stream, correlation, time, flops, precision, b.getLong(),
                b.getLong(), b.getLong(), b.getLong()));
          }
          case TraceFormat.TAG_TRAFFIC -> {
            need(b, TraceFormat.FIXED_BODY_BYTES[tag], base, start, "traffic");
            int device = b.getInt();
            long correlation = b.getLong();
            long time = b.getLong();
            long read = b.getLong();
            long written = b.getLong();
            blockRecords.add(new TrafficRecord(device, correlation, time, read, written, string(b.getInt(), base,
                start)));
          }
          case TraceFormat.TAG_HOST_OP -> {
            need(b, TraceFormat.FIXED_BODY_BYTES[tag], base, start, "host operation");
            String name = string(b.getInt(), base, start);
            blockRecords.add(new HostOpRecord(name, b.getLong(), b.getLong(), b.getLong(), b.getLong()));
          }
          case TraceFormat.TAG_COLLECTIVE -> blockRecords.add(collective(b, base, start));
          default -> throw TraceFormatException.corrupt(base + start, "unknown record tag " + tag);
        }
      } catch (IllegalArgumentException e) {
        throw TraceFormatException.corrupt(base + start, "invalid record " + (records + blockRecords.size() + 1)
            + ": " + e.getMessage());
      }
      if (tag != TraceFormat.TAG_STRING) {
        checkTimes(blockRecords.getLast(), records + blockRecords.size(), base + start);
      }
      decoded++;
    }
    if (decoded != count) {
      throw TraceFormatException.corrupt(base + b.limit(), "the block holds " + decoded + " records, its header says "
          + count);
    }
  }

  /**
   * Refuses a record that no clock can have written: a time more than {@link #MAX_ABS_TIME_NS} (2^62 ns, 146 years)
   * from its clock's zero, where the difference of two times of the trace could overflow a signed 64-bit duration
   * (a start of {@code INT64_MIN} would give negative durations), or an interval that ends before it starts.
   *
   * @param index the record's number in the file, from 1 (string definitions not counted)
   */
  private static void checkTimes(TraceRecord r, long index, long offset) throws TraceFormatException {
    if (r.startNs() < -MAX_ABS_TIME_NS || r.startNs() > MAX_ABS_TIME_NS) {
      throw TraceFormatException.corrupt(offset, "record " + index + " starts at " + r.startNs() + " ns, more than"
          + " 2^62 ns (146 years) from its clock's zero");
    }
    if (r.endNs() < -MAX_ABS_TIME_NS || r.endNs() > MAX_ABS_TIME_NS) {
      throw TraceFormatException.corrupt(offset, "record " + index + " ends at " + r.endNs() + " ns, more than"
          + " 2^62 ns (146 years) from its clock's zero");
    }
    if (r.endNs() < r.startNs()) {
      throw TraceFormatException.corrupt(offset, "record " + index + " ends at " + r.endNs() + " ns, before it starts"
          + " at " + r.startNs() + " ns");
    }
  }

  private CollectiveRecord collective(ByteBuffer b, long base, int start) throws TraceFormatException {
    need(b, TraceFormat.FIXED_BODY_BYTES[TraceFormat.TAG_COLLECTIVE], base, start, "collective");
    String collective = string(b.getInt(), base, start);
    String dtype = string(b.getInt(), base, start);
    String groupName = string(b.getInt(), base, start);
    String groupDescription = string(b.getInt(), base, start);
    String groupRanks = string(b.getInt(), base, start);
    long in = b.getLong();
    long out = b.getLong();
    int groupSize = b.getInt();
    int device = b.getInt();
    return new CollectiveRecord(collective, dtype, in, out, groupSize, groupName, groupDescription, groupRanks, device,
        b.getLong(), b.getLong(), b.getLong(), b.getLong(), b.getLong());
  }

  private void defineString(ByteBuffer b, long base, int start) throws TraceFormatException {
    need(b, 8, base, start, "string definition");
    long id = Integer.toUnsignedLong(b.getInt());
    long length = Integer.toUnsignedLong(b.getInt());
    if (id != strings.size() + 1) {
      throw TraceFormatException.corrupt(base + start, "string id " + id + " defined out of order (expected "
          + (strings.size() + 1) + ")");
    }
    if (length > b.remaining()) {
      throw TraceFormatException.corrupt(base + start, "a string of " + length + " bytes runs past its block");
    }
    int pos = b.position();
    try {
      CharBuffer chars = utf8.reset().decode(ByteBuffer.wrap(b.array(), pos, (int) length));
      strings.add(chars.toString());
    } catch (CharacterCodingException e) {
      throw TraceFormatException.corrupt(base + start, "string " + id + " is not valid UTF-8");
    }
    b.position(pos + (int) length);
  }

  private StateSample stateSample(ByteBuffer b, long base, int start) throws TraceFormatException {
    need(b, 4 + 8 + 1, base, start, "state sample");
    int device = b.getInt();
    long time = b.getLong();
    int n = b.get() & 0xff;
    need(b, n * 9, base, start, "state sample");
    double[] values = new double[STATE_FIELDS];
    Arrays.fill(values, Double.NaN);
    for (int i = 0; i < n; i++) {
      int field = b.get() & 0xff;
      if (field >= STATE_FIELDS) {
        throw TraceFormatException.corrupt(base + start, "unknown state field ordinal " + field);
      }
      values[field] = b.getDouble();
    }
    return new StateSample(device, time, values);
  }

  private String string(int id, long base, int start) throws TraceFormatException {
    long u = Integer.toUnsignedLong(id);
    if (u < 1 || u > strings.size()) {
      throw TraceFormatException.corrupt(base + start, "string id " + u + " is not defined");
    }
    return strings.get((int) u - 1);
  }

  private Dim3 dim(int x, int y, int z) {
    int slot = ((x * 31 + y) * 31 + z) & (DIM_CACHE - 1);
    Dim3 d = dims[slot];
    if (d != null && d.x() == x && d.y() == y && d.z() == z) {
      return d;
    }
    d = new Dim3(x, y, z);
    dims[slot] = d;
    return d;
  }

  private static <E extends Enum<E>> E ordinal(E[] values, byte raw, long base, int start, String what)
      throws TraceFormatException {
    int o = raw & 0xff;
    if (o >= values.length) {
      throw TraceFormatException.corrupt(base + start, "unknown " + what + " ordinal " + o);
    }
    return values[o];
  }

  private static void need(ByteBuffer b, int n, long base, int start, String what) throws TraceFormatException {
    if (b.remaining() < n) {
      throw TraceFormatException.corrupt(base + start, "a " + what + " record is cut short by the end of its block");
    }
  }

  private static String hex(int v) {
    return String.format("%08x", v);
  }

  /** Fills {@code buf} from {@code position} onwards, or up to the end of the file. */
  private static void readAt(FileChannel ch, ByteBuffer buf, long position) throws IOException {
    long p = position;
    while (buf.hasRemaining()) {
      int n = ch.read(buf, p);
      if (n < 0) {
        return;
      }
      p += n;
    }
  }
}
