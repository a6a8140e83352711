package io.gitm.bench;

import static io.gitm.bench.AttributionScoring.CAUSE_OF_FAULT;
import static io.gitm.bench.AttributionScoring.DEVICE_CAUSES;
import static io.gitm.bench.AttributionScoring.changed;
import static io.gitm.bench.AttributionScoring.run;
import static io.gitm.bench.AttributionScoring.spec;

import io.gitm.analysis.Differential;
import io.gitm.analysis.attribution.Cause;
import io.gitm.bench.AttributionScoring.FaultScore;
import io.gitm.bench.AttributionScoring.Options;
import io.gitm.bench.AttributionScoring.PairScore;
import io.gitm.bench.AttributionScoring.Run;
import io.gitm.stats.Sample;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One {@link AttributionScoring#score} in progress, in its three steps: each fault alone, the pairs, the fault-free
 * runs. It keeps the fault-free reference run of each seed, the slowdown of each fault alone on each seed (shared by
 * the scoring of the faults alone and of the pairs), and how many runs were made besides the references.
 */
final class Scoring {
  private final Options o;
  private final Path data;
  private final PrintStream progress;
  private final Map<Long, Reference> refs = new HashMap<>();
  /** By {@code fault#seed}. */
  private final Map<String, Double> slowdowns = new HashMap<>();
  private int runs;

  Scoring(Options o, Path data, PrintStream progress) {
    this.o = o;
    this.data = data;
    this.progress = progress;
  }

  /** A run of {@code f} alone on {@code seed}, its slowdown against the seed's fault-free run recorded. */
  private Run runAlone(String f, long seed) {
    Reference ref = reference(seed);
    Run r = run(o, data, spec(o, f, seed, ref.firstNs(), ref.jobNs()), seed);
    runs++;
    slowdowns.put(f + "#" + seed, (double) r.jobNs() / Math.max(1, ref.jobNs()) - 1);
    return r;
  }

  /** The score of fault {@code f} alone over its seeds. */
  FaultScore alone(String f) {
    Cause c = CAUSE_OF_FAULT.get(f);
    int top1 = 0;
    int top2 = 0;
    int d1 = 0;
    int d2 = 0;
    int inert = 0;
    double[] slow = new double[o.alone()];
    Map<Cause, Integer> tops = new LinkedHashMap<>();
    for (int i = 0; i < o.alone(); i++) {
      long seed = o.firstSeed() + i;
      Run r = runAlone(f, seed);
      slow[i] = slowdowns.get(f + "#" + seed);
      if (slow[i] < o.inertBelow()) {
        inert++;
        continue;
      }
      int rank = r.rank(c);
      top1 += rank == 1 ? 1 : 0;
      top2 += rank <= 2 ? 1 : 0;
      if (rank > 1 && progress != null) {
        progress.printf(Locale.ROOT, "  miss: %s seed %d (slowdown %+.1f%%) ranked %s%n", r.faults(), seed,
            slow[i] * 100, r.ranked());
      }
      List<Cause> changed = changed(refs.get(seed).side(), r);
      int dRank = rank(changed, c);
      d1 += dRank == 1 ? 1 : 0;
      d2 += dRank <= 2 ? 1 : 0;
      if (dRank > 1 && progress != null) {
        progress.printf(Locale.ROOT, "  differential miss: %s seed %d (slowdown %+.1f%%) changed %s%n", r.faults(),
            seed, slow[i] * 100, changed);
      }
      tops.merge(r.ranked().isEmpty() ? null : r.ranked().getFirst(), 1, Integer::sum);
    }
    FaultScore fs = new FaultScore(f, c, o.alone(), inert, top1, top2, d1, d2, Sample.median(slow),
        Arrays.stream(slow).min().orElse(0), Arrays.stream(slow).max().orElse(0), tops);
    if (progress != null) {
      progress.printf(Locale.ROOT, "%-20s top-1 %d/%d top-2 %d/%d differential %d/%d %d/%d inert %d, slowdown"
          + " %+.1f%% [%+.1f%%, %+.1f%%] best %s%n", f, top1, fs.scored(), top2, fs.scored(), d1, fs.scored(), d2,
          fs.scored(), inert, fs.slowdown() * 100,
          fs.minSlowdown() * 100, fs.maxSlowdown() * 100, tops);
    }
    return fs;
  }

  /** The score of every pair of faults but those of two faults inert alone on every seed ({@code scores}). */
  PairScore pairs(List<FaultScore> scores) {
    Pairs t = new Pairs();
    if (o.pairs() > 0) {
      Set<String> inertAlone = new HashSet<>();
      for (FaultScore f : scores) {
        if (f.inertForWorkload()) {
          inertAlone.add(f.fault());
        }
      }
      for (int i = 0; i < o.faults().size(); i++) {
        for (int j = i + 1; j < o.faults().size(); j++) {
          t.pairs++;
          String a = o.faults().get(i);
          String b = o.faults().get(j);
          if (inertAlone.contains(a) && inertAlone.contains(b)) {
            t.skipped++;
            continue;
          }
          for (int k = 0; k < o.pairs(); k++) {
            pair(a, b, o.firstSeed() + 1000 + k, t);
          }
          if (progress != null && t.misses.containsKey(a + "+" + b)) {
            progress.printf(Locale.ROOT, "pair %-36s misses %d/%d%n", a + "+" + b, t.misses.get(a + "+" + b),
                o.pairs());
          }
        }
      }
    }
    List<String> worst = t.misses.entrySet().stream().sorted((x, y) -> y.getValue() - x.getValue()).limit(10)
        .map(e -> e.getKey() + " (" + e.getValue() + ")").toList();
    return new PairScore(t.pairs, t.skipped, t.runs, t.scored, t.top1, t.top2, t.bothTop2, t.diffTop1, t.diffTop2,
        worst);
  }

  /** One run of faults {@code a} and {@code b} together on {@code seed}, scored into {@code t}. */
  private void pair(String a, String b, long seed, Pairs t) {
    Reference ref = reference(seed);
    for (String f : List.of(a, b)) {
      if (!slowdowns.containsKey(f + "#" + seed)) {
        runAlone(f, seed);
      }
    }
    Run r = run(o, data, spec(o, a, seed, ref.firstNs(), ref.jobNs()) + ","
        + spec(o, b, seed, ref.firstNs(), ref.jobNs()), seed);
    runs++;
    t.runs++;
    // a fault of the pair counts when its marginal slowdown (the pair against the other fault alone, same
    // seed) reaches the inert threshold: a fault the other one masks cannot be seen
    List<Cause> injected = new ArrayList<>();
    double jobA = (1 + slowdowns.get(a + "#" + seed)) * ref.jobNs();
    double jobB = (1 + slowdowns.get(b + "#" + seed)) * ref.jobNs();
    if (r.jobNs() / jobB - 1 >= o.inertBelow()) {
      injected.add(CAUSE_OF_FAULT.get(a));
    }
    if (r.jobNs() / jobA - 1 >= o.inertBelow()) {
      injected.add(CAUSE_OF_FAULT.get(b));
    }
    if (injected.isEmpty()) {
      return;
    }
    t.scored++;
    // a hypothesis naming an injected fault's cause is never wrong, even when that fault alone was inert
    Set<Cause> named = EnumSet.of(CAUSE_OF_FAULT.get(a), CAUSE_OF_FAULT.get(b));
    boolean h1 = !r.ranked().isEmpty() && named.contains(r.ranked().getFirst());
    int worst = injected.stream().mapToInt(r::rank).max().orElseThrow();
    boolean h2 = worst <= 3;
    t.top1 += h1 ? 1 : 0;
    t.top2 += h2 ? 1 : 0;
    t.bothTop2 += worst <= 2 ? 1 : 0;
    List<Cause> changed = changed(ref.side(), r);
    boolean d1 = !changed.isEmpty() && named.contains(changed.getFirst());
    boolean d2 = injected.stream().mapToInt(x -> rank(changed, x)).max().orElseThrow() <= 3;
    t.diffTop1 += d1 ? 1 : 0;
    t.diffTop2 += d2 ? 1 : 0;
    if ((!d1 || !d2) && progress != null) {
      progress.printf(Locale.ROOT, "  differential miss: %s seed %d, scored on %s, changed %s%n", r.faults(),
          seed, injected, changed);
    }
    if (!h1 || !h2) {
      t.misses.merge(a + "+" + b, 1, Integer::sum);
      if (progress != null) {
        progress.printf(Locale.ROOT, "  miss: %s seed %d, scored on %s, ranked %s%n", r.faults(), seed, injected,
            r.ranked());
      }
    }
  }

  /**
   * The fault-free seeds: the causes each run names (a device cause is a false alarm), and the causes new or
   * grown against the previous seed's run (a device cause among them is a differential false alarm).
   */
  Clean clean() {
    Clean c = new Clean();
    Run previous = null;
    for (int s = 0; s < o.clean(); s++) {
      Run r = run(o, data, "", o.firstSeed() + 5000 + s);
      runs++;
      if (previous != null) {
        c.compared++;
        boolean alarm = false;
        List<Cause> changed = changed(previous.side(), r);
        c.diffAny += changed.isEmpty() ? 0 : 1;
        for (Cause cause : changed) {
          c.diffCauses.merge(cause, 1, Integer::sum);
          if (DEVICE_CAUSES.contains(cause)) {
            alarm = true;
            c.diffAlarmCauses.merge(cause, 1, Integer::sum);
          }
        }
        c.diffAlarms += alarm ? 1 : 0;
      }
      previous = r;
      boolean alarm = false;
      for (Cause cause : r.ranked()) {
        c.causes.merge(cause, 1, Integer::sum);
        if (DEVICE_CAUSES.contains(cause)) {
          alarm = true;
          c.alarmCauses.merge(cause, 1, Integer::sum);
        }
      }
      c.alarms += alarm ? 1 : 0;
      c.any += r.ranked().isEmpty() ? 0 : 1;
    }
    return c;
  }

  /** How many runs were made, the fault-free references included. */
  int runs() {
    return runs + refs.size();
  }

  /** The job's length in each fault-free reference run, milliseconds of simulated time. */
  double[] referenceSpansMs() {
    return refs.values().stream().mapToDouble(x -> x.jobNs() / 1e6).toArray();
  }

  /** The fault-free run of a seed: the reference for slowdowns and onsets, and the differential's baseline. */
  private record Reference(long firstNs, long jobNs, Differential.Side side) {}

  private Reference reference(long seed) {
    return refs.computeIfAbsent(seed, s -> {
      Run r = run(o, data, "", s);
      return new Reference(r.firstNs(), r.jobNs(), r.side());
    });
  }

  private static int rank(List<Cause> ranked, Cause c) {
    int i = ranked.indexOf(c);
    return i < 0 ? Integer.MAX_VALUE : i + 1;
  }

  /** The pairs' tallies as they are run: the fields of {@link PairScore}, and the misses by pair. */
  private static final class Pairs {
    int pairs;
    int skipped;
    int runs;
    int scored;
    int top1;
    int top2;
    int bothTop2;
    int diffTop1;
    int diffTop2;
    final Map<String, Integer> misses = new LinkedHashMap<>();
  }

  /** The fault-free runs' tallies: the fault-free fields of {@link AttributionScoring.Report}. */
  static final class Clean {
    int alarms;
    int any;
    final Map<Cause, Integer> alarmCauses = new LinkedHashMap<>();
    final Map<Cause, Integer> causes = new LinkedHashMap<>();
    int compared;
    int diffAlarms;
    final Map<Cause, Integer> diffAlarmCauses = new LinkedHashMap<>();
    int diffAny;
    final Map<Cause, Integer> diffCauses = new LinkedHashMap<>();
  }
}
