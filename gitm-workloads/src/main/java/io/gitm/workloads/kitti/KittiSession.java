package io.gitm.workloads.kitti;

import io.gitm.api.Ticker;
import io.gitm.device.Device;
import io.gitm.device.DeviceMemory;
import io.gitm.device.Event;
import io.gitm.device.GraphExec;
import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.Kernel;
import io.gitm.device.LaunchConfig;
import io.gitm.device.Module;
import io.gitm.device.Stream;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.ExecutionConfig.Allocation;
import io.gitm.workload.IterationResult;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import io.gitm.workloads.kit.Closer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * One run of kitti on a device under an {@link ExecutionConfig}. Each step is one frame (the dataset's frames in turn):
 * the scan, padded to the session's point capacity with cropped (NaN) points so that every launch has the same shape,
 * is staged in a host buffer and copied to the device, the detector runs, the detections are copied back. The
 * configuration decides the host buffers (pageable or pinned), the copy (synchronous, or queued on the compute stream,
 * or with two streams and queued copies prefetched: the next frame's copy runs on a copy stream while this frame
 * computes, into the other of two input buffers), the per-frame device buffers (allocated and freed every frame, from
 * the stream-ordered pool, or once at open), the block size of the two scatter kernels, and whether a frame's work is
 * captured once as a graph (one per input buffer when prefetching) and replayed.
 */
final class KittiSession implements Workload.Session {
  /** A per-frame device buffer: its name and size in bytes. */
  private record Temp(String name, long bytes) {
  }

  private final Device device;
  private final ExecutionConfig cfg;
  private final Ticker clock;
  private final KittiWorkload.Params p;
  private final KittiWeights weights;
  private final Frames scans;
  private final BiConsumer<Integer, Detections> sink;
  private final Grid grid;
  private final int capacity;
  private final int nx;
  private final int ny;
  private final int cells;
  private final int h1;
  private final int w1;
  private final int h2;
  private final int w2;
  private final int scatterBlock;
  private final boolean prefetch;
  private final boolean ownMain;
  private final List<Temp> temps = new ArrayList<>();
  private final Map<String, DeviceMemory> mem = new LinkedHashMap<>();
  private final Map<String, Kernel> kernels = new LinkedHashMap<>();
  private final List<DeviceMemory> params = new ArrayList<>();
  private final TreeMap<Integer, byte[]> lastOutput = new TreeMap<>();
  private final List<Long> latencies = new ArrayList<>();
  private final long[] issuedAt = new long[2];
  // made in the constructor; null until then (a failed open closes what was made)
  private Module module;
  private Stream main;
  private Stream copyStream;
  private final HostMemory[] staging = new HostMemory[2];
  private final DeviceMemory[] input = new DeviceMemory[2];
  private final Event[] copyDone = new Event[2];
  private final Event[] computeDone = new Event[2];
  private final boolean[] copyRecorded = new boolean[2];
  private final boolean[] computeRecorded = new boolean[2];
  private HostMemory outHost;
  /** The captured frame per input buffer (one without prefetch, one per buffer with it). */
  private final GraphExec[] graphs = new GraphExec[2];
  private long frame;
  private boolean queued;
  private boolean closed;

  /** Rejects configurations kitti cannot honour, with the reason. */
  static void check(ExecutionConfig c) {
    if (!c.kernelVariants().isEmpty()) {
      throw new IllegalArgumentException("kitti ships no kernel variants, got " + c.kernelVariants().keySet());
    }
    if (c.copyComputeOverlap()) {
      throw new IllegalArgumentException("kitti overlaps copies by prefetching the next frame (streams=2 with async"
          + " copies): copyComputeOverlap is not honoured");
    }
    if (c.batchCoalesce() != 1) {
      throw new IllegalArgumentException("kitti detects one frame per step: batchCoalesce must be 1, got "
          + c.batchCoalesce());
    }
    if (c.streams() > 2) {
      throw new IllegalArgumentException("kitti uses one stream, or two to prefetch the next frame: streams must be 1"
          + " or 2, got " + c.streams());
    }
    if (c.streams() == 2 && !c.asyncCopies()) {
      throw new IllegalArgumentException("kitti: a second stream prefetches the next frame with queued copies:"
          + " streams=2 needs asyncCopies");
    }
    if (c.l2PersistBytes() != 0 || c.latencyStreamPriority() != 0 || c.sharedCarveoutPercent() != -1) {
      throw new IllegalArgumentException("kitti does not honour an L2 persisting window, a stream priority or a"
          + " shared-memory carve-out");
    }
    if (c.mathMode() != io.gitm.device.MathMode.DEFAULT) {
      throw new IllegalArgumentException("kitti's output is compared bit for bit: math mode must be DEFAULT, got "
          + c.mathMode());
    }
    if (c.graphCapture()) {
      if (c.allocation() != Allocation.PREALLOCATED) {
        throw new IllegalArgumentException("kitti: graphCapture needs PREALLOCATED allocation (a graph replays fixed"
            + " buffers), got " + c.allocation());
      }
    }
  }

  /**
   * @param sink told each frame's detections when the session closes (the user's input scores them), or null
   */
  KittiSession(Device device, ExecutionConfig cfg, KittiWorkload.Params p, KittiWeights weights, Frames scans,
      BiConsumer<Integer, Detections> sink) {
    check(cfg);
    this.sink = sink;
    this.device = device;
    this.cfg = cfg;
    this.clock = device.clock();
    this.p = p;
    this.weights = weights;
    this.scans = scans;
    this.grid = p.grid();
    this.capacity = Math.max(1, scans.maxPoints());
    this.nx = grid.nx();
    this.ny = grid.ny();
    this.cells = nx * ny;
    this.h1 = (ny - 1) / 2 + 1;
    this.w1 = (nx - 1) / 2 + 1;
    this.h2 = (h1 - 1) / 2 + 1;
    this.w2 = (w1 - 1) / 2 + 1;
    this.prefetch = cfg.streams() == 2;
    this.ownMain = prefetch || cfg.graphCapture();
    int c = weights.channels();
    int n1 = h1 * w1;
    int n2 = h2 * w2;
    long col = 0; // the largest im2col operand: the convolutions' outputs are n1, n1, n2, n2 positions
    long[] outPositions = {n1, n1, n2, n2};
    for (int i = 0; i < weights.convs().length; i++) {
      col = Math.max(col, (long) weights.convs()[i].cin() * 9 * outPositions[i]);
    }
    if (!prefetch) {
      temps.add(new Temp("points", 16L * capacity));
    }
    temps.add(new Temp("cellOf", 4L * capacity));
    temps.add(new Temp("count", 4L * cells));
    temps.add(new Temp("pillarOf", 4L * cells));
    temps.add(new Temp("pillarCell", 4L * p.maxPillars()));
    temps.add(new Temp("pillarStart", 4L * p.maxPillars()));
    temps.add(new Temp("numPillars", 4));
    temps.add(new Temp("fill", 4L * p.maxPillars()));
    temps.add(new Temp("idx", 4L * capacity));
    temps.add(new Temp("feat", 4L * p.maxPillars() * c));
    temps.add(new Temp("canvas", 4L * c * cells));
    temps.add(new Temp("col", 4 * col));
    temps.add(new Temp("b1a", 4L * c * n1));
    temps.add(new Temp("cat", 4L * 3 * c * n1));
    temps.add(new Temp("b2a", 4L * 2 * c * n2));
    temps.add(new Temp("b2b", 4L * 2 * c * n2));
    temps.add(new Temp("head", 4L * KittiKernels.ANCHORS * KittiKernels.ANCHOR_CHANNELS * n1));
    temps.add(new Temp("boxes", 4L * KittiKernels.ANCHORS * KittiKernels.BOX_FLOATS * n1));
    temps.add(new Temp("out", outBytes()));
    try {
      module = device.load(KittiKernels.MODULE);
      for (var def : KittiKernels.MODULE.kernels()) {
        kernels.put(def.entry(), module.kernel(def.entry()));
      }
      scatterBlock = switch (cfg.blockSize()) {
        case 0 -> KittiKernels.BLOCK;
        case ExecutionConfig.OCCUPANCY_BLOCK_SIZE -> device.suggestedBlockSize(kernels.get(KittiKernels.ASSIGN), 0);
        default -> cfg.blockSize();
      };
      main = ownMain ? device.createStream(0) : device.defaultStream();
      if (prefetch) {
        copyStream = device.createStream(0);
        for (int k = 0; k < 2; k++) {
          staging[k] = device.allocHost(16L * capacity, cfg.hostMemory());
          input[k] = device.malloc(16L * capacity);
          copyDone[k] = device.createEvent(false);
          computeDone[k] = device.createEvent(false);
        }
      } else {
        staging[0] = device.allocHost(16L * capacity, cfg.hostMemory());
      }
      outHost = device.allocHost(outBytes(), cfg.hostMemory());
      upload();
      if (cfg.allocation() == Allocation.POOL) {
        device.defaultPool().setReleaseThreshold(cfg.poolReleaseThresholdBytes());
      }
      if (cfg.allocation() == Allocation.PREALLOCATED) {
        for (Temp t : temps) {
          mem.put(t.name, device.malloc(t.bytes));
        }
      }
    } catch (RuntimeException e) {
      closed = true;
      try {
        release();
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    if (cfg.warmup()) {
      step();
      latencies.clear();
      lastOutput.clear();
      frame = 0;
    }
  }

  private long outBytes() {
    return 4L * (1 + (long) KittiKernels.DET_WORDS * p.maxDetections());
  }

  /** Copies the weights to device buffers once (synchronously, through pageable staging). */
  private void upload() {
    List<float[]> all = new ArrayList<>(List.of(weights.pfnW(), weights.pfnScale(), weights.pfnShift()));
    for (KittiWeights.Conv cv : weights.convs()) {
      all.add(cv.w());
      all.add(cv.b());
    }
    all.add(weights.head().w());
    all.add(weights.head().b());
    for (float[] v : all) {
      DeviceMemory d = device.malloc(4L * v.length);
      params.add(d);
      try (HostMemory h = device.allocHost(4L * v.length, HostMemoryKind.PAGEABLE)) {
        h.buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().put(v);
        device.copy(d, 0, h, 0, 4L * v.length);
        device.synchronize();
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
    int f = (int) (frame % scans.size());
    long t0 = clock.nanos();
    long latency;
    if (prefetch) {
      int slot = (int) (frame % 2);
      if (!queued) {
        issuedAt[slot] = t0;
        queueCopy(f, slot);
      }
      // the next frame's copy is queued first, on the copy stream, so that it runs while this frame computes
      int other = 1 - slot;
      issuedAt[other] = clock.nanos();
      queueCopy((int) ((frame + 1) % scans.size()), other);
      queued = true;
      main.waitEvent(copyDone[slot]);
      allocate();
      try {
        compute(input[slot], slot, false, cfg.hostMemory() == HostMemoryKind.PINNED);
        computeDone[slot].record(main);
        computeRecorded[slot] = true;
        main.synchronize();
      } finally {
        free();
      }
      latency = clock.nanos() - issuedAt[slot];
    } else {
      stage(f, 0);
      allocate();
      try {
        DeviceMemory pts = mem.get("points");
        boolean copyInGraph = cfg.graphCapture() && cfg.asyncCopies() && cfg.hostMemory() == HostMemoryKind.PINNED;
        if (!copyInGraph) {
          copyIn(pts);
        }
        compute(pts, 0, copyInGraph, copyInGraph);
        main.synchronize();
      } finally {
        free();
      }
      latency = clock.nanos() - t0;
    }
    byte[] out = new byte[(int) outBytes()];
    outHost.buffer().duplicate().clear().get(out);
    lastOutput.put(f, out);
    long t1 = clock.nanos();
    latencies.add(latency);
    frame++;
    Map<String, Double> extras = new LinkedHashMap<>();
    extras.put("frameLatencyNanos", (double) latency);
    extras.put("frameLatencyP50Nanos", (double) percentile(0.50));
    extras.put("frameLatencyP99Nanos", (double) percentile(0.99));
    extras.put("detections", (double) ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN).getInt(0));
    return new IterationResult(t1 - t0, 1, extras);
  }

  /** The {@code q} quantile (nearest rank) of the frame latencies so far. */
  long percentile(double q) {
    long[] v = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
    return v.length == 0 ? 0 : v[Math.min(v.length - 1, (int) Math.ceil(q * v.length) - 1)];
  }

  /** Writes frame {@code f}'s points into staging buffer {@code slot}, padded to the capacity with NaN points. */
  private void stage(int f, int slot) {
    float[] v = scans.scan(f).xyzr();
    var b = staging[slot].buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
    b.put(v);
    while (b.hasRemaining()) {
      b.put(Float.NaN);
    }
  }

  private void queueCopy(int f, int slot) {
    if (copyRecorded[slot]) {
      copyDone[slot].synchronize(); // the staging buffer's last copy has left it
    }
    stage(f, slot);
    if (computeRecorded[slot]) {
      copyStream.waitEvent(computeDone[slot]); // the frame before has finished reading the input buffer
    }
    device.copyAsync(input[slot], 0, staging[slot], 0, 16L * capacity, copyStream);
    copyDone[slot].record(copyStream);
    copyRecorded[slot] = true;
  }

  private void copyIn(DeviceMemory pts) {
    if (cfg.asyncCopies()) {
      device.copyAsync(pts, 0, staging[0], 0, 16L * capacity, main);
    } else {
      device.copy(pts, 0, staging[0], 0, 16L * capacity);
      if (main != device.defaultStream()) {
        device.synchronize(); // a synchronous pageable copy may return before its DMA lands
      }
    }
  }

  private void allocate() {
    switch (cfg.allocation()) {
      case PER_BATCH -> temps.forEach(t -> mem.put(t.name, device.malloc(t.bytes)));
      case POOL -> temps.forEach(t -> mem.put(t.name, device.mallocAsync(t.bytes, main)));
      case PREALLOCATED -> {
      }
    }
  }

  private void free() {
    if (cfg.allocation() == Allocation.PREALLOCATED) {
      return;
    }
    for (Temp t : temps) {
      DeviceMemory d = mem.remove(t.name);
      if (d == null) {
        continue;
      }
      if (d.pooled()) {
        device.freeAsync(d, main);
      } else {
        d.close();
      }
    }
  }

  /**
   * Queues the detector on {@code main} for the points in {@code pts}, ending with the detections in the host buffer.
   * With graph capture the frame is captured once per input buffer ({@code slot}) and replayed; the input copy joins
   * the graph when {@code copyIn}, the output copy when {@code copyOut} (both need pinned memory and queued copies).
   */
  private void compute(DeviceMemory pts, int slot, boolean copyIn, boolean copyOut) {
    if (!cfg.graphCapture()) {
      run(pts, false, false);
      copyOut();
      return;
    }
    if (graphs[slot] == null) {
      device.beginCapture(main);
      boolean captured = false;
      try {
        run(pts, copyIn, copyOut);
        captured = true;
      } finally {
        GraphExec g = device.endCapture(main);
        if (captured) {
          graphs[slot] = g;
        } else {
          g.close();
        }
      }
    }
    device.launchGraph(graphs[slot], main);
    if (!copyOut) {
      copyOut();
    }
  }

  /** The detections to the host buffer: queued on the compute stream, or after it synchronously. */
  private void copyOut() {
    if (cfg.asyncCopies()) {
      device.copyAsync(outHost, 0, m("out"), 0, outBytes(), main);
    } else {
      main.synchronize();
      device.copy(outHost, 0, m("out"), 0, outBytes());
    }
  }

  private DeviceMemory m(String name) {
    DeviceMemory d = mem.get(name);
    if (d == null) {
      throw new IllegalStateException("kitti: buffer " + name + " used while not allocated");
    }
    return d;
  }

  private void launch(String kernel, LaunchConfig lc, Object... args) {
    device.launch(kernels.get(kernel), lc, main, args);
  }

  private void run(DeviceMemory pts, boolean copyIn, boolean copyOut) {
    if (copyIn) {
      device.copyAsync(pts, 0, staging[0], 0, 16L * capacity, main);
    }
    int c = weights.channels();
    int pm = p.maxPillars();
    int n1 = h1 * w1;
    device.memsetAsync(m("count"), 0, 0, 4L * cells, main);
    device.memsetAsync(m("fill"), 0, 0, 4L * pm, main);
    device.memsetAsync(m("canvas"), 0, 0, 4L * c * cells, main);
    launch(KittiKernels.ASSIGN, KittiKernels.elementwise(capacity, scatterBlock), pts, m("cellOf"), m("count"),
        capacity, grid.xMin(), grid.yMin(), grid.zMin(), grid.xMax(), grid.yMax(), grid.zMax(), grid.pillar(), nx, ny);
    launch(KittiKernels.COMPACT, KittiKernels.oneBlock(), m("count"), m("pillarOf"), m("pillarCell"), m("pillarStart"),
        m("numPillars"), cells, pm);
    launch(KittiKernels.GATHER, KittiKernels.elementwise(capacity, scatterBlock), m("cellOf"), m("pillarOf"),
        m("pillarStart"), m("fill"), m("idx"), capacity);
    launch(KittiKernels.PILLAR_SORT, KittiKernels.elementwise(pm, KittiKernels.BLOCK), m("fill"), m("pillarStart"),
        m("idx"), pm, p.maxPoints(), capacity);
    launch(KittiKernels.POINTNET, KittiKernels.elementwise((long) pm * c, KittiKernels.BLOCK), pts, m("idx"),
        m("pillarStart"), m("fill"), m("pillarCell"), params.get(0), params.get(1), params.get(2), m("feat"), pm,
        p.maxPoints(), c, grid.xMin(), grid.yMin(), grid.pillar(), nx);
    launch(KittiKernels.SCATTER_BEV, KittiKernels.elementwise((long) pm * c, KittiKernels.BLOCK), m("feat"),
        m("pillarCell"), m("canvas"), pm, c, cells);
    KittiWeights.Conv[] cv = weights.convs();
    conv(m("canvas"), ny, nx, cv[0], 3, m("b1a"), h1, w1);
    conv(m("b1a"), h1, w1, cv[1], 5, m("cat"), h1, w1);
    conv(m("cat"), h1, w1, cv[2], 7, m("b2a"), h2, w2);
    conv(m("b2a"), h2, w2, cv[3], 9, m("b2b"), h2, w2);
    launch(KittiKernels.UPSAMPLE, KittiKernels.elementwise(2L * c * n1, KittiKernels.BLOCK), m("b2b"), m("cat"), 2 * c,
        h2, w2, h1, w1, c);
    KittiWeights.Conv head = weights.head();
    device.blas().sgemm(main, false, false, n1, head.cout(), head.cin(), 1f, m("cat"), n1, params.get(11), head.cin(),
        0f, m("head"), n1);
    launch(KittiKernels.BIAS_ACT, KittiKernels.elementwise((long) head.cout() * n1, KittiKernels.BLOCK), m("head"),
        params.get(12), head.cout(), n1, 0);
    launch(KittiKernels.DECODE, KittiKernels.elementwise((long) n1 * KittiKernels.ANCHORS, KittiKernels.BLOCK),
        m("head"), m("boxes"), n1, w1, grid.xMin(), grid.yMin(), 2 * grid.pillar());
    launch(KittiKernels.NMS, KittiKernels.oneBlock(), m("boxes"), n1 * KittiKernels.ANCHORS, p.scoreThreshold(),
        p.iouThreshold(), p.maxCandidates(), p.maxDetections(), m("out"));
    if (copyOut) {
      device.copyAsync(outHost, 0, m("out"), 0, outBytes(), main);
    }
  }

  /** A 3×3 convolution (padding 1) as im2col, a GEMM and bias + ReLU; its weights are parameter {@code wi}. */
  private void conv(DeviceMemory in, int h, int w, KittiWeights.Conv cv, int wi, DeviceMemory out, int ho, int wo) {
    int n = ho * wo;
    int k = cv.cin() * 9;
    launch(KittiKernels.IM2COL, KittiKernels.elementwise((long) k * n, KittiKernels.BLOCK), in, m("col"), cv.cin(), h,
        w, ho, wo, cv.stride());
    device.blas().sgemm(main, false, false, n, cv.cout(), k, 1f, m("col"), n, params.get(wi), k, 0f, out, n);
    launch(KittiKernels.BIAS_ACT, KittiKernels.elementwise((long) cv.cout() * n, KittiKernels.BLOCK), out,
        params.get(wi + 1), cv.cout(), n, 1);
  }

  // ------------------------------------------------------------------------------------------------- output

  /** The detections of frame {@code f}'s last run: kept anchor indices and their boxes. */
  Detections detections(int f) {
    byte[] out = lastOutput.get(f);
    return out == null ? null : Detections.of(out);
  }

  /**
   * The pillars of the last frame as the device left them (PREALLOCATED sessions only): per pillar in order, its cell
   * and its points' indices.
   */
  Pillars pillars() {
    if (cfg.allocation() != Allocation.PREALLOCATED) {
      throw new IllegalStateException("kitti: pillars are kept on the device only with PREALLOCATED buffers");
    }
    device.synchronize();
    int[] num = read("numPillars", 1);
    int[] pc = read("pillarCell", p.maxPillars());
    int[] fill = read("fill", p.maxPillars());
    int[] start = read("pillarStart", p.maxPillars());
    int[] idx = read("idx", capacity);
    int[] cellsOut = Arrays.copyOf(pc, num[0]);
    int[][] points = new int[num[0]][];
    for (int k = 0; k < num[0]; k++) {
      points[k] = Arrays.copyOfRange(idx, start[k], start[k] + Math.min(fill[k], p.maxPoints()));
    }
    return new Pillars(cellsOut, points);
  }

  private int[] read(String name, int n) {
    try (HostMemory h = device.allocHost(4L * n, HostMemoryKind.PAGEABLE)) {
      device.copy(h, 0, m(name), 0, 4L * n);
      device.synchronize();
      int[] v = new int[n];
      h.buffer().order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(v);
      return v;
    }
  }

  @Override
  public OutputDigest output() {
    ensureOpen();
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 unavailable", e);
    }
    List<Float> values = new ArrayList<>();
    for (Map.Entry<Integer, byte[]> e : lastOutput.entrySet()) {
      sha.update(ByteBuffer.allocate(4).putInt(e.getKey()).array());
      Detections d = Detections.of(e.getValue());
      sha.update(e.getValue(), 0, 4 * (1 + KittiKernels.DET_WORDS * d.anchors().length));
      for (float v : d.boxes()) {
        values.add(v);
      }
    }
    double[] vals = new double[values.size()];
    for (int i = 0; i < vals.length; i++) {
      vals[i] = values.get(i);
    }
    return new OutputDigest(HexFormat.of().formatHex(sha.digest()), vals, null, 1.0);
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("kitti session is closed");
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (sink != null) {
        lastOutput.forEach((f, out) -> sink.accept(f, Detections.of(out)));
      }
    } finally {
      release();
    }
  }

  private void release() {
    Closer all = new Closer();
    all.add(() -> device.synchronize());
    all.addAll(graphs);
    all.addAll(mem.values());
    all.addAll(params);
    all.addAll(staging);
    all.addAll(input);
    all.add(outHost);
    all.addAll(copyDone);
    all.addAll(computeDone);
    all.add(() -> device.synchronize());
    all.add(copyStream);
    if (ownMain) {
      all.add(main);
    }
    all.add(module);
    try {
      all.close();
    } finally {
      mem.clear();
    }
  }
}
