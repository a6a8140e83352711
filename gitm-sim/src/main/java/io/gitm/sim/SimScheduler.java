package io.gitm.sim;

import io.gitm.device.DeviceException;
import io.gitm.device.LaunchConfig;
import io.gitm.device.Stream;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.Precision;
import io.gitm.trace.TrafficRecord;
import io.gitm.trace.Work;
import io.gitm.trace.WorkRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The simulated device's event engine: its streams, and the shared resources their work is timed on when it is
 * queued (the multiprocessor array, whose occupancy {@link SmProfile} tracks, and two copy engines, one per
 * direction). An operation starts when its stream and its resource are free, and inside the job's time slices where
 * another context shares the device; its end becomes the stream's tail.
 */
final class SimScheduler {
  private static final int DEFAULT_STREAM_ID = 7;

  private final SimContext ctx;
  private final SimSpec spec;
  private final SimPool pool;
  private final TimeSlices slices;
  final Activity activity = new Activity();
  final Governor governor;
  private final SmProfile profile = new SmProfile();
  /** When each copy engine (host to device, device to host) is next free. */
  private final long[] engineFree = new long[2];
  /** The live streams, in order of creation. */
  final List<SimStream> streams = new ArrayList<>();
  /** Every stream ever made, by trace id (destroyed ones too). */
  private final Map<Integer, SimStream> streamsById = new LinkedHashMap<>();
  final SimStream defaultStream;
  /** Peak rate by precision ordinal, at the boost clock. */
  private final double[] peakFlops;
  private int nextStreamId = 13;
  /** When the last operation queued on any stream ends. */
  long deviceTail;
  private long ops;

  SimScheduler(SimContext ctx, SimPool pool, Governor governor) {
    this.ctx = ctx;
    this.spec = ctx.spec;
    this.pool = pool;
    this.slices = ctx.slices;
    this.governor = governor;
    this.peakFlops = new double[Precision.values().length];
    for (Precision p : Precision.values()) {
      peakFlops[p.ordinal()] = spec.hardware().flopsFor(p);
    }
    this.defaultStream = newStream(DEFAULT_STREAM_ID, 0);
  }

  // ------------------------------------------------------------------ streams

  private SimStream newStream(int id, int priority) {
    SimStream s = new SimStream(ctx.device, id, priority, spec.launchQueueDepth());
    streams.add(s);
    streamsById.put(id, s);
    return s;
  }

  /** A stream of the next free trace id. */
  SimStream createStream(int priority) {
    return newStream(nextStreamId++, priority);
  }

  /** The stream with trace id {@code id}, created when new (trace-driven replay). */
  SimStream streamForId(int id) {
    SimStream s = streamsById.get(id);
    if (s == null) {
      s = newStream(id, 0);
      nextStreamId = Math.max(nextStreamId, id + 1);
    }
    return s;
  }

  /** The priority of the stream whose trace id is {@code streamId} (also after it was destroyed). */
  int streamPriority(int streamId) {
    SimStream s = streamsById.get(streamId);
    if (s == null) {
      throw new IllegalArgumentException("the simulated device has no stream " + streamId);
    }
    return s.priority;
  }

  /** {@code s} as a live stream of this device; {@code function} names the call that fails otherwise. */
  SimStream stream(Stream s, String function) {
    if (s instanceof SimStream x && x.device == ctx.device && !x.destroyed) {
      return x;
    }
    throw new DeviceException(function, 400, "CUDA_ERROR_INVALID_HANDLE", "not a live stream of this simulated device");
  }

  /** Takes {@code s} off the live streams; false where it is the default stream or was destroyed already. */
  boolean destroy(SimStream s) {
    if (s == defaultStream || s.destroyed) {
      return false;
    }
    s.destroyed = true;
    streams.remove(s);
    return true;
  }

  void requireNotCapturing(String function) {
    for (SimStream s : streams) {
      if (s.capture != null) {
        throw new DeviceException(function, 900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
            "not permitted while stream " + s.id + " is capturing");
      }
    }
  }

  /** Blocks the host while {@code s} already holds a full launch queue. */
  void admit(SimStream s) {
    ctx.host = s.admit(ctx.host);
  }

  private long readyOn(SimStream s) {
    long r = Math.max(ctx.host, s.tail);
    if (ctx.faultActive("serialized-streams")) {
      r = Math.max(r, deviceTail);
    }
    return r;
  }

