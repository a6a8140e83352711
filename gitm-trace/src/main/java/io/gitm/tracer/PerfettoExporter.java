package io.gitm.tracer;

import io.gitm.store.AtomicFiles;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.CollectiveRecord;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.Dim3;
import io.gitm.trace.HostOpRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.OverheadRecord;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.TraceSink;
import io.gitm.trace.TrafficRecord;
import io.gitm.trace.WorkRecord;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonEncoding;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.StreamWriteFeature;
import tools.jackson.core.json.JsonFactory;

/**
 * Exports a {@code .gtrace} file to the Chrome trace-event JSON format that Perfetto's UI (ui.perfetto.dev) and
 * chrome://tracing open. Layout:
 * <ul>
 *   <li>one process "host" with one track per host thread ("thread N": API calls and markers) and one track per thread
 *   for the tracer's own overhead ("tracer overhead (thread N)");
 *   <li>one process per device ("GPU N: NAME", with "(simulated)" for a simulated device) with one track per stream
 *   ("stream N": kernels, copies and memsets as complete slices), a "synchronization" track, and one counter track per
 *   state field, named with its unit ("SM_CLOCK (MHz)");
 *   <li>flow arrows ("s" at the call, "f" binding to the enclosing slice at the work's start, category "ac2g") from
 *   a launch, copy or memset API call to the device work with the same correlation id: one per id that has both, from
 *   its first call to its first work, so that no flow end lacks its start.
 * </ul>
 * Categories are those of the PyTorch profiler's traces: {@code kernel}, {@code gpu_memcpy}, {@code gpu_memset},
 * {@code cuda_runtime} or {@code cuda_driver} for API calls, {@code cuda_sync}, {@code user_annotation} for markers,
 * {@code overhead}.
 * Times are microseconds with three decimals (exact nanoseconds) from the earliest record of the trace; the origin is
 * kept in {@code otherData.timeOriginNs}. Track ids are assigned by the exporter, so they never collide between
 * processes. The input is read twice (once to find the origin and the flows' ids, and to check the whole file before
 * anything is written); memory stays constant beyond one entry per track and a few bytes per correlation id. The
 * output is published atomically.
 */
public final class PerfettoExporter {
  static final int HOST_PID = 1;
  private static final int FIRST_TID = 1000;
  private static final StateField[] FIELDS = StateField.values();
  /** The categories as the PyTorch profiler (Kineto) writes them, which trace readers built for it look for. */
  static final String CAT_KERNEL = "kernel";
  static final String CAT_MEMCPY = "gpu_memcpy";
  static final String CAT_MEMSET = "gpu_memset";
  static final String CAT_RUNTIME = "cuda_runtime";
  static final String CAT_DRIVER = "cuda_driver";
  static final String CAT_SYNC = "cuda_sync";
  static final String CAT_ANNOTATION = "user_annotation";
  static final String CAT_OVERHEAD = "overhead";
  /** A flow from a host call to the device work it enqueued ("async CPU to GPU"). */
  static final String CAT_FLOW = "ac2g";
  private static final JsonFactory JSON = JsonFactory.builder().disable(StreamWriteFeature.AUTO_CLOSE_TARGET).build();

  private PerfettoExporter() {}

  /** What an export wrote. */
  public record Result(long records, long events) {}

