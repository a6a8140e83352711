package io.gitm.nvidia.cupti;

import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyKind;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.OverheadKind;
import io.gitm.trace.StateField;
import io.gitm.trace.SyncKind;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * A minimal reader of {@code .gtrace} files written from docs/trace-format.md alone, independent of the engine's
 * reader: it checks the header, every block's length, count and CRC-32, string ids, tags and enum ordinals, and
 * renders each record as one tab-separated line.
 */
final class MiniGtraceReader {
  private MiniGtraceReader() {
  }

  static final class Corrupt extends RuntimeException {
    final long offset;

    Corrupt(long offset, String what) {
      super("truncated or corrupt at byte offset " + offset + ": " + what);
      this.offset = offset;
    }
  }

  record Parsed(String meta, List<String> lines, int blocks, int maxPayload, Map<Integer, String> strings) {
  }

  static Parsed read(byte[] file) {
    ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    if (file.length < 16 || !new String(file, 0, 8, StandardCharsets.US_ASCII).equals("GITMTRC1")) {
      throw new Corrupt(0, "no GITMTRC1 magic");
    }
    b.position(8);
    int version = b.getInt();
    if (version != 1) {
      throw new Corrupt(8, "unknown version " + version);
    }
    int metaLength = b.getInt();
    if (metaLength < 0 || 16L + metaLength > file.length) {
      throw new Corrupt(12, "meta length " + metaLength + " past the end");
    }
    String meta = new String(file, 16, metaLength, StandardCharsets.UTF_8);
    b.position(16 + metaLength);
    List<String> lines = new ArrayList<>();
    Map<Integer, String> strings = new HashMap<>();
    int blocks = 0;
    int maxPayload = 0;
    while (true) {
      long at = b.position();
      if (b.remaining() < 12) {
        throw new Corrupt(at, "file ends without an end block");
      }
      int len = b.getInt();
      int count = b.getInt();
      int crc = b.getInt();
      if (len == 0) {
        if (count != 0 || crc != 0) {
          throw new Corrupt(at, "end block with count " + count + " crc " + crc);
        }
        if (b.remaining() != 0) {
          throw new Corrupt(b.position(), b.remaining() + " bytes after the end block");
        }
        return new Parsed(meta, lines, blocks, maxPayload, strings);
      }
      if (len < 0 || len > b.remaining()) {
        throw new Corrupt(at, "block of " + len + " bytes cut short");
      }
      CRC32 c = new CRC32();
      c.update(file, b.position(), len);
      if ((int) c.getValue() != crc) {
        throw new Corrupt(at, "CRC mismatch");
      }
      ByteBuffer p = b.slice(b.position(), len).order(ByteOrder.LITTLE_ENDIAN);
      b.position(b.position() + len);
      List<String> blockLines = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        if (!p.hasRemaining()) {
          throw new Corrupt(at, "block holds fewer than its " + count + " records");
        }
        String line = record(p, strings, at);
        if (line != null) {
          blockLines.add(line);
        }
      }
      if (p.hasRemaining()) {
        throw new Corrupt(at, p.remaining() + " bytes after the block's " + count + " records");
      }
      lines.addAll(blockLines);
      blocks++;
      maxPayload = Math.max(maxPayload, len);
    }
  }

  private static int ordinal(ByteBuffer p, int n, String what, long at) {
    int v = Byte.toUnsignedInt(p.get());
    if (v >= n) {
      throw new Corrupt(at, "unknown " + what + " ordinal " + v);
    }
    return v;
  }

  private static String name(ByteBuffer p, Map<Integer, String> strings, long at) {
    int id = p.getInt();
    String s = strings.get(id);
    if (s == null) {
      throw new Corrupt(at, "string id " + id + " used before its definition");
    }
    return s;
  }

  private static String record(ByteBuffer p, Map<Integer, String> strings, long at) {
    int tag = Byte.toUnsignedInt(p.get());
    return switch (tag) {
      case 1 -> {
        int id = p.getInt();
        int n = p.getInt();
        byte[] bytes = new byte[n];
        p.get(bytes);
        if (id != strings.size() + 1) {
          throw new Corrupt(at, "string id " + id + " out of sequence (expected " + (strings.size() + 1) + ")");
        }
        strings.put(id, new String(bytes, StandardCharsets.UTF_8));
        yield null;
      }
      case 2 -> String.join("\t", "KERNEL", name(p, strings, at), i(p), i(p), l(p), l(p), l(p), i(p), i(p), i(p),
          i(p), i(p), i(p), i(p), i(p), i(p));
      case 3 -> String.join("\t", "COPY", o(p, CopyKind.values().length, "CopyKind", at),
          o(p, MemoryKind.values().length, "MemoryKind", at), o(p, MemoryKind.values().length, "MemoryKind", at),
          l(p), i(p), i(p), l(p), l(p), l(p));
      case 4 -> String.join("\t", "MEMSET", o(p, MemoryKind.values().length, "MemoryKind", at), i(p), l(p), i(p),
          i(p), l(p), l(p), l(p));
      case 5 -> String.join("\t", "SYNC", o(p, SyncKind.values().length, "SyncKind", at), i(p), i(p), l(p), l(p),
          l(p));
      case 6 -> String.join("\t", "API", o(p, ApiKind.values().length, "ApiKind", at), name(p, strings, at), l(p),
          l(p), l(p), l(p));
      case 7 -> String.join("\t", "OVERHEAD", o(p, OverheadKind.values().length, "OverheadKind", at), l(p), l(p),
          l(p));
      case 8 -> {
        StringBuilder s = new StringBuilder("STATE\t").append(i(p)).append('\t').append(l(p));
        int n = Byte.toUnsignedInt(p.get());
        s.append('\t').append(n);
        for (int k = 0; k < n; k++) {
          s.append('\t').append(o(p, StateField.values().length, "StateField", at));
          s.append('\t').append(Long.toUnsignedString(p.getLong()));
        }
        yield s.toString();
      }
      case 9 -> String.join("\t", "MARKER", name(p, strings, at), l(p), l(p), l(p));
      default -> throw new Corrupt(at, "unknown tag " + tag);
    };
  }

  private static String o(ByteBuffer p, int n, String what, long at) {
    return Integer.toString(ordinal(p, n, what, at));
  }

  private static String i(ByteBuffer p) {
    return Integer.toString(p.getInt());
  }

  private static String l(ByteBuffer p) {
    return Long.toString(p.getLong());
  }
}
