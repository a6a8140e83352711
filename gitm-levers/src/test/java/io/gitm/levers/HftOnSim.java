package io.gitm.levers;

import io.gitm.device.Device;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.SchedulingMode;
import io.gitm.job.Job;
import io.gitm.job.ManagedJob;
import io.gitm.job.TrialFailure;
import io.gitm.sim.SimDevice;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.StateSample;
import io.gitm.trace.TraceRecord;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import io.gitm.workloads.hft.HftLobWorkload;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * hft-lob on a small generated input (40 instruments, ~6,200 messages in 9 input batches of 700) on the simulated
 * h200, run through {@link ManagedJob} under a setup: the whole input in one block, with every trace record and the
 * device kept for the checks.
 */
final class HftOnSim {
  static final HftLobWorkload.Params SMALL = new HftLobWorkload.Params(11, 40, 6000, 700, 10, 128, 7, null);
  /** Input batches of {@link #SMALL}'s input (checked by the runs: a block that ends short would show). */
  static final int INPUT_BATCHES = 9;

  private HftOnSim() {
  }

  static Workload workload() {
    return new HftLobWorkload(SMALL);
  }

  /** A provider of simulated devices that traces each device it opens from its first call. */
  static final class Recording implements DeviceProvider {
    final DeviceProvider sim = DeviceProvider.all().stream().filter(p -> p.kind().equals("sim")).findFirst()
        .orElseThrow(() -> new AssertionError("gitm-sim is not on the test class path"));
    final List<SimDevice> opened = new ArrayList<>();
    final List<DeviceRequest> requests = new ArrayList<>();
    final List<TraceRecord> records = new ArrayList<>();

    @Override
    public String kind() {
      return "sim";
    }

    @Override
    public Probe probe() {
      return sim.probe();
    }

    @Override
    public Device open(DeviceRequest request) {
      requests.add(request);
      SimDevice d = (SimDevice) sim.open(request);
      synchronized (records) {
        d.tracer().start(r -> {
          synchronized (records) {
            records.add(r);
          }
        });
      }
      opened.add(d);
      return d;
    }

    SimDevice last() {
      return opened.getLast();
    }
  }

  /** What one run produced. */
  record Outcome(double metric, OutputDigest output, List<TraceRecord> records, SimDevice device,
      List<StateSample> samples) {
    <T extends TraceRecord> List<T> all(Class<T> type) {
      return records.stream().filter(type::isInstance).map(type::cast).toList();
    }

    List<KernelRecord> kernels() {
      return all(KernelRecord.class);
    }

    List<CopyRecord> copies() {
      return all(CopyRecord.class);
    }

    List<ApiCallRecord> api(Predicate<ApiCallRecord> p) {
      return all(ApiCallRecord.class).stream().filter(p).toList();
    }

    List<ApiCallRecord> api(String name) {
      return api(a -> a.name().equals(name));
    }

    /** Summed duration of the API calls named {@code name}. */
    long apiNanos(String name) {
      return api(name).stream().mapToLong(a -> a.endNs() - a.startNs()).sum();
    }
  }

  /** Runs the whole input under {@code setup} on a simulated h200 with {@code faults}. */
  static Outcome run(Path data, Setup setup, String faults) throws TrialFailure {
    return run(workload(), INPUT_BATCHES * 4, data, setup, faults);
  }

  /** Runs {@code w} for one block of {@code iterations} under {@code setup} on a simulated h200 with {@code faults}. */
  static Outcome run(Workload w, int iterations, Path data, Setup setup, String faults) throws TrialFailure {
    Recording p = new Recording();
    try (ManagedJob job = new ManagedJob(w, p, new DeviceRequest(0, SchedulingMode.AUTO,
        Map.of("preset", "h200", "seed", "7", "jitter", "0", "faults", faults)), data, iterations)) {
      double metric;
      OutputDigest out;
      List<StateSample> samples = new ArrayList<>();
      try (Job.Run run = job.open(setup)) {
        metric = run.block();
        samples.add(p.last().sampler().sample());
        out = run.output();
      }
      p.last().tracer().flush();
      synchronized (p.records) {
        return new Outcome(metric, out, List.copyOf(p.records), p.last(), samples);
      }
    }
  }

  static Outcome run(Path data, Setup setup) throws TrialFailure {
    return run(data, setup, "");
  }
}
