package io.gitm.job.output;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A file a process job writes, compared between the anchor's and the candidate's runs, and how to read it.
 *
 * @param path where the job writes it; a relative path is relative to the job's working directory
 * @param format how its bytes are read (see {@link Format})
 */
public record OutputFile(Path path, Format format) {
  /** How an output file is read for an equivalence check. */
  public enum Format {
    /**
     * By the file name's extension: {@code .npy} is {@link #NPY}, {@code .csv} is {@link #CSV}, else {@link #BYTES}.
     */
    AUTO,
    /** Opaque bytes, compared exactly under every safety class. */
    BYTES,
    /** A NumPy {@code .npy} file (format versions 1.0, 2.0, 3.0), possibly several arrays saved one after the other. */
    NPY,
    /** RFC 4180 comma-separated values: numeric cells are values, everything else must stay identical. */
    CSV,
    /** Raw little-endian IEEE 754 single-precision floats. */
    F32,
    /** Raw little-endian IEEE 754 double-precision floats. */
    F64
  }

  public OutputFile {
    if (path == null || format == null) {
      throw new IllegalArgumentException("an output file needs a path and a format");
    }
    if (path.toString().isEmpty()) {
      throw new IllegalArgumentException("an output file's path is empty");
    }
  }

  /**
   * Reads {@code PATH} or {@code PATH:FORMAT}, FORMAT being one of {@code bytes}, {@code npy}, {@code csv},
   * {@code f32}, {@code f64} (any case) after the last colon; a colon followed by anything else is part of the path,
   * and a path alone is {@link Format#AUTO}.
   */
  public static OutputFile parse(String spec) {
    if (spec == null || spec.isBlank()) {
      throw new IllegalArgumentException("an output file spec is empty; give PATH or PATH:FORMAT "
          + "(FORMAT one of bytes, npy, csv, f32, f64)");
    }
    String path = spec;
    Format format = Format.AUTO;
    int colon = spec.lastIndexOf(':');
    if (colon >= 0) {
      Format named = named(spec.substring(colon + 1));
      if (named != null) {
        path = spec.substring(0, colon);
        format = named;
      }
    }
    if (path.isBlank()) {
      throw new IllegalArgumentException("output file spec '" + spec + "' names no path before its format");
    }
    try {
      return new OutputFile(Path.of(path), format);
    } catch (InvalidPathException e) {
      throw new IllegalArgumentException("output file spec '" + spec.replaceAll("\\R", " ") + "' is not a valid path: "
          + e.getReason());
    }
  }

  private static Format named(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "bytes" -> Format.BYTES;
      case "npy" -> Format.NPY;
      case "csv" -> Format.CSV;
      case "f32" -> Format.F32;
      case "f64" -> Format.F64;
      default -> null;
    };
  }

  /** The format this file is read in: {@link #format()}, with {@link Format#AUTO} resolved by the extension. */
  public Format resolvedFormat() {
    if (format != Format.AUTO) {
      return format;
    }
    Path name = path.getFileName();
    String file = name == null ? "" : name.toString().toLowerCase(Locale.ROOT);
    if (file.endsWith(".npy")) {
      return Format.NPY;
    }
    return file.endsWith(".csv") ? Format.CSV : Format.BYTES;
  }

  /** The spec form {@link #parse} reads: {@code PATH} for {@link Format#AUTO}, else {@code PATH:format}. */
  @Override
  public String toString() {
    return format == Format.AUTO ? path.toString() : path + ":" + format.name().toLowerCase(Locale.ROOT);
  }
}