  /** Ends an operation queued on {@code s} at {@code end}. */
  void finish(SimStream s, long end) {
    s.tail = Math.max(s.tail, end);
    s.queued(end);
    deviceTail = Math.max(deviceTail, end);
    if ((++ops & 255) == 0) {
      profile.prune(ctx.host);
    }
  }

  /** Advances the host to when the whole device is idle; trims the pool as a synchronization does. */
  void waitDevice() {
    ctx.host = Math.max(ctx.host, deviceTail);
    pool.trim();
  }

  /** When all queued work is done and the host has reached it. */
  long makespanEnd() {
    return Math.max(ctx.host, deviceTail);
  }

  // ------------------------------------------------------------------ shared resources and faults

  /** The earliest time at or after {@code t} at which the job's work may run on the multiprocessors. */
  private long sliced(long t) {
    return slices == null ? t : slices.runnableFrom(t);
  }

  /** The end of {@code d} of the job's device time from {@code start}, paused through another context's slices. */
  private long slicedEnd(long start, long d) {
    return slices == null ? start + d : slices.endOf(start, d);
  }

  /** The multiprocessors the job may use now: all but those a noisy neighbour holds. */
  int smsAvailable() {
    int sms = spec.hardware().multiprocessors();
    InjectedFault n = ctx.fault("noisy-neighbour");
    return n == null ? sms : Math.max(1, sms - (int) n.param("sms"));
  }

  private double bandwidthFactor() {
    InjectedFault e = ctx.fault("ecc-retirement");
    return e == null ? 1.0 : e.param("factor");
  }

  private double hostLinkFactor() {
    InjectedFault p = ctx.fault("pcie-downgrade");
    return p == null ? 1.0 : p.param("factor");
  }

  // ------------------------------------------------------------------ kernels

  /** Queues a kernel on {@code s}: {@code fixedNs >= 0} takes that device time instead of the roofline. */
  void enqueueKernel(String name, LaunchConfig config, Work work, SimStream s, long corr, long fixedNs,
      int carveout) {
    enqueueKernel(name, config, work, s, corr, fixedNs, carveout, null);
  }

  /** As above; {@code memo} (may be null) remembers the kernel's last timing for repeated identical launches. */
  void enqueueKernel(String name, LaunchConfig config, Work work, SimStream s, long corr, long fixedNs,
      int carveout, TimingMemo memo) {
    governor.advance(ctx.host, activity);
    Work w = trafficOf(name, work, s);
    int cap = smsAvailable();
    Work timed = fixedNs >= 0 ? Work.NONE : w;
    KernelTiming.Result r = timing(timed, config, cap, carveout, memo);
    long d = ctx.deviceCost(fixedNs >= 0 ? Math.max(1, fixedNs) : r.durationNs());
    long start = kernelStart(readyOn(s), d, r.smsUsed(), cap);
    long end = slicedEnd(start, d);
    profile.reserve(start, end, Math.min(r.smsUsed(), cap));
    activity.addKernel(start, end, (double) r.smsUsed() / spec.hardware().multiprocessors(), r.memoryBoundShare());
    finish(s, end);
    SimTracer tracer = ctx.tracer;
    if (tracer.on()) {
      if (fixedNs < 0 && work != null) {
        tracer.emit(WorkRecord.of(name, SimDevice.DEVICE, s.id, corr, ctx.host, work));
        tracer.emit(new TrafficRecord(SimDevice.DEVICE, corr, end, w.bytesRead(), w.bytesWritten(), "sim"));
      }
      tracer.emit(new KernelRecord(name, SimDevice.DEVICE, s.id, corr, start, end, config.grid(), config.block(),
          KernelTiming.ASSUMED_REGISTERS, 0, config.dynamicSharedBytes()));
    }
  }

  /**
   * The memory traffic a kernel makes: its declared work, with the reads and writes of an uncoalesced kernel scaled
   * up, less the reads its stream's L2 persisting window serves.
   */
  private Work trafficOf(String name, Work work, SimStream s) {
    Work w = work;
    for (InjectedFault f : ctx.faults) {
      if (f.name().equals("uncoalesced") && f.activeAt(ctx.host) && name.contains(f.kernel())) {
        double k = f.param("factor");
        w = w.withBytes(Math.round(w.bytesRead() * k), Math.round(w.bytesWritten() * k));
      }
    }
    if (s.l2Window != null && s.l2Window.bytes() > 0) {
      long hit = Math.round(s.l2Window.hitRatio()
          * Math.min(w.bytesRead(), Math.min(s.l2Window.bytes(), spec.hardware().l2Bytes() * 3 / 4)));
      w = w.withBytes(w.bytesRead() - hit, w.bytesWritten());
    }
    return w;
  }

