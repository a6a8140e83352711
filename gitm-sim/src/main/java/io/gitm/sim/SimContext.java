package io.gitm.sim;

import io.gitm.device.DeviceException;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import java.util.List;

/**
 * What every part of a simulated device shares: its model, the host's simulated clock, the noise on each modeled
 * cost, the API correlation ids, the tracer and the injected faults. The parts are not thread-safe; they run under
 * the lock of the device that made them.
 */
final class SimContext {
  final SimDevice device;
  final SimSpec spec;
  final SimTracer tracer;
  /** The injected faults, in the order the fault spec names them. */
  final InjectedFault[] faults;
  /** The other context's time slices of a {@code time-slicing} fault, on the device's clock; null without one. */
  final TimeSlices slices;
  /** Draws the index of each cost's noise factor; starts where drawing the factors left the seed's generator. */
  private final Noise.SplitMix rng;
  /** The factors of {@link Noise}: device and host factor of index {@code i} side by side. Null without jitter. */
  private final double[] noise;
  /**
   * The host and device factors of the next noise draw, drawn one call ahead so that the table reads leave the
   * critical path; each cost takes the draw's factor of its own table, so the factors are those of drawing at the
   * call itself ({@code rng} serves nothing else once the tables are made).
   */
  private double aheadHost;
  private double aheadDevice;

  /** The host thread's simulated time. */
  long host;
  /** The correlation id of the last API call. */
  long correlation;
  boolean closed;

  SimContext(SimDevice device, SimSpec spec, List<InjectedFault> faults, long seed, double jitter,
      SimTracer tracer) {
    this.device = device;
    this.spec = spec;
    this.tracer = tracer;
    this.faults = faults.toArray(new InjectedFault[0]);
    this.slices = faults.stream().filter(f -> f.name().equals("time-slicing")).findFirst().map(TimeSlices::of)
        .orElse(null);
    Noise n = Noise.of(seed, jitter);
    if (n != null) {
      noise = n.factors;
      rng = new Noise.SplitMix(n.state);
      drawAhead();
    } else {
      noise = null;
      rng = null;
    }
  }

  /** The host time of a call modeled at {@code ns}, with its noise: never negative. */
  long hostCost(double ns) {
    if (noise == null) {
      return Math.max(0, Math.round(ns));
    }
    double f = aheadHost;
    drawAhead();
    return Math.max(0, Math.round(ns * f));
  }

  /** The device time of an operation modeled at {@code ns}, with its noise: at least 1 ns. */
  long deviceCost(double ns) {
    if (noise == null) {
      return Math.max(1, Math.round(ns));
    }
    double f = aheadDevice;
    drawAhead();
    return Math.max(1, Math.round(ns * f));
  }

  /** Draws the next noise index: {@code rng.nextInt(Noise.TABLE)}, which for a power of two is this mask. */
  private void drawAhead() {
    int i = rng.nextInt() & (Noise.TABLE - 1);
    aheadDevice = noise[2 * i];
    aheadHost = noise[2 * i + 1];
  }

  /** The next correlation id. */
  long nextCorrelation() {
    return ++correlation;
  }

  /** Leaves the API record of a call that began at {@code start} and ends now; returns {@code corr}. */
  long api(ApiKind kind, String name, long corr, long start) {
    if (tracer.on()) {
      tracer.emit(new ApiCallRecord(kind, name, Thread.currentThread().threadId(), corr, start, host));
    }
    return corr;
  }

  /** Host time of a query or attribute call (model assumption). */
  static final double QUERY_NS = 500;

  /** A cheap driver call the facade makes: costs {@link #QUERY_NS} and leaves an OTHER API record. */
  void query(String name) {
    if (closed) {
      return;
    }
    long t0 = host;
    host += hostCost(QUERY_NS);
    api(ApiKind.OTHER, name, ++correlation, t0);
  }

  /** Fails every call on a closed device. */
  void check() {
    if (closed) {
      throw new DeviceException("sim", 201, "CUDA_ERROR_INVALID_CONTEXT", "the simulated device is closed");
    }
  }

  boolean faultActive(String name) {
    return fault(name) != null;
  }

  /** The first fault named {@code name} that is active at the host's time, or null. */
  InjectedFault fault(String name) {
    if (faults.length == 0) {
      return null;
    }
    for (InjectedFault f : faults) {
      if (f.activeAt(host) && f.name().equals(name)) {
        return f;
      }
    }
    return null;
  }
}
