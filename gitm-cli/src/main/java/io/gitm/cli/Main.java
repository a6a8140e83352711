package io.gitm.cli;

import io.gitm.run.Failures;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code gitm} command. Exit codes: 0 success; 1 the job or gitm failed; 2 bad usage (a one-line message on
 * standard error).
 */
@Command(name = "gitm", mixinStandardHelpOptions = true, versionProvider = VersionCommand.Provider.class,
    description = "A runtime-layer optimizer for GPU jobs: profile, attribute, intervene behind rollback gates,"
        + " report.",
    subcommands = {RunCommand.class, AgentCommand.class, AnalyzeCommand.class, PlanCommand.class, LeversCommand.class,
        DoctorCommand.class, CalibrateCommand.class, SyncCommand.class, VersionCommand.class, TraceCommand.class,
        CommandLine.HelpCommand.class},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:success", "1:the job or gitm failed", "2:bad usage (invalid option or argument)"})
public final class Main implements Runnable {

  public static final int OK = 0;
  public static final int FAILURE = 1;
  public static final int USAGE = 2;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(),
        "a command is required (run, doctor, version, …): see 'gitm --help'");
  }

  /**
   * When {@link #main} was entered, on {@link System#nanoTime}; unset when the CLI runs inside another program.
   * The JVM's own start before it (and a launcher script's) is not counted: it would eat a short profile phase.
   */
  private static volatile java.util.OptionalLong mainEntered = java.util.OptionalLong.empty();

  static java.util.OptionalLong mainEnteredNanos() {
    return mainEntered;
  }

  public static void main(String[] args) {
    mainEntered = java.util.OptionalLong.of(System.nanoTime());
    System.exit(execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
  }

  /** Runs the CLI with the given output streams and returns the exit code. */
  public static int execute(PrintWriter out, PrintWriter err, String... args) {
    CommandLine cl = new CommandLine(new Main());
    for (ExtraCommand extra : java.util.ServiceLoader.load(ExtraCommand.class)) {
      cl.addSubcommand(extra);
    }
    if (!cl.getSubcommands().containsKey("bench")) {
      cl.addSubcommand("bench", new BenchMissing());
    }
    for (String name : java.util.List.of("run", "plan", "levers")) {
      InputOptions.addHelpSection(cl.getSubcommands().get(name));
    }
    cl.setOut(out);
    cl.setErr(err);
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.setExecutionStrategy(parsed -> {
      rejectUnmatched(parsed);
      return new CommandLine.RunLast().execute(parsed);
    });
    cl.setParameterExceptionHandler((ex, a) -> {
      err.println("gitm: " + Terminal.safe(oneLine(usageMessage(ex))));
      CommandLine c = ex.getCommandLine();
      err.println("Try '" + c.getCommandSpec().qualifiedName() + " --help' for more information.");
      err.flush();
      return USAGE;
    });
    cl.setExecutionExceptionHandler((ex, c, parsed) -> {
      if (ex instanceof CommandLine.ParameterException pe) {
        throw pe;
      }
      String msg = ex instanceof CliFailure ? ex.getMessage() : Failures.describe(ex);
      err.println("gitm: error: " + Terminal.safe(oneLine(msg)));
      if (System.getenv("GITM_DEBUG") != null) {
        ex.printStackTrace(err);
      }
      err.flush();
      return FAILURE;
    });
    // gitm run ... --cmd PROGRAM [ARGS...]: what follows --cmd is the job's, not gitm's
    String[] own = args;
    List<String> job = List.of();
    if (args.length > 0 && args[0].equals("run")) {
      int at = java.util.Arrays.asList(args).indexOf("--cmd");
      if (at >= 0) {
        own = java.util.Arrays.copyOfRange(args, 0, at + 1);
        job = List.of(java.util.Arrays.copyOfRange(args, at + 1, args.length));
      }
    }
    RunCommand.JOB_ARGV.set(job);
    int code;
    try {
      code = cl.execute(own);
    } finally {
      RunCommand.JOB_ARGV.remove();
    }
    out.flush();
    err.flush();
    return code;
  }

  /** Refuses what no command took when {@code --help} was given too (picocli lets it pass then). */
  private static void rejectUnmatched(CommandLine.ParseResult parsed) {
    for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand()) {
      if (!p.unmatched().isEmpty()) {
        throw new CommandLine.UnmatchedArgumentException(p.commandSpec().commandLine(), p.unmatched());
      }
    }
  }

  /** The usage error's message; a word where a command was expected is named as an unknown command. */
  private static String usageMessage(CommandLine.ParameterException ex) {
    CommandLine c = ex.getCommandLine();
    if (ex instanceof CommandLine.UnmatchedArgumentException u && !c.getSubcommands().isEmpty()
        && !u.getUnmatched().isEmpty() && !u.getUnmatched().get(0).startsWith("-")) {
      return "unknown command '" + u.getUnmatched().get(0) + "' for '" + c.getCommandSpec().qualifiedName()
          + "'; commands: " + String.join(", ", c.getSubcommands().keySet());
    }
    return ex.getMessage();
  }

  static String oneLine(String s) {
    if (s == null) {
      return "unknown error";
    }
    String t = s.strip();
    int nl = t.indexOf('\n');
    return nl < 0 ? t : t.substring(0, nl).strip();
  }

  /** {@code gitm bench} where the bench extra is not on the class path. */
  @Command(name = "bench", description = "The benchmark harness (the bench extra: gitm-bench).")
  static final class BenchMissing implements java.util.concurrent.Callable<Integer> {
    @Override
    public Integer call() {
      throw new CliFailure("the bench extra is not on the class path: build it with ./mvnw -pl gitm-bench -am package"
          + " -DskipTests; ./gitm then runs with it");
    }
  }
}
