package io.gitm.job;


import io.gitm.device.Device;
import io.gitm.device.DeviceException;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.OutOfDeviceMemoryException;
import io.gitm.device.SchedulingMode;
import io.gitm.device.UnsupportedFeatureException;
import io.gitm.levers.Setup;
import io.gitm.os.CpuAffinity;
import io.gitm.workload.IterationResult;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;

/**
 * A managed workload run in gitm's process on a device opened through a {@link DeviceProvider}, as a {@link Job}.
 *
 * <p>A run opens a {@link Workload.Session} under {@code setup.config()} on a device opened with the setup's
 * scheduling mode ({@code AUTO}: the base request's) and device settings (added to the base request's options).
 * Runs whose setups open the device alike ({@link Setup#sameDeviceOpen}) share one open device, so two such runs can
 * be open side by side; a setup that needs it opened differently gets a device of its own, and open devices no run
 * uses are closed first. Environment variables cannot take effect in gitm's running process: a setup with any is
 * refused.
 *
 * <p>A block is {@code iterations} input batches: steps of the session until they add up to that many (a step
 * counts as the {@code inputBatches} extra it reports, else as the setup's {@code batchCoalesce}), so that every
 * setup does the same work per block; {@code iterations} must be a multiple of the setup's coalescing. A block
 * also ends where the session's input runs out, and the next block starts a fresh session from the input's
 * beginning; {@link Run#output()} then digests the sessions' digests in order. The metric is the block's units per
 * second of device-clock time (summed step times), or for a workload where lower is better its milliseconds per
 * input batch.
 *
 * <p>With {@code setup.cpus()}, the thread that opens the run and every thread that runs one of its blocks is
 * pinned to those CPUs ({@link CpuAffinity}, Linux only); a run without CPUs puts such a thread back on the CPUs it
 * had before this job pinned it, and all are put back when the last run closes.
 *
 * <p>Failures become {@link TrialFailure}s: {@link OutOfDeviceMemoryException} → {@code OUT_OF_MEMORY},
 * {@link UnsupportedFeatureException} → {@code SETUP_REFUSED}, other {@link DeviceException} →
 * {@code DEVICE_ERROR}, {@link IllegalArgumentException} while opening → {@code SETUP_REFUSED}, any other runtime
 * exception → {@code CRASH}. What a failed open had opened is closed; a device that failed with a device error or a
 * crash is closed once no run uses it.
 */
public final class ManagedJob implements Job.Closeable {
  private static final String INPUT_BATCHES = "inputBatches";

  private final Workload workload;
  private final DeviceProvider provider;
  private final DeviceRequest base;
  private final Path dataDir;
  private final int iterations;
  private final List<Held> devices = new ArrayList<>();
  private final List<ManagedRun> runs = new ArrayList<>();
  /** The CPUs each thread this job pinned had before, by kernel thread id. */
  private final Map<Integer, SortedSet<Integer>> originalCpus = new HashMap<>();
  private int devicesOpened;
  private boolean closed;

  /**
   * @param base the device to open (ordinal, backend options such as the simulator's preset, seed and faults); a
   *     setup's scheduling mode and device settings are applied on top
   * @param dataDir the workload's data folder (e.g. the run store's {@code datasets/hft/})
   * @param iterations input batches per block
   */
  public ManagedJob(Workload workload, DeviceProvider provider, DeviceRequest base, Path dataDir, int iterations) {
    if (workload == null || provider == null || dataDir == null) {
      throw new IllegalArgumentException("a managed job needs a workload, a device provider and a data folder");
    }
    if (iterations < 1) {
      throw new IllegalArgumentException("a block needs at least one iteration, got " + iterations);
    }
    this.workload = workload;
    this.provider = provider;
    this.base = base == null ? DeviceRequest.first() : base;
    this.dataDir = dataDir;
    this.iterations = iterations;
  }

  @Override
  public String metric() {
    return workload.spec().metric();
  }

  @Override
  public boolean higherIsBetter() {
    return workload.spec().higherIsBetter();
  }

  /** Devices this job has opened so far (each reopen counts). */
  public synchronized int devicesOpened() {
    return devicesOpened;
  }

  @Override
  public synchronized Run open(Setup setup) throws TrialFailure {
    if (closed) {
      throw new IllegalStateException("the managed job " + workload.spec().name() + " is closed");
    }
    if (setup == null) {
      throw new IllegalArgumentException("no setup to open");
    }
    if (!setup.environment().isEmpty()) {
      throw new TrialFailure(TrialFailure.Kind.SETUP_REFUSED, "a managed job runs in gitm's own process, whose "
          + "environment cannot change: " + setup.environment().keySet());
    }
    int k = setup.config().batchCoalesce();
    if (iterations % k != 0) {
      throw new TrialFailure(TrialFailure.Kind.SETUP_REFUSED, "a block of " + iterations + " input batches cannot be"
          + " run in device batches of " + k + " (batchCoalesce): use a multiple of " + k);
    }
    Held held = acquire(setup);
    try {
      try {
        pinCurrentThread(setup);
      } catch (RuntimeException e) {
        throw failure(e, true, "pinning the host thread");
      }
      ManagedRun run = new ManagedRun(setup, held, openSession(held.device, setup));
      runs.add(run);
      return run;
    } catch (TrialFailure f) {
      release(held, f.kind());
      if (runs.isEmpty()) {
        restoreThreads();
      }
      throw f;
    }
  }

