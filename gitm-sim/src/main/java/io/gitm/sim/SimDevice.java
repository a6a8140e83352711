package io.gitm.sim;

import io.gitm.api.Ticker;
import io.gitm.device.Blas;
import io.gitm.device.Buffer;
import io.gitm.device.Device;
import io.gitm.device.DeviceException;
import io.gitm.device.DeviceInfo;
import io.gitm.device.DeviceMemory;
import io.gitm.device.Event;
import io.gitm.device.EventTracer;
import io.gitm.device.GraphExec;
import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.Kernel;
import io.gitm.device.KernelModule;
import io.gitm.device.LaunchConfig;
import io.gitm.device.MemInfo;
import io.gitm.device.MemPool;
import io.gitm.device.Module;
import io.gitm.device.SchedulingMode;
import io.gitm.device.StateSampler;
import io.gitm.device.Stream;
import io.gitm.trace.ApiKind;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.CopyKind;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.SyncKind;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.Work;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A simulated GPU behind the runtime facade: a discrete-event model whose operations are timed when they are queued.
 * The host has its own simulated clock, advanced by each call's modeled host cost; streams are FIFO queues; the two
 * copy engines (one per direction) and the multiprocessor array are shared resources; kernels run their Java
 * emulation (so outputs are real) and take the time of a roofline over their declared work. Same seed, same
 * records. Work is emulated in host-submission order, which is a valid order for any correctly synchronized
 * program.
 *
 * <p>This class is the facade and the lock: every call takes it, then runs on one of the parts that share a
 * {@link SimContext} (the {@link SimScheduler}, the {@link Allocator}, {@link Transfers}, the {@link Launcher},
 * {@link Graphs}, {@link Syncs}, the {@link SimSampler} and the {@link TraceDriven} hooks of {@link Replay}).
 */
public final class SimDevice implements Device {
  static final int DEVICE = 0;

  /**
   * Extra host time after a wait that blocked, before the host thread runs again, under {@link SchedulingMode#YIELD}
   * (the thread yields its core while polling; model assumption).
   */
  static final long YIELD_WAKE_NS = 2_000;
  /**
   * The same under {@link SchedulingMode#BLOCKING_SYNC}: the thread sleeps on an OS primitive and an interrupt wakes
   * it (model assumption). {@code SPIN}, and {@code AUTO} (CUDA spins while the process's contexts do not outnumber
   * its CPUs, as with the simulator's one context), resume at once.
   */
  static final long BLOCKING_WAKE_NS = 15_000;

  private final SimSpec spec;
  private final SchedulingMode scheduling;
  private final GroundTruth truth;
  private final DeviceInfo info;
  private final SimTracer tracer;
  private final SimContext ctx;
  private final SimPool pool;
  private final SimScheduler scheduler;
  private final Allocator allocator;
  private final Transfers transfers;
  private final Launcher launcher;
  private final Graphs graphs;
  private final Syncs syncs;
  private final SimSampler sampler;
  private final TraceDriven replay;
  private final SimBlas blas = new SimBlas(this);
  private final Ticker ticker = this::now;

  SimDevice(SimSpec spec, long seed, String faultSpec, double jitter) {
    this(spec, seed, faultSpec, jitter, SchedulingMode.AUTO, Double.NaN, Double.NaN);
  }

  /**
   * A device opened with a context scheduling mode and device settings: a board power limit in watts and an SM
   * clock lock in MHz (NaN = as found; see {@link Governor}).
   */
  SimDevice(SimSpec spec, long seed, String faultSpec, double jitter, SchedulingMode scheduling, double powerLimitW,
      double smClockMHz) {
    this.spec = spec;
    this.scheduling = scheduling == null ? SchedulingMode.AUTO : scheduling;
    List<InjectedFault> faults = FaultParser.parse(faultSpec, spec.hardware().multiprocessors(),
        spec.boostClockMHz(), spec.powerLimitW());
    this.truth = new GroundTruth(spec.preset(), seed, faultSpec == null ? "" : faultSpec.strip(), faults);
    String name = "Simulated " + spec.hardware().deviceName() + " (preset " + spec.preset() + ")";
    this.info = new DeviceInfo("sim", DeviceKind.SIMULATED, DEVICE, name, spec.hardware().uuid(),
        spec.computeCapability(), spec.hardware().multiprocessors(), spec.hardware().memoryBytes(),
        (int) Math.min(Integer.MAX_VALUE, spec.hardware().l2Bytes()), "sim preset " + spec.preset(), 0, -3);
    this.tracer = new SimTracer(new TraceMeta("sim", ClockDomain.SIMULATED,
        List.of(new TraceDevice(DEVICE, name, spec.hardware().uuid(), DeviceKind.SIMULATED)),
        Map.of("preset", spec.preset(), "seed", Long.toString(seed), "spec.source", spec.hardware().source())), this);
    this.ctx = new SimContext(this, spec, faults, seed, jitter, tracer);
    this.pool = new SimPool(spec, this);
    this.scheduler = new SimScheduler(ctx, pool, new Governor(spec, faults, powerLimitW, smClockMHz));
    this.allocator = new Allocator(ctx, scheduler, pool);
    this.transfers = new Transfers(ctx, scheduler, allocator);
    this.launcher = new Launcher(ctx, scheduler, allocator);
    this.graphs = new Graphs(ctx, scheduler, launcher);
    this.syncs = new Syncs(ctx, scheduler, pool, this.scheduling);
    this.sampler = new SimSampler(ctx, scheduler, allocator);
    this.replay = new TraceDriven(ctx, scheduler, allocator, syncs);
  }

