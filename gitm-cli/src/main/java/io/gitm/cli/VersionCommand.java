package io.gitm.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code gitm version}: gitm's version, the Java runtime, and the device backends on the class path. */
@Command(name = "version", description = "Print gitm's version and runtime.", mixinStandardHelpOptions = true)
final class VersionCommand implements Callable<Integer> {

  @CommandLine.Option(names = "--json", description = "Print as JSON.")
  boolean json;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  static String version() {
    return io.gitm.Gitm.version();
  }

  @Override
  public Integer call() {
    var out = spec.commandLine().getOut();
    String runtime = Runtime.version().toString();
    if (json) {
      out.println(Json.write(java.util.Map.of("gitm", version(), "java", runtime)));
    } else {
      out.println("gitm " + version());
      out.println("java " + runtime + " (" + System.getProperty("java.vendor", "") + ")");
    }
    return Main.OK;
  }

  /** Supplies {@code gitm --version}. */
  static final class Provider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"gitm " + version(), "java " + Runtime.version()};
    }
  }
}
