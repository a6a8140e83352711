package io.gitm.workloads.af2;

import io.gitm.api.Ticker;
import io.gitm.device.Blas;
import io.gitm.device.Device;
import io.gitm.device.DeviceMemory;
import io.gitm.device.Event;
import io.gitm.device.GraphExec;
import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.Kernel;
import io.gitm.device.KernelDef;
import io.gitm.device.MathMode;
import io.gitm.device.Module;
import io.gitm.device.Stream;
import io.gitm.trace.Work;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.ExecutionConfig.Allocation;
import io.gitm.workload.IterationResult;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import io.gitm.workloads.af2.Program.Buf;
import io.gitm.workloads.af2.Program.Kind;
import io.gitm.workloads.af2.Program.Op;
import io.gitm.workloads.kit.Closer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run of af2 on a device under an {@link ExecutionConfig}. Each step is one inference of the same input: the
 * integer features are copied to the device, the {@link Program} runs, the single and pair representations are copied
 * back. The configuration decides how: host staging memory, synchronous or queued copies, what a temporary's
 * allocation is ({@code cuMemAlloc}/{@code cuMemFree} at each, the stream-ordered pool, or a workspace slot per
 * temporary made at open), how many streams the forked lanes spread over, whether the whole inference is captured
 * once as a graph and replayed, the cuBLAS math mode, the attention variant ({@code full}, or {@code chunked}: a few
 * rows of logits at a time).
 */
final class Af2Session implements Workload.Session {
  private final Device device;
  private final ExecutionConfig cfg;
  private final Ticker clock;
  private final Features features;
  private final Evoformer model;
  private final Program program;
  private final Map<KernelDef, Kernel> kernels = new HashMap<>();
  private final boolean ownMain;
  private final List<Stream> side = new ArrayList<>();
  private final List<Event> joinEvents = new ArrayList<>();
  private final DeviceMemory[] mem;
  private final Map<String, DeviceMemory> slots = new LinkedHashMap<>();
  private final boolean profile;
  private final Map<String, double[]> kernelMillis = new LinkedHashMap<>();
  private final List<Event[]> marks = new ArrayList<>();
  // made in the constructor; null until then (a failed open closes what was made)
  private Module module;
  private Stream main;
  private Event forkEvent;
  private Event copied;
  private HostMemory input;
  private HostMemory singleOut;
  private HostMemory pairOut;
  private GraphExec graph;
  private long live;
  private long peak;
  private long iterations;
  private boolean closed;

  /** Rejects configurations af2 cannot honour, with the reason. */
  static void check(ExecutionConfig c) {
    for (Map.Entry<String, String> v : c.kernelVariants().entrySet()) {
      if (!v.getKey().equals(Af2Workload.ATTENTION_FAMILY)) {
        throw new IllegalArgumentException("af2 has kernel variants for " + Af2Workload.ATTENTION_FAMILY
            + " only, got '" + v.getKey() + "'");
      }
      if (!Af2Workload.ATTENTION_VARIANTS.contains(v.getValue())) {
        throw new IllegalArgumentException("af2: " + Af2Workload.ATTENTION_FAMILY + " variant '" + v.getValue()
            + "' unknown: use one of " + Af2Workload.ATTENTION_VARIANTS);
      }
    }
    if (c.copyComputeOverlap()) {
      throw new IllegalArgumentException("af2 runs one inference at a time: copyComputeOverlap has nothing to overlap"
          + " (not honoured)");
    }
    if (c.batchCoalesce() != 1) {
      throw new IllegalArgumentException("af2 infers one alignment per step: batchCoalesce must be 1, got "
          + c.batchCoalesce());
    }
    if (c.blockSize() != 0) {
      throw new IllegalArgumentException("af2 sizes its own launches: blockSize must be 0, got " + c.blockSize());
    }
    if (c.l2PersistBytes() != 0 || c.latencyStreamPriority() != 0) {
      throw new IllegalArgumentException("af2 does not honour an L2 persisting window or a stream priority");
    }
    if (c.sharedCarveoutPercent() != -1) {
      throw new IllegalArgumentException("af2's attention and triangle kernels size their shared memory themselves:"
          + " a shared-memory carve-out is not honoured, got " + c.sharedCarveoutPercent() + "%");
    }
    if (c.graphCapture()) {
      if (c.allocation() != Allocation.PREALLOCATED) {
        throw new IllegalArgumentException("af2: graphCapture needs PREALLOCATED allocation (a graph replays fixed"
            + " buffers), got " + c.allocation());
      }
      if (c.streams() != 1) {
        throw new IllegalArgumentException("af2: graphCapture captures one stream; it cannot be combined with "
            + c.streams() + " streams");
      }
    }
  }

