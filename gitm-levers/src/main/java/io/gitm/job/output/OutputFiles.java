package io.gitm.job.output;

import io.gitm.workload.OutputDigest;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.dataformat.csv.CsvFactory;

/**
 * Reduces the files a process job wrote to an {@link OutputDigest}, so that the anchor's and the candidate's runs can
 * be compared: bit-identical under class-A levers, within a tolerance under class-B levers.
 *
 * <p>The digest's {@code sha256} covers every file in list order (its given name, its length, its bytes). Its
 * {@code values} are the numbers the files hold, in list order and, within a file, in file order; its
 * {@code fixedSha256} covers everything around them that must not change even under class B. Per format:
 *
 * <ul>
 *   <li>{@code .npy} (versions 1.0, 2.0, 3.0; several arrays saved one after the other are read in turn): arrays of
 *       {@code f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1} in any byte order give their elements as values, in storage
 *       order, and their dtype, shape and order to the fixed part; an array of any other dtype (complex, structured,
 *       strings, objects, dates) goes into the fixed part byte for byte, with the rest of its file.
 *   <li>CSV (RFC 4180, comma-separated): a cell that is a decimal number once trimmed, or {@code nan}, {@code inf},
 *       {@code -inf} as NumPy writes them, is a value; the fixed part gets the number of rows, each row's cell count,
 *       where the numbers are, and every other cell verbatim.
 *   <li>Raw little-endian {@code f32} or {@code f64} arrays: values only.
 *   <li>Any other file: the fixed part, byte for byte.
 * </ul>
 *
 * <p>The fixed hash is null when no file contributes to it (raw float arrays only). At most {@value #MAX_VALUES}
 * values are kept.
 */
public final class OutputFiles {
  /** The most values a digest keeps in memory (512 MiB of doubles). */
  static final long MAX_VALUES = 1L << 26;

  private static final int CHUNK = 1 << 16;
  private static final int MAX_NPY_HEADER = 1 << 20;
  private static final byte[] NPY_MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
  private static final CsvFactory CSV = new CsvFactory();
  private static final Pattern DECIMAL = Pattern.compile("[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?");
  private static final Pattern NON_FINITE = Pattern.compile("([+-]?)(nan|inf|infinity)", Pattern.CASE_INSENSITIVE);

  private OutputFiles() {}

  /** An output file that is missing or cannot be read as its format says; the message is one line naming it. */
  public static final class Unreadable extends Exception {
    Unreadable(String message) {
      super(message);
    }
  }

  /**
   * Digests {@code files}, relative paths resolved against {@code workdir}.
   *
   * @param floor the digest's {@link OutputDigest#floor()}: {@code atol / rtol} for an allclose-style comparison
   * @throws Unreadable when a file is missing, is not what its format says, or cannot be read, or when the files
   *     hold more than {@value #MAX_VALUES} values
   */
  public static OutputDigest digest(List<OutputFile> files, Path workdir, double floor) throws Unreadable {
    if (files == null || files.isEmpty() || files.stream().anyMatch(Objects::isNull)) {
      throw new IllegalArgumentException("no output files to digest (a list of files, none of them null, is needed)");
    }
    if (workdir == null) {
      throw new IllegalArgumentException("output files need a working directory to resolve against");
    }
    if (!Double.isFinite(floor) || floor <= 0) {
      throw new IllegalArgumentException("the floor of a tolerance comparison must be finite and positive, not "
          + floor);
    }
    Digests digests = new Digests();
    for (int i = 0; i < files.size(); i++) {
      digests.file(files.get(i), workdir, i < files.size() - 1);
    }
    return digests.result(floor);
  }

  /** The running state of one digest: the two hashes and the values. */
  private static final class Digests {
    final MessageDigest all = sha256();
    final MessageDigest fixed = sha256();
    final Values values = new Values();
    boolean anyFixed;

