package io.gitm.cli;

import io.gitm.job.ProcessSpec;
import io.gitm.run.Failures;
import io.gitm.run.ProcessTarget;
import io.gitm.run.RunLoop;
import io.gitm.store.Journal;
import io.gitm.store.RunDir;
import io.gitm.store.RunLock;
import io.gitm.store.RunStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import tools.jackson.core.JacksonException;

/**
 * What {@code gitm run --resume RUN} takes over from the run it continues: its folder (refused while a live process
 * writes it, or once it has ended), its journal, its black-box job's spec with the redacted values put back, and every
 * option that shaped it. A resume continues the same run: an option that shapes a run ({@link #SHAPING}) cannot be
 * given again; {@code --scratch}, {@code --json}, {@code --device-index} and the export options can.
 *
 * @param process the black-box job's spec, or null for a managed workload
 * @param options the options its {@code start} entry journaled ({@link RunLoop#journaledOptions})
 */
record RunResume(RunDir run, Journal.Contents previous, ProcessSpec process, Map<String, Object> options) {
  /** The options that shape a run, which the run's folder and journal keep and a resume restores. */
  static final List<String> SHAPING = List.of("--workload", "--input", "--symbols", "--book-depth", "--input-option",
      "--budget", "--target", "--levers", "--max-iterations",
      "--block-iterations", "--gate-pairs", "--allow-device-settings", "--device", "--sim-preset", "--sim-seed",
      "--faults", "--cmd", "--shell", "--live", "--metric", "--metric-regex", "--metric-file", "--metric-name",
      "--higher-is-better", "--lower-is-better", "--output", "--rtol", "--atol", "--timeout", "--workdir", "--env",
      "--no-trace", "--no-hook", "--kineto");

  /** The run {@code resume} names (an id in {@code store}, or a folder), checked resumable. */
  static RunResume open(CommandLine cl, RunStore store, String resume) {
    List<String> again = SHAPING.stream().filter(o -> cl.getParseResult().hasMatchedOption(o)).toList();
    if (!again.isEmpty()) {
      throw new CommandLine.ParameterException(cl, "--resume continues a run with the options it started with: "
          + String.join(", ", again) + (again.size() == 1 ? " cannot" : " cannot all") + " be given again");
    }
    Path dir = Path.of(resume);
    if (!Files.isDirectory(dir)) {
      dir = store.runs().resolve(resume);
    }
    if (!Files.isRegularFile(dir.resolve(RunDir.RUN_FILE))) {
      throw new CommandLine.ParameterException(cl, "--resume: no run '" + resume + "' (not a run folder, and not in "
          + store.runs() + ")");
    }
    try {
      RunLock.checkFree(dir);
    } catch (RunLock.HeldException e) {
      throw new CliFailure("--resume: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new CliFailure("--resume: cannot lock run " + dir.getFileName() + ": " + Failures.describe(e), e);
    }
    try {
      RunDir run = RunDir.open(dir);
      Journal.Contents previous = Journal.read(dir.resolve(RunDir.JOURNAL_FILE));
      if (Files.isRegularFile(dir.resolve(io.gitm.run.LiveTarget.LIVE_FILE))) {
        throw new CommandLine.ParameterException(cl, "--resume: run " + run.id() + " steered a live job (gitm run"
            + " --live), which runs on with what was kept: a live run is not resumed; start a new one");
      }
      if (previous.entries().stream().anyMatch(e -> e.type().equals("end"))) {
        throw new CommandLine.ParameterException(cl, "--resume: run " + run.id() + " already ended; nothing to"
            + " resume");
      }
      ProcessSpec process = null;
      if (Files.isRegularFile(dir.resolve(ProcessTarget.PROCESS_FILE))) {
        Path secrets = dir.resolve(RunDir.SECRETS_FILE);
        process = ProcessTarget.resumedSpec(Json.readMap(dir.resolve(ProcessTarget.PROCESS_FILE)),
            Files.isRegularFile(secrets) ? Json.readMap(secrets) : null);
      }
      return new RunResume(run, previous, process, RunLoop.journaledOptions(previous));
    } catch (IOException | IllegalArgumentException | JacksonException e) {
      throw new CliFailure("--resume: run " + dir.getFileName() + " cannot be resumed: " + Failures.describe(e), e);
    }
  }

  /** A journaled option's list value, or null when the run did not give it. */
  List<String> list(String name) {
    return options.get(name) instanceof List<?> l ? l.stream().map(String::valueOf).toList() : null;
  }

  /** A journaled option's number, or {@code otherwise}. */
  int number(String name, int otherwise) {
    return options.get(name) instanceof Number n ? n.intValue() : otherwise;
  }

  /** A journaled flag, or {@code otherwise}. */
  boolean flag(String name, boolean otherwise) {
    return options.get(name) instanceof Boolean b ? b : otherwise;
  }
}
