package io.gitm.tracer;

import io.gitm.store.AtomicFiles;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.CollectiveRecord;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.Dim3;
import io.gitm.trace.HostOpRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.OverheadRecord;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
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
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * Writes a {@code .gtrace} file (docs/trace-format.md) as records arrive: records go into a block of about 64 KiB,
 * which is written out with its CRC-32 when full, so the trace is never held in memory (only the table of distinct
 * strings is). The file is written as {@code <file>.tmp}; {@link #close()} writes the end marker, forces the file to
 * disk and renames it to its final name, so a crash or an {@link #abort()} never leaves a half-written file under the
 * final name. Thread-safe: producers on several threads may share one writer.
 */
public final class TraceWriter implements TraceSink, Closeable {
  private static final int STATE_FIELDS = StateField.values().length;

  private final Path file;
  private final Path tmp;
  private final FileChannel channel;
  private final int blockTarget;
  private final CRC32 crc = new CRC32();
  private final ByteBuffer blockHeader =
      ByteBuffer.allocate(TraceFormat.BLOCK_HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
  private final Map<String, Integer> strings = new HashMap<>();
  private ByteBuffer block;
  private int blockRecords;
  private long records;
  private long blocks;
  private boolean closed;
  private IOException failure;

  private TraceWriter(Path file, Path tmp, FileChannel channel, int blockTarget) {
    this.file = file;
    this.tmp = tmp;
    this.channel = channel;
    this.blockTarget = blockTarget;
    this.block = ByteBuffer.allocate(blockTarget).order(ByteOrder.LITTLE_ENDIAN);
  }

  /** Starts a trace that {@link #close()} publishes as {@code file}; writes the header at once. */
  public static TraceWriter create(Path file, TraceMeta meta) throws IOException {
    return create(file, meta, TraceFormat.BLOCK_TARGET_BYTES);
  }

  /**
   * As {@link #create(Path, TraceMeta)}, cutting blocks at {@code blockTarget} payload bytes (tests use small ones).
   */
  static TraceWriter create(Path file, TraceMeta meta, int blockTarget) throws IOException {
    if (blockTarget < 64) {
      throw new IllegalArgumentException("block target too small: " + blockTarget);
    }
    Path tmp = AtomicFiles.temporary(file);
    FileChannel ch = FileChannel.open(tmp, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
        AtomicFiles.privateFile(tmp));
    TraceWriter w = new TraceWriter(file, tmp, ch, blockTarget);
    try {
      byte[] json = TraceFormat.metaToJson(meta);
      ByteBuffer header = ByteBuffer.allocate(TraceFormat.HEADER_BYTES + json.length).order(ByteOrder.LITTLE_ENDIAN);
      header.put(TraceFormat.MAGIC).putInt(TraceFormat.VERSION).putInt(json.length).put(json).flip();
      w.writeFully(header);
    } catch (IOException | RuntimeException e) {
      w.abort();
      throw e;
    }
    return w;
  }

  /** The name the trace is published under on {@link #close()}. */
  public Path file() {
    return file;
  }

  /** Records written so far (string definitions not counted). */
  public synchronized long records() {
    return records;
  }

  /** Blocks written so far. */
  synchronized long blocks() {
    return blocks;
  }

  /** Appends one record. */
  public synchronized void write(TraceRecord record) throws IOException {
    if (closed) {
      throw new IllegalStateException("trace writer for " + file + " is closed");
    }
    if (failure != null) {
      throw new IOException("trace writer for " + file + " failed earlier: " + failure.getMessage(), failure);
    }
    try {
      encode(record);
      records++;
      if (block.position() >= blockTarget) {
        flushBlock();
      }
    } catch (IOException e) {
      failure = e;
      throw e;
    }
  }

  /** {@link #write} for producers that cannot throw checked exceptions. */
  @Override
  public void accept(TraceRecord record) {
    try {
      write(record);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Writes the last block and the end marker, forces the file to disk and renames it to its final name. If an earlier
   * write failed, the temporary file is deleted instead and the failure is reported.
   */
  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    if (failure != null) {
      abort();
      throw new IOException("trace " + file + " not written: " + failure.getMessage(), failure);
    }
    try {
      flushBlock();
      blockHeader.clear();
      blockHeader.putInt(0).putInt(0).putInt(0).flip();
      writeFully(blockHeader);
      channel.force(true);
      channel.close();
      closed = true;
      AtomicFiles.publish(tmp, file);
    } catch (IOException | RuntimeException e) {
      closed = false;
      abort();
      throw e;
    }
  }

  /** Stops writing and deletes the temporary file; the final name is left as it was. Never throws. */
  public synchronized void abort() {
    closed = true;
    try {
      channel.close();
    } catch (IOException ignored) {
      // the file is deleted next
    }
    AtomicFiles.discard(tmp);
  }

  private void encode(TraceRecord record) throws IOException {
    switch (record) {
      case KernelRecord k -> {
        int name = stringId(k.name());
        ensure(1 + TraceFormat.FIXED_BODY_BYTES[TraceFormat.TAG_KERNEL]);
        Dim3 g = k.grid();
        Dim3 b = k.block();
        block.put(TraceFormat.TAG_KERNEL).putInt(name).putInt(k.device()).putInt(k.stream())
            .putLong(k.correlationId()).putLong(k.startNs()).putLong(k.endNs())
            .putInt(g.x()).putInt(g.y()).putInt(g.z()).putInt(b.x()).putInt(b.y()).putInt(b.z())
            .putInt(k.registersPerThread()).putInt(k.staticSharedBytes()).putInt(k.dynamicSharedBytes());
      }
      case CopyRecord c -> {
        ensure(1 + TraceFormat.FIXED_BODY_BYTES[TraceFormat.TAG_COPY]);
        block.put(TraceFormat.TAG_COPY).put((byte) c.kind().ordinal()).put((byte) c.srcKind().ordinal())
            .put((byte) c.dstKind().ordinal()).putLong(c.bytes()).putInt(c.device()).putInt(c.stream())
            .putLong(c.correlationId()).putLong(c.startNs()).putLong(c.endNs());
      }
      case MemsetRecord m -> {
        ensure(1 + TraceFormat.FIXED_BODY_BYTES[TraceFormat.TAG_MEMSET]);
        block.put(TraceFormat.TAG_MEMSET).put((byte) m.memoryKind().ordinal()).putInt(m.value()).putLong(m.bytes())
            .putInt(m.device()).putInt(m.stream()).putLong(m.correlationId()).putLong(m.startNs()).putLong(m.endNs());
      }
      case SyncRecord s -> {
        ensure(1 + TraceFormat.FIXED_BODY_BYTES[TraceFormat.TAG_SYNC]);
        block.put(TraceFormat.TAG_SYNC).put((byte) s.kind().ordinal()).putInt(s.device()).putInt(s.stream())
            .putLong(s.correlationId()).putLong(s.startNs()).putLong(s.endNs());
      }
      case ApiCallRecord a -> {
        int name = stringId(a.name());
        ensure(1 + TraceFormat.FIXED_BODY_BYTES[TraceFormat.TAG_API]);
        block.put(TraceFormat.TAG_API).put((byte) a.kind().ordinal()).putInt(name).putLong(a.threadId())
            .putLong(a.correlationId()).putLong(a.startNs()).putLong(a.endNs());
      }
      case OverheadRecord o -> {
        ensure(1 + TraceFormat.FIXED_BODY_BYTES[TraceFormat.TAG_OVERHEAD]);
        block.put(TraceFormat.TAG_OVERHEAD).put((byte) o.kind().ordinal()).putLong(o.threadId()).putLong(o.startNs())
            .putLong(o.endNs());
      }
      case StateSample s -> {
        double[] v = s.values();
        int n = 0;
        for (double x : v) {
          if (!Double.isNaN(x)) {
            n++;
          }
        }
        ensure(1 + 4 + 8 + 1 + n * 9);
        block.put(TraceFormat.TAG_STATE).putInt(s.device()).putLong(s.timeNs()).put((byte) n);
        for (int f = 0; f < STATE_FIELDS; f++) {
          if (!Double.isNaN(v[f])) {
            block.put((byte) f).putDouble(v[f]);
          }
        }
      }
      case MarkerRecord m -> {
        int name = stringId(m.name());
        ensure(1 + TraceFormat.FIXED_BODY_BYTES[TraceFormat.TAG_MARKER]);
        block.put(TraceFormat.TAG_MARKER).putInt(name).putLong(m.threadId()).putLong(m.startNs()).putLong(m.endNs());
      }
      case WorkRecord w -> {
        int name = stringId(w.kernel());
        ensure(1 + TraceFormat.FIXED_BODY_BYTES[TraceFormat.TAG_WORK]);
        block.put(TraceFormat.TAG_WORK).putInt(name).putInt(w.device()).putInt(w.stream()).putLong(w.correlationId())
            .putLong(w.timeNs()).putDouble(w.flops()).put((byte) w.precision().ordinal()).putLong(w.bytesRead())
            .putLong(w.bytesWritten()).putLong(w.dependentAccesses()).putLong(w.dependentOnChipAccesses());
      }
      case TrafficRecord t -> {
        int source = stringId(t.source());
        ensure(1 + TraceFormat.FIXED_BODY_BYTES[TraceFormat.TAG_TRAFFIC]);
        block.put(TraceFormat.TAG_TRAFFIC).putInt(t.device()).putLong(t.correlationId()).putLong(t.timeNs())
            .putLong(t.bytesRead()).putLong(t.bytesWritten()).putInt(source);
      }
      case HostOpRecord h -> {
        int name = stringId(h.name());
        ensure(1 + TraceFormat.FIXED_BODY_BYTES[TraceFormat.TAG_HOST_OP]);
        block.put(TraceFormat.TAG_HOST_OP).putInt(name).putLong(h.threadId()).putLong(h.externalId())
            .putLong(h.startNs()).putLong(h.endNs());
      }
      case CollectiveRecord c -> encodeCollective(c);
    }
    blockRecords++;
  }

  private void encodeCollective(CollectiveRecord c) throws IOException {
    int collective = stringId(c.collective());
    int dtype = stringId(c.dtype());
    int groupName = stringId(c.groupName());
    int groupDescription = stringId(c.groupDescription());
    int groupRanks = stringId(c.groupRanks());
    ensure(1 + TraceFormat.FIXED_BODY_BYTES[TraceFormat.TAG_COLLECTIVE]);
    block.put(TraceFormat.TAG_COLLECTIVE).putInt(collective).putInt(dtype).putInt(groupName).putInt(groupDescription)
        .putInt(groupRanks).putLong(c.inElements()).putLong(c.outElements()).putInt(c.groupSize())
        .putInt(c.device()).putLong(c.threadId()).putLong(c.externalId()).putLong(c.correlationId())
        .putLong(c.startNs()).putLong(c.endNs());
  }

  /** The id of {@code s}, defining it (a string record in the current block) the first time it is used. */
  private int stringId(String s) throws IOException {
    Integer id = strings.get(s);
    if (id != null) {
      return id;
    }
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    int next = strings.size() + 1;
    ensure(1 + 4 + 4 + utf8.length);
    block.put(TraceFormat.TAG_STRING).putInt(next).putInt(utf8.length).put(utf8);
    blockRecords++;
    strings.put(s, next);
    return next;
  }

  /**
   * Makes room for {@code n} more bytes in the current block: cuts the block first when it would grow past the
   * target, and grows the buffer for a record larger than a block (such a record gets a block of its own).
   */
  private void ensure(int n) throws IOException {
    if (block.position() > 0 && block.position() + n > blockTarget) {
      flushBlock();
    }
    if (block.remaining() < n) {
      ByteBuffer bigger = ByteBuffer.allocate(block.position() + n).order(ByteOrder.LITTLE_ENDIAN);
      block.flip();
      bigger.put(block);
      block = bigger;
    }
  }

  private void flushBlock() throws IOException {
    if (block.position() == 0) {
      return;
    }
    crc.reset();
    crc.update(block.array(), 0, block.position());
    blockHeader.clear();
    blockHeader.putInt(block.position()).putInt(blockRecords).putInt((int) crc.getValue()).flip();
    block.flip();
    writeFully(blockHeader, block);
    blocks++;
    blockRecords = 0;
    if (block.capacity() > blockTarget) {
      block = ByteBuffer.allocate(blockTarget).order(ByteOrder.LITTLE_ENDIAN);
    } else {
      block.clear();
    }
  }

  private void writeFully(ByteBuffer... buffers) throws IOException {
    long left = 0;
    for (ByteBuffer b : buffers) {
      left += b.remaining();
    }
    while (left > 0) {
      left -= channel.write(buffers);
    }
  }
}