  /** Opens a simulated device directly (the provider does this for {@code --device sim}). */
  public static SimDevice open(SimSpec spec, long seed, String faults) {
    return new SimDevice(spec, seed, faults, 0.02);
  }

  @Override
  public Optional<Record> groundTruth() {
    return Optional.of(truth);
  }

  /** The faults injected into this device, the preset and the seed: for scoring, never for the analysis. */
  public GroundTruth injected() {
    return truth;
  }

  /** The model this device runs. */
  public SimSpec spec() {
    return spec;
  }

  /** The context scheduling mode the device was opened with. */
  public SchedulingMode scheduling() {
    return scheduling;
  }

  /** The priority of the stream whose trace id is {@code streamId} (also after it was destroyed). */
  public synchronized int streamPriority(int streamId) {
    return scheduler.streamPriority(streamId);
  }

  /**
   * Simulated host time the host thread spent asleep in synchronizations (only under
   * {@link SchedulingMode#BLOCKING_SYNC}; a spinning or yielding thread keeps its core busy while it waits).
   */
  public synchronized long hostSleptNanos() {
    return syncs.hostSlept;
  }

  synchronized long now() {
    return ctx.host;
  }

  /** A cheap driver call the facade makes: costs {@link SimContext#QUERY_NS} and leaves an OTHER API record. */
  synchronized void query(String name) {
    ctx.query(name);
  }

  // ------------------------------------------------------------------ Device

  @Override
  public DeviceInfo info() {
    return info;
  }

  @Override
  public Ticker clock() {
    return ticker;
  }

  @Override
  public Stream defaultStream() {
    return scheduler.defaultStream;
  }

  @Override
  public synchronized Stream createStream(int priority) {
    ctx.check();
    if (priority > info.leastStreamPriority() || priority < info.greatestStreamPriority()) {
      throw new DeviceException("cuStreamCreateWithPriority", 1, "CUDA_ERROR_INVALID_VALUE",
          "priority " + priority + " outside " + info.greatestStreamPriority() + ".." + info.leastStreamPriority());
    }
    long t0 = ctx.host;
    ctx.host += ctx.hostCost(spec.copyApiNs());
    SimStream s = scheduler.createStream(priority);
    ctx.api(ApiKind.OTHER, "cuStreamCreateWithPriority", ctx.nextCorrelation(), t0);
    return s;
  }

  @Override
  public synchronized Event createEvent(boolean timing) {
    return syncs.createEvent(timing);
  }

  @Override
  public synchronized DeviceMemory malloc(long bytes) {
    return allocator.malloc(bytes);
  }

  @Override
  public synchronized DeviceMemory mallocAsync(long bytes, Stream stream) {
    return allocator.mallocAsync(bytes, stream);
  }

  @Override
  public synchronized void freeAsync(DeviceMemory memory, Stream stream) {
    allocator.freeAsync(memory, stream);
  }

  @Override
  public MemPool defaultPool() {
    return pool;
  }

  @Override
  public synchronized HostMemory allocHost(long bytes, HostMemoryKind kind) {
    return allocator.allocHost(bytes, kind);
  }

  @Override
  public synchronized void copy(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes) {
    transfers.copy(dst, dstOffset, src, srcOffset, bytes);
  }

  @Override
  public synchronized void copyAsync(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes,
      Stream stream) {
    transfers.copyAsync(dst, dstOffset, src, srcOffset, bytes, stream);
  }

  @Override
  public synchronized void memsetAsync(DeviceMemory dst, long offset, int byteValue, long bytes, Stream stream) {
    transfers.memsetAsync(dst, offset, byteValue, bytes, stream);
  }

  @Override
  public synchronized Module load(KernelModule module) {
    return launcher.load(module);
  }

  @Override
  public synchronized void launch(Kernel kernel, LaunchConfig config, Stream stream, Object... args) {
    launcher.launch(kernel, config, stream, args);
  }

  @Override
  public synchronized void beginCapture(Stream stream) {
    graphs.beginCapture(stream);
  }