    void file(OutputFile file, Path workdir, boolean moreFiles) throws Unreadable {
      String name = file.path().toString();
      Path path = workdir.resolve(file.path());
      if (!Files.exists(path)) {
        throw new Unreadable("output file " + name + " was not written");
      }
      if (!Files.isRegularFile(path)) {
        throw new Unreadable("output file " + name + " is not a regular file");
      }
      try {
        long size = Files.size(path);
        update(all, name);
        update(all, size);
        try (Hashing hashing = new Hashing(Files.newInputStream(path), all)) {
          BufferedInputStream in = new BufferedInputStream(hashing, CHUNK);
          Reading reading = new Reading(name, size, in, moreFiles);
          switch (file.resolvedFormat()) {
            case NPY -> reading.npy();
            case CSV -> reading.csv();
            case F32 -> reading.raw(Dtype.F32, "4-byte floats");
            case F64 -> reading.raw(Dtype.F64, "8-byte floats");
            case BYTES, AUTO -> reading.exact("bytes", new byte[0]);
          }
          in.transferTo(OutputStream.nullOutputStream());
          if (hashing.count != size) {
            throw new Unreadable("output file " + name + " changed while it was read (" + size + " bytes, then "
                + hashing.count + ")");
          }
        }
      } catch (NoSuchFileException e) {
        throw new Unreadable("output file " + name + " was not written");
      } catch (IOException e) {
        throw new Unreadable("output file " + name + " could not be read: " + describe(e));
      }
    }

    OutputDigest result(double floor) {
      HexFormat hex = HexFormat.of();
      return new OutputDigest(hex.formatHex(all.digest()), values.toArray(),
          anyFixed ? hex.formatHex(fixed.digest()) : null, floor);
    }

    /** One file being read: its name for messages, its size, its stream (already hashed into {@code all}). */
    private final class Reading {
      final String name;
      final long size;
      final BufferedInputStream in;
      final boolean moreFiles;

      Reading(String name, long size, BufferedInputStream in, boolean moreFiles) {
        this.name = name;
        this.size = size;
        this.in = in;
        this.moreFiles = moreFiles;
      }

      /** The rest of the file, after {@code prefix} already read, into the fixed hash byte for byte. */
      void exact(String tag, byte[] prefix) throws IOException {
        anyFixed = true;
        update(fixed, tag);
        update(fixed, name);
        fixed.update(prefix);
        byte[] buffer = new byte[CHUNK];
        for (int n; (n = in.read(buffer)) > 0; ) {
          fixed.update(buffer, 0, n);
        }
      }

      void raw(Dtype dtype, String unit) throws IOException, Unreadable {
        if (size % dtype.size() != 0) {
          throw new Unreadable("output file " + name + " has " + size + " bytes, not a whole number of " + unit);
        }
        long count = size / dtype.size();
        values.reserve(count, moreFiles);
        long read = read(dtype, count);
        if (read < count) {
          throw new Unreadable("output file " + name + " changed while it was read (" + size + " bytes, then "
              + read * dtype.size() + ")");
        }
      }

