package io.gitm.workloads.af2;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Writes NumPy {@code .npy} files (format version 1.0: the magic, the header dictionary padded with spaces to a
 * multiple of 64 bytes and ended by a newline, then the data in C order), what {@code numpy.load} reads: int32 and
 * float32 arrays little-endian, byte strings as fixed-width {@code |S} arrays. A file is written to a temporary name
 * beside it and moved into place, so that no half-written array is left.
 */
final class Npy {
  private Npy() {
  }

  static void int32(Path file, int[] values, int... shape) {
    ByteBuffer b = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
    b.asIntBuffer().put(values);
    write(file, "<i4", shape, values.length, b.array());
  }

  static void float32(Path file, float[] values, int... shape) {
    ByteBuffer b = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
    b.asFloatBuffer().put(values);
    write(file, "<f4", shape, values.length, b.array());
  }

  /** A 1-D array of byte strings, each padded with NULs to the longest (as NumPy stores {@code |S}). */
  static void bytes(Path file, List<String> values) {
    int width = Math.max(1, values.stream().mapToInt(v -> v.getBytes(StandardCharsets.UTF_8).length).max().orElse(1));
    byte[] data = new byte[width * values.size()];
    for (int i = 0; i < values.size(); i++) {
      byte[] v = values.get(i).getBytes(StandardCharsets.UTF_8);
      System.arraycopy(v, 0, data, i * width, v.length);
    }
    write(file, "|S" + width, new int[] {values.size()}, values.size(), data);
  }

  private static void write(Path file, String descr, int[] shape, long count, byte[] data) {
    long product = Arrays.stream(shape).asLongStream().reduce(1, (x, y) -> x * y);
    if (product != count) {
      throw new IllegalArgumentException(file + ": shape " + Arrays.toString(shape) + " does not hold " + count
          + " values");
    }
    String dims = Arrays.stream(shape).mapToObj(Integer::toString).collect(Collectors.joining(", "));
    String dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + (shape.length == 1 ? ","
        : "") + "), }";
    int total = 10 + dict.length() + 1;
    int padded = (total + 63) / 64 * 64;
    String header = dict + " ".repeat(padded - total) + "\n";
    ByteBuffer out = ByteBuffer.allocate(10 + header.length() + data.length).order(ByteOrder.LITTLE_ENDIAN);
    out.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0});
    out.putShort((short) header.length());
    out.put(header.getBytes(StandardCharsets.US_ASCII));
    out.put(data);
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      Files.write(tmp, out.array());
      Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("af2: cannot write " + file + ": " + e.getMessage(), e);
    }
  }
}
