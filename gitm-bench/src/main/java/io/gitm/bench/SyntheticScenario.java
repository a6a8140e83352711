package io.gitm.bench;

import io.gitm.bench.SearchHarness.Scenario;
import io.gitm.job.Job;
import io.gitm.job.TrialFailure;
import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.LeverSpec;
import io.gitm.levers.SafetyClass;
import io.gitm.levers.Setup;
import io.gitm.rank.Candidate;
import io.gitm.workload.OutputDigest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The search harness's seeded synthetic scenarios. A job's time is a fixed part plus three cause components; a lever
 * scales one component (below 1 helps, above 1 harms), levers on the same component compose multiplicatively
 * (diminishing returns), a pair may help only together, one lever is faster but changes the output, one may crash.
 * Every block has Gaussian noise. The agent's predictions are the true single-lever gains with a 3% multiplicative
 * error ("replay") for about three levers in four, and an uninformative prior (1.05 ± 0.10) for the rest and for
 * interacting pairs; the target is 80% of the best safe combination's gain, rounded down to a whole percent.
 */
final class SyntheticScenario {
  private SyntheticScenario() {}

  /** The roles a synthetic lever plays. */
  enum Role {
    HELPFUL, PAIRED, HARMFUL, CORRUPTING, CRASHING, NEUTRAL
  }

  /**
   * A synthetic lever's ground truth.
   *
   * @param component the cause component it scales (0..2)
   * @param factor what it multiplies that component by (a paired lever: 1 alone)
   */
  record Effect(Role role, int component, double factor) {}

  /**
   * A synthetic job's time model: {@code fixed + sum of components, each scaled by the factors of the levers on
   * it}, and by a pair's joint factor when both of the pair are applied.
   */
  record Model(double fixed, double[] components, Map<String, Effect> effects, Set<String> pair, int pairComponent,
      double pairFactor, double noise) {
    double time(Set<String> levers) {
      double t = fixed;
      double[] c = components.clone();
      for (String id : levers) {
        Effect e = effects.get(id);
        if (e != null) {
          c[e.component()] *= e.factor();
        }
      }
      if (!pair.isEmpty() && levers.containsAll(pair)) {
        c[pairComponent] *= pairFactor;
      }
      for (double x : c) {
        t += x;
      }
      return t;
    }

    double speedup(Set<String> levers) {
      return time(Set.of()) / time(levers);
    }

    boolean safe(Set<String> levers) {
      return levers.stream().map(effects::get)
          .noneMatch(e -> e.role() == Role.CORRUPTING || e.role() == Role.CRASHING);
    }
  }

  /** A lever that marks its id in the configuration's kernel variants, where a {@link ModelJob} reads it. */
  record MarkerLever(String id) implements Lever {
    static final String PREFIX = "lever:";

    @Override
    public LeverSpec spec() {
      return new LeverSpec(id, "synthetic lever " + id, Set.of(), SafetyClass.A, Scope.MANAGED);
    }

    @Override
    public Applicability check(LeverContext context) {
      return Applicability.yes("synthetic");
    }

    @Override
    public Setup apply(Setup setup, LeverContext context) {
      TreeMap<String, String> variants = new TreeMap<>(setup.config().kernelVariants());
      variants.put(PREFIX + id, "on");
      return setup.withConfig(setup.config().withKernelVariants(variants));
    }

    static Set<String> marked(Setup setup) {
      Set<String> ids = new TreeSet<>();
      setup.config().kernelVariants().keySet().stream().filter(k -> k.startsWith(PREFIX))
          .forEach(k -> ids.add(k.substring(PREFIX.length())));
      return ids;
    }
  }

  /** A job whose metric (items/s, higher is better) follows a {@link Model}, with noise per block. */
  static final class ModelJob implements Job {
    private final Model model;
    private final long seed;
    private final AtomicInteger runs = new AtomicInteger();

    ModelJob(Model model, long seed) {
      this.model = model;
      this.seed = seed;
    }

    @Override
    public String metric() {
      return "items/s";
    }

    @Override
    public boolean higherIsBetter() {
      return true;
    }

