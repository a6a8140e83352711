package io.gitm.nvidia.cupti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.device.DeviceProvider.Probe;
import io.gitm.device.EventTracer;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.TraceSink;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A scoped capture starts the tracer, writes every record to the file sink, and stops before closing the file. */
class TracingTest {
  /** Emits one record as soon as it starts (as CUPTI may, before the file is open), one per flush, one at stop. */
  static final class FakeTracer implements EventTracer {
    final List<String> calls = new ArrayList<>();
    TraceSink sink;
    int n;

    @Override
    public Probe availability() {
      return Probe.ok("fake", 1);
    }

    @Override
    public TraceMeta meta() {
      calls.add("meta");
      return new TraceMeta("fake", ClockDomain.HOST_MONOTONIC, List.of(), Map.of("clock.offsetNs", "7"));
    }

    @Override
    public void start(TraceSink sink) {
      calls.add("start");
      this.sink = sink;
      emit();
    }

    void emit() {
      n++;
      sink.accept(new MarkerRecord("r" + n, 1, n, n));
    }

    @Override
    public void flush() {
      calls.add("flush");
      emit();
    }

    @Override
    public void stop() {
      calls.add("stop");
      emit();
    }
  }

  static final class ListFile implements Tracing.FileSink {
    final List<TraceRecord> records = new ArrayList<>();
    final List<String> calls;
    final TraceMeta meta;

    ListFile(List<String> calls, TraceMeta meta) {
      this.calls = calls;
      this.meta = meta;
    }

    @Override
    public void accept(TraceRecord record) {
      records.add(record);
    }

    @Override
    public void close() {
      calls.add("file closed");
    }
  }

  @Test
  void recordsFromBeforeTheFileOpensAreWrittenFirstAndTheFileClosesAfterStop() throws Exception {
    FakeTracer t = new FakeTracer();
    List<ListFile> files = new ArrayList<>();
    try (var capture = Tracing.capture(t, Path.of("x.gtrace"), (out, meta) -> {
      ListFile f = new ListFile(t.calls, meta);
      files.add(f);
      return f;
    })) {
      capture.flush();
    }
    ListFile f = files.getFirst();
    assertThat(f.meta.attributes()).containsEntry("clock.offsetNs", "7");
    assertThat(f.records).extracting(r -> ((MarkerRecord) r).name()).containsExactly("r1", "r2", "r3");
    assertThat(t.calls).containsExactly("start", "meta", "flush", "stop", "file closed");
  }

  @Test
  void aFileThatCannotBeOpenedStopsTheTracer() {
    FakeTracer t = new FakeTracer();
    assertThatThrownBy(() -> Tracing.capture(t, Path.of("x"), (out, meta) -> {
      throw new IOException("disk full");
    })).isInstanceOf(IOException.class).hasMessage("disk full");
    assertThat(t.calls).containsExactly("start", "meta", "stop");
  }

  @Test
  void aSinkCaptureStopsOnClose() {
    FakeTracer t = new FakeTracer();
    List<TraceRecord> got = new ArrayList<>();
    try (var c = Tracing.capture(t, got::add)) {
      assertThat(got).hasSize(1);
    }
    assertThat(t.calls).containsExactly("start", "stop");
    assertThat(got).hasSize(2);
  }
}
