package io.gitm.report;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.gitm.trace.DeviceKind;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The provenance report of one {@code gitm run}: what ran where, what the baseline was, what the qualification
 * found, which invariants were broken, which causes were attributed, which levers were tried and which were kept,
 * and for every claim the chain claim → evidence → intervention → measured delta, plus the data of its charts.
 *
 * <p>The model is self-contained (strings, numbers, lists, maps) so that the report can be written from any
 * state of a run, including an interrupted one, and read back from {@code report.json} without the optimizer's
 * types. {@link Reports} renders it as Markdown, HTML and JSON; {@code docs/report-schema.md} documents every field.
 *
 * <p>Conventions: a <em>delta</em> or <em>gain</em> is a relative change of the job's metric, signed so that a
 * positive value is an improvement ({@code 0.10} = 10% better, whether the metric is a throughput or a latency);
 * every interval is a 95% confidence interval ({@link #CONFIDENCE}); times on a trace are nanoseconds on that trace's
 * clock; durations of phases are seconds of wall-clock time.
 *
 * @param schemaVersion the version of the JSON schema; {@link #SCHEMA_VERSION} for reports this code writes
 * @param run what ran, where, for how long, and how it ended
 * @param phases the five phases in order, planned against used time
 * @param baseline the job's metric in its shipped configuration
 * @param outcome the metric with the kept levers; {@code null} when no final measurement was made
 * @param qualification whether the target is reachable and why; {@code null} when the qualification did not run
 * @param violations broken invariants, each with an id that claims cite
 * @param hypotheses attributed causes, ranked, each with an id that claims cite
 * @param trials levers tried on the live job, in the order they were tried
 * @param claims what the run claims, each tied to its evidence, intervention and measured delta
 * @param charts the data behind the report's charts
 * @param notes sentences a reader must see (what was not done, what the figures do not show)
 */
@JsonIgnoreProperties(value = {"banner", "budgetOverrunSeconds"}, allowGetters = true)
public record Report(int schemaVersion, Run run, List<PhaseUse> phases, Baseline baseline, Outcome outcome,
    Qualification qualification, List<Violation> violations, List<Hypothesis> hypotheses, List<Trial> trials,
    List<Claim> claims, Charts charts, List<String> notes) {

  /** The version of the report schema this code writes and reads. */
  public static final int SCHEMA_VERSION = 4;

  /** The confidence level of every interval in a report. */
  public static final double CONFIDENCE = 0.95;

  public Report {
    if (schemaVersion != SCHEMA_VERSION) {
      throw new IllegalArgumentException("report schema version " + schemaVersion + " is not the one this gitm reads ("
          + SCHEMA_VERSION + ")");
    }
    Check.present(run, "report run");
    phases = Check.list(phases, "report phases");
    Check.unique(phases, PhaseUse::name, "phase");
    Check.present(baseline, "report baseline");
    violations = Check.list(violations, "report violations");
    hypotheses = Check.list(hypotheses, "report hypotheses");
    trials = Check.list(trials, "report trials");
    claims = Check.list(claims, "report claims");
    charts = charts == null ? Charts.NONE : charts;
    notes = Check.list(notes, "report notes");
    for (String n : notes) {
      Check.text(n, "report note");
    }
    Check.unique(violations, Violation::id, "violation id");
    Check.unique(hypotheses, Hypothesis::id, "hypothesis id");
    Check.unique(trials, Trial::index, "trial index");
    Check.unique(claims, Claim::id, "claim id");
    Set<String> violationIds = new HashSet<>();
    violations.forEach(v -> violationIds.add(v.id()));
    Set<String> hypothesisIds = new HashSet<>();
    hypotheses.forEach(h -> hypothesisIds.add(h.id()));
    Set<Integer> trialIndexes = new HashSet<>();
    trials.forEach(t -> trialIndexes.add(t.index()));
    for (Claim c : claims) {
      for (EvidenceRef e : c.evidence()) {
        if (e.kind() == RefKind.VIOLATION && !violationIds.contains(e.ref())) {
          throw new IllegalArgumentException("claim " + c.id() + " cites violation '" + e.ref()
              + "', which the report does not hold");
        }
        if (e.kind() == RefKind.HYPOTHESIS && !hypothesisIds.contains(e.ref())) {
          throw new IllegalArgumentException("claim " + c.id() + " cites hypothesis '" + e.ref()
              + "', which the report does not hold");
        }
        if (e.kind() == RefKind.GATE && !trialIndexes.contains(gateTrial(e.ref()))) {
          throw new IllegalArgumentException("claim " + c.id() + " cites the gate of '" + e.ref() + "', which the"
              + " report does not hold (write it as: trial N)");
        }
      }
      if (c.intervention() != null && c.intervention().trial() != null
          && !trialIndexes.contains(c.intervention().trial())) {
        throw new IllegalArgumentException("claim " + c.id() + " cites trial " + c.intervention().trial()
            + ", which the report does not hold");
      }
    }
  }

  /** A report of the current schema version. */
  public Report(Run run, List<PhaseUse> phases, Baseline baseline, Outcome outcome, Qualification qualification,
      List<Violation> violations, List<Hypothesis> hypotheses, List<Trial> trials, List<Claim> claims, Charts charts,
      List<String> notes) {
    this(SCHEMA_VERSION, run, phases, baseline, outcome, qualification, violations, hypotheses, trials, claims, charts,
        notes);
  }

  /**
   * The line every page and section of the report carries: whether the device was simulated, and whether the
   * figures are an invented sample; {@code null} for a real run on a real device.
   */
  @JsonProperty("banner")
  public String banner() {
    String sim = run.device().kind() == DeviceKind.SIMULATED
        ? "SIMULATED device: every figure is modeled, not measured on a GPU" : null;
    String sample = run.sample() ? "SAMPLE report: every figure is invented, for documentation" : null;
    if (sim == null) {
      return sample;
    }
    return sample == null ? sim : sample + "; " + sim;
  }

  /** Seconds the phases used beyond the budget; 0 when the run kept within it. */
  @JsonProperty("budgetOverrunSeconds")
  public double budgetOverrunSeconds() {
    double used = 0;
    for (PhaseUse p : phases) {
      used += p.usedSeconds();
    }
    return Math.max(0, used - run.budgetSeconds());
  }

  /** How a run ended. */
  public enum Status {
    /** Every phase ran; the report says whether the target was evaluated. */
    COMPLETED("completed"),
    /** The kept levers together reached the target. */
    TARGET_REACHED("target reached"),
    /** The target was judged reachable but the kept levers did not reach it within the budget. */
    TARGET_MISSED("target missed"),
    /** The qualification found the target out of reach; the floor diagnosis says why. */
    TARGET_NOT_REACHABLE("target not reachable"),
    /** Stopped by the user (Ctrl-C) or by the budget's hard limit; the report holds what was done so far. */
    INTERRUPTED("interrupted"),
    /** gitm or the job failed; the notes say how. */
    FAILED("failed");

    private final String label;

    Status(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  /**
   * The device a run used.
   *
   * @param backend {@code sim}, {@code nvidia}, …
   * @param driver the driver version, or the simulator's preset
   */
  public record Device(String name, String backend, String driver, DeviceKind kind) {
    public Device {
      Check.text(name, "device name");
      Check.text(backend, "device backend");
      Check.text(driver, "device driver");
      Check.present(kind, "device kind (REAL or SIMULATED)");
    }
  }

  /**
   * What ran, where, and how it ended.
   *
   * @param budgetSeconds the wall-clock budget
   * @param target the improvement the run committed to, as a fraction ({@code 0.15} = 15%); {@code null} for none
   * @param endedAt when the report was written: the end of the run, or the moment it was interrupted
   * @param sample true for a hand-built report with invented figures (documentation, tests); labeled on every page
   * @param input the user's input, or null for a generated dataset or a black-box job
   * @param score the output scored against the input's ground truth, or null when it carries none
   */
  public record Run(String id, String workload, Device device, double budgetSeconds, Double target, Status status,
      String gitmVersion, Instant startedAt, Instant endedAt, boolean sample, Input input, Score score) {
    /** A run on the workload's own (generated) dataset, or a black-box job. */
    public Run(String id, String workload, Device device, double budgetSeconds, Double target, Status status,
        String gitmVersion, Instant startedAt, Instant endedAt, boolean sample) {
      this(id, workload, device, budgetSeconds, target, status, gitmVersion, startedAt, endedAt, sample, null, null);
    }

    public Run {
      Check.text(id, "run id");
      Check.text(workload, "run workload");
      Check.present(device, "run device");
      if (!(Double.isFinite(budgetSeconds) && budgetSeconds > 0)) {
        throw new IllegalArgumentException(
            "run budget is " + budgetSeconds + " s: it must be a positive number of seconds");
      }
      if (target != null && !(target > 0 && target <= io.gitm.api.Target.MAX)) {
        throw new IllegalArgumentException("run target is " + target + ": it must be more than 0 and at most "
            + io.gitm.api.Target.MAX);
      }
      Check.present(status, "run status");
      Check.text(gitmVersion, "gitm version");
      Check.present(startedAt, "run start time");
      Check.present(endedAt, "run end time");
      if (endedAt.isBefore(startedAt)) {
        throw new IllegalArgumentException("run ends (" + endedAt + ") before it starts (" + startedAt + ")");
      }
    }
  }

  /**
   * The user's input a managed workload ran on ({@code --input}): the path given, the sha256 and size of its bytes
   * as stored, the format detected, and what the workload found in it (counts, sizes).
   */
  public record Input(String path, String sha256, long bytes, String format, Map<String, Object> found) {
    public Input {
      Check.text(path, "input path");
      Check.text(sha256, "input sha256");
      if (bytes < 0) {
        throw new IllegalArgumentException("input size is " + bytes + " bytes: it must be 0 or more");
      }
      Check.text(format, "input format");
      found = found == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(found));
    }

    /** {@code found} as a person reads it: {@code messages 5831, instruments 6, …}. */
    public String foundLine() {
      StringBuilder b = new StringBuilder();
      found.forEach((k, v) -> b.append(b.isEmpty() ? "" : ", ").append(k).append(' ').append(v));
      return b.toString();
    }
  }

  /**
   * How good the output is against the ground truth the input carried (kitti's detections against {@code label_2}).
   *
   * @param method how the values were computed (the benchmark's procedure, the frames scored)
   * @param model what produced the output, as the values must be read (e.g. seeded, untrained weights)
   * @param columns the value columns' names
   * @param rows one per thing scored, a value per column, null where undefined (nothing to score against)
   */
  public record Score(String method, String model, List<String> columns, List<ScoreRow> rows) {
    public Score {
      Check.text(method, "score method");
      Check.text(model, "score model");
      columns = List.copyOf(columns);
      rows = List.copyOf(rows);
      for (ScoreRow r : rows) {
        if (r.values().size() != columns.size()) {
          throw new IllegalArgumentException("score row '" + r.name() + "' has " + r.values().size()
              + " values for " + columns.size() + " columns");
        }
      }
    }
  }

  /** One thing scored: its name, and its value per column of the {@link Score} (null where undefined). */
  public record ScoreRow(String name, List<Double> values) {
    public ScoreRow {
      Check.text(name, "score row name");
      values = Collections.unmodifiableList(new java.util.ArrayList<>(values));
    }
  }

  /**
   * One phase's time.
   *
   * @param name {@code profile}, {@code attribute}, {@code rank}, {@code apply} or {@code report}
   * @param plannedSeconds its share of the budget
   * @param usedSeconds what it took; a phase may use time earlier phases left unused
   */
  public record PhaseUse(String name, double plannedSeconds, double usedSeconds) {
    public PhaseUse {
      Check.text(name, "phase name");
      Check.nonNegative(plannedSeconds, "phase " + name + " planned seconds");
      Check.nonNegative(usedSeconds, "phase " + name + " used seconds");
    }
  }

  /**
   * What the job's performance is measured in.
   *
   * @param name e.g. {@code throughput}
   * @param unit e.g. {@code messages/s}
   * @param higherIsBetter true for a throughput, false for a latency or a duration
   */
  public record Metric(String name, String unit, boolean higherIsBetter) {
    public Metric {
      Check.text(name, "metric name");
      Check.text(unit, "metric unit");
    }
  }

  /**
   * The job in its shipped configuration.
   *
   * @param value the metric, in {@link Metric#unit()}
   * @param latencyP50Ms median iteration latency, milliseconds
   * @param latencyP99Ms 99th-percentile iteration latency, milliseconds
   * @param iterations iterations measured
   */
  public record Baseline(Metric metric, double value, double latencyP50Ms, double latencyP99Ms, long iterations) {
    public Baseline {
      Check.present(metric, "baseline metric");
      Check.finite(value, "baseline value");
      Check.nonNegative(latencyP50Ms, "baseline latency p50");
      Check.nonNegative(latencyP99Ms, "baseline latency p99");
      if (latencyP99Ms < latencyP50Ms) {
        throw new IllegalArgumentException("baseline latency p99 (" + latencyP99Ms + " ms) is below p50 ("
            + latencyP50Ms + " ms)");
      }
      Check.nonNegative(iterations, "baseline iterations");
    }
  }

  /**
   * The job with the kept levers.
   *
   * @param value the metric, in the baseline's unit
   * @param gain the improvement over the baseline (positive = better), with its 95% interval
   * @param latencyP50Ms median iteration latency, milliseconds; {@code null} when not measured
   * @param latencyP99Ms 99th-percentile iteration latency, milliseconds; {@code null} when not measured
   */
  public record Outcome(double value, Estimate gain, Double latencyP50Ms, Double latencyP99Ms, long iterations) {
    public Outcome {
      Check.finite(value, "final value");
      Check.present(gain, "final gain");
      Check.optionalFinite(latencyP50Ms, "final latency p50");
      Check.optionalFinite(latencyP99Ms, "final latency p99");
      Check.nonNegative(iterations, "final iterations");
    }
  }

  /** An estimate with its 95% confidence interval, {@code low ≤ value ≤ high}. */
  public record Estimate(double value, double low, double high) {
    public Estimate {
      Check.finite(value, "estimate");
      Check.finite(low, "estimate's lower bound");
      Check.finite(high, "estimate's upper bound");
      if (!(low <= value && value <= high)) {
        throw new IllegalArgumentException(
            "estimate " + value + " lies outside its interval [" + low + ", " + high + "]");
      }
    }

    /** True when the interval leaves out zero. */
    public boolean excludesZero() {
      return low > 0 || high < 0;
    }
  }

  /** A figure with its unit, e.g. 0.91 of {@code fraction}, 1.3 of {@code ms}. */
  public record Quantity(double value, String unit) {
    public Quantity {
      Check.finite(value, "quantity");
      Check.present(unit, "quantity unit");
    }
  }

  /**
   * Whether the target can be met on this job and device.
   *
   * @param fingerprint what the job looks like (e.g. {@code kernel share of the iteration} → 0.62 fraction), in order
   * @param headroom the improvement the levers can reach at most, as a fraction, with its interval
   * @param targetReachable whether the target lies within the headroom
   * @param floorDiagnosis why the target is out of reach; required when it is, {@code null} otherwise allowed
   */
  public record Qualification(Map<String, Quantity> fingerprint, Estimate headroom, boolean targetReachable,
      String floorDiagnosis) {
    public Qualification {
      Map<String, Quantity> copy = new LinkedHashMap<>();
      if (fingerprint != null) {
        fingerprint.forEach((k, v) ->
            copy.put(Check.text(k, "fingerprint name"), Check.present(v, "fingerprint " + k)));
      }
      fingerprint = Collections.unmodifiableMap(copy);
      Check.present(headroom, "qualification headroom");
      Check.optionalText(floorDiagnosis, "floor diagnosis");
      if (!targetReachable && floorDiagnosis == null) {
        throw new IllegalArgumentException(
            "the target is not reachable but the qualification gives no floor diagnosis");
      }
    }
  }

  /**
   * A broken invariant.
   *
   * @param id how claims cite it, e.g. {@code V1}
   * @param invariant {@code kernel-time}, {@code memory-traffic} or {@code stream-concurrency}
   * @param subject what broke it: a kernel name, a pair of streams
   * @param observed what was measured, in {@code unit}
   * @param bound the bound it should have kept, in {@code unit}
   * @param outsideBy how far outside, as a fraction of the bound ({@code 0.34} = 34% beyond it)
   * @param occurrences how many checked records broke it
   * @param checked how many records were checked
   * @param records references to the trace records behind it (e.g. {@code kernel#1287})
   */
  public record Violation(String id, String invariant, String subject, double observed, double bound, String unit,
      double outsideBy, long occurrences, long checked, List<String> records) {
    public Violation {
      Check.text(id, "violation id");
      Check.text(invariant, "violation " + id + " invariant");
      Check.text(subject, "violation " + id + " subject");
      Check.finite(observed, "violation " + id + " observed value");
      Check.finite(bound, "violation " + id + " bound");
      Check.text(unit, "violation " + id + " unit");
      Check.nonNegative(outsideBy, "violation " + id + " distance outside its bound");
      Check.nonNegative(occurrences, "violation " + id + " occurrences");
      if (checked < occurrences) {
        throw new IllegalArgumentException("violation " + id + " has " + occurrences + " occurrences out of "
            + checked + " checked records");
      }
      records = Check.list(records, "violation " + id + " records");
    }
  }

  /**
   * One piece of evidence behind a hypothesis.
   *
   * @param kind {@code invariant}, {@code granger}, {@code aipw}, {@code trace}, {@code telemetry}
   * @param summary a sentence a person reads
   * @param data the figures it rests on: strings, numbers (integral ones kept as {@code long}, others as
   *     {@code double}), booleans, or lists of those
   */
  public record Evidence(String kind, String summary, Map<String, Object> data) {
    public Evidence {
      Check.text(kind, "evidence kind");
      Check.text(summary, "evidence summary");
      Map<String, Object> copy = new LinkedHashMap<>();
      if (data != null) {
        data.forEach((k, v) ->
            copy.put(Check.text(k, "evidence data name"), plain(v, "evidence data '" + k + "'", true)));
      }
      data = Collections.unmodifiableMap(copy);
    }

    private static Object plain(Object v, String what, boolean listAllowed) {
      return switch (v) {
        case null -> throw new IllegalArgumentException(what + " is null");
        case String s -> s;
        case Boolean b -> b;
        case Double d -> Check.finite(d, what);
        case Float f -> Check.finite(f.doubleValue(), what);
        case BigDecimal d -> Check.finite(d.doubleValue(), what);
        case BigInteger i -> i.longValueExact();
        case Number n -> n.longValue();
        case List<?> l when listAllowed -> l.stream().map(e -> plain(e, what + " element", false)).toList();
        default -> throw new IllegalArgumentException(what + " is a " + v.getClass().getSimpleName()
            + ": evidence data holds strings, numbers, booleans or lists of them");
      };
    }
  }

  /**
   * An attributed cause.
   *
   * @param id how claims cite it, e.g. {@code H1}
   * @param cause the cause's id in gitm's taxonomy, e.g. {@code ALLOCATOR_STALL}
   * @param label the cause for people, e.g. {@code allocator stall}
   * @param effect the share of the job's time the cause costs (fraction), with its interval
   * @param pValue the smallest adjusted p-value of the tests behind it (1 when none applies)
   * @param confidence 0..1, how sure the attribution is
   */
  public record Hypothesis(String id, String cause, String label, Estimate effect, double pValue, double confidence,
      List<Evidence> evidence) {
    public Hypothesis {
      Check.text(id, "hypothesis id");
      Check.text(cause, "hypothesis " + id + " cause");
      Check.text(label, "hypothesis " + id + " label");
      Check.present(effect, "hypothesis " + id + " effect");
      Check.probability(pValue, "hypothesis " + id + " p-value");
      Check.probability(confidence, "hypothesis " + id + " confidence");
      evidence = Check.list(evidence, "hypothesis " + id + " evidence");
    }
  }

  /** What the rollback gate decided about a trial. */
  public enum Verdict {
    KEPT("kept"), ROLLED_BACK("rolled back");

    private final String label;

    Verdict(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  /**
   * One lever (or set of levers) tried on the live job behind the rollback gate.
   *
   * @param index the trial's number in the run, from 1
   * @param levers the ids of the levers applied
   * @param safetyClass the levers' safety class, e.g. {@code SAFE}
   * @param predictedDelta the gain counterfactual replay predicted (fraction)
   * @param predictedUncertainty the prediction's ± half-width (fraction, at least 0)
   * @param measuredDelta the measured gain with its interval; {@code null} when no measurement came (the job failed)
   * @param pValue the gate's test of the measured gain; {@code null} with no measurement
   * @param reason why the gate decided so, in words
   * @param blocks measurement blocks the gate compared
   * @param seconds wall-clock time the trial took
   */
  public record Trial(int index, List<String> levers, String safetyClass, double predictedDelta,
      double predictedUncertainty, Estimate measuredDelta, Double pValue, Verdict verdict, String reason, int blocks,
      double seconds) {
    public Trial {
      if (index < 1) {
        throw new IllegalArgumentException("trial index is " + index + ": trials are numbered from 1");
      }
      levers = Check.list(levers, "trial " + index + " levers");
      if (levers.isEmpty()) {
        throw new IllegalArgumentException("trial " + index + " names no lever");
      }
      levers.forEach(l -> Check.text(l, "trial " + index + " lever id"));
      Check.text(safetyClass, "trial " + index + " safety class");
      Check.finite(predictedDelta, "trial " + index + " predicted delta");
      Check.nonNegative(predictedUncertainty, "trial " + index + " predicted uncertainty");
      if (pValue != null) {
        Check.probability(pValue, "trial " + index + " p-value");
      }
      if ((measuredDelta == null) != (pValue == null)) {
        throw new IllegalArgumentException("trial " + index + " has "
            + (pValue == null ? "a measured delta but no p-value" : "a p-value but no measured delta"));
      }
      Check.present(verdict, "trial " + index + " verdict");
      if (verdict == Verdict.KEPT && measuredDelta == null) {
        throw new IllegalArgumentException("trial " + index + " is kept without a measured delta");
      }
      Check.text(reason, "trial " + index + " reason");
      Check.nonNegative(blocks, "trial " + index + " blocks");
      Check.nonNegative(seconds, "trial " + index + " seconds");
    }
  }

  /** What a claim's evidence reference points at. */
  /** The trial a {@link RefKind#GATE} reference names ({@code trial 3} → 3), or -1. */
  static int gateTrial(String ref) {
    if (ref != null && ref.matches("trial [1-9][0-9]{0,8}")) {
      return Integer.parseInt(ref.substring(6));
    }
    return -1;
  }

  public enum RefKind {
    /** A {@link Violation}, by id. */
    VIOLATION,
    /** A {@link Hypothesis}, by id. */
    HYPOTHESIS,
    /** A slice of the trace, by stream (or any description) and a time range. */
    TRACE,
    /** A fact of the profile that a lever's expected gain was read from: {@code ref} is the lever's id. */
    FACT,
    /** The rollback gate's measurement behind the claim: {@code ref} is {@code trial N}, a trial of this report. */
    GATE
  }

  /**
   * One piece of evidence a claim cites.
   *
   * @param ref the violation's or hypothesis's id, or for a trace slice the stream or what the slice shows
   * @param startNs start of the trace slice (trace clock, ns); required for {@link RefKind#TRACE}
   * @param endNs end of the trace slice; required for {@link RefKind#TRACE}
   * @param note what this evidence shows, in words; may be {@code null}
   */
  public record EvidenceRef(RefKind kind, String ref, Long startNs, Long endNs, String note) {
    public EvidenceRef {
      Check.present(kind, "evidence reference kind");
      Check.text(ref, "evidence reference");
      Check.optionalText(note, "evidence reference note");
      if (kind == RefKind.TRACE) {
        if (startNs == null || endNs == null) {
          throw new IllegalArgumentException("trace evidence '" + ref + "' needs a time range (startNs and endNs)");
        }
        if (endNs < startNs) {
          throw new IllegalArgumentException("trace evidence '" + ref + "' ends before it starts");
        }
      } else if (startNs != null || endNs != null) {
        throw new IllegalArgumentException(
            kind + " evidence '" + ref + "' takes no time range; cite a TRACE slice for one");
      }
    }

    public static EvidenceRef violation(String id, String note) {
      return new EvidenceRef(RefKind.VIOLATION, id, null, null, note);
    }

    public static EvidenceRef hypothesis(String id, String note) {
      return new EvidenceRef(RefKind.HYPOTHESIS, id, null, null, note);
    }

    public static EvidenceRef trace(String slice, long startNs, long endNs, String note) {
      return new EvidenceRef(RefKind.TRACE, slice, startNs, endNs, note);
    }

    public static EvidenceRef fact(String lever, String note) {
      return new EvidenceRef(RefKind.FACT, lever, null, null, note);
    }

    public static EvidenceRef gate(int trial, String note) {
      return new EvidenceRef(RefKind.GATE, "trial " + trial, null, null, note);
    }
  }

  /**
   * What was done about a claim.
   *
   * @param levers the ids of the levers kept
   * @param trial the index of the trial that measured it; {@code null} when no single trial did
   */
  public record Intervention(List<String> levers, String description, Integer trial) {
    public Intervention {
      levers = Check.list(levers, "intervention levers");
      if (levers.isEmpty()) {
        throw new IllegalArgumentException("an intervention names at least one lever");
      }
      levers.forEach(l -> Check.text(l, "intervention lever id"));
      Check.text(description, "intervention description");
    }
  }

  /**
   * One claim of the run and its provenance.
   *
   * @param id e.g. {@code C1}
   * @param statement the claim, in words
   * @param evidence what it rests on (at least one item)
   * @param intervention what was done; {@code null} for a diagnosis that no lever acted on
   * @param measuredDelta the measured gain of the intervention; required with an intervention, {@code null} without
   */
  public record Claim(String id, String statement, List<EvidenceRef> evidence, Intervention intervention,
      Estimate measuredDelta) {
    public Claim {
      Check.text(id, "claim id");
      Check.text(statement, "claim " + id + " statement");
      evidence = Check.list(evidence, "claim " + id + " evidence");
      if (evidence.isEmpty()) {
        throw new IllegalArgumentException("claim " + id + " cites no evidence");
      }
      if (intervention != null && measuredDelta == null) {
        throw new IllegalArgumentException("claim " + id + " names an intervention but no measured delta");
      }
      if (intervention == null && measuredDelta != null) {
        throw new IllegalArgumentException("claim " + id + " has a measured delta but no intervention");
      }
    }
  }

  /**
   * The data of the report's charts; the trial history is {@link Report#trials()}.
   *
   * @param before the stream timeline of the shipped configuration; {@code null} when none was captured
   * @param after the stream timeline with the kept levers; {@code null} when none was captured
   * @param residuals per-kernel observed time against the roofline bounds
   * @param telemetry device-state series (SM clock, power, temperature, …)
   * @param breakdowns the breakdowns of the shipped configuration's trace; {@code null} when none was captured
   */
  public record Charts(Timeline before, Timeline after, List<KernelResidual> residuals, List<Series> telemetry,
      BreakdownChart breakdowns) {
    static final Charts NONE = new Charts(null, null, List.of(), List.of(), null);

    public Charts {
      residuals = Check.list(residuals, "residuals");
      telemetry = Check.list(telemetry, "telemetry");
    }

    /** Charts without breakdowns. */
    public Charts(Timeline before, Timeline after, List<KernelResidual> residuals, List<Series> telemetry) {
      this(before, after, residuals, telemetry, null);
    }
  }

  /**
   * A window of the trace, stream by stream.
   *
   * @param caption what the window is, e.g. {@code iteration 61 of the baseline}
   */
  public record Timeline(String caption, List<Lane> streams) {
    public Timeline {
      Check.text(caption, "timeline caption");
      streams = Check.list(streams, "timeline streams");
      Check.unique(streams, Lane::stream, "timeline stream");
    }
  }

  /** One stream's spans. */
  public record Lane(String stream, List<Span> spans) {
    public Lane {
      Check.text(stream, "stream name");
      spans = Check.list(spans, "stream " + stream + " spans");
    }
  }

  /** What a span on a stream is. */
  public enum SpanKind {
    KERNEL, COPY, OTHER
  }

  /**
   * Work on a stream.
   *
   * @param startNs start on the trace's clock, nanoseconds
   * @param endNs end on the trace's clock, nanoseconds
   */
  public record Span(String name, long startNs, long endNs, SpanKind kind) {
    public Span {
      Check.present(name, "span name");
      if (endNs < startNs) {
        throw new IllegalArgumentException("span '" + name + "' ends (" + endNs + " ns) before it starts ("
            + startNs + " ns)");
      }
      Check.present(kind, "span '" + name + "' kind");
    }
  }

  /**
   * One kernel's observed time against its roofline bounds.
   *
   * @param observedMeanNs mean observed duration, nanoseconds
   * @param lowerBoundNs the roofline lower bound, nanoseconds
   * @param upperBoundNs the upper bound (occupancy, waves, history), nanoseconds
   * @param count launches observed
   */
  public record KernelResidual(String kernel, double observedMeanNs, double lowerBoundNs, double upperBoundNs,
      long count) {
    public KernelResidual {
      Check.present(kernel, "residual kernel name");
      Check.nonNegative(observedMeanNs, "kernel " + kernel + " observed mean");
      Check.nonNegative(lowerBoundNs, "kernel " + kernel + " lower bound");
      Check.nonNegative(upperBoundNs, "kernel " + kernel + " upper bound");
      if (upperBoundNs < lowerBoundNs) {
        throw new IllegalArgumentException("kernel " + kernel + " has an upper bound below its lower bound");
      }
      Check.nonNegative(count, "kernel " + kernel + " count");
    }
  }

  /**
   * A device-state time series.
   *
   * @param field e.g. {@code SM clock}
   * @param unit e.g. {@code MHz}
   * @param t sample times, seconds from the run's start, non-decreasing
   * @param v sample values, one per time
   */
  public record Series(String field, String unit, List<Double> t, List<Double> v) {
    public Series {
      Check.text(field, "series field");
      Check.present(unit, "series " + field + " unit");
      t = Check.list(t, "series " + field + " times");
      v = Check.list(v, "series " + field + " values");
      if (t.size() != v.size()) {
        throw new IllegalArgumentException(
            "series " + field + " has " + t.size() + " times but " + v.size() + " values");
      }
      for (int i = 0; i < t.size(); i++) {
        Check.finite(t.get(i), "series " + field + " time " + i);
        Check.finite(v.get(i), "series " + field + " value " + i);
        if (i > 0 && t.get(i) < t.get(i - 1)) {
          throw new IllegalArgumentException("series " + field + " goes back in time at sample " + i);
        }
      }
    }
  }
}