  @Override
  public synchronized GraphExec endCapture(Stream stream) {
    return graphs.endCapture(stream);
  }

  @Override
  public synchronized void launchGraph(GraphExec graph, Stream stream) {
    graphs.launchGraph(graph, stream);
  }

  @Override
  public synchronized void synchronize() {
    syncs.synchronize();
  }

  @Override
  public synchronized MemInfo memInfo() {
    ctx.check();
    ctx.query("cuMemGetInfo_v2");
    return allocator.memInfo();
  }

  @Override
  public int maxActiveBlocksPerMultiprocessor(Kernel kernel, int blockSize, int dynamicSharedBytes) {
    return launcher.maxActiveBlocksPerMultiprocessor(kernel, blockSize, dynamicSharedBytes);
  }

  @Override
  public int suggestedBlockSize(Kernel kernel, int dynamicSharedBytes) {
    return launcher.suggestedBlockSize(kernel, dynamicSharedBytes);
  }

  @Override
  public synchronized void setL2AccessWindow(Stream stream, DeviceMemory memory, long offset, long bytes,
      float hitRatio) {
    launcher.setL2AccessWindow(stream, memory, offset, bytes, hitRatio);
  }

  @Override
  public Blas blas() {
    return blas;
  }

  @Override
  public StateSampler sampler() {
    return sampler;
  }

  @Override
  public EventTracer tracer() {
    return tracer;
  }

  @Override
  public synchronized void close() {
    if (ctx.closed) {
      return;
    }
    tracer.stop();
    ctx.closed = true;
  }

  // ------------------------------------------------------------------ the handles' calls

  synchronized ByteBuffer buffer(int bytes) {
    return allocator.buffer(bytes);
  }

  synchronized void free(SimMemory m, String function) {
    allocator.free(m, function);
  }

  synchronized void freeHost(SimHostMemory m) {
    allocator.freeHost(m);
  }

  /** A GEMM from {@link SimBlas}: emulated by {@code effect}, timed from its work. */
  synchronized void launchGemm(String name, LaunchConfig config, Work w, Stream stream, Runnable effect) {
    launcher.launchGemm(name, config, w, stream, effect);
  }

  synchronized void synchronize(SimStream s) {
    syncs.synchronize(s);
  }

  synchronized void waitEvent(SimStream s, SimEvent e) {
    syncs.waitEvent(s, e);
  }

  synchronized void recordEvent(SimEvent e, Stream stream) {
    syncs.recordEvent(e, stream);
  }

  synchronized void synchronize(SimEvent e) {
    syncs.synchronize(e);
  }

  synchronized float elapsed(SimEvent start, SimEvent end) {
    return syncs.elapsed(start, end);
  }

  synchronized void destroy(SimStream s) {
    if (scheduler.destroy(s)) {
      ctx.query("cuStreamDestroy_v2");
    }
  }

  // ------------------------------------------------------------------ trace-driven replay

  /** Host time passes outside any API call (the job's own host work). */
  public synchronized void hostWork(long ns) {
    ctx.host += Math.max(0, ns);
  }

  synchronized void replayLaunch(String name, LaunchConfig c, Work w, long fixedNs, int streamId, String api,
      boolean hostCost) {
    replay.launch(name, c, w, fixedNs, streamId, api, hostCost);
  }

  synchronized void replayGraphLaunch(List<Runnable> kernels) {
    replay.graphLaunch(kernels);
  }

  /** A kernel inside a replayed graph: no host cost, the graph launch's correlation id. */
  synchronized void replayGraphNode(String name, LaunchConfig c, Work w, long fixedNs, int streamId) {
    replay.graphNode(name, c, w, fixedNs, streamId);
  }

  synchronized void replayCopy(CopyKind kind, long bytes, MemoryKind src, MemoryKind dst, int streamId,
      boolean sync, int waitForStream) {
    replay.copy(kind, bytes, src, dst, streamId, sync, waitForStream);
  }

  synchronized void replayMemset(long bytes, int value, int streamId) {
    replay.memset(bytes, value, streamId);
  }

  /** A replayed allocator call; see {@link TraceDriven#allocator}. */
  synchronized void replayAllocator(boolean alloc, boolean plain, String name, long recordedOwnNs) {
    replay.allocator(alloc, plain, name, recordedOwnNs);
  }

  synchronized void replaySync(SyncKind kind, int streamId) {
    replay.sync(kind, streamId);
  }

  /** A stream waits for all work queued so far on the other streams (a join). */
  synchronized void replayJoin(int streamId) {
    replay.join(streamId);
  }

  synchronized void replayOther(String name, long ns) {
    replay.other(name, ns);
  }

  /** When all queued work is done and the host has reached it. */
  synchronized long makespanEnd() {
    return scheduler.makespanEnd();
  }
}
