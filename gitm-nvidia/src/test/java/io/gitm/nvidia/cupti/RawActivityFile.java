package io.gitm.nvidia.cupti;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Raw CUPTI activity records as CUPTI wrote them, kept as a CI fixture so the decoder is tested on real bytes:
 * {@code "GCUPRAW1" | i64 clockOffsetNs | u32 n | n × (u32 kind | u32 size | size bytes | u32 nameLength | name)}
 * then {@code u32 m | m × (u32 domain | u32 cbid | u32 length | name)} for the API callback names. Kernel name
 * pointers are zeroed in the bytes; the name follows the record (length 0 for other kinds). Little-endian.
 */
final class RawActivityFile {
  record Raw(int kind, byte[] bytes, String name) {
  }

  final long clockOffsetNs;
  final List<Raw> records;
  final Map<Long, String> callbackNames;

  RawActivityFile(long clockOffsetNs, List<Raw> records, Map<Long, String> callbackNames) {
    this.clockOffsetNs = clockOffsetNs;
    this.records = records;
    this.callbackNames = callbackNames;
  }

  /** The size of a record of {@code kind} that the decoder reads, or -1 for kinds it does not decode. */
  static long size(int kind) {
    return switch (kind) {
      case CuptiLayout.KIND_CONCURRENT_KERNEL, CuptiLayout.KIND_KERNEL -> CuptiLayout.Kernel.SIZE;
      case CuptiLayout.KIND_MEMCPY -> CuptiLayout.Memcpy.SIZE;
      case CuptiLayout.KIND_MEMSET -> CuptiLayout.Memset.SIZE;
      case CuptiLayout.KIND_SYNCHRONIZATION -> CuptiLayout.Sync.SIZE;
      case CuptiLayout.KIND_DRIVER, CuptiLayout.KIND_RUNTIME -> CuptiLayout.Api.SIZE;
      case CuptiLayout.KIND_OVERHEAD -> CuptiLayout.Overhead.SIZE;
      default -> -1;
    };
  }

  /** Copies one live record (during tracing); kinds the decoder ignores are skipped. */
  static Raw capture(MemorySegment activity) {
    int kind = activity.get(ValueLayout.JAVA_INT, 0);
    long size = size(kind);
    if (size < 0) {
      return null;
    }
    byte[] bytes = activity.asSlice(0, size).toArray(ValueLayout.JAVA_BYTE);
    String name = "";
    if (kind == CuptiLayout.KIND_CONCURRENT_KERNEL || kind == CuptiLayout.KIND_KERNEL) {
      MemorySegment p = activity.get(ValueLayout.ADDRESS_UNALIGNED, CuptiLayout.Kernel.NAME);
      name = p.equals(MemorySegment.NULL) ? "" : p.reinterpret(Integer.MAX_VALUE).getString(0);
      ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putLong((int) CuptiLayout.Kernel.NAME, 0L);
    }
    return new Raw(kind, bytes, name);
  }

  byte[] encode() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteBuffer h = ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN);
    h.put("GCUPRAW1".getBytes(StandardCharsets.US_ASCII)).putLong(clockOffsetNs).putInt(records.size());
    out.writeBytes(h.array());
    for (Raw r : records) {
      byte[] name = r.name().getBytes(StandardCharsets.UTF_8);
      ByteBuffer b = ByteBuffer.allocate(12 + r.bytes().length + name.length).order(ByteOrder.LITTLE_ENDIAN);
      b.putInt(r.kind()).putInt(r.bytes().length).put(r.bytes()).putInt(name.length).put(name);
      out.writeBytes(b.array());
    }
    ByteBuffer m = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(callbackNames.size());
    out.writeBytes(m.array());
    callbackNames.forEach((key, name) -> {
      byte[] n = name.getBytes(StandardCharsets.UTF_8);
      ByteBuffer b = ByteBuffer.allocate(12 + n.length).order(ByteOrder.LITTLE_ENDIAN);
      b.putInt((int) (key >>> 32)).putInt((int) (long) key).putInt(n.length).put(n);
      out.writeBytes(b.array());
    });
    return out.toByteArray();
  }

  static RawActivityFile decode(byte[] file) {
    ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    byte[] magic = new byte[8];
    b.get(magic);
    if (!new String(magic, StandardCharsets.US_ASCII).equals("GCUPRAW1")) {
      throw new IllegalArgumentException("not a raw CUPTI activity fixture (magic " + new String(magic,
          StandardCharsets.US_ASCII) + ")");
    }
    long offset = b.getLong();
    int n = b.getInt();
    List<Raw> records = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int kind = b.getInt();
      byte[] bytes = new byte[b.getInt()];
      b.get(bytes);
      byte[] name = new byte[b.getInt()];
      b.get(name);
      records.add(new Raw(kind, bytes, new String(name, StandardCharsets.UTF_8)));
    }
    int m = b.getInt();
    Map<Long, String> names = new LinkedHashMap<>();
    for (int i = 0; i < m; i++) {
      long key = ((long) b.getInt() << 32) | Integer.toUnsignedLong(b.getInt());
      byte[] name = new byte[b.getInt()];
      b.get(name);
      names.put(key, new String(name, StandardCharsets.UTF_8));
    }
    if (b.hasRemaining()) {
      throw new IllegalArgumentException(b.remaining() + " bytes after the fixture's end");
    }
    return new RawActivityFile(offset, records, names);
  }
}