    @Override
    public Run open(Setup setup) {
      Set<String> levers = MarkerLever.marked(setup);
      double rate = 1 / model.time(levers);
      SplittableRandom random = new SplittableRandom(seed * 1_000_003L + runs.incrementAndGet());
      boolean crashes = levers.stream().anyMatch(id -> model.effects().get(id).role() == Role.CRASHING);
      List<String> corrupting = levers.stream()
          .filter(id -> model.effects().get(id).role() == Role.CORRUPTING).toList();
      return new Run() {
        private int blocks;

        @Override
        public double block() throws TrialFailure {
          if (crashes) {
            throw new TrialFailure(TrialFailure.Kind.CRASH, "synthetic crash");
          }
          blocks++;
          return rate * Math.max(0.05, 1 + model.noise() * random.nextGaussian());
        }

        @Override
        public OutputDigest output() {
          return new OutputDigest(sha256("blocks=" + blocks + ";corrupted=" + corrupting), new double[] {blocks});
        }

        @Override
        public void close() {}
      };
    }
  }

  /** A seeded synthetic scenario of 10 to 14 levers. */
  static Scenario of(int number, long seed, double noise) {
    Random random = new Random(seed);
    int n = 10 + random.nextInt(5);
    double[] components = {0.30, 0.20, 0.15};
    double fixed = 1 - Arrays.stream(components).sum();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add(String.format(Locale.ROOT, "L%02d", i));
    }
    Collections.shuffle(ids, random);
    Map<String, Effect> effects = new HashMap<>();
    int next = 0;
    boolean withPair = random.nextBoolean();
    int helpful = 2 + random.nextInt(3) - (withPair ? 1 : 0);
    for (int i = 0; i < Math.max(1, helpful); i++) {
      effects.put(ids.get(next++), new Effect(Role.HELPFUL, random.nextInt(3), 0.3 + 0.45 * random.nextDouble()));
    }
    Set<String> pair = new LinkedHashSet<>();
    int pairComponent = random.nextInt(3);
    if (withPair) {
      for (int i = 0; i < 2; i++) {
        String id = ids.get(next++);
        pair.add(id);
        effects.put(id, new Effect(Role.PAIRED, pairComponent, 1));
      }
    }
    int harmful = 2 + random.nextInt(2);
    for (int i = 0; i < harmful; i++) {
      effects.put(ids.get(next++), new Effect(Role.HARMFUL, random.nextInt(3), 1.1 + 0.3 * random.nextDouble()));
    }
    effects.put(ids.get(next++), new Effect(Role.CORRUPTING, random.nextInt(3), 0.4));
    if (random.nextBoolean()) {
      effects.put(ids.get(next++), new Effect(Role.CRASHING, random.nextInt(3), 1));
    }
    while (next < n) {
      effects.put(ids.get(next++), new Effect(Role.NEUTRAL, random.nextInt(3), 1));
    }
    Model model = new Model(fixed, components, Map.copyOf(effects), Set.copyOf(pair), pairComponent, 0.5, noise);

    List<String> sorted = new ArrayList<>(ids);
    Collections.sort(sorted);
    List<Lever> levers = sorted.stream().<Lever>map(MarkerLever::new).toList();
    List<Candidate> predictions = new ArrayList<>();
    for (Lever l : levers) {
      Effect e = effects.get(l.id());
      boolean replayed = e.role() != Role.PAIRED && e.role() != Role.CRASHING && random.nextDouble() < 0.75;
      if (replayed) {
        double alone = model.speedup(Set.of(l.id()));
        predictions.add(Candidate.replay(l, alone * Math.exp(0.03 * random.nextGaussian()), 0.04));
      } else {
        predictions.add(Candidate.prior(l, 1.05, 0.10));
      }
    }
    double best = bestSafe(model, sorted);
    double target = Math.floor(80 * (best - 1)) / 100;
    Map<Role, Integer> counts = new TreeMap<>();
    effects.values().forEach(e -> counts.merge(e.role(), 1, Integer::sum));
    String description = n + " levers " + counts.toString().toLowerCase(Locale.ROOT) + ", noise "
        + Math.round(noise * 100) + "%";
    long jobSeed = seed * 31 + 7;
    AtomicInteger jobs = new AtomicInteger();
    return new Scenario("synthetic-" + number, description, () -> new ModelJob(model, jobSeed + jobs.incrementAndGet()),
        Setup.shipped(), levers, predictions, new LeverContext(null, null, List.of(), Map.of(), false), target,
        setup -> model.speedup(MarkerLever.marked(setup)));
  }

  private static double bestSafe(Model model, List<String> ids) {
    double best = 1;
    for (int mask = 1; mask < 1 << ids.size(); mask++) {
      Set<String> s = new HashSet<>();
      for (int i = 0; i < ids.size(); i++) {
        if ((mask & 1 << i) != 0) {
          s.add(ids.get(i));
        }
      }
      if (model.safe(s)) {
        best = Math.max(best, model.speedup(s));
      }
    }
    return best;
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
