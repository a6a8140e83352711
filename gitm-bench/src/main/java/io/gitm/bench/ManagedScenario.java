package io.gitm.bench;

import io.gitm.analysis.Analysis;
import io.gitm.analysis.Ceilings;
import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.api.Ticker;
import io.gitm.device.Device;
import io.gitm.device.DeviceInfo;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.Devices;
import io.gitm.device.HardwareSpec;
import io.gitm.device.SchedulingMode;
import io.gitm.job.Job;
import io.gitm.job.ManagedJob;
import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.Levers;
import io.gitm.levers.Setup;
import io.gitm.rank.Candidate;
import io.gitm.rank.Counterfactual;
import io.gitm.run.Profiler;
import io.gitm.run.Ranking;
import io.gitm.run.RunLoop;
import io.gitm.sim.SimSpec;
import io.gitm.store.RunStore;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workloads.hft.HftLobWorkload;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A search-harness scenario on a real managed job: hft-lob run through {@link ManagedJob} on a device (the simulated
 * one or a GPU), its shipped setup the anchor, and levers chosen and predicted the way {@code gitm run} ranks them.
 *
 * <p>Preparing it profiles the shipped setup once with the tracer on, into memory ({@link Profiler}); analyses the
 * trace ({@link Analysis}: the hypotheses and trace facts the levers' preconditions and priors read); keeps the
 * levers that apply to the shipped setup; predicts each one's gain by counterfactual replay of the trace
 * ({@link Counterfactual}), or where replay does not model it by the prior of the run loop (the attributed effect of
 * the causes it addresses, else 1%); ranks them by that prediction (ties in the library's order) and keeps the
 * first {@code maxLevers}, leaving out another setting of a lever already kept ({@code streams-4} after
 * {@code streams-2}, {@code batch-coalesce-4} after {@code batch-coalesce-2}: applied one after the other, the second
 * undoes the first, so half the oracle's combinations would repeat a setup). Different levers that set the same
 * knob ({@code pool-allocation} and {@code preallocate}) are both kept: they are different remedies, and the faults
 * can tell them apart where replay does not. Each job the scenario makes opens its own device; on the simulated
 * device each gets the next seed, so every run sees fresh noise.
 */
final class ManagedScenario {
  private ManagedScenario() {}

  /** The workloads the harness can run as a real job. */
  static final List<String> WORKLOADS = List.of("hft-lob");

  /**
   * What to run.
   *
   * @param device {@code sim} or {@code nvidia}
   * @param simOptions the simulated device's options ({@code preset}, {@code seed}, {@code faults}); must be empty
   *     on any other device. The seed is the first job's; each later job gets the next one
   * @param levers when not empty, exactly these levers (each must apply to the shipped setup)
   * @param maxLevers at most this many levers are chosen when {@code levers} is empty
   * @param blockIterations input batches per gate block (a multiple of 4, so that every batch-coalescing factor of
   *     the library divides it)
   * @param profileIterations iterations of the traced profile
   * @param dataDir hft-lob's data folder (its generated dataset is kept there)
   * @param store the run store whose calibration of the device gives the analysis its ceilings, or null (they then
   *     come from the preset of the same GPU model)
   */
  record Options(String workload, String device, Map<String, String> simOptions, HftLobWorkload.Params params,
      List<String> levers, int maxLevers, int blockIterations, int profileIterations, Path dataDir,
      RunStore store) {
    Options {
      if (!WORKLOADS.contains(workload)) {
        throw new IllegalArgumentException("the search harness runs these workloads as a real job: " + WORKLOADS
            + "; got '" + workload + "'");
      }
      if (device == null || device.isBlank() || device.equals("auto")) {
        throw new IllegalArgumentException("name the device: --device sim or --device nvidia");
      }
      simOptions = Map.copyOf(simOptions == null ? Map.of() : simOptions);
      if (!device.equals(Devices.SIMULATED) && !simOptions.isEmpty()) {
        throw new IllegalArgumentException("--faults, --sim-seed and --sim-preset apply to the simulated device only,"
            + " and the device is " + device);
      }
      if (params == null || dataDir == null) {
        throw new IllegalArgumentException("a managed scenario needs hft-lob's parameters and a data folder");
      }
      levers = List.copyOf(levers == null ? List.of() : levers);
      if (maxLevers < 1 || maxLevers > 12) {
        throw new IllegalArgumentException("--max-levers must be 1..12 (the oracle measures 2^n - 1 combinations),"
            + " got " + maxLevers);
      }
      if (blockIterations < 4 || blockIterations % 4 != 0) {
        throw new IllegalArgumentException("--block-iterations must be a positive multiple of 4 (so that batch "
            + "coalescing by 2 or 4 fits a block), got " + blockIterations);
      }
      if (profileIterations < 2) {
        throw new IllegalArgumentException("--profile-iterations must be at least 2, got " + profileIterations);
      }
    }
  }

  /**
   * One applicable lever and what became of it.
   *
   * @param basis {@code replay} or {@code prior}
   * @param predictedGain the prediction handed to the agent (1.05 = 5% better)
   * @param chosen whether it is one of the scenario's levers
   * @param why why it was chosen or left out
   */
  record Choice(String id, String basis, double predictedGain, double uncertainty, boolean chosen, String why) {}

  /**
   * A prepared scenario and what its preparation found.
   *
   * @param scenario the scenario, its target a placeholder (the harness derives or sets it)
   * @param baseline the traced profile of the shipped setup
   * @param hypotheses the attribution's causes, best first
   * @param replayModelError how far replay of the unchanged trace landed from the observed time (NaN: no replay)
   * @param ceilings which ceilings the analysis used
   * @param choices every applicable lever, ranked
   * @param notApplicable the library's other levers, with why they do not apply to the shipped setup
   * @param seconds wall time of the preparation
   */
  record Prepared(SearchHarness.Scenario scenario, DeviceInfo device, Profiler.Baseline baseline,
      List<Hypothesis> hypotheses, double replayModelError, String ceilings, List<Choice> choices,
      Map<String, String> notApplicable, double seconds) {}

  static Prepared prepare(Options o) {
    Ticker wall = Ticker.system();
    long t0 = wall.nanos();
    DeviceProvider provider = provider(o.device());
    HftLobWorkload workload = new HftLobWorkload(o.params());
    DeviceRequest first = request(o, 0);

    // the traced profile of the shipped setup, into memory
    List<TraceRecord> records = Collections.synchronizedList(new ArrayList<>());
    TraceMeta[] meta = new TraceMeta[1];
    DeviceInfo info;
    Profiler.Baseline baseline;
    try (Device d = provider.open(first)) {
      info = d.info();
      baseline = Profiler.run(d, workload, ExecutionConfig.shipped(), o.dataDir(), wall,
          new Profiler.Options(Duration.ofMinutes(2), o.profileIterations(),
              info.kind() == DeviceKind.SIMULATED ? RunLoop.SIM_SAMPLE_PERIOD_NS : RunLoop.SAMPLE_PERIOD_NS),
          m -> {
            meta[0] = m;
            return records::add;
          });
    }
    List<TraceRecord> trace;
    synchronized (records) {
      trace = List.copyOf(records);
    }

    // attribute, as the run loop does
    Ceilings.Choice ceilings = Ceilings.forTrace(meta[0], o.store() == null ? null
        : o.store().hardwareSpec(info.name(), info.uuid(), info.driverVersion()));
    HardwareSpec hw = ceilings.spec();
    Analysis.Result analysis = Analysis.analyze(meta[0], trace, hw);
    Map<String, Double> facts = new HashMap<>(analysis.facts());
    facts.put(LeverContext.FACT_HOST_CPUS, (double) Runtime.getRuntime().availableProcessors());
    LeverContext context = new LeverContext(workload.spec(), info, analysis.hypotheses(), facts, false,
        Setup.shipped());

    // rank: the applicable levers, each predicted by replay or by the prior
    Map<String, String> notApplicable = new LinkedHashMap<>();
    List<Lever> applicable = new ArrayList<>();
    for (Lever l : Levers.candidates(context)) {
      Lever.Applicability a = l.check(context);
      if (a.applies()) {
        applicable.add(l);
      } else {
        notApplicable.put(l.id(), a.reason());
      }
    }
    for (String id : o.levers()) {
      Lever l = Levers.byId(id);
      if (applicable.stream().noneMatch(x -> x.id().equals(l.id()))) {
        throw new IllegalArgumentException("--levers: " + id + " does not apply to hft-lob's shipped setup here: "
            + notApplicable.getOrDefault(l.id(), "not one of its candidates"));
      }
    }
    SimSpec replaySpec = info.kind() == DeviceKind.SIMULATED ? SimSpec.preset(first.option("preset", "h200"))
        : SimSpec.fromCalibration(hw, hw.deviceName().toLowerCase(Locale.ROOT).contains("h100") ? "h100"
            : hw.deviceName().toLowerCase(Locale.ROOT).contains("a100") ? "a100" : "h200");
    var cf = Counterfactual.of(trace, replaySpec);
    List<Candidate> predicted = new ArrayList<>();
    for (Lever l : applicable) {
      Counterfactual.Prediction p = cf.map(c -> c.predict(l)).orElse(null);
      if (p != null && p.modelled()) {
        predicted.add(Candidate.replay(l, Math.max(0.05, 1 + p.gain()), Math.max(0.005, p.uncertainty())));
      } else {
        double prior = Ranking.prior(l, analysis.hypotheses());
        predicted.add(Candidate.prior(l, 1 + prior, Math.max(0.02, prior)));
      }
    }
    List<Candidate> ranked = new ArrayList<>(predicted);
    ranked.sort(Comparator.comparingDouble(Candidate::predictedGain).reversed());
    List<Choice> choices = new ArrayList<>();
    List<Lever> chosen = choose(ranked, o, context, choices);

    List<Candidate> predictions = ranked.stream().filter(c -> chosen.contains(c.lever())).toList();
    AtomicLong jobs = new AtomicLong();
    Path data = o.dataDir();
    String description = describe(o, info, chosen.size());
    SearchHarness.Scenario scenario = new SearchHarness.Scenario(o.workload() + " on " + info.name(), description,
        () -> job(workload, provider, request(o, jobs.incrementAndGet()), data, o.blockIterations()), Setup.shipped(),
        chosen, predictions, context, 0.01, null);
    return new Prepared(scenario, info, baseline, analysis.hypotheses(),
        cf.map(Counterfactual::modelError).orElse(Double.NaN), ceilings.note(), choices, notApplicable,
        (wall.nanos() - t0) / 1e9);
  }

  /**
   * The levers of the scenario: those named, else the first {@code maxLevers} of the ranking that are not another
   * setting of a lever before them.
   */
  static List<Lever> choose(List<Candidate> ranked, Options o, LeverContext context, List<Choice> choices) {
    List<Lever> chosen = new ArrayList<>();
    for (Candidate c : ranked) {
      String why;
      if (!o.levers().isEmpty()) {
        why = o.levers().contains(c.id()) ? "named by --levers" : "not named by --levers";
      } else if (chosen.size() >= o.maxLevers()) {
        why = "below the first " + o.maxLevers();
      } else {
        why = chosen.stream().filter(k -> k.getClass() == c.lever().getClass() && overrides(k, c.lever(), context))
            .map(Lever::id).findFirst().map(k -> "another setting of " + k + ", ranked higher").orElse(null);
        why = why == null ? "ranked " + (chosen.size() + 1) + " by its " + c.basis() : why;
      }
      boolean in = o.levers().isEmpty() ? why.startsWith("ranked") : o.levers().contains(c.id());
      if (in) {
        chosen.add(c.lever());
      }
      choices.add(new Choice(c.id(), c.basis(), c.predictedGain(), c.uncertainty(), in, why));
    }
    return chosen;
  }

  /**
   * Whether {@code a} and {@code b} set the same knob: applied one after the other on the shipped setup (either
   * order), the second one's setup is what it gives alone, so the first one's change is gone. A lever that cannot
   * be applied after the other counts as overriding it too.
   */
  static boolean overrides(Lever a, Lever b, LeverContext context) {
    Setup shipped = Setup.shipped();
    try {
      Setup onlyA = a.apply(shipped, context.withSetup(shipped));
      Setup onlyB = b.apply(shipped, context.withSetup(shipped));
      Setup ab = b.apply(onlyA, context.withSetup(onlyA));
      Setup ba = a.apply(onlyB, context.withSetup(onlyB));
      return ab.equals(onlyB) || ba.equals(onlyA);
    } catch (RuntimeException e) {
      return true;
    }
  }

  private static Job job(HftLobWorkload workload, DeviceProvider provider, DeviceRequest request, Path data,
      int blockIterations) {
    return new ManagedJob(workload, provider, request, data, blockIterations);
  }

  /** The {@code k}-th job's device request: on the simulated device, the seed moved on by {@code k}. */
  static DeviceRequest request(Options o, long k) {
    Map<String, String> options = new LinkedHashMap<>(o.simOptions());
    if (o.device().equals(Devices.SIMULATED)) {
      long seed = Long.parseLong(options.getOrDefault("seed", "0"));
      options.put("seed", Long.toString(seed + k));
    }
    return new DeviceRequest(0, SchedulingMode.AUTO, options);
  }

  static DeviceProvider provider(String kind) {
    List<DeviceProvider> all = DeviceProvider.all();
    if (all.stream().noneMatch(p -> p.kind().equals(kind))) {
      throw new IllegalArgumentException("device '" + kind + "' is not on the class path (found: " + String.join(
          ", ", all.stream().map(DeviceProvider::kind).toList()) + ")" + (kind.equals("nvidia")
          ? "; run with the runtime class path that holds gitm-nvidia (.gpu/lib/* on the GPU machine)" : ""));
    }
    return Devices.choose(kind, all).provider();
  }

  private static String describe(Options o, DeviceInfo info, int levers) {
    HftLobWorkload.Params p = o.params();
    return String.format(Locale.ROOT, "%s, %d instruments, %d book messages in batches of %d; %s%s; %d levers; "
        + "blocks of %d input batches", o.workload(), p.instruments(), p.bookMessages(), p.batchMessages(),
        info.name(), o.simOptions().containsKey("faults") && !o.simOptions().get("faults").isBlank()
            ? ", faults " + o.simOptions().get("faults") : "", levers, o.blockIterations());
  }
}