  /** Exports {@code trace} to {@code json}; a bad input leaves {@code json} as it was. */
  public static Result export(Path trace, Path json) throws IOException {
    long origin;
    long records;
    FlowLinks links = new FlowLinks();
    try (TraceReader r = TraceReader.open(trace)) {
      long[] min = {Long.MAX_VALUE};
      records = r.read(rec -> {
        min[0] = Math.min(min[0], rec.startNs());
        links.see(rec);
      });
      origin = records == 0 ? 0 : min[0];
    }
    links.seal();
    Path tmp = AtomicFiles.temporary(json);
    long events;
    try (TraceReader r = TraceReader.open(trace);
        FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE)) {
      OutputStream out = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 16);
      try (JsonGenerator g = JSON.createGenerator(ObjectWriteContext.empty(), out, JsonEncoding.UTF8)) {
        Writer w = new Writer(g, r.meta(), origin, links);
        w.begin();
        r.read(w);
        w.end();
        events = w.events;
      }
      out.flush();
      ch.force(true);
    } catch (IOException | RuntimeException e) {
      AtomicFiles.discard(tmp);
      if (e instanceof UncheckedIOException u) {
        throw u.getCause();
      }
      if (e instanceof JacksonException j) {
        throw new IOException("cannot write " + json + ": " + j.getOriginalMessage(), j);
      }
      throw e;
    }
    AtomicFiles.publish(tmp, json);
    return new Result(records, events);
  }

  /** A CUDA driver call ({@code cuLaunchKernel}) or a runtime call ({@code cudaLaunchKernel}, and any other). */
  static String apiCategory(String name) {
    return name.length() > 2 && name.startsWith("cu") && Character.isUpperCase(name.charAt(2)) ? CAT_DRIVER
        : CAT_RUNTIME;
  }

  /** Formats nanoseconds as microseconds with exactly three decimals: 1234567 → "1234.567". */
  static String micros(long ns) {
    StringBuilder sb = new StringBuilder(24);
    if (ns < 0) {
      sb.append('-');
    }
    long abs = Math.abs(ns);
    long frac = abs % 1000;
    sb.append(abs / 1000).append('.');
    if (frac < 100) {
      sb.append('0');
    }
    if (frac < 10) {
      sb.append('0');
    }
    return sb.append(frac).toString();
  }

  /** A track of the output: a process id and a thread id, assigned on first use. */
  private record Track(int pid, int tid) {}

  private record TrackKey(String kind, int device, long id) {}

  /** Writes the trace events, one or more per record, with metadata events the first time a track is used. */
  private static final class Writer implements TraceSink {
    private final JsonGenerator g;
    private final TraceMeta meta;
    private final long origin;
    private final FlowLinks links;
    private final Map<Integer, Integer> devicePids = new HashMap<>();
    private final Map<Integer, TraceDevice> devices = new TreeMap<>();
    private final Map<TrackKey, Track> tracks = new HashMap<>();
    private int nextTid = FIRST_TID;
    private long events;

    Writer(JsonGenerator g, TraceMeta meta, long origin, FlowLinks links) {
      this.g = g;
      this.meta = meta;
      this.origin = origin;
      this.links = links;
      for (TraceDevice d : meta.devices()) {
        devices.put(d.index(), d);
      }
    }

    void begin() {
      g.writeStartObject();
      g.writeStringProperty("displayTimeUnit", "ns");
      g.writeName("otherData");
      g.writeStartObject();
      g.writeStringProperty("exporter", "gitm");
      g.writeStringProperty("source", meta.source());
      g.writeStringProperty("clock", meta.clock().name());
      g.writeStringProperty("deviceKind", meta.kind().label());
      g.writeStringProperty("timeOriginNs", Long.toString(origin));
      new TreeMap<>(meta.attributes()).forEach(g::writeStringProperty);
      g.writeEndObject();
      g.writeName("traceEvents");
      g.writeStartArray();
      metadata("process_name", HOST_PID, 0, "name", "host");
      metadataNumber("process_sort_index", HOST_PID, 0, 0);
      for (int index : devices.keySet()) {
        devicePid(index);
      }
    }

    void end() {
      g.writeEndArray();
      g.writeEndObject();
    }

    @Override
    public void accept(TraceRecord record) {
      switch (record) {
        case KernelRecord k -> kernel(k);
        case CopyRecord c -> copy(c);
        case MemsetRecord m -> memset(m);
        case SyncRecord s -> sync(s);
        case ApiCallRecord a -> api(a);
        case MarkerRecord m -> marker(m);
        case OverheadRecord o -> overhead(o);
        case WorkRecord w -> {
          // declared work is analysis input, not a timeline event
        }
        case TrafficRecord t -> {
          // measured traffic is analysis input, not a timeline event
        }
        case StateSample s -> state(s);
        case HostOpRecord h -> {
          // host operations are analysis input here; the exported timeline keeps the API calls of each thread
        }
        case CollectiveRecord c -> {
          // collective metadata annotates host operations and kernels, it is not a timeline event
        }
      }
    }

    /** A kernel as a slice on its stream's track, with its launch shape, and the end of its launch's flow. */
    private void kernel(KernelRecord k) {
      Track t = stream(k.device(), k.stream());
      slice(k.name(), CAT_KERNEL, k.startNs(), k.endNs(), t);
      g.writeName("args");
      g.writeStartObject();
      deviceArgs(k.device(), k.stream(), k.correlationId());
      dim("grid", k.grid());
      dim("block", k.block());
      g.writeNumberProperty("registers per thread", k.registersPerThread());
      g.writeNumberProperty("static shared memory", k.staticSharedBytes());
      g.writeNumberProperty("dynamic shared memory", k.dynamicSharedBytes());
      g.writeEndObject();
      g.writeEndObject();
      flowEnd(k.correlationId(), k.startNs(), t);
    }

    /** A copy as a slice on its stream's track, with its bytes and bandwidth, and the end of its call's flow. */
    private void copy(CopyRecord c) {
      Track t = stream(c.device(), c.stream());
      slice(Names.copy(c.kind(), c.srcKind(), c.dstKind()), CAT_MEMCPY, c.startNs(), c.endNs(), t);
      g.writeName("args");
      g.writeStartObject();
      deviceArgs(c.device(), c.stream(), c.correlationId());
      g.writeNumberProperty("bytes", c.bytes());
      if (c.durationNs() > 0) {
        g.writeNumberProperty("memory bandwidth (GB/s)", (double) c.bytes() / c.durationNs());
      }
      g.writeEndObject();
      g.writeEndObject();
      flowEnd(c.correlationId(), c.startNs(), t);
    }

    /** A memset as a slice on its stream's track, and the end of its call's flow. */
    private void memset(MemsetRecord m) {
      Track t = stream(m.device(), m.stream());
      slice(Names.memset(m.memoryKind()), CAT_MEMSET, m.startNs(), m.endNs(), t);
      g.writeName("args");
      g.writeStartObject();
      deviceArgs(m.device(), m.stream(), m.correlationId());
      g.writeNumberProperty("bytes", m.bytes());
      g.writeNumberProperty("value", m.value());
      g.writeEndObject();
      g.writeEndObject();
      flowEnd(m.correlationId(), m.startNs(), t);
    }

    /** A synchronization as a slice on its device's synchronization track. */
    private void sync(SyncRecord s) {
      Track t = track(new TrackKey("sync", s.device(), 0), devicePid(s.device()), "synchronization",
          Integer.MAX_VALUE - 1);
      slice(Names.syncKind(s.kind()), CAT_SYNC, s.startNs(), s.endNs(), t);
      g.writeName("args");
      g.writeStartObject();
      deviceArgs(s.device(), s.stream(), s.correlationId());
      g.writeEndObject();
      g.writeEndObject();
    }

    /** An API call as a slice on its host thread, starting a flow to the device work it enqueued. */
    private void api(ApiCallRecord a) {
      Track t = thread(a.threadId());
      slice(a.name().isEmpty() ? a.kind().name() : a.name(), apiCategory(a.name()), a.startNs(), a.endNs(), t);
      g.writeName("args");
      g.writeStartObject();
      g.writeStringProperty("kind", a.kind().name());
      g.writeNumberProperty("correlation", a.correlationId());
      g.writeNumberProperty("thread", a.threadId());
      g.writeEndObject();
      g.writeEndObject();
      if (links.start(a)) {
        flow("s", a.correlationId(), a.startNs(), t);
        g.writeEndObject();
      }
    }

    /** A marker as a slice on its host thread. */
    private void marker(MarkerRecord m) {
      Track t = thread(m.threadId());
      slice(m.name(), CAT_ANNOTATION, m.startNs(), m.endNs(), t);
      g.writeEndObject();
    }

    /** A tracer-overhead interval as a slice on its thread's overhead track. */
    private void overhead(OverheadRecord o) {
      Track t = track(new TrackKey("overhead", 0, o.threadId()), HOST_PID,
          "tracer overhead (thread " + o.threadId() + ")", Integer.MAX_VALUE);
      slice(o.kind().name(), CAT_OVERHEAD, o.startNs(), o.endNs(), t);
      g.writeName("args");
      g.writeStartObject();
      g.writeNumberProperty("thread", o.threadId());
      g.writeEndObject();
      g.writeEndObject();
    }

    /** A state sample as one counter event per field it holds. */
    private void state(StateSample s) {
      int pid = devicePid(s.device());
      Track t = track(new TrackKey("state", s.device(), 0), pid, "device state", Integer.MAX_VALUE);
      double[] v = s.values();
      for (StateField f : FIELDS) {
        double x = v[f.ordinal()];
        if (Double.isFinite(x)) {
          g.writeStartObject();
          g.writeStringProperty("name", f.name() + " (" + f.unit() + ")");
          g.writeStringProperty("ph", "C");
          g.writeName("ts");
          g.writeNumber(micros(s.timeNs() - origin));
          g.writeNumberProperty("pid", t.pid());
          g.writeNumberProperty("tid", t.tid());
          g.writeName("args");
          g.writeStartObject();
          g.writeNumberProperty("value", x);
          g.writeEndObject();
          g.writeEndObject();
          events++;
        }
      }
    }

    /** Opens a complete ("X") event and writes its common fields; the caller adds args and closes it. */
    private void slice(String name, String cat, long startNs, long endNs, Track t) {
      g.writeStartObject();
      g.writeStringProperty("name", name);
      g.writeStringProperty("cat", cat);
      g.writeStringProperty("ph", "X");
      g.writeName("ts");
      g.writeNumber(micros(startNs - origin));
      g.writeName("dur");
      g.writeNumber(micros(endNs - startNs));
      g.writeNumberProperty("pid", t.pid());
      g.writeNumberProperty("tid", t.tid());
      events++;
    }

    private void deviceArgs(int device, int stream, long correlation) {
      g.writeNumberProperty("device", device);
      g.writeNumberProperty("stream", stream);
      g.writeNumberProperty("correlation", correlation);
    }

    private void dim(String name, Dim3 d) {
      g.writeName(name);
      g.writeStartArray();
      g.writeNumber(d.x());
      g.writeNumber(d.y());
      g.writeNumber(d.z());
      g.writeEndArray();
    }

    private void flowEnd(long correlation, long startNs, Track t) {
      if (links.end(correlation)) {
        flow("f", correlation, startNs, t);
        g.writeStringProperty("bp", "e");
        g.writeEndObject();
      }
    }

    /** Opens a flow event ("s" or "f"); the caller closes it. */
    private void flow(String ph, long id, long tsNs, Track t) {
      g.writeStartObject();
      g.writeStringProperty("name", CAT_FLOW);
      g.writeStringProperty("cat", CAT_FLOW);
      g.writeStringProperty("ph", ph);
      g.writeNumberProperty("id", id);
      g.writeName("ts");
      g.writeNumber(micros(tsNs - origin));
      g.writeNumberProperty("pid", t.pid());
      g.writeNumberProperty("tid", t.tid());
      events++;
    }

    private Track stream(int device, int stream) {
      return track(new TrackKey("stream", device, stream), devicePid(device), "stream " + stream, stream);
    }

    private Track thread(long threadId) {
      return track(new TrackKey("thread", 0, threadId), HOST_PID, "thread " + threadId,
          (int) Math.min(Integer.MAX_VALUE - 2, Math.max(0, threadId)));
    }

    private Track track(TrackKey key, int pid, String name, int sortIndex) {
      Track t = tracks.get(key);
      if (t == null) {
        t = new Track(pid, nextTid++);
        tracks.put(key, t);
        metadata("thread_name", pid, t.tid(), "name", name);
        metadataNumber("thread_sort_index", pid, t.tid(), sortIndex);
      }
      return t;
    }

    /** The process of a device, named on first use. */
    private int devicePid(int index) {
      Integer pid = devicePids.get(index);
      if (pid != null) {
        return pid;
      }
      int p = HOST_PID + 1 + devicePids.size();
      devicePids.put(index, p);
      TraceDevice d = devices.get(index);
      DeviceKind kind = d == null ? meta.kind() : d.kind();
      String name = "GPU " + index + (d == null || d.name().isEmpty() ? "" : ": " + d.name())
          + (kind == DeviceKind.SIMULATED ? " (simulated)" : "");
      metadata("process_name", p, 0, "name", name);
      metadataNumber("process_sort_index", p, 0, 1 + Math.max(0, index));
      return p;
    }

    private void metadata(String what, int pid, int tid, String key, String value) {
      g.writeStartObject();
      g.writeStringProperty("name", what);
      g.writeStringProperty("ph", "M");
      g.writeNumberProperty("pid", pid);
      g.writeNumberProperty("tid", tid);
      g.writeName("args");
      g.writeStartObject();
      g.writeStringProperty(key, value);
      g.writeEndObject();
      g.writeEndObject();
      events++;
    }

    private void metadataNumber(String what, int pid, int tid, int value) {
      g.writeStartObject();
      g.writeStringProperty("name", what);
      g.writeStringProperty("ph", "M");
      g.writeNumberProperty("pid", pid);
      g.writeNumberProperty("tid", tid);
      g.writeName("args");
      g.writeStartObject();
      g.writeNumberProperty("sort_index", value);
      g.writeEndObject();
      g.writeEndObject();
      events++;
    }
  }
}