  /** Closes every run still open and every device this job opened; puts pinned threads back. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (ManagedRun r : List.copyOf(runs)) {
      r.close();
    }
    for (Held h : List.copyOf(devices)) {
      closeDevice(h);
    }
    restoreThreads();
  }

  // ------------------------------------------------------------------ devices

  /** An open device, the setup it was opened for, and how many runs use it. */
  private static final class Held {
    final Device device;
    final Setup setup;
    int users;
    boolean broken;

    Held(Device device, Setup setup) {
      this.device = device;
      this.setup = setup;
    }
  }

  private Held acquire(Setup setup) throws TrialFailure {
    for (Held h : devices) {
      if (!h.broken && h.setup.sameDeviceOpen(setup)) {
        h.users++;
        return h;
      }
    }
    for (Held h : List.copyOf(devices)) {
      if (h.users == 0) {
        closeDevice(h);
      }
    }
    Map<String, String> options = new LinkedHashMap<>(base.options());
    options.putAll(setup.deviceSettings());
    SchedulingMode mode = setup.scheduling() == SchedulingMode.AUTO ? base.scheduling() : setup.scheduling();
    Device d;
    try {
      d = provider.open(new DeviceRequest(base.ordinal(), mode, options));
    } catch (RuntimeException e) {
      throw failure(e, true, "opening " + provider.kind() + " device " + base.ordinal() + " (" + mode
          + (setup.deviceSettings().isEmpty() ? "" : ", " + setup.deviceSettings()) + ")");
    }
    devicesOpened++;
    Held h = new Held(d, setup);
    h.users = 1;
    devices.add(h);
    return h;
  }

  private void release(Held h, TrialFailure.Kind failure) {
    h.users--;
    if (failure == TrialFailure.Kind.DEVICE_ERROR || failure == TrialFailure.Kind.CRASH) {
      h.broken = true;
    }
    if (h.broken && h.users <= 0) {
      closeDevice(h);
    }
  }

  private void closeDevice(Held h) {
    devices.remove(h);
    try {
      h.device.close();
    } catch (RuntimeException e) {
      // closing is best effort: the device is dropped either way
    }
  }

  private Workload.Session openSession(Device device, Setup setup) throws TrialFailure {
    try {
      return workload.open(device, setup.config(), dataDir);
    } catch (RuntimeException e) {
      throw failure(e, true, "opening " + workload.spec().name());
    }
  }

  // ------------------------------------------------------------------ host threads

  /**
   * Pins the calling thread to the setup's CPUs; without CPUs, puts a thread this job pinned back on its own.
   */
  private void pinCurrentThread(Setup setup) throws TrialFailure {
    if (setup.cpus().isEmpty()) {
      if (originalCpus.isEmpty() || !CpuAffinity.supported()) {
        return;
      }
      SortedSet<Integer> original = originalCpus.get(CpuAffinity.currentThreadId());
      if (original != null) {
        CpuAffinity.pin(0, original);
      }
      return;
    }
    if (!CpuAffinity.supported()) {
      throw new TrialFailure(TrialFailure.Kind.SETUP_REFUSED, "the setup pins the host thread to CPUs "
          + setup.cpus() + ", which is unsupported here: " + CpuAffinity.unsupportedReason());
    }
    try {
      int tid = CpuAffinity.currentThreadId();
      if (!originalCpus.containsKey(tid)) {
        originalCpus.put(tid, CpuAffinity.of(0));
      }
      CpuAffinity.pin(0, setup.cpus());
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new TrialFailure(TrialFailure.Kind.SETUP_REFUSED, "cannot pin the host thread to CPUs " + setup.cpus()
          + ": " + e.getMessage(), e);
    }
  }

  private void restoreThreads() {
    for (Map.Entry<Integer, SortedSet<Integer>> e : originalCpus.entrySet()) {
      try {
        CpuAffinity.pin(e.getKey(), e.getValue());
      } catch (RuntimeException gone) {
        // the thread has ended
      }
    }
    originalCpus.clear();
  }

  // ------------------------------------------------------------------ failures

  private static TrialFailure failure(RuntimeException e, boolean opening, String what) {
    TrialFailure.Kind kind = switch (e) {
      case OutOfDeviceMemoryException x -> TrialFailure.Kind.OUT_OF_MEMORY;
      case UnsupportedFeatureException x -> TrialFailure.Kind.SETUP_REFUSED;
      case DeviceException x -> TrialFailure.Kind.DEVICE_ERROR;
      case IllegalArgumentException x when opening -> TrialFailure.Kind.SETUP_REFUSED;
      default -> TrialFailure.Kind.CRASH;
    };
    String m = e.getMessage();
    return new TrialFailure(kind, what + ": " + (m == null || m.isBlank() ? e.getClass().getSimpleName() : m), e);
  }

