package io.gitm.sim;

import io.gitm.device.LaunchConfig;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyKind;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.Work;
import java.util.List;

/**
 * The calls a trace-driven replay makes on the simulated device: each recorded operation queued again by its trace
 * stream id, with the model's host costs, and no data behind it.
 */
final class TraceDriven {
  /** How far above the model a recorded allocator cost must be to replace it (noise and jitter stay below). */
  static final double RECORDED_COST_FACTOR = 1.5;

  private final SimContext ctx;
  private final SimSpec spec;
  private final SimScheduler scheduler;
  private final Allocator allocator;
  private final Syncs syncs;
  /** The correlation id of the graph launch being replayed, -1 outside one. */
  private long graphCorrelation = -1;

  TraceDriven(SimContext ctx, SimScheduler scheduler, Allocator allocator, Syncs syncs) {
    this.ctx = ctx;
    this.spec = ctx.spec;
    this.scheduler = scheduler;
    this.allocator = allocator;
    this.syncs = syncs;
  }

  void launch(String name, LaunchConfig c, Work w, long fixedNs, int streamId, String api, boolean hostCost) {
    SimStream s = scheduler.streamForId(streamId);
    long t0 = ctx.host;
    long corr = ctx.nextCorrelation();
    if (hostCost) {
      ctx.host += ctx.hostCost(spec.hardware().launchLatencyNs());
    }
    scheduler.admit(s);
    scheduler.enqueueKernel(name, c, w == null ? Work.NONE : w, s, corr, w == null ? fixedNs : -1, -1);
    ctx.api(ApiKind.LAUNCH, api, corr, t0);
  }

  void graphLaunch(List<Runnable> kernels) {
    long t0 = ctx.host;
    ctx.host += ctx.hostCost(spec.graphLaunchNs());
    long corr = ctx.nextCorrelation();
    graphCorrelation = corr;
    kernels.forEach(Runnable::run);
    graphCorrelation = -1;
    ctx.api(ApiKind.LAUNCH, "cuGraphLaunch", corr, t0);
  }

  /** A kernel inside a replayed graph: no host cost, the graph launch's correlation id. */
  void graphNode(String name, LaunchConfig c, Work w, long fixedNs, int streamId) {
    SimStream s = scheduler.streamForId(streamId);
    scheduler.enqueueKernel(name, c, w == null ? Work.NONE : w, s, graphCorrelation, w == null ? fixedNs : -1, -1);
  }

  void copy(CopyKind kind, long bytes, MemoryKind src, MemoryKind dst, int streamId, boolean sync,
      int waitForStream) {
    SimStream s = scheduler.streamForId(streamId);
    long t0 = ctx.host;
    long corr = ctx.nextCorrelation();
    ctx.host += ctx.hostCost(spec.copyApiNs());
    scheduler.admit(s);
    boolean pageable = src == MemoryKind.PAGEABLE || dst == MemoryKind.PAGEABLE;
    long end = scheduler.enqueueCopy(kind, bytes, src, dst, s, corr, sync || pageable || kind == CopyKind.HTOH);
    if (waitForStream >= 0) {
      SimStream w = scheduler.streamForId(waitForStream);
      w.tail = Math.max(w.tail, end);
    }
    ctx.api(ApiKind.COPY, sync ? "cuMemcpy" : "cuMemcpyAsync", corr, t0);
  }

  void memset(long bytes, int value, int streamId) {
    SimStream s = scheduler.streamForId(streamId);
    long t0 = ctx.host;
    long corr = ctx.nextCorrelation();
    ctx.host += ctx.hostCost(spec.copyApiNs());
    scheduler.admit(s);
    scheduler.enqueueMemset(bytes, value, s, corr);
    ctx.api(ApiKind.MEMSET, "cuMemsetD8Async", corr, t0);
  }

  /**
   * A replayed allocator call. A plain one waits for the device, then costs the model's size-independent part, or
   * {@code recordedOwnNs} (what the call cost the recorded job besides waiting) where that is over
   * {@link #RECORDED_COST_FACTOR} times the model's: API records carry no sizes, and a real driver's cost grows with
   * them. A pooled one costs the pool's time and does not synchronize.
   */
  void allocator(boolean alloc, boolean plain, String name, long recordedOwnNs) {
    long t0 = ctx.host;
    long corr = ctx.nextCorrelation();
    if (plain) {
      scheduler.waitDevice();
      double model = alloc ? allocator.mallocCost(0) : spec.freeNs();
      ctx.host += ctx.hostCost(recordedOwnNs > RECORDED_COST_FACTOR * model ? recordedOwnNs : model);
    } else {
      ctx.host += ctx.hostCost(alloc ? spec.poolAllocNs() : spec.copyApiNs());
    }
    ctx.api(alloc ? ApiKind.ALLOC : ApiKind.FREE, name, corr, t0);
  }

  void sync(SyncKind kind, int streamId) {
    boolean onStream = streamId >= 0 && kind != SyncKind.CONTEXT;
    long until = onStream ? scheduler.streamForId(streamId).tail : scheduler.deviceTail;
    syncs.hostWaits(kind, kind == SyncKind.CONTEXT ? -1 : streamId, until,
        switch (kind) {
          case CONTEXT -> "cuCtxSynchronize";
          case EVENT -> "cuEventSynchronize";
          default -> "cuStreamSynchronize";
        });
  }

  /** A stream waits for all work queued so far on the other streams (a join). */
  void join(int streamId) {
    SimStream s = scheduler.streamForId(streamId);
    long t0 = ctx.host;
    long corr = ctx.nextCorrelation();
    ctx.host += ctx.hostCost(spec.copyApiNs());
    for (SimStream o : scheduler.streams) {
      s.tail = Math.max(s.tail, o.tail);
    }
    if (ctx.tracer.on()) {
      ctx.tracer.emit(new SyncRecord(SyncKind.STREAM_WAIT_EVENT, SimDevice.DEVICE, s.id, corr, t0, ctx.host));
    }
    ctx.api(ApiKind.SYNC, "cuStreamWaitEvent", corr, t0);
  }

  void other(String name, long ns) {
    long t0 = ctx.host;
    ctx.host += Math.max(0, ns);
    ctx.api(ApiKind.OTHER, name, ctx.nextCorrelation(), t0);
  }
}
