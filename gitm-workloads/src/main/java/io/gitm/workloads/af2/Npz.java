package io.gitm.workloads.af2;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;

/**
 * NumPy's {@code .npz} archives (what {@code numpy.savez} and {@code savez_compressed} write: a zip of {@code .npy}
 * files, stored or deflated) of floating-point arrays, read as float32: {@code <f4}/{@code >f4} as they are,
 * {@code f8} and {@code f2} converted. C order only; any other dtype, Fortran order, a bad header or a data size that
 * does not match the shape is an error naming the archive and the array.
 */
final class Npz implements AutoCloseable {
  /** One array: its shape (empty for a scalar) and its values in C order. */
  record Array(String name, int[] shape, float[] data) {
    long size() {
      long n = 1;
      for (int s : shape) {
        n *= s;
      }
      return n;
    }
  }

  private static final Pattern DESCR = Pattern.compile("'descr'\\s*:\\s*'([^']*)'");
  private static final Pattern FORTRAN = Pattern.compile("'fortran_order'\\s*:\\s*(True|False)");
  private static final Pattern SHAPE = Pattern.compile("'shape'\\s*:\\s*\\(([^)]*)\\)");

  private final Path file;
  private final ZipFile zip;

  private Npz(Path file, ZipFile zip) {
    this.file = file;
    this.zip = zip;
  }

  static Npz open(Path file) {
    try {
      return new Npz(file, new ZipFile(file.toFile()));
    } catch (ZipException e) {
      throw new IllegalArgumentException(file + " is not an .npz archive (not a zip file: " + e.getMessage() + ")");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  /** The names of the arrays in the archive (entry names without {@code .npy}), in archive order. */
  List<String> names() {
    List<String> out = new ArrayList<>();
    zip.stream().map(ZipEntry::getName).filter(n -> n.endsWith(".npy"))
        .forEach(n -> out.add(n.substring(0, n.length() - 4)));
    return out;
  }

  boolean has(String name) {
    return zip.getEntry(name + ".npy") != null;
  }

  /** The array {@code name}; fails when the archive has none. */
  Array read(String name) {
    ZipEntry e = zip.getEntry(name + ".npy");
    if (e == null) {
      throw new IllegalArgumentException(file + " has no array '" + name + "'");
    }
    try (InputStream in = zip.getInputStream(e)) {
      return parse(name, in.readAllBytes(), file.toString());
    } catch (IOException ex) {
      throw new UncheckedIOException("cannot read '" + name + "' from " + file + ": " + ex.getMessage(), ex);
    }
  }

  /** Every array of the archive. */
  Map<String, Array> readAll() {
    Map<String, Array> out = new LinkedHashMap<>();
    for (String n : names()) {
      out.put(n, read(n));
    }
    return out;
  }

  /** One {@code .npy} file's bytes, read as float32. */
  static Array parse(String name, byte[] bytes, String source) {
    String where = source + ": array '" + name + "'";
    if (bytes.length < 10 || (bytes[0] & 0xff) != 0x93 || !new String(bytes, 1, 5, StandardCharsets.US_ASCII)
        .equals("NUMPY")) {
      throw new IllegalArgumentException(where + " is not a .npy array (no \\x93NUMPY magic)");
    }
    int major = bytes[6] & 0xff;
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    int headerLength;
    int at;
    if (major == 1) {
      headerLength = b.getShort(8) & 0xffff;
      at = 10;
    } else if (major == 2 || major == 3) {
      if (bytes.length < 12) {
        throw new IllegalArgumentException(where + " is truncated in its header");
      }
      headerLength = b.getInt(8);
      at = 12;
    } else {
      throw new IllegalArgumentException(where + " has .npy format version " + major + ", not 1, 2 or 3");
    }
    if (headerLength < 0 || at + headerLength > bytes.length) {
      throw new IllegalArgumentException(where + " is truncated in its header");
    }
    String header = new String(bytes, at, headerLength, major == 3 ? StandardCharsets.UTF_8
        : StandardCharsets.ISO_8859_1);
    Matcher d = DESCR.matcher(header);
    Matcher f = FORTRAN.matcher(header);
    Matcher s = SHAPE.matcher(header);
    if (!d.find() || !f.find() || !s.find()) {
      throw new IllegalArgumentException(where + " has a header without descr, fortran_order and shape: "
          + header.strip());
    }
    if (f.group(1).equals("True")) {
      throw new IllegalArgumentException(where + " is in Fortran order; only C-order arrays are read");
    }
    int[] shape = shape(s.group(1), where);
    String descr = d.group(1);
    int width;
    ByteOrder order;
    switch (descr) {
      case "<f4", "=f4" -> { width = 4; order = ByteOrder.LITTLE_ENDIAN; }
      case ">f4" -> { width = 4; order = ByteOrder.BIG_ENDIAN; }
      case "<f8", "=f8" -> { width = 8; order = ByteOrder.LITTLE_ENDIAN; }
      case ">f8" -> { width = 8; order = ByteOrder.BIG_ENDIAN; }
      case "<f2", "=f2" -> { width = 2; order = ByteOrder.LITTLE_ENDIAN; }
      case ">f2" -> { width = 2; order = ByteOrder.BIG_ENDIAN; }
      default -> throw new IllegalArgumentException(where + " has dtype '" + descr + "'; parameters must be float16, "
          + "float32 or float64");
    }
    long count = 1;
    for (int x : shape) {
      count *= x;
    }
    int data = at + headerLength;
    long have = bytes.length - (long) data;
    if (count > Integer.MAX_VALUE || have != count * width) {
      throw new IllegalArgumentException(where + " holds " + have + " bytes of data but its shape "
          + Arrays.toString(shape) + " of " + descr + " needs " + count * width);
    }
    float[] out = new float[(int) count];
    ByteBuffer v = ByteBuffer.wrap(bytes, data, bytes.length - data).slice().order(order);
    switch (width) {
      case 4 -> v.asFloatBuffer().get(out);
      case 8 -> {
        for (int i = 0; i < out.length; i++) {
          out[i] = (float) v.getDouble(8 * i);
        }
      }
      default -> {
        for (int i = 0; i < out.length; i++) {
          out[i] = Float.float16ToFloat(v.getShort(2 * i));
        }
      }
    }
    return new Array(name, shape, out);
  }

  private static int[] shape(String text, String where) {
    String t = text.strip();
    if (t.isEmpty()) {
      return new int[0];
    }
    List<Integer> dims = new ArrayList<>();
    for (String part : t.split(",")) {
      String p = part.strip().replaceFirst("L$", "");
      if (p.isEmpty()) {
        continue;
      }
      try {
        int v = Integer.parseInt(p);
        if (v < 0) {
          throw new NumberFormatException();
        }
        dims.add(v);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(where + " has a bad shape (" + text + ")");
      }
    }
    return dims.stream().mapToInt(Integer::intValue).toArray();
  }

  @Override
  public void close() {
    try {
      zip.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close " + file + ": " + e.getMessage(), e);
    }
  }
}