  // ------------------------------------------------------------------ runs

  private final class ManagedRun implements Run {
    private final Setup setup;
    private final Held held;
    private final List<OutputDigest> finished = new ArrayList<>();
    private volatile Workload.Session session;
    private volatile TrialFailure failed;
    private final java.util.concurrent.atomic.AtomicBoolean closedRun = new java.util.concurrent.atomic.AtomicBoolean();

    ManagedRun(Setup setup, Held held, Workload.Session session) {
      this.setup = setup;
      this.held = held;
      this.session = session;
    }

    /**
     * Runs {@code iterations} input batches and returns the metric over them: units per second of the device's clock
     * from the first step to the end of all the block's device work (the block ends with a device synchronization).
     */
    @Override
    public double block() throws TrialFailure {
      if (closedRun.get()) {
        throw new IllegalStateException("this run of " + workload.spec().name() + " is closed");
      }
      if (failed != null) {
        throw new TrialFailure(failed.kind(), "the run failed earlier: " + failed.getMessage(), failed);
      }
      long units = 0;
      long nanos = 0;
      int inputs = 0;
      try {
        synchronized (ManagedJob.this) {
          pinCurrentThread(setup);
        }
        while (inputs < iterations) {
          if (!session.hasNext()) {
            if (inputs > 0) {
              break;
            }
            rollOver();
          }
          long t0 = held.device.clock().nanos();
          IterationResult r = session.step();
          nanos += held.device.clock().nanos() - t0;
          units += r.units();
          inputs += (int) Math.max(1, Math.round(r.extras().getOrDefault(INPUT_BATCHES,
              (double) setup.config().batchCoalesce())));
        }
        // work a pipelined setup left in flight belongs to this block: wait for it, so that every block's time
        // covers all of its work and no block borrows from the next
        long t0 = held.device.clock().nanos();
        held.device.synchronize();
        nanos += held.device.clock().nanos() - t0;
      } catch (RuntimeException e) {
        throw fail(failure(e, false, "running " + workload.spec().name()));
      } catch (TrialFailure f) {
        throw fail(f);
      }
      if (nanos <= 0) {
        throw fail(new TrialFailure(TrialFailure.Kind.CRASH, workload.spec().name() + " measured no time over a "
            + "block of " + inputs + " input batches"));
      }
      return higherIsBetter() ? units * 1e9 / nanos : nanos / 1e6 / inputs;
    }

    /** The session's input is used up: its digest is kept and a fresh session starts from the beginning. */
    private void rollOver() throws TrialFailure {
      finished.add(session.output());
      Workload.Session old = session;
      session = null;
      old.close();
      session = openSession(held.device, setup);
      if (!session.hasNext()) {
        throw new TrialFailure(TrialFailure.Kind.CRASH, workload.spec().name() + " has no input");
      }
    }

    /** Records the failure, closes the session, and marks the device broken after a device error or a crash. */
    private TrialFailure fail(TrialFailure f) {
      failed = f;
      closeSession();
      if (f.kind() == TrialFailure.Kind.DEVICE_ERROR || f.kind() == TrialFailure.Kind.CRASH) {
        synchronized (ManagedJob.this) {
          held.broken = true;
        }
      }
      return f;
    }

    private void closeSession() {
      Workload.Session s = session;
      session = null;
      if (s != null) {
        try {
          s.close();
        } catch (RuntimeException e) {
          // the session is dropped either way
        }
      }
    }

    @Override
    public OutputDigest output() {
      Workload.Session s = session;
      if (s == null) {
        throw new IllegalStateException("this run of " + workload.spec().name() + " is "
            + (closedRun.get() ? "closed" : "failed") + ": no output");
      }
      OutputDigest now = s.output();
      if (finished.isEmpty()) {
        return now;
      }
      List<OutputDigest> all = new ArrayList<>(finished);
      all.add(now);
      return combine(all);
    }

    @Override
    public void close() {
      if (!closedRun.compareAndSet(false, true)) {
        return;
      }
      closeSession();
      synchronized (ManagedJob.this) {
        runs.remove(this);
        release(held, failed == null ? null : failed.kind());
        if (runs.isEmpty()) {
          restoreThreads();
        }
      }
    }
  }

  /** The digest of sessions run one after the other: SHA-256 over their hashes in order, their values end to end. */
  static OutputDigest combine(List<OutputDigest> parts) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      int n = 0;
      for (OutputDigest d : parts) {
        md.update(d.sha256().getBytes(StandardCharsets.US_ASCII));
        md.update((byte) '\n');
        n += d.values().length;
      }
      double[] values = new double[n];
      int at = 0;
      for (OutputDigest d : parts) {
        double[] v = d.values();
        System.arraycopy(v, 0, values, at, v.length);
        at += v.length;
      }
      return new OutputDigest(HexFormat.of().formatHex(md.digest()), values);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this Java runtime", e);
    }
  }
}
