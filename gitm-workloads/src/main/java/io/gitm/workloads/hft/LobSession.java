package io.gitm.workloads.hft;

import static io.gitm.workloads.hft.LobLayout.FEAT;
import static io.gitm.workloads.hft.LobLayout.TOP;

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
import io.gitm.trace.Dim3;
import io.gitm.trace.Work;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.ExecutionConfig.Allocation;
import io.gitm.workload.IterationResult;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import io.gitm.workloads.kit.Closer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run of hft-lob on a device under an {@link ExecutionConfig}. Each step sends one device batch (the next
 * {@code batchCoalesce} input batches of messages) through the pipeline; with several buffer slots in flight
 * (several streams, or copy/compute overlap) a step queues its batch and retires the oldest, and the book and
 * feature state is chained from batch to batch by events so that results never depend on the configuration.
 *
 * <p>With several compute streams (and no graph capture) a batch's work is split in two: the bulk part (input copy,
 * decode, routing: {@link #SIGNAL_FROM} kernels) runs on the batch's compute stream, and the latency-critical part
 * (book, features, signal and the output they feed) on one signal stream shared by all batches, created at
 * {@link ExecutionConfig#latencyStreamPriority()}; the bulk streams have the default priority 0. The signal stream
 * carries the state chain, so a later batch's bulk kernels are the work it contends with.
 */
final class LobSession implements Workload.Session {
  /** The default threads per block. */
  static final int DEFAULT_BLOCK = 128;
  /** Kernels before the book ({@code lob_book}): the bulk part of a batch; the rest run on the signal stream. */
  static final int SIGNAL_FROM = 5;

  private final Device device;
  private final ExecutionConfig cfg;
  private final HftLobWorkload.Params params;
  private final ItchSource file;
  /** The session's reader of the input, opened with it and read forward batch by batch. */
  private ItchSource.Cursor cursor;
  /** Each staged message's start, as the cursor gives it. */
  private int[] staged;
  private final Ticker clock;
  private final int n;
  private final int k;
  private final int block;
  private final boolean warpBook;
  private final int maxMessages;
  private final int rawCapacity;
  private final int inputCapacity;
  private final int maxChunks;
  private final int depth;
  private final Module module;
  private final Kernel[] kernels;
  private final List<Stream> computeStreams = new ArrayList<>();
  private final List<Stream> copyInStreams = new ArrayList<>();
  private final List<Stream> copyOutStreams = new ArrayList<>();
  private final boolean ownDefault;
  /** The latency-critical stream (book, features, signal), or null where a batch runs on one stream. */
  private Stream signalStream;
  private final Slot[] slots;
  private LobState state;
  private final DeviceMemory weights;
  private final ArrayDeque<Pending> inflight = new ArrayDeque<>();
  private final LobDigest digest;
  private final List<Long> latencies = new ArrayList<>();
  private final boolean profile;
  private final Map<String, double[]> kernelMillis = new LinkedHashMap<>();
  private final Map<String, double[]> kernelWork = new LinkedHashMap<>();
  private Event stateDone;
  private int nextInput;
  private long batchesRun;
  private boolean closed;

  /** Rejects configurations this workload cannot honour, with the reason. */
  static void check(ExecutionConfig c) {
    LobConfigs.check(c);
  }

  LobSession(Device device, ExecutionConfig cfg, HftLobWorkload.Params params, ItchSource file) {
    this(device, cfg, params, file, false);
  }

  /** With {@code profile}, every kernel and copy is bracketed by timing events (a separate, slower pass). */
  LobSession(Device device, ExecutionConfig cfg, HftLobWorkload.Params params, ItchSource file, boolean profile) {
    check(cfg);
    if (profile && cfg.graphCapture()) {
      throw new IllegalArgumentException("hft-lob: per-kernel profiling cannot look inside a captured graph");
    }
    if (file.instruments() == 0) {
      throw new IllegalArgumentException("hft-lob: the input has no stock directory (R) messages, so no instruments");
    }
    this.device = device;
    this.cfg = cfg;
    this.params = params;
    this.file = file;
    this.profile = profile;
    this.clock = device.clock();
    this.n = file.instruments();
    this.k = cfg.batchCoalesce();
    this.warpBook = cfg.kernelVariants().getOrDefault(LobKernels.BOOK_FAMILY, "thread").equals("warp");
    long mm = (long) params.batchMessages() * k;
    if (mm > 1 << 24) {
      throw new IllegalArgumentException("hft-lob: batchMessages x batchCoalesce = " + mm + " is above 2^24");
    }
    this.maxMessages = (int) Math.min(mm, file.count());
    this.rawCapacity = align(maxMessages * Itch.MAX_LENGTH);
    this.inputCapacity = rawCapacity + 4 * maxMessages + 4 * (k + 1);
    boolean pipelined = cfg.streams() > 1 || cfg.copyComputeOverlap();
    this.depth = pipelined ? Math.max(2, cfg.streams()) : 1;
    this.digest = new LobDigest(n);
    boolean ok = false;
    Module m = null;
    DeviceMemory w = null;
    List<Slot> made = new ArrayList<>();
    try {
      m = device.load(LobKernels.MODULE);
      kernels = kernels(m, cfg, warpBook);
      block = blockSize(device, cfg, kernels);
      maxChunks = (maxMessages + block - 1) / block;
      // The legacy default stream serves the plain configuration only: it cannot be captured into a graph.
      ownDefault = cfg.streams() > 1 || cfg.copyComputeOverlap() || cfg.graphCapture();
      openStreams();
      if (cfg.allocation() == Allocation.POOL) {
        device.defaultPool().setReleaseThreshold(cfg.poolReleaseThresholdBytes());
      }
      state = new LobState(device, computeStreams.getFirst(), n, params);
      w = device.malloc(4L * LobLayout.WEIGHTS);
      try (HostMemory h = device.allocHost(4L * LobLayout.WEIGHTS, HostMemoryKind.PAGEABLE)) {
        ByteBuffer b = h.buffer();
        for (float v : LobLayout.weights(params.weightSeed())) {
          b.putFloat(v);
        }
        device.copy(w, 0, h, 0, 4L * LobLayout.WEIGHTS);
        device.synchronize(); // a pageable copy may return before its DMA lands
      }
      if (cfg.l2PersistBytes() > 0) {
        // the hot buffer (price levels) is read by the book kernel, so on the streams that run it
        for (Stream s : signalStream != null ? List.of(signalStream) : computeStreams) {
          device.setL2AccessWindow(s, state.lv, 0, Math.min(cfg.l2PersistBytes(), state.lv.bytes()), 1.0f);
        }
      }
      for (int s = 0; s < depth; s++) {
        made.add(new Slot());
      }
      staged = new int[maxMessages];
      cursor = file.cursor();
      ok = true;
    } finally {
      if (!ok) {
        for (Slot s : made) {
          s.close();
        }
        if (state != null) {
          state.close();
        }
        if (w != null) {
          w.close();
        }
        closeStreams();
        if (m != null) {
          m.close();
        }
      }
    }
    this.module = m;
    this.weights = w;
    this.slots = made.toArray(new Slot[0]);
  }

  /** The pipeline's kernels in launch order, the book in its configured variant, with the configured carve-out. */
  private static Kernel[] kernels(Module m, ExecutionConfig cfg, boolean warpBook) {
    Kernel[] kernels = new Kernel[LobKernels.ORDER.size()];
    for (int q = 0; q < kernels.length; q++) {
      String entry = LobKernels.ORDER.get(q);
      kernels[q] = m.kernel(entry.equals(LobKernels.BOOK) && warpBook ? LobKernels.BOOK_WARP : entry);
      if (cfg.sharedCarveoutPercent() >= 0) {
        kernels[q].setPreferredSharedCarveout(cfg.sharedCarveoutPercent());
      }
    }
    return kernels;
  }

  /**
   * The signal stream and the compute streams (with their copy streams under overlap), or the legacy default
   * stream alone in the plain configuration.
   */
  private void openStreams() {
    if (!ownDefault) {
      computeStreams.add(device.defaultStream());
      return;
    }
    if (cfg.streams() > 1 && !cfg.graphCapture()) {
      signalStream = device.createStream(cfg.latencyStreamPriority());
    }
    for (int s = 0; s < cfg.streams(); s++) {
      computeStreams.add(device.createStream(0));
      if (cfg.copyComputeOverlap()) {
        copyInStreams.add(device.createStream(0));
        copyOutStreams.add(device.createStream(0));
      }
    }
  }

  /**
   * The threads per block: the configured size, the default, or for {@link ExecutionConfig#OCCUPANCY_BLOCK_SIZE} the
   * smallest of the occupancy API's suggestions for its kernels (one size serves them all, and the routing chunk).
   */
  private static int blockSize(Device device, ExecutionConfig cfg, Kernel[] kernels) {
    if (cfg.blockSize() != ExecutionConfig.OCCUPANCY_BLOCK_SIZE) {
      return cfg.blockSize() == 0 ? DEFAULT_BLOCK : cfg.blockSize();
    }
    int best = 1024;
    for (Kernel kernel : kernels) {
      int s = device.suggestedBlockSize(kernel, 0);
      if (s < 32 || s > 1024) {
        throw new IllegalStateException("hft-lob: the occupancy API suggested " + s + " threads per block for "
            + kernel.def().entry());
      }
      best = Math.min(best, s / 32 * 32);
    }
    return best;
  }

  private static int align(long v) {
    long a = (v + 7) & ~7L;
    if (a > Integer.MAX_VALUE - 1024) {
      throw new IllegalArgumentException("hft-lob: batch too large for one buffer (" + v + " bytes)");
    }
    return (int) a;
  }

  /** Per-batch device buffers. */
  private final class Batch {
    DeviceMemory in;
    DeviceMemory dec;
    DeviceMemory hist;
    DeviceMemory totals;
    DeviceMemory starts;
    DeviceMemory perm;
    DeviceMemory top;
    DeviceMemory feat;
    DeviceMemory sig;

    Batch(Stream s) {
      boolean ok = false;
      try {
        in = alloc(inputCapacity, s);
        dec = alloc(4L * LobLayout.DEC * maxMessages, s);
        hist = alloc(4L * maxChunks * n, s);
        totals = alloc(4L * n, s);
        starts = alloc(4L * n, s);
        perm = alloc(4L * maxMessages, s);
        top = alloc(4L * TOP * k * n, s);
        feat = alloc(8L * FEAT * k * n, s);
        sig = alloc(4L * k * n, s);
        ok = true;
      } finally {
        if (!ok) {
          free(s);
        }
      }
    }

    private DeviceMemory alloc(long bytes, Stream s) {
      return cfg.allocation() == Allocation.POOL ? device.mallocAsync(bytes, s) : device.malloc(bytes);
    }

    void free(Stream s) {
      for (DeviceMemory d : new DeviceMemory[] {in, dec, hist, totals, starts, perm, top, feat, sig}) {
        if (d == null) {
          continue;
        }
        if (d.pooled()) {
          device.freeAsync(d, s);
        } else {
          d.close();
        }
      }
      in = dec = hist = totals = starts = perm = top = feat = sig = null;
    }
  }

  /** A slot of host staging buffers, events and (when preallocated) device buffers, reused every depth batches. */
  private final class Slot implements AutoCloseable {
    final HostMemory hin;
    final HostMemory hout;
    final Event h2d;
    final Event allocated;
    final Event computed;
    final Event done;
    final Event stateReady;
    final Event routed;
    final Event[] marks;
    Batch fixed;
    GraphExec graph;
    long graphKey = -1;

    Slot() {
      long outBytes = (4L * TOP + 8L * FEAT + 4L) * k * n;
      marks = new Event[profile ? 2 * (kernels.length + 2) : 0];
      try {
        hin = device.allocHost(inputCapacity, cfg.hostMemory());
        hout = device.allocHost(outBytes, cfg.hostMemory());
        h2d = device.createEvent(false);
        allocated = device.createEvent(false);
        computed = device.createEvent(false);
        done = device.createEvent(false);
        stateReady = device.createEvent(false);
        routed = signalStream != null ? device.createEvent(false) : null; // only a split batch hands over
        for (int q = 0; q < marks.length; q++) {
          marks[q] = device.createEvent(true);
        }
        if (cfg.allocation() == Allocation.PREALLOCATED) {
          fixed = new Batch(computeStreams.getFirst());
        }
      } catch (RuntimeException e) {
        try {
          close();
        } catch (RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
    }

    @Override
    public void close() {
      if (graph != null) {
        graph.close();
        graph = null;
      }
      if (fixed != null) {
        fixed.free(computeStreams.getFirst());
        fixed = null;
      }
      new Closer().addAll(hin, hout, h2d, allocated, computed, done, stateReady, routed).addAll(marks).close();
    }
  }

  /** A device batch in flight. */
  private record Pending(Slot slot, Batch batch, Stream compute, Stream copy, int firstInput, int inputs,
      int messages, long enqueuedAt, boolean record) {
  }

  @Override
  public boolean hasNext() {
    return nextInput < inputBatches();
  }

  int inputBatches() {
    return (file.count() + params.batchMessages() - 1) / params.batchMessages();
  }

  @Override
  public IterationResult step() {
    ensureOpen();
    if (!hasNext()) {
      throw new IllegalStateException("hft-lob: no input left after " + inputBatches() + " input batches of "
          + params.batchMessages() + " messages");
    }
    long t0 = clock.nanos();
    int inputs = Math.min(k, inputBatches() - nextInput);
    Pending p = enqueue(slots[(int) (batchesRun % depth)], state, nextInput, inputs, true, t0);
    nextInput += inputs;
    batchesRun++;
    inflight.add(p);
    long lastLatency = -1;
    while (inflight.size() >= depth || (!hasNext() && !inflight.isEmpty())) {
      lastLatency = retire(inflight.poll());
    }
    long t1 = clock.nanos();
    Map<String, Double> extras = new LinkedHashMap<>();
    extras.put("inputBatches", (double) inputs);
    if (lastLatency >= 0) {
      extras.put("batchLatencyNanos", (double) lastLatency);
    }
    return new IterationResult(t1 - t0, p.messages(), extras);
  }

  private Pending enqueue(Slot slot, LobState st, int firstInput, int inputs, boolean record, long t0) {
    int from = firstInput * params.batchMessages();
    int to = Math.min(file.count(), (firstInput + inputs) * params.batchMessages());
    int m = to - from;
    int si = (int) (batchesRun % computeStreams.size());
    Stream cs = computeStreams.get(si);
    // With overlap, input and output copies have their own streams, so that batch j+1's input copy does not queue
    // behind batch j's output copy.
    Stream xs = cfg.copyComputeOverlap() ? copyInStreams.get(si) : cs;
    Stream ys = cfg.copyComputeOverlap() ? copyOutStreams.get(si) : cs;
    Input in = stage(slot, from, to, inputs);
    Batch b = slot.fixed != null ? slot.fixed : new Batch(cs);
    int chunks = (m + block - 1) / block;
    Call[] calls = calls(b, st, m, inputs, in.rawBytes(), in.offsetsAt(), in.subAt(), chunks);
    boolean chained = stateDone != null && computeStreams.size() > 1 && record;
    if (cfg.graphCapture()) {
      launchAsGraph(slot, b, calls, cs, in.bytes(), chunks, (long) m << 8 | inputs, inputs, chained, record);
      return new Pending(slot, b, cs, cs, firstInput, inputs, m, t0, record);
    }
    Marks marks = new Marks(slot.marks);
    copyIn(slot, b, cs, xs, in.bytes(), marks);
    device.memsetAsync(b.hist, 0, 0, 4L * chunks * n, cs);
    Stream ks = launchAll(slot, calls, cs, chained, record, marks);
    if (cfg.asyncCopies()) {
      if (ys != ks) {
        slot.computed.record(ks);
        ys.waitEvent(slot.computed);
      }
      marks.record(ys);
      copyOut(b, slot, inputs, ys, true);
      marks.record(ys);
      slot.done.record(ys);
    } else {
      slot.computed.record(ks);
    }
    return new Pending(slot, b, cs, ys, firstInput, inputs, m, t0, record);
  }

  /** Where a batch's input lies in its staging buffer, and how many bytes of it the device needs. */
  private record Input(int rawBytes, int offsetsAt, int subAt, int bytes) {
  }

  /**
   * Stages messages {@code from..to} in the slot's host buffer: raw messages back to back, then offsets, then
   * input-batch starts. A graph needs a fixed layout.
   */
  private Input stage(Slot slot, int from, int to, int inputs) {
    boolean graph = cfg.graphCapture();
    int m = to - from;
    ByteBuffer in = slot.hin.buffer();
    int rawBytes = cursor.next(m, in, staged);
    int offsetsAt = graph ? rawCapacity : align(rawBytes);
    int subAt = offsetsAt + 4 * (graph ? maxMessages : m);
    int inBytes = graph ? inputCapacity : subAt + 4 * (inputs + 1);
    for (int j = 0; j < m; j++) {
      in.putInt(offsetsAt + 4 * j, staged[j]);
    }
    for (int s = 0; s <= inputs; s++) {
      in.putInt(subAt + 4 * s, Math.min(m, s * params.batchMessages()));
    }
    return new Input(rawBytes, offsetsAt, subAt, inBytes);
  }

  /**
   * Launches the batch as the slot's graph, captured again when its shape ({@code key}: messages and input batches)
   * differs from the last one's.
   */
  private void launchAsGraph(Slot slot, Batch b, Call[] calls, Stream cs, int inBytes, int chunks, long key,
      int inputs, boolean chained, boolean record) {
    if (slot.graph == null || slot.graphKey != key) {
      if (slot.graph != null) {
        slot.graph.close();
      }
      device.beginCapture(cs);
      device.copyAsync(b.in, 0, slot.hin, 0, inBytes, cs);
      device.memsetAsync(b.hist, 0, 0, 4L * chunks * n, cs);
      for (Call c : calls) {
        device.launch(c.kernel, c.launch, cs, c.args);
      }
      copyOut(b, slot, inputs, cs, true);
      slot.graph = device.endCapture(cs);
      slot.graphKey = key;
    }
    if (chained) {
      cs.waitEvent(stateDone);
    }
    device.launchGraph(slot.graph, cs);
    slot.done.record(cs);
    if (record) {
      stateDone = slot.done;
    }
  }

  /** The batch's input copy, on {@code xs}; the compute stream {@code cs} waits for it. */
  private void copyIn(Slot slot, Batch b, Stream cs, Stream xs, int inBytes, Marks marks) {
    if (cfg.allocation() == Allocation.POOL && xs != cs) {
      // Pool memory is allocated in cs's order; the copy stream may touch it only after that point.
      slot.allocated.record(cs);
      xs.waitEvent(slot.allocated);
    }
    if (cfg.asyncCopies()) {
      marks.record(xs);
      device.copyAsync(b.in, 0, slot.hin, 0, inBytes, xs);
      marks.record(xs);
      if (xs != cs) {
        slot.h2d.record(xs);
        cs.waitEvent(slot.h2d);
      }
    } else {
      device.copy(b.in, 0, slot.hin, 0, inBytes);
      if (cs != device.defaultStream()) {
        // A synchronous copy runs on the legacy stream and, from pageable memory, may return before its DMA lands:
        // the compute stream (non-blocking) waits for it explicitly.
        slot.h2d.record(device.defaultStream());
        cs.waitEvent(slot.h2d);
      }
    }
  }

  /**
   * Launches the batch's kernels on {@code cs}, the latency-critical ones on the signal stream where there is one,
   * chained to the previous batch's state; returns the stream the last kernel ran on.
   */
  private Stream launchAll(Slot slot, Call[] calls, Stream cs, boolean chained, boolean record, Marks marks) {
    Stream ks = cs;
    for (int q = 0; q < calls.length; q++) {
      if (q == SIGNAL_FROM && signalStream != null) {
        slot.routed.record(cs);
        signalStream.waitEvent(slot.routed);
        ks = signalStream;
      }
      if (q == SIGNAL_FROM && chained) {
        ks.waitEvent(stateDone); // the book and feature state of the previous batch
      }
      marks.record(ks);
      if (profile && record) {
        accumulateWork(q, calls[q]);
      }
      device.launch(calls[q].kernel, calls[q].launch, ks, calls[q].args);
      marks.record(ks);
      if (q == 6 && record) {
        slot.stateReady.record(ks);
        stateDone = slot.stateReady;
      }
    }
    return ks;
  }

  private void accumulateWork(int q, Call call) {
    Work w = call.kernel.def().work().apply(call.launch, call.args);
    double[] acc = kernelWork.computeIfAbsent(kernels[q].def().entry(), x -> new double[4]);
    acc[0] += w.flops();
    acc[1] += w.bytesRead();
    acc[2] += w.bytesWritten();
    acc[3] += 1;
  }

  /** A batch's timing marks of the profiling pass, recorded in order (none outside the pass). */
  private static final class Marks {
    private final Event[] marks;
    private int next;

    Marks(Event[] marks) {
      this.marks = marks;
    }

    void record(Stream s) {
      if (marks.length > 0) {
        marks[next++].record(s);
      }
    }
  }

  private void copyOut(Batch b, Slot slot, int inputs, Stream s, boolean async) {
    long topBytes = 4L * TOP * inputs * n;
    long featBytes = 8L * FEAT * inputs * n;
    long sigBytes = 4L * inputs * n;
    long featAt = 4L * TOP * k * n;
    long sigAt = featAt + 8L * FEAT * k * n;
    if (async) {
      device.copyAsync(slot.hout, 0, b.top, 0, topBytes, s);
      device.copyAsync(slot.hout, featAt, b.feat, 0, featBytes, s);
      device.copyAsync(slot.hout, sigAt, b.sig, 0, sigBytes, s);
    } else {
      device.copy(slot.hout, 0, b.top, 0, topBytes);
      device.copy(slot.hout, featAt, b.feat, 0, featBytes);
      device.copy(slot.hout, sigAt, b.sig, 0, sigBytes);
    }
  }

  private record Call(Kernel kernel, LaunchConfig launch, Object[] args) {
  }

  private Call[] calls(Batch b, LobState st, int m, int inputs, int rawBytes, int offsetsAt, int subAt, int chunks) {
    LaunchConfig perMessage = LaunchConfig.cover(m, block);
    LaunchConfig perChunk = new LaunchConfig(Dim3.of(Math.max(1, chunks)), Dim3.of(block), 0);
    LaunchConfig perInstrument = LaunchConfig.cover(n, block);
    return new Call[] {
        new Call(kernels[0], perMessage, new Object[] {b.in, offsetsAt, subAt, m, inputs, n, rawBytes, b.dec}),
        new Call(kernels[1], perChunk, new Object[] {b.dec, m, n, b.hist}),
        new Call(kernels[2], perInstrument, new Object[] {b.hist, chunks, n, b.totals}),
        new Call(kernels[3], new LaunchConfig(Dim3.ONE, Dim3.of(Math.min(1024, block)), 0),
            new Object[] {b.totals, n, b.starts}),
        new Call(kernels[4], perChunk, new Object[] {b.dec, b.hist, b.starts, m, n, b.perm}),
        new Call(kernels[5], warpBook ? LaunchConfig.cover(32L * n, block) : perInstrument, new Object[] {b.dec,
            b.perm, b.starts, b.totals, st.ord, st.lv, st.nlv, st.live, st.err, b.top, b.feat, n, inputs,
            params.logOrderSlots(), params.levels(), m}),
        new Call(kernels[6], perInstrument, new Object[] {b.top, b.feat, st.fstate, n, inputs}),
        new Call(kernels[7], LaunchConfig.cover((long) inputs * n, block), new Object[] {b.feat, weights, b.sig,
            inputs * n})};
  }

  /** Waits for a batch, reads its output, frees its per-batch memory; returns its latency. */
  private long retire(Pending p) {
    Slot slot = p.slot();
    if (cfg.asyncCopies()) {
      slot.done.synchronize();
    } else {
      slot.computed.synchronize();
      copyOut(p.batch(), slot, p.inputs(), p.compute(), false);
    }
    long latency = clock.nanos() - p.enqueuedAt();
    if (profile && p.record()) {
      accumulateProfile(slot);
    }
    if (p.batch() != slot.fixed) {
      p.batch().free(p.compute());
    }
    if (!p.record()) {
      return latency;
    }
    ByteBuffer out = slot.hout.buffer();
    long featAt = 4L * TOP * k * n;
    long sigAt = featAt + 8L * FEAT * k * n;
    for (int s = 0; s < p.inputs(); s++) {
      ByteBuffer top = out.slice(4 * TOP * n * s, 4 * TOP * n).order(ByteOrder.LITTLE_ENDIAN);
      ByteBuffer feat = out.slice((int) featAt + 8 * FEAT * n * s, 8 * FEAT * n).order(ByteOrder.LITTLE_ENDIAN);
      float[] sig = new float[n];
      out.slice((int) sigAt + 4 * n * s, 4 * n).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(sig);
      for (int i = 0; i < n; i++) {
        long e = feat.getLong(8 * (i * FEAT + LobLayout.ERRORS));
        if (e != 0) {
          throw new IllegalStateException("hft-lob: book of stock locate " + (i + 1) + " failed in input batch "
              + (p.firstInput() + s) + ": " + LobLayout.describeErrors((int) e) + " (capacity: 2^"
              + params.logOrderSlots() + "-1 orders, " + params.levels() + " levels a side)");
        }
      }
      digest.add(top, feat, sig);
    }
    latencies.add(latency);
    return latency;
  }

  private void accumulateProfile(Slot slot) {
    List<String> names = new ArrayList<>();
    if (cfg.asyncCopies()) {
      names.add("h2d");
    }
    for (Kernel kernel : kernels) {
      names.add(kernel.def().entry());
    }
    if (cfg.asyncCopies()) {
      names.add("d2h");
    }
    for (int q = 0; q < names.size(); q++) {
      double ms = slot.marks[2 * q + 1].elapsedMillisSince(slot.marks[2 * q]);
      double[] acc = kernelMillis.computeIfAbsent(names.get(q), x -> new double[2]);
      acc[0] += ms;
      acc[1] += 1;
    }
  }

  /** Per stage (h2d, each kernel, d2h): total device milliseconds and count, from the profiling pass. */
  Map<String, double[]> kernelMillis() {
    return kernelMillis;
  }

  /** Per kernel, from the profiling pass: summed work-model flops, bytes read, bytes written, and launches. */
  Map<String, double[]> kernelWork() {
    return kernelWork;
  }

  /** Latency of every retired batch, host nanoseconds from queuing to output read. */
  List<Long> latencies() {
    return latencies;
  }

  int instruments() {
    return n;
  }

  private void drain() {
    while (!inflight.isEmpty()) {
      retire(inflight.poll());
    }
  }

  @Override
  public OutputDigest output() {
    ensureOpen();
    drain();
    return digest.digest();
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("hft-lob session is closed");
    }
  }

  private void closeStreams() {
    if (signalStream != null) {
      signalStream.close();
      signalStream = null;
    }
    if (ownDefault) {
      for (Stream s : computeStreams) {
        s.close();
      }
    }
    for (Stream s : copyInStreams) {
      s.close();
    }
    for (Stream s : copyOutStreams) {
      s.close();
    }
    computeStreams.clear();
    copyInStreams.clear();
    copyOutStreams.clear();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      // Batches still in flight are waited for and freed; their output is dropped.
      while (!inflight.isEmpty()) {
        Pending p = inflight.poll();
        (cfg.asyncCopies() ? p.slot().done : p.slot().computed).synchronize();
        if (p.batch() != p.slot().fixed) {
          p.batch().free(p.compute());
        }
      }
    } finally {
      device.synchronize();
      for (Slot s : slots) {
        s.close();
      }
      state.close();
      weights.close();
      device.synchronize();
      closeStreams();
      module.close();
      cursor.close();
    }
  }
}
