package io.gitm.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the CLI in-process and captures its exit code and output. */
record CliResult(int code, String out, String err) {
  static CliResult run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(new PrintWriter(out), new PrintWriter(err), args);
    return new CliResult(code, out.toString(), err.toString());
  }

  /** The first line of standard error. */
  String errorLine() {
    return err.lines().findFirst().orElse("");
  }
}
