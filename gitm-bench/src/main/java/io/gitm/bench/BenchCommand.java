package io.gitm.bench;

import io.gitm.api.Budget;
import io.gitm.api.Target;
import io.gitm.cli.ExtraCommand;
import io.gitm.cli.Main;
import io.gitm.workload.Workload;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code gitm bench}: the built-in workloads' benchmark (each managed workload's shipped setup against the setup
 * {@code gitm run} finds for it within a budget, on the chosen device) and the search comparison of the agent against
 * random search and the exhaustive oracle on seeded synthetic jobs ({@link SearchHarness}), as one Markdown table.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Benchmark: each built-in workload's shipped setup against what gitm run finds for it, and the search"
        + " comparison (agent, random search, oracle) on synthetic jobs; a Markdown table.")
public final class BenchCommand implements ExtraCommand {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--budget", paramLabel = "DURATION", defaultValue = "1m",
      description = "gitm run's budget for each workload (default: ${DEFAULT-VALUE}).")
  String budget;

  @Option(names = "--target", paramLabel = "FRACTION", defaultValue = "15%",
      description = "gitm run's target for each workload (default: ${DEFAULT-VALUE}).")
  String target;

  @Option(names = "--device", paramLabel = "KIND", defaultValue = "auto",
      description = "auto, sim or nvidia, as for gitm run (default: ${DEFAULT-VALUE}).")
  String device;

  @Option(names = "--workloads", split = ",", paramLabel = "NAME", description = "Only these workloads (default: all).")
  List<String> workloads;

  @Option(names = "--scenarios", paramLabel = "N", defaultValue = "2",
      description = "Synthetic scenarios of the search comparison, 0 to 16 (0 leaves it out;"
          + " default: ${DEFAULT-VALUE}).")
  int scenarios;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "1", description = "Seed of the synthetic scenarios.")
  long seed;

  @Option(names = {"-o", "--out"}, paramLabel = "FILE", description = "Also write the table to FILE (Markdown).")
  Path out;

  @Option(names = "--scratch", paramLabel = "DIR", description = "gitm's store for the runs (default: GITM_SCRATCH).")
  Path scratch;

  @Option(names = "--input", paramLabel = "PATH",
      description = "Run the one workload of --workloads on this input, as gitm run --input does.")
  Path input;

  @Option(names = "--input-arg", paramLabel = "ARG",
      description = "An argument to pass on with --input (repeatable), e.g. --input-arg=--symbols=AAPL,MSFT.")
  List<String> inputArgs = new ArrayList<>();

  @Override
  public Integer call() throws IOException {
    CommandLine cl = spec.commandLine();
    try {
      Budget.parse(budget);
      Target.parse(target);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cl, e.getMessage());
    }
    if (scenarios < 0 || scenarios > 16) {
      throw new CommandLine.ParameterException(cl, "--scenarios must be 0 to 16, got " + scenarios);
    }
    if (out != null && out.getParent() != null && !Files.isDirectory(out.toAbsolutePath().getParent())) {
      throw new CommandLine.ParameterException(cl, "--out " + out + ": no folder " + out.toAbsolutePath().getParent());
    }
    List<Workload> all = ServiceLoader.load(Workload.class).stream().map(ServiceLoader.Provider::get).toList();
    List<String> names = all.stream().map(w -> w.spec().name()).toList();
    List<String> chosen = workloads == null ? names : workloads;
    for (String n : chosen) {
      if (!names.contains(n)) {
        throw new CommandLine.ParameterException(cl, "--workloads: unknown workload '" + n + "'; known: " + names);
      }
    }
    if (input != null && chosen.size() != 1) {
      throw new CommandLine.ParameterException(cl, "--input is one workload's: name it alone with --workloads, e.g."
          + " --workloads hft-lob");
    }
    if (input == null && !inputArgs.isEmpty()) {
      throw new CommandLine.ParameterException(cl, "--input-arg needs --input PATH");
    }
    PrintWriter err = cl.getErr();
    StringBuilder md = new StringBuilder();
    md.append("# gitm bench\n\n").append(String.format(Locale.ROOT, "%s, %d CPUs, gitm run --budget %s --target %s"
        + " --device %s per workload\n\n", Instant.now().truncatedTo(ChronoUnit.SECONDS),
        Runtime.getRuntime().availableProcessors(), budget, target, device));
    md.append("## Workloads: shipped setup against what gitm run finds\n\n")
        .append("| workload | device | shipped | optimized | gain | status | kept | run |\n")
        .append("|---|---|---:|---:|---:|---|---|---|\n");
    boolean failed = false;
    for (String n : chosen) {
      failed |= !workload(n, err, md);
    }
    if (scenarios > 0) {
      search(err, md);
    }
    String table = md.toString();
    cl.getOut().print(table);
    cl.getOut().flush();
    if (out != null) {
      Path tmp = Files.createTempFile(out.toAbsolutePath().getParent(), ".gitm-bench-", ".tmp");
      Files.writeString(tmp, table, StandardCharsets.UTF_8);
      Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
    return failed ? 1 : 0;
  }

  /** Runs {@code gitm run} on workload {@code n} and appends its row; false when the run failed. */
  private boolean workload(String n, PrintWriter err, StringBuilder md) throws IOException {
    err.println("bench: gitm run --workload " + n + " --budget " + budget + " …");
    err.flush();
    List<String> args = new ArrayList<>(List.of("run", "--workload", n, "--budget", budget, "--target", target,
        "--device", device, "--json"));
    if (scratch != null) {
      args.addAll(List.of("--scratch", scratch.toString()));
    }
    if (input != null) {
      args.addAll(List.of("--input", input.toString()));
      args.addAll(inputArgs);
    }
    StringWriter o = new StringWriter();
    StringWriter e = new StringWriter();
    int code = Main.execute(new PrintWriter(o), new PrintWriter(e), args.toArray(String[]::new));
    String text = o.toString();
    int brace = text.lastIndexOf("\n{");
    if (code != 0 || brace < 0 && !text.startsWith("{")) {
      md.append(String.format(Locale.ROOT, "| %s | – | – | – | – | failed (exit %d): %s | – | – |%n",
          n, code, firstLine(e.toString())));
      return false;
    }
    JsonNode doc = JSON.readTree(text.substring(brace < 0 ? 0 : brace + 1));
    JsonNode b = doc.get("baseline");
    double shipped = b.get("throughput").asDouble();
    double gain = doc.has("speedup") ? doc.get("speedup").asDouble() : 1;
    List<String> kept = new ArrayList<>();
    if (doc.has("kept")) {
      doc.get("kept").forEach(k -> kept.add(k.asString()));
    }
    String metric = b.get("metric").asString();
    md.append(String.format(Locale.ROOT, "| %s | %s | %.4g %s | %.4g %s | %+.1f%% | %s | %s | `%s` |%n", n,
        doc.get("device").get("name").asString() + " (" + doc.get("device").get("kind").asString() + ")", shipped,
        metric, shipped * gain, metric, (gain - 1) * 100, doc.get("status").asString().toLowerCase(Locale.ROOT)
            .replace('_', ' '), kept.isEmpty() ? "nothing" : String.join(", ", kept), doc.get("run").asString()));
    return true;
  }

  /** The search comparison on the synthetic scenarios: a heading, and a row per scenario. */
  private void search(PrintWriter err, StringBuilder md) {
    err.println("bench: search comparison on " + scenarios + " synthetic scenario(s) …");
    err.flush();
    md.append("\n## Search: the agent against random search and the exhaustive oracle (synthetic jobs)\n\n")
        .append("| scenario | levers | target | oracle speedup (trials) | agent speedup (trials) | agent / oracle"
            + " speedup | agent's trials / oracle's | trials to target: agent, random |\n")
        .append("|---|---|---:|---:|---:|---:|---:|---|\n");
    SearchHarness.Settings settings = SearchHarness.Settings.defaults().withSeed(seed);
    for (int k = 0; k < scenarios; k++) {
      SearchHarness.Scenario s = SyntheticScenario.of(k + 1, seed * 1000 + k, k % 2 == 0 ? 0.02 : 0.04);
      SearchHarness.Comparison c = SearchHarness.compare(s, settings);
      md.append(String.format(Locale.ROOT,
          "| %s | %s | %.0f%% | %.3f (%d) | %.3f (%d) | %.1f%% | %.1f%% | %s, %s |%n",
          s.name(), s.description(), 100 * s.target(), c.oracle().speedup(), c.oracle().trials(),
          c.agent().speedup(), c.agent().trials(), 100 * c.speedupShare(), 100 * c.trialShare(),
          reached(c.agent().trialsToTarget()), reached(c.random().trialsToTarget())));
    }
  }

  private static String reached(int trials) {
    return trials < 0 ? "not reached" : Integer.toString(trials);
  }

  private static String firstLine(String s) {
    String t = s.strip();
    int nl = t.indexOf('\n');
    return (nl < 0 ? t : t.substring(0, nl)).replace("|", "\\|");
  }
}