      void npy() throws IOException, Unreadable {
        long offset = 0;
        for (int index = 1; ; index++) {
          String file = "output file " + name + (index == 1 ? "" : " (array " + index + ", at byte " + offset + ")");
          byte[] lead = in.readNBytes(8);
          if (lead.length < NPY_MAGIC.length || !Arrays.equals(lead, 0, NPY_MAGIC.length, NPY_MAGIC, 0,
              NPY_MAGIC.length)) {
            throw new Unreadable(file + " is not a .npy file: bad magic");
          }
          if (lead.length < 8) {
            throw new Unreadable(file + " is truncated: it ends inside the .npy header");
          }
          int major = lead[6] & 0xff;
          int minor = lead[7] & 0xff;
          if (major < 1 || major > 3 || minor != 0) {
            throw new Unreadable(file + " is in unsupported .npy version " + major + (minor == 0 ? "" : "." + minor));
          }
          byte[] length = in.readNBytes(major == 1 ? 2 : 4);
          if (length.length < (major == 1 ? 2 : 4)) {
            throw new Unreadable(file + " is truncated: it ends inside the .npy header");
          }
          long headerLength = major == 1
              ? ByteBuffer.wrap(length).order(ByteOrder.LITTLE_ENDIAN).getShort() & 0xffffL
              : ByteBuffer.wrap(length).order(ByteOrder.LITTLE_ENDIAN).getInt() & 0xffffffffL;
          if (headerLength > MAX_NPY_HEADER) {
            throw new Unreadable(file + " is not a .npy file: its header claims " + headerLength + " bytes");
          }
          byte[] header = in.readNBytes((int) headerLength);
          if (header.length < headerLength) {
            throw new Unreadable(file + " is truncated: its header says " + headerLength + " bytes, the file holds "
                + header.length);
          }
          offset += lead.length + length.length + header.length;
          Array array = Array.of(new String(header, major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1),
              file);
          if (array.dtype() == null) {
            exact("npy-exact", concat(lead, length, header));
            return;
          }
          anyFixed = true;
          update(fixed, "npy");
          update(fixed, name);
          update(fixed, index);
          update(fixed, array.descr());
          update(fixed, array.fortranOrder() ? 1 : 0);
          update(fixed, array.shape().size());
          for (long dimension : array.shape()) {
            update(fixed, dimension);
          }
          long count = array.count();
          int width = array.dtype().size();
          values.reserve(count, moreFiles || count < Long.MAX_VALUE / width && offset + count * width < size);
          long read = read(array.dtype(), count);
          if (read < count) {
            throw new Unreadable(file + " is truncated: header says " + count + " values, file holds " + read);
          }
          offset += count * width;
          in.mark(1);
          boolean more = in.read() >= 0;
          in.reset();
          if (!more) {
            return;
          }
        }
      }

      /** Reads up to {@code count} elements into the values (reserved already); returns how many were whole. */
      long read(Dtype dtype, long count) throws IOException {
        int width = dtype.size();
        byte[] buffer = new byte[CHUNK / width * width];
        ByteBuffer view = ByteBuffer.wrap(buffer).order(dtype.order());
        long done = 0;
        while (done < count) {
          int want = (int) Math.min(buffer.length, (count - done) * width);
          int got = in.readNBytes(buffer, 0, want);
          int whole = got / width;
          for (int k = 0; k < whole; k++) {
            values.put(dtype.at(view, k * width));
          }
          done += whole;
          if (got < want) {
            break;
          }
        }
        return done;
      }

      void csv() throws IOException, Unreadable {
        anyFixed = true;
        update(fixed, "csv");
        update(fixed, name);
        in.mark(3);
        byte[] bom = in.readNBytes(3);
        boolean hasBom = bom.length == 3 && (bom[0] & 0xff) == 0xef && (bom[1] & 0xff) == 0xbb
            && (bom[2] & 0xff) == 0xbf;
        if (!hasBom) {
          in.reset();
        }
        update(fixed, hasBom ? 1 : 0);
        long rows = 0;
        // ISO-8859-1 maps every byte to one char, so any encoding's text survives verbatim and the delimiters
        // (ASCII, never part of a UTF-8 multi-byte sequence) are found as they are.
        InputStreamReader reader = new InputStreamReader(new Unclosed(in), StandardCharsets.ISO_8859_1);
        try (JsonParser parser = CSV.createParser(ObjectReadContext.empty(), reader)) {
          int cells = 0;
          for (JsonToken token; (token = parser.nextToken()) != null; ) {
            switch (token) {
              case START_ARRAY -> cells = 0;
              case END_ARRAY -> {
                rows++;
                fixed.update((byte) 'R');
                update(fixed, cells);
              }
              case VALUE_STRING -> {
                cells++;
                String cell = parser.getString();
                if (!number(cell)) {
                  fixed.update((byte) 'T');
                  byte[] text = cell.getBytes(StandardCharsets.ISO_8859_1);
                  update(fixed, text.length);
                  fixed.update(text);
                } else {
                  fixed.update((byte) 'N');
                }
              }
              default -> throw new Unreadable("output file " + name + " is not a CSV file: unexpected " + token);
            }
          }
        } catch (JacksonException e) {
          String where = e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ")";
          throw new Unreadable("output file " + name + " is not a CSV file: " + oneLine(e.getOriginalMessage())
              + where);
        }
        update(fixed, rows);
        values.checkCap(moreFiles);
      }

