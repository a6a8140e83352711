package io.gitm.rank;

import io.gitm.levers.Lever;
import io.gitm.sim.Replay;
import io.gitm.sim.SimSpec;
import io.gitm.stats.Sample;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceChange;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.Work;
import io.gitm.trace.WorkRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counterfactual replay: predicts a lever's effect by re-timing the captured trace on the simulated-device engine
 * under the lever's change ({@link Lever#counterfactual}), composed after the changes of levers already kept; it is
 * where levers meet the replay engine. The prediction is relative to the engine's own replay of the unchanged trace,
 * so the model's bias on this job cancels; its uncertainty combines the spread over seeds with how far the unchanged
 * replay lands from what was observed.
 */
public final class Counterfactual {
  /** Seeds each prediction is replayed with. */
  static final int SEEDS = 3;
  /** At most this many host API calls of the trace are replayed (a window from the steady part). */
  static final int MAX_CALLS = 6_000;

  private final Replay replay;
  private final SimSpec spec;
  private final long observedNs;
  private final double baselineNs;
  private final double baselineSpread;
  /** Replayed time (mean, relative spread) under the changes of kept levers, by those changes. */
  private final Map<TraceChange, double[]> anchors = new ConcurrentHashMap<>();

  private Counterfactual(Replay replay, SimSpec spec, long observedNs, double baselineNs, double baselineSpread) {
    this.replay = replay;
    this.spec = spec;
    this.observedNs = observedNs;
    this.baselineNs = baselineNs;
    this.baselineSpread = baselineSpread;
  }

  /**
   * A predicted change of the job's time under a lever.
   *
   * @param timeChange relative change of the replayed time (negative = faster)
   * @param gain the metric's expected relative improvement (positive = better), {@code 1/(1+timeChange) - 1}
   * @param uncertainty one standard deviation of {@code gain}
   * @param basis {@code replay} or why there is no prediction
   */
  public record Prediction(String lever, double timeChange, double gain, double uncertainty, String basis) {
    public boolean modelled() {
      return basis.equals("replay");
    }
  }

  /**
   * Prepares replays of {@code trace} (a window of at most {@link #MAX_CALLS} host calls from its steady part) on a
   * device of {@code spec}.
   */
  public static Optional<Counterfactual> of(List<? extends TraceRecord> trace, SimSpec spec) {
    List<TraceRecord> window = window(trace);
    Map<Long, Work> work = new HashMap<>();
    for (TraceRecord r : window) {
      if (r instanceof WorkRecord w && w.correlationId() != 0) {
        work.put(w.correlationId(), w.work());
      }
    }
    Replay replay;
    try {
      replay = Replay.of(window, (KernelRecord k) -> work.get(k.correlationId()));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    double[] base = new double[SEEDS];
    for (int s = 0; s < SEEDS; s++) {
      base[s] = replay.predict(spec, TraceChange.none(), s + 1).totalNs();
    }
    double mean = Sample.mean(base);
    return Optional.of(new Counterfactual(replay, spec, replay.observedNs(), mean, Sample.sd(base) / mean));
  }

  /** How far the unchanged replay is from the observed window: the model's error on this job. */
  public double modelError() {
    return observedNs == 0 ? 1 : Math.abs(baselineNs - observedNs) / observedNs;
  }

  /** The lever's predicted effect on the job as traced (its shipped setup). */
  public Prediction predict(Lever lever) {
    return predictOnTop(lever, List.of());
  }

  /**
   * The lever's predicted effect on top of {@code kept} (levers already applied, in order): the trace replayed with
   * the kept levers' changes, against the same with the lever's change added. A saving of the same time is a larger
   * share of a job the kept levers already made faster; kept levers replay does not model add nothing to either side.
   */
  public Prediction predictOnTop(Lever lever, List<Lever> kept) {
    TraceChange base = TraceChange.none();
    for (Lever k : kept) {
      base = base.and(k.counterfactual().orElse(TraceChange.none()));
    }
    Optional<TraceChange> change = lever.counterfactual().map(base::and);
    if (change.isEmpty()) {
      return new Prediction(lever.id(), 0, 0, 0, "not modelled by replay");
    }
    double anchorNs = baselineNs;
    double anchorSpread = baselineSpread;
    if (!base.equals(TraceChange.none())) {
      double[] a = anchors.computeIfAbsent(base, b -> {
        double[] t = new double[SEEDS];
        for (int s = 0; s < SEEDS; s++) {
          t[s] = replay.predict(spec, b, s + 1).totalNs();
        }
        double m = Sample.mean(t);
        return new double[] {m, Sample.sd(t) / m};
      });
      anchorNs = a[0];
      anchorSpread = a[1];
    }
    double[] t = new double[SEEDS];
    for (int s = 0; s < SEEDS; s++) {
      t[s] = replay.predict(spec, change.get(), s + 1).totalNs();
    }
    double mean = Sample.mean(t);
    double change01 = (mean - anchorNs) / anchorNs;
    double gain = 1 / (1 + change01) - 1;
    double spread = Sample.sd(t) / mean + anchorSpread;
    // the model's error on the unchanged trace bounds how far its relative predictions can be trusted
    double uncertainty = Math.abs(gain) * Math.min(1, modelError()) + spread;
    return new Prediction(lever.id(), change01, gain, uncertainty, "replay");
  }

  /** A window of the trace: skip the first tenth (warm-up), then at most {@link #MAX_CALLS} host calls. */
  static List<TraceRecord> window(List<? extends TraceRecord> trace) {
    List<ApiCallRecord> calls = new ArrayList<>();
    for (TraceRecord r : trace) {
      if (r instanceof ApiCallRecord a) {
        calls.add(a);
      }
    }
    if (calls.isEmpty()) {
      return new ArrayList<>(trace);
    }
    calls.sort(Comparator.comparingLong(ApiCallRecord::startNs));
    int from = calls.size() > 20 ? calls.size() / 10 : 0;
    int to = Math.min(calls.size(), from + MAX_CALLS);
    long t0 = calls.get(from).startNs();
    long t1 = calls.get(to - 1).endNs();
    Set<Long> corr = new HashSet<>();
    for (ApiCallRecord a : calls.subList(from, to)) {
      corr.add(a.correlationId());
    }
    List<TraceRecord> out = new ArrayList<>();
    for (TraceRecord r : trace) {
      long c = switch (r) {
        case ApiCallRecord a -> a.correlationId();
        case KernelRecord k -> k.correlationId();
        case CopyRecord k -> k.correlationId();
        case MemsetRecord k -> k.correlationId();
        case SyncRecord k -> k.correlationId();
        case WorkRecord k -> k.correlationId();
        default -> -1;
      };
      if (c > 0 ? corr.contains(c) : r.startNs() >= t0 && r.endNs() <= t1) {
        out.add(r);
      }
    }
    return out;
  }

}
