package io.gitm.cli;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The trace file formats the commands read and write, with the file names each is known by. The commands' help lists
 * them from here, and {@code analyze} picks its reader by them.
 */
enum TraceFormat {
  GTRACE("gitm trace", true, ".gtrace"),
  KINETO("PyTorch profiler (Kineto) JSON", true, ".pt.trace.json", ".json", ".json.gz"),
  NSYS("Nsight Systems export (nsys export --type sqlite)", true, ".sqlite"),
  PERFETTO("Chrome/Perfetto trace-event JSON", false, ".perfetto.json");

  private final String title;
  private final boolean readable;
  private final List<String> extensions;

  TraceFormat(String title, boolean readable, String... extensions) {
    this.title = title;
    this.readable = readable;
    this.extensions = List.of(extensions);
  }

  /** Whether {@code file}'s name ends with one of this format's extensions (case-insensitive). */
  boolean matches(Path file) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    return extensions.stream().anyMatch(name::endsWith);
  }

  /** How the help shows it: {@code gitm trace (.gtrace)}. */
  String label() {
    return title + " (" + String.join(", ", extensions) + ")";
  }

  /** The formats gitm reads, as the help lists them. */
  static final class Readable implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return labels(Arrays.stream(values()).filter(f -> f.readable));
    }
  }

  /** The formats a gitm trace is imported from. */
  static final class Importable implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return labels(Stream.of(KINETO, NSYS));
    }
  }

  /** The formats a gitm trace is exported to. */
  static final class Exportable implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return labels(Arrays.stream(values()).filter(f -> !f.readable));
    }
  }

  /** The format a gitm trace is stored in. */
  static final class Native implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return labels(Stream.of(GTRACE));
    }
  }

  private static Iterator<String> labels(Stream<TraceFormat> formats) {
    return formats.map(TraceFormat::label).iterator();
  }
}