      /** Adds {@code cell} to the values when it is a number; false when it is text. */
      private boolean number(String cell) throws Unreadable {
        String s = cell.trim();
        if (DECIMAL.matcher(s).matches()) {
          values.add(Double.parseDouble(s));
          return true;
        }
        Matcher m = NON_FINITE.matcher(s);
        if (m.matches()) {
          boolean nan = m.group(2).equalsIgnoreCase("nan");
          values.add(nan ? Double.NaN : m.group(1).equals("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY);
          return true;
        }
        return false;
      }
    }
  }

  /** The values of a digest, kept up to {@link #MAX_VALUES} and counted beyond. */
  private static final class Values {
    double[] data = new double[0];
    int size;
    long count;

    /** Makes room for {@code n} more values, or fails when they would pass the cap. */
    void reserve(long n, boolean more) throws Unreadable {
      if (n > MAX_VALUES - count) {
        throw tooMany(count + n, more);
      }
      grow((int) (size + n));
    }

    /** Adds a value reserved beforehand. */
    void put(double v) {
      data[size++] = v;
      count++;
    }

    /** Adds a value, growing as needed; past the cap only counts it. */
    void add(double v) {
      if (count < MAX_VALUES) {
        if (size == data.length) {
          grow((int) Math.min(MAX_VALUES, Math.max(1024, 2L * data.length)));
        }
        data[size++] = v;
      }
      count++;
    }

    void checkCap(boolean more) throws Unreadable {
      if (count > MAX_VALUES) {
        throw tooMany(count, more);
      }
    }

    private void grow(int capacity) {
      if (capacity > data.length) {
        data = Arrays.copyOf(data, capacity);
      }
    }

    double[] toArray() {
      return size == data.length ? data : Arrays.copyOf(data, size);
    }

    private static Unreadable tooMany(long n, boolean more) {
      return new Unreadable("outputs hold " + (more ? "at least " : "") + n + " values, more than the " + MAX_VALUES
          + " a tolerance comparison keeps in memory; compare a smaller output (a slice or a reduction)");
    }
  }

  /** A numeric dtype read as values: kind {@code f}, {@code i}, {@code u} or {@code b}, size in bytes, byte order. */
  private record Dtype(char kind, int size, ByteOrder order) {
    static final Dtype F32 = new Dtype('f', 4, ByteOrder.LITTLE_ENDIAN);
    static final Dtype F64 = new Dtype('f', 8, ByteOrder.LITTLE_ENDIAN);
    private static final Pattern DESCR = Pattern.compile("([<>|=])([fiub])(\\d)");

    /** The dtype a {@code .npy} descr names, or null when it is not one read as values. */
    static Dtype of(String descr) {
      Matcher m = DESCR.matcher(descr);
      if (!m.matches()) {
        return null;
      }
      char kind = m.group(2).charAt(0);
      int size = m.group(3).charAt(0) - '0';
      boolean supported = switch (kind) {
        case 'f' -> size == 2 || size == 4 || size == 8;
        case 'i', 'u' -> size == 1 || size == 2 || size == 4 || size == 8;
        default -> size == 1;
      };
      return supported
          ? new Dtype(kind, size, m.group(1).equals(">") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN)
          : null;
    }

    double at(ByteBuffer b, int i) {
      return switch (kind) {
        case 'f' -> switch (size) {
          case 2 -> Float.float16ToFloat(b.getShort(i));
          case 4 -> b.getFloat(i);
          default -> b.getDouble(i);
        };
        case 'i' -> switch (size) {
          case 1 -> b.get(i);
          case 2 -> b.getShort(i);
          case 4 -> b.getInt(i);
          default -> b.getLong(i);
        };
        case 'u' -> switch (size) {
          case 1 -> b.get(i) & 0xff;
          case 2 -> b.getShort(i) & 0xffff;
          case 4 -> b.getInt(i) & 0xffffffffL;
          default -> unsigned(b.getLong(i));
        };
        default -> b.get(i) == 0 ? 0 : 1;
      };
    }