  /** With {@code profile}, every launch and GEMM is bracketed by timing events (a separate, slower pass). */
  Af2Session(Device device, ExecutionConfig cfg, Weights weights, Features features, int chunkRows, boolean profile) {
    check(cfg);
    if (profile && cfg.graphCapture()) {
      throw new IllegalArgumentException("af2: per-kernel profiling cannot look inside a captured graph");
    }
    this.device = device;
    this.cfg = cfg;
    this.clock = device.clock();
    this.features = features;
    this.profile = profile;
    boolean chunked = cfg.kernelVariants().getOrDefault(Af2Workload.ATTENTION_FAMILY, "full").equals("chunked");
    this.model = new Evoformer(weights, features.nRes(), features.nSeq(), chunked ? chunkRows : 0);
    this.program = model.program();
    this.mem = new DeviceMemory[program.bufs().size()];
    ownMain = cfg.streams() > 1 || cfg.graphCapture();
    try {
      module = device.load(Af2Kernels.MODULE);
      for (KernelDef def : Af2Kernels.MODULE.kernels()) {
        kernels.put(def, module.kernel(def.entry()));
      }
      main = ownMain ? device.createStream(0) : device.defaultStream();
      for (int i = 1; i < cfg.streams(); i++) {
        side.add(device.createStream(0));
        joinEvents.add(device.createEvent(false));
      }
      forkEvent = device.createEvent(false);
      copied = device.createEvent(false);
      if (cfg.allocation() == Allocation.POOL) {
        device.defaultPool().setReleaseThreshold(cfg.poolReleaseThresholdBytes());
      }
      for (Buf b : program.bufs()) {
        if (b.kind != Kind.TEMP) {
          mem[b.id] = device.malloc(b.bytes);
          live += b.bytes;
        }
      }
      upload(program.bufs());
      if (cfg.allocation() == Allocation.PREALLOCATED) {
        Map<String, Long> sizes = new LinkedHashMap<>();
        for (Buf b : program.bufs()) {
          if (b.kind == Kind.TEMP) {
            sizes.merge(b.tag, b.bytes, Math::max);
          }
        }
        for (Map.Entry<String, Long> e : sizes.entrySet()) {
          slots.put(e.getKey(), device.malloc(e.getValue()));
          live += e.getValue();
        }
      }
      long sr = (long) features.nSeq() * features.nRes();
      input = device.allocHost(4 * (2 * sr + features.nRes()), cfg.hostMemory());
      input.buffer().order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().put(features.msa()).put(features.deletions())
          .put(features.aatype());
      singleOut = device.allocHost(model.single().bytes, cfg.hostMemory());
      pairOut = device.allocHost(model.pair().bytes, cfg.hostMemory());
    } catch (RuntimeException e) {
      closed = true;
      try {
        release();
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    peak = live;
    if (cfg.warmup()) {
      infer();
    }
  }

  /** Copies every parameter's values to its device buffer (synchronously, through one pageable staging buffer). */
  private void upload(List<Buf> bufs) {
    long most = bufs.stream().filter(b -> b.kind == Kind.PARAM).mapToLong(b -> b.bytes).max().orElse(0);
    if (most == 0) {
      return;
    }
    try (HostMemory h = device.allocHost(most, HostMemoryKind.PAGEABLE)) {
      for (Buf b : bufs) {
        if (b.kind == Kind.PARAM) {
          h.buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().put(b.values);
          device.copy(mem[b.id], 0, h, 0, b.bytes);
          device.synchronize(); // a pageable copy may return before its DMA lands, and h is reused
        }
      }
    }
  }

  @Override
  public boolean hasNext() {
    return !closed;
  }

  @Override
  public IterationResult step() {
    ensureOpen();
    long t0 = clock.nanos();
    long peakBytes = infer();
    long t1 = clock.nanos();
    iterations++;
    Map<String, Double> extras = new LinkedHashMap<>();
    extras.put("peakDeviceBytes", (double) peakBytes);
    return new IterationResult(t1 - t0, features.nRes(), extras);
  }

  /** One inference, start to end (its outputs in the host buffers); returns the most device bytes held meanwhile. */
  private long infer() {
    Blas blas = device.blas();
    MathMode before = blas.mathMode();
    blas.setMathMode(cfg.mathMode());
    peak = live;
    try {
      if (cfg.graphCapture()) {
        // the copies join the graph when they can be captured (queued, from pinned memory); else they run around it
        boolean copiesInGraph = cfg.asyncCopies() && cfg.hostMemory() == HostMemoryKind.PINNED;
        if (!copiesInGraph) {
          copyIn();
        }
        if (graph == null) {
          device.beginCapture(main);
          boolean captured = false;
          try {
            if (copiesInGraph) {
              copyIn();
            }
            run(blas);
            if (copiesInGraph) {
              copyOut();
            }
            captured = true;
          } finally {
            GraphExec g = device.endCapture(main);
            if (captured) {
              graph = g;
            } else {
              g.close();
            }
          }
        }
        device.launchGraph(graph, main);
        if (copiesInGraph) {
          main.synchronize();
        } else {
          copyOut();
        }
      } else {
        copyIn();
        run(blas);
        copyOut();
      }
    } finally {
      blas.setMathMode(before);
    }
    if (profile) {
      accumulateProfile();
    }
    return peak;
  }

  private void copyIn() {
    long sr = (long) features.nSeq() * features.nRes();
    long[] at = {0, 4 * sr, 8 * sr};
    Buf[] to = {model.msa(), model.deletions(), model.aatype()};
    for (int i = 0; i < 3; i++) {
      if (cfg.asyncCopies()) {
        device.copyAsync(mem[to[i].id], 0, input, at[i], to[i].bytes, main);
      } else {
        device.copy(mem[to[i].id], 0, input, at[i], to[i].bytes);
      }
    }
    if (!cfg.asyncCopies() && main != device.defaultStream()) {
      // a synchronous copy runs on the legacy stream and, from pageable memory, may return before its DMA lands
      copied.record(device.defaultStream());
      main.waitEvent(copied);
    }
  }

  private void copyOut() {
    Buf single = model.single();
    Buf pair = model.pair();
    if (cfg.asyncCopies()) {
      device.copyAsync(singleOut, 0, mem[single.id], 0, single.bytes, main);
      device.copyAsync(pairOut, 0, mem[pair.id], 0, pair.bytes, main);
      if (graph != null || !cfg.graphCapture()) {
        main.synchronize();
      }
    } else {
      main.synchronize();
      device.copy(singleOut, 0, mem[single.id], 0, single.bytes);
      device.copy(pairOut, 0, mem[pair.id], 0, pair.bytes);
    }
  }

  private Stream stream(int lane) {
    return lane == 0 || side.isEmpty() ? main : side.get((lane - 1) % side.size());
  }

  /** Queues the program's operations. */
  private void run(Blas blas) {
    int forkLanes = 0;
    List<Op> ops = program.ops();
    for (int i = 0; i < ops.size(); i++) {
      Op op = ops.get(i);
      switch (op) {
        case Program.Alloc a -> allocate(a.buf(), stream(a.lane()));
        case Program.Free f -> release(f.buf(), stream(f.lane()));
        case Program.Launch l -> {
          Stream s = stream(l.lane());
          Event[] e = mark(i, s, true);
          device.launch(kernels.get(l.kernel()), l.launch(), s, resolve(l.args()));
          mark(e, s);
        }
        case Program.Gemm g -> {
          Stream s = stream(g.lane());
          Event[] e = mark(i, s, true);
          blas.sgemm(s, g.transA(), g.transB(), g.m(), g.n(), g.k(), 1.0f, mem[g.a().id], g.lda(), mem[g.b().id],
              g.ldb(), 0.0f, mem[g.c().id], g.ldc());
          mark(e, s);
        }
        case Program.Fork f -> {
          forkLanes = Math.min(f.lanes() - 1, side.size());
          if (forkLanes > 0) {
            forkEvent.record(main);
            for (int k = 0; k < forkLanes; k++) {
              side.get(k).waitEvent(forkEvent);
            }
          }
        }
        case Program.Join j -> {
          for (int k = 0; k < forkLanes; k++) {
            joinEvents.get(k).record(side.get(k));
            main.waitEvent(joinEvents.get(k));
          }
          forkLanes = 0;
        }
      }
    }
  }

  private Object[] resolve(Object[] args) {
    Object[] out = args.clone();
    for (int i = 0; i < out.length; i++) {
      if (out[i] instanceof Buf b) {
        DeviceMemory d = mem[b.id];
        if (d == null) {
          throw new IllegalStateException("af2: " + b + " used while not allocated");
        }
        out[i] = d;
      }
    }
    return out;
  }

  private void allocate(Buf b, Stream s) {
    switch (cfg.allocation()) {
      case PER_BATCH -> mem[b.id] = device.malloc(b.bytes);
      case POOL -> mem[b.id] = device.mallocAsync(b.bytes, s);
      case PREALLOCATED -> {
        mem[b.id] = slots.get(b.tag);
        return;
      }
    }
    live += b.bytes;
    peak = Math.max(peak, live);
  }

  private void release(Buf b, Stream s) {
    DeviceMemory d = mem[b.id];
    mem[b.id] = null;
    if (d == null || cfg.allocation() == Allocation.PREALLOCATED) {
      return;
    }
    if (d.pooled()) {
      device.freeAsync(d, s);
    } else {
      d.close();
    }
    live -= b.bytes;
  }

  // ---------------------------------------------------------------------------------------------- profiling

  private Event[] mark(int op, Stream s, boolean start) {
    if (!profile) {
      return null;
    }
    while (marks.size() <= op) {
      marks.add(null);
    }
    Event[] e = marks.get(op);
    if (e == null) {
      e = new Event[] {device.createEvent(true), device.createEvent(true)};
      marks.set(op, e);
    }
    e[0].record(s);
    return e;
  }

  private void mark(Event[] e, Stream s) {
    if (e != null) {
      e[1].record(s);
    }
  }

  private void accumulateProfile() {
    device.synchronize();
    List<Op> ops = program.ops();
    for (int i = 0; i < ops.size() && i < marks.size(); i++) {
      Event[] e = marks.get(i);
      if (e == null) {
        continue;
      }
      Op op = ops.get(i);
      String name;
      Work w;
      if (op instanceof Program.Launch l) {
        name = l.kernel().entry();
        w = l.kernel().work().apply(l.launch(), l.args());
      } else {
        Program.Gemm g = (Program.Gemm) op;
        name = "sgemm";
        w = Blas.work(g.m(), g.n(), g.k(), 0f, cfg.mathMode());
      }
      double[] acc = kernelMillis.computeIfAbsent(name, x -> new double[5]);
      acc[0] += e[1].elapsedMillisSince(e[0]);
      acc[1] += 1;
      acc[2] += w.flops();
      acc[3] += w.bytesRead();
      acc[4] += w.bytesWritten();
    }
  }

  /** Per kernel (GEMMs as {@code sgemm}), from the profiling pass: device ms, launches, flops, bytes read, written. */
  Map<String, double[]> kernelMillis() {
    return kernelMillis;
  }

  Program program() {
    return program;
  }

  // ------------------------------------------------------------------------------------------------- output

  /** The single representation of the last inference, {@code [N_res][c_s]}. */
  float[] single() {
    float[] out = new float[(int) (model.single().bytes / 4)];
    singleOut.buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
    return out;
  }

  /** The pair representation of the last inference, {@code [N_res][N_res][c_z]}. */
  float[] pair() {
    float[] out = new float[(int) (model.pair().bytes / 4)];
    pairOut.buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
    return out;
  }

  @Override
  public OutputDigest output() {
    ensureOpen();
    if (iterations == 0 && !cfg.warmup()) {
      return Af2Output.digest(new float[0], new float[0], 0, 0);
    }
    return Af2Output.digest(single(), pair(), features.nRes(), (int) (model.pair().bytes / 4 / features.nRes()
        / features.nRes()));
  }

  long iterations() {
    return iterations;
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("af2 session is closed");
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    release();
  }

  /** Frees everything the session holds; what fails to close is raised after the rest is closed. */
  private void release() {
    Closer all = new Closer();
    all.add(() -> device.synchronize());
    all.add(graph);
    for (int i = 0; i < mem.length; i++) {
      DeviceMemory d = mem[i];
      mem[i] = null;
      if (d != null && !slots.containsValue(d)) {
        all.add(d);
      }
    }
    all.addAll(slots.values());
    all.add(input);
    all.add(singleOut);
    all.add(pairOut);
    for (Event[] e : marks) {
      if (e != null) {
        all.add(e[0]);
        all.add(e[1]);
      }
    }
    all.add(forkEvent);
    all.add(copied);
    all.addAll(joinEvents);
    all.add(() -> device.synchronize());
    all.addAll(side);
    if (ownMain) {
      all.add(main);
    }
    all.add(module);
    try {
      all.close();
    } finally {
      slots.clear();
    }
  }
}