  /** The roofline timing of {@code timed} at the present clock, bandwidth and SM count; memoized in {@code memo}. */
  private KernelTiming.Result timing(Work timed, LaunchConfig config, int cap, int carveout, TimingMemo memo) {
    double clock = governor.clockMHz();
    double bw = bandwidthFactor();
    KernelTiming.Result r = memo == null ? null : memo.get(timed, config, cap, clock, bw, carveout);
    if (r == null) {
      r = KernelTiming.time(spec, peakFlops[timed.precision().ordinal()], timed, config, cap, clock, bw, carveout);
      if (memo != null) {
        memo.put(timed, config, cap, clock, bw, carveout, r);
      }
    }
    return r;
  }

  /**
   * The earliest start at or after {@code ready} where {@code sms} multiprocessors are free for the kernel's
   * {@code d}; under time-slicing, in one of the job's slices, the SMs free until the kernel, paused through the
   * other context's slices, ends.
   */
  private long kernelStart(long ready, long d, int sms, int cap) {
    if (slices == null) {
      return profile.earliest(ready, d, sms, cap);
    }
    long start = slices.runnableFrom(ready);
    while (true) {
      long end = slices.endOf(start, d);
      long next = slices.runnableFrom(profile.earliest(start, end - start, sms, cap));
      if (next == start) {
        return start;
      }
      start = next;
    }
  }

  // ------------------------------------------------------------------ copies and memsets

  /** Queues a copy on {@code s}; returns its end. The host waits for it when {@code hostWaits}. */
  long enqueueCopy(CopyKind kind, long bytes, MemoryKind src, MemoryKind dst, SimStream s, long corr,
      boolean hostWaits) {
    var h = spec.hardware();
    double rate;
    int engine;
    switch (kind) {
      case HTOD -> {
        rate = (src == MemoryKind.PINNED ? h.hostToDevicePinned() : h.hostToDevicePageable()) * hostLinkFactor();
        engine = 0;
      }
      case DTOH -> {
        rate = (dst == MemoryKind.PINNED ? h.deviceToHostPinned() : h.deviceToHostPageable()) * hostLinkFactor();
        engine = 1;
      }
      case DTOD -> {
        rate = h.memoryBandwidth() * bandwidthFactor() / 2;
        engine = -1;
      }
      default -> {
        rate = h.hostToDevicePageable();
        engine = -1;
      }
    }
    long d = ctx.deviceCost(spec.copyLatencyNs() + bytes / rate * 1e9);
    long start = readyOn(s);
    long end;
    if (engine >= 0) {
      // the copy engines are not time-sliced (model assumption): host copies run through another context's slices
      start = Math.max(start, engineFree[engine]);
      end = start + d;
      engineFree[engine] = end;
      activity.addTransfer(start, end, bytes, kind == CopyKind.HTOD);
    } else if (kind == CopyKind.DTOD) {
      // a device-to-device copy runs on the multiprocessors: only in the job's slices
      start = sliced(start);
      end = slicedEnd(start, d);
    } else {
      end = start + d;
    }
    finish(s, end);
    if (hostWaits) {
      ctx.host = Math.max(ctx.host, end);
    }
    if (ctx.tracer.on()) {
      ctx.tracer.emit(new CopyRecord(kind, bytes, src, dst, SimDevice.DEVICE, s.id, corr, start, end));
    }
    return end;
  }

  void enqueueMemset(long bytes, int value, SimStream s, long corr) {
    long d = ctx.deviceCost(spec.copyLatencyNs()
        + bytes / (spec.hardware().memoryBandwidth() * bandwidthFactor()) * 1e9);
    long start = sliced(readyOn(s));
    long end = slicedEnd(start, d);
    finish(s, end);
    if (ctx.tracer.on()) {
      ctx.tracer.emit(new MemsetRecord(bytes, value, MemoryKind.DEVICE, SimDevice.DEVICE, s.id, corr, start, end));
    }
  }
}