    private static double unsigned(long v) {
      double d = v & Long.MAX_VALUE;
      return v < 0 ? d + 0x1p63 : d;
    }
  }

  /**
   * The header of one {@code .npy} array.
   *
   * @param dtype null when the descr is not read as values
   */
  private record Array(String descr, boolean fortranOrder, List<Long> shape, Dtype dtype) {
    static Array of(String header, String file) throws Unreadable {
      Object parsed;
      try {
        parsed = Literal.parse(header);
      } catch (IllegalArgumentException e) {
        throw new Unreadable(file + " is not a .npy file: malformed header (" + e.getMessage() + ")");
      }
      if (!(parsed instanceof Map<?, ?> dict)) {
        throw new Unreadable(file + " is not a .npy file: its header is not a dict");
      }
      for (String key : List.of("descr", "fortran_order", "shape")) {
        if (!dict.containsKey(key)) {
          throw new Unreadable(file + " is not a .npy file: its header lacks '" + key + "'");
        }
      }
      if (!(dict.get("fortran_order") instanceof Boolean fortran)) {
        throw new Unreadable(file + " is not a .npy file: its fortran_order is not True or False");
      }
      List<Long> shape = new ArrayList<>();
      if (dict.get("shape") instanceof List<?> dims) {
        for (Object d : dims) {
          if (!(d instanceof Long n) || n < 0) {
            shape = null;
            break;
          }
          shape.add(n);
        }
      } else {
        shape = null;
      }
      if (shape == null) {
        throw new Unreadable(file + " is not a .npy file: its shape is not a tuple of non-negative integers");
      }
      Object descr = dict.get("descr");
      Dtype dtype = descr instanceof String s ? Dtype.of(s) : null;
      Array array = new Array(String.valueOf(descr), fortran, List.copyOf(shape), dtype);
      if (dtype != null && array.count() < 0) {
        throw new Unreadable(file + " has a shape " + shape + " with more values than can be counted");
      }
      return array;
    }

    /** The number of elements, or -1 when it overflows a long. */
    long count() {
      long n = 1;
      for (long d : shape) {
        if (d != 0 && n > Long.MAX_VALUE / d) {
          return -1;
        }
        n *= d;
      }
      return n;
    }
  }

  /**
   * A reader of the Python literals a {@code .npy} header holds: dicts, tuples, lists, strings, integers,
   * {@code True}, {@code False}, {@code None}. Tuples and lists become lists, integers longs, {@code None} the
   * string {@code "None"}.
   */
  private static final class Literal {
    private final String text;
    private int at;

    private Literal(String text) {
      this.text = text;
    }

    static Object parse(String text) {
      Literal literal = new Literal(text);
      Object value = literal.value();
      literal.blank();
      if (literal.at < text.length()) {
        throw literal.error("unexpected '" + text.charAt(literal.at) + "'");
      }
      return value;
    }

    private Object value() {
      blank();
      if (at >= text.length()) {
        throw error("it ends early");
      }
      char c = text.charAt(at);
      return switch (c) {
        case '{' -> dict();
        case '(' -> sequence(')');
        case '[' -> sequence(']');
        case '\'', '"' -> string();
        default -> c == '-' || c == '+' || Character.isDigit(c) ? integer() : word();
      };
    }

    private Map<Object, Object> dict() {
      at++;
      Map<Object, Object> map = new LinkedHashMap<>();
      while (!closes('}')) {
        Object key = value();
        blank();
        expect(':');
        map.put(key, value());
        separator('}');
      }
      return map;
    }

    private List<Object> sequence(char close) {
      at++;
      List<Object> list = new ArrayList<>();
      while (!closes(close)) {
        list.add(value());
        separator(close);
      }
      return list;
    }

