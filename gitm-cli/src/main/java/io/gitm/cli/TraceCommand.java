package io.gitm.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code gitm trace}: the trace file commands (export, import, info, replay). */
@Command(name = "trace", mixinStandardHelpOptions = true,
    description = "Work with gitm trace files (.gtrace): export to Perfetto, import PyTorch profiler traces,"
        + " summarize, replay on the simulated device.",
    subcommands = {TraceExportCommand.class, TraceImportCommand.class, TraceInfoCommand.class, TraceReplayCommand.class,
        CommandLine.HelpCommand.class})
final class TraceCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(),
        "a trace command is required (export, import, info): see 'gitm trace --help'");
  }
}
