package io.gitm.sim;

import io.gitm.device.DeviceException;
import io.gitm.device.Event;
import io.gitm.device.SchedulingMode;
import io.gitm.device.Stream;
import io.gitm.trace.ApiKind;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;

/**
 * Events and synchronizations on the simulated device. A synchronizing call costs its own host time, then the host
 * waits for the device and, when it blocked, wakes as the context's scheduling mode says; the pool trims at every
 * synchronization.
 */
final class Syncs {
  private final SimContext ctx;
  private final SimSpec spec;
  private final SimScheduler scheduler;
  private final SimPool pool;
  private final SchedulingMode scheduling;
  /** Host time spent asleep in blocking-sync waits (the host core was free). */
  long hostSlept;

  Syncs(SimContext ctx, SimScheduler scheduler, SimPool pool, SchedulingMode scheduling) {
    this.ctx = ctx;
    this.spec = ctx.spec;
    this.scheduler = scheduler;
    this.pool = pool;
    this.scheduling = scheduling;
  }

  Event createEvent(boolean timing) {
    ctx.check();
    long t0 = ctx.host;
    ctx.host += ctx.hostCost(spec.copyApiNs());
    ctx.api(ApiKind.OTHER, "cuEventCreate", ctx.nextCorrelation(), t0);
    return new SimEvent(ctx.device, timing);
  }

  /** {@code cuCtxSynchronize}: the host waits until the whole device is idle. */
  void synchronize() {
    ctx.check();
    scheduler.requireNotCapturing("cuCtxSynchronize");
    long t0 = ctx.host;
    long corr = ctx.nextCorrelation();
    ctx.host += ctx.hostCost(spec.copyApiNs());
    scheduler.waitDevice();
    if (ctx.tracer.on()) {
      ctx.tracer.emit(new SyncRecord(SyncKind.CONTEXT, SimDevice.DEVICE, -1, corr, t0, ctx.host));
    }
    ctx.api(ApiKind.SYNC, "cuCtxSynchronize", corr, t0);
  }

  void synchronize(SimStream s) {
    ctx.check();
    if (s.capture != null) {
      throw new DeviceException("cuStreamSynchronize", 900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
          "stream " + s.id + " is capturing");
    }
    hostWaits(SyncKind.STREAM, s.id, s.tail, "cuStreamSynchronize");
  }

  /** {@code cuStreamWaitEvent}: later work on {@code s} starts after the event's recorded time. */
  void waitEvent(SimStream s, SimEvent e) {
    ctx.check();
    if (e.device != ctx.device) {
      throw new DeviceException("cuStreamWaitEvent", 400, "CUDA_ERROR_INVALID_HANDLE", "event of another device");
    }
    long t0 = ctx.host;
    long corr = ctx.nextCorrelation();
    ctx.host += ctx.hostCost(spec.copyApiNs());
    if (s.capture != null) {
      s.capture.add((target, c) -> target.tail = Math.max(target.tail, e.time));
    } else if (e.time >= 0) {
      s.tail = Math.max(s.tail, e.time);
    }
    if (ctx.tracer.on()) {
      ctx.tracer.emit(new SyncRecord(SyncKind.STREAM_WAIT_EVENT, SimDevice.DEVICE, s.id, corr, t0, ctx.host));
    }
    ctx.api(ApiKind.SYNC, "cuStreamWaitEvent", corr, t0);
  }

  /** {@code cuEventRecord}: the event takes the time its stream's queued work ends (or now, if later). */
  void recordEvent(SimEvent e, Stream stream) {
    ctx.check();
    SimStream s = scheduler.stream(stream, "cuEventRecord");
    long t0 = ctx.host;
    ctx.host += ctx.hostCost(spec.copyApiNs());
    if (s.capture != null) {
      s.capture.add((target, c) -> {
        e.time = Math.max(target.tail, ctx.host);
        e.stream = target.id;
      });
    } else {
      e.time = Math.max(s.tail, ctx.host);
      e.stream = s.id;
      if (e.timing && spec.timingEventNs() > 0) {
        // The stream writes the timestamp after its own processing time; later work on it waits.
        e.time += ctx.deviceCost(spec.timingEventNs());
        scheduler.finish(s, e.time);
      }
    }
    ctx.api(ApiKind.OTHER, "cuEventRecord", ctx.nextCorrelation(), t0);
  }

  void synchronize(SimEvent e) {
    ctx.check();
    if (e.time < 0) {
      throw new DeviceException("cuEventSynchronize", 400, "CUDA_ERROR_INVALID_HANDLE", "event was never recorded");
    }
    hostWaits(SyncKind.EVENT, e.stream, e.time, "cuEventSynchronize");
  }

  /** Milliseconds between two completed timing events. */
  float elapsed(SimEvent start, SimEvent end) {
    ctx.check();
    if (!start.timing || !end.timing) {
      throw new DeviceException("cuEventElapsedTime", 400, "CUDA_ERROR_INVALID_HANDLE",
          "both events need timing enabled");
    }
    if (start.time < 0 || end.time < 0) {
      throw new DeviceException("cuEventElapsedTime", 400, "CUDA_ERROR_INVALID_HANDLE", "event was never recorded");
    }
    if (start.time > ctx.host || end.time > ctx.host) {
      throw new DeviceException("cuEventElapsedTime", 600, "CUDA_ERROR_NOT_READY", "event has not completed");
    }
    ctx.query("cuEventElapsedTime");
    return (float) ((end.time - start.time) / 1e6);
  }

  /**
   * A synchronizing host call: the call's own cost, then the host waits until {@code until}; the pool trims as at
   * every synchronization; a {@link SyncRecord} and the API record follow.
   */
  void hostWaits(SyncKind kind, int stream, long until, String function) {
    long t0 = ctx.host;
    long corr = ctx.nextCorrelation();
    ctx.host += ctx.hostCost(spec.copyApiNs());
    if (until > ctx.host) {
      long wake = switch (scheduling) {
        case AUTO, SPIN -> 0;
        case YIELD -> ctx.hostCost(SimDevice.YIELD_WAKE_NS);
        case BLOCKING_SYNC -> ctx.hostCost(SimDevice.BLOCKING_WAKE_NS);
      };
      if (scheduling == SchedulingMode.BLOCKING_SYNC) {
        hostSlept += until - ctx.host + wake;
      }
      ctx.host = until + wake;
    }
    pool.trim();
    if (ctx.tracer.on()) {
      ctx.tracer.emit(new SyncRecord(kind, SimDevice.DEVICE, stream, corr, t0, ctx.host));
    }
    ctx.api(ApiKind.SYNC, function, corr, t0);
  }
}