    /** Consumes {@code close} if it comes next. */
    private boolean closes(char close) {
      blank();
      if (at < text.length() && text.charAt(at) == close) {
        at++;
        return true;
      }
      return false;
    }

    private void separator(char close) {
      blank();
      if (at < text.length() && text.charAt(at) == ',') {
        at++;
      } else if (at >= text.length() || text.charAt(at) != close) {
        throw error("expected ',' or '" + close + "'");
      }
    }

    private String string() {
      char quote = text.charAt(at++);
      StringBuilder s = new StringBuilder();
      while (at < text.length()) {
        char c = text.charAt(at++);
        if (c == quote) {
          return s.toString();
        }
        if (c == '\\' && at < text.length()) {
          char e = text.charAt(at++);
          switch (e) {
            case 'n' -> s.append('\n');
            case 't' -> s.append('\t');
            case '\\', '\'', '"' -> s.append(e);
            default -> s.append('\\').append(e);
          }
        } else {
          s.append(c);
        }
      }
      throw error("a string is not closed");
    }

    private Long integer() {
      int start = at;
      if (text.charAt(at) == '-' || text.charAt(at) == '+') {
        at++;
      }
      while (at < text.length() && Character.isDigit(text.charAt(at))) {
        at++;
      }
      String digits = text.substring(start, at);
      if (at < text.length() && text.charAt(at) == 'L') {
        at++;
      }
      try {
        return Long.parseLong(digits);
      } catch (NumberFormatException e) {
        throw error("'" + digits + "' is not an integer");
      }
    }

    private Object word() {
      int start = at;
      while (at < text.length() && (Character.isLetterOrDigit(text.charAt(at)) || text.charAt(at) == '_')) {
        at++;
      }
      String word = text.substring(start, at);
      return switch (word) {
        case "True" -> Boolean.TRUE;
        case "False" -> Boolean.FALSE;
        case "None" -> "None";
        default -> throw error(word.isEmpty() ? "unexpected '" + text.charAt(at) + "'" : "unexpected '" + word + "'");
      };
    }

    private void expect(char c) {
      if (at >= text.length() || text.charAt(at) != c) {
        throw error("expected '" + c + "'");
      }
      at++;
    }

    private void blank() {
      while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
        at++;
      }
    }

    private IllegalArgumentException error(String what) {
      return new IllegalArgumentException(what + " at character " + at);
    }
  }

  /** Passes bytes through, adding each to a digest and counting them. */
  private static final class Hashing extends InputStream {
    private final InputStream in;
    private final MessageDigest digest;
    long count;

    Hashing(InputStream in, MessageDigest digest) {
      this.in = in;
      this.digest = digest;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        digest.update((byte) b);
        count++;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = in.read(b, off, len);
      if (n > 0) {
        digest.update(b, off, n);
        count += n;
      }
      return n;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }

  /** A stream whose close leaves the underlying stream open (the CSV parser closes what it reads). */
  private static final class Unclosed extends InputStream {
    private final InputStream in;

    Unclosed(InputStream in) {
      this.in = in;
    }

    @Override
    public int read() throws IOException {
      return in.read();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return in.read(b, off, len);
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this Java runtime has no SHA-256", e);
    }
  }

  private static byte[] concat(byte[]... parts) {
    byte[] all = new byte[Arrays.stream(parts).mapToInt(p -> p.length).sum()];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, all, at, p.length);
      at += p.length;
    }
    return all;
  }

  private static void update(MessageDigest md, String s) {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    update(md, bytes.length);
    md.update(bytes);
  }

  private static void update(MessageDigest md, long v) {
    for (int shift = 56; shift >= 0; shift -= 8) {
      md.update((byte) (v >>> shift));
    }
  }

  private static String describe(IOException e) {
    String what = e instanceof AccessDeniedException ? "permission denied" : e.getClass().getSimpleName();
    return e.getMessage() == null ? what : what + " (" + oneLine(e.getMessage()) + ")";
  }

  private static String oneLine(String s) {
    return s == null ? "" : s.strip().replaceAll("\\s*\\R\\s*", " ");
  }
}
