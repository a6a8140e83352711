package io.gitm.workloads.kitti;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One velodyne scan as KITTI stores it ({@code velodyne/NNNNNN.bin}): consecutive float32 quadruples x, y, z,
 * reflectance in little-endian byte order, metres in the LiDAR's frame (x forward, y left, z up), reflectance 0..1.
 *
 * @param xyzr the points, four floats each
 */
record Scan(float[] xyzr) {
  /** Bytes of one point in a {@code .bin} file. */
  static final int POINT_BYTES = 16;

  Scan {
    if (xyzr.length % 4 != 0) {
      throw new IllegalArgumentException("a scan holds four floats a point, got " + xyzr.length);
    }
  }

  int points() {
    return xyzr.length / 4;
  }

  /** Reads a {@code .bin} file; a length that is not a whole number of points is refused at its last whole point. */
  static Scan read(Path file) {
    try {
      return parse(Files.readAllBytes(file), file.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(file + ": " + e.getMessage(), e);
    }
  }

  static Scan parse(byte[] bytes, String name) {
    if (bytes.length % POINT_BYTES != 0) {
      long at = bytes.length - bytes.length % POINT_BYTES;
      throw new KittiFormatException(name + ": truncated point at byte offset " + at + " (" + (bytes.length - at)
          + " of " + POINT_BYTES + " bytes; file is " + bytes.length + " bytes)");
    }
    float[] v = new float[bytes.length / 4];
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(v);
    return new Scan(v);
  }

  byte[] bytes() {
    ByteBuffer b = ByteBuffer.allocate(xyzr.length * 4).order(ByteOrder.LITTLE_ENDIAN);
    b.asFloatBuffer().put(xyzr);
    return b.array();
  }

  void write(Path file) {
    try {
      Files.write(file, bytes());
    } catch (IOException e) {
      throw new UncheckedIOException(file + ": " + e.getMessage(), e);
    }
  }
}
