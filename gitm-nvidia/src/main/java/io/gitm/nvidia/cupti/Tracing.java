package io.gitm.nvidia.cupti;

import io.gitm.device.EventTracer;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.TraceSink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Scoped tracing: {@code try (var trace = Tracing.capture(tracer, out, files)) { … }} traces the block and writes
 * the records to {@code out} through a file sink (the {@code .gtrace} writer, supplied by the caller); closing
 * stops the tracer, then closes the file.
 */
public final class Tracing {
  private Tracing() {
  }

  /** A sink that writes a trace file; closing it completes the file. */
  public interface FileSink extends TraceSink, AutoCloseable {
    @Override
    void close() throws IOException;
  }

  /** Opens a file sink for {@code out} whose header carries {@code meta}. */
  @FunctionalInterface
  public interface FileSinkFactory {
    FileSink open(Path out, TraceMeta meta) throws IOException;
  }

  /** Starts {@code tracer} into {@code sink}; closing the capture stops it. */
  public static Capture capture(EventTracer tracer, TraceSink sink) {
    Objects.requireNonNull(tracer, "tracer");
    Objects.requireNonNull(sink, "sink");
    tracer.start(sink);
    return new Capture(tracer, null);
  }

  /**
   * Starts {@code tracer} and writes its records to {@code out}. The file is opened once tracing has started, so
   * that its meta carries the clock alignment measured at start; records that arrive in between are held and
   * written first.
   */
  public static Capture capture(EventTracer tracer, Path out, FileSinkFactory files) throws IOException {
    Objects.requireNonNull(out, "out");
    Objects.requireNonNull(files, "files");
    Deferred deferred = new Deferred();
    tracer.start(deferred);
    FileSink file;
    try {
      file = files.open(out, tracer.meta());
    } catch (IOException | RuntimeException e) {
      tracer.stop();
      throw e;
    }
    deferred.attach(file);
    return new Capture(tracer, file);
  }

  /** A running capture. */
  public static final class Capture implements AutoCloseable {
    private final EventTracer tracer;
    private final FileSink file;
    private boolean closed;

    private Capture(EventTracer tracer, FileSink file) {
      this.tracer = tracer;
      this.file = file;
    }

    /** Delivers every record buffered so far. */
    public void flush() {
      tracer.flush();
    }

    /** Stops tracing (delivering the last records), then closes the file; an I/O failure is unchecked. */
    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      try {
        tracer.stop();
      } finally {
        if (file != null) {
          try {
            file.close();
          } catch (IOException e) {
            throw new UncheckedIOException("closing the trace file failed: " + e.getMessage(), e);
          }
        }
      }
    }
  }

  /** Holds records until the real sink is attached, then passes them through. */
  static final class Deferred implements TraceSink {
    private final List<TraceRecord> held = new ArrayList<>();
    private volatile TraceSink target;

    @Override
    public void accept(TraceRecord record) {
      TraceSink t = target;
      if (t != null) {
        t.accept(record);
        return;
      }
      synchronized (this) {
        if (target == null) {
          held.add(record);
          return;
        }
      }
      target.accept(record);
    }

    synchronized void attach(TraceSink sink) {
      for (TraceRecord r : held) {
        sink.accept(r);
      }
      held.clear();
      target = sink;
    }
  }
}
