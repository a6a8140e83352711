package io.gitm.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The CLI run in-process on a thread of its own, so that a test can talk to what it serves while it runs. */
final class BackgroundCli implements AutoCloseable {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private final CompletableFuture<Integer> code;

  private BackgroundCli(String... args) {
    code = CompletableFuture.supplyAsync(() -> Main.execute(new PrintWriter(out, true), new PrintWriter(err, true),
        args), r -> {
          Thread t = new Thread(r, "gitm-cli-under-test");
          t.setDaemon(true);
          t.start();
        });
  }

  static BackgroundCli start(String... args) {
    return new BackgroundCli(args);
  }

  /** The first match of {@code regex} in standard output and error together, waiting up to 60 s for it. */
  Matcher await(String regex) throws InterruptedException {
    Pattern p = Pattern.compile(regex, Pattern.MULTILINE);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      Matcher m = p.matcher(out + "\n" + err);
      if (m.find()) {
        return m;
      }
      if (code.isDone()) {
        throw new AssertionError("the command ended (" + code.join() + ") without printing /" + regex + "/:\n" + out
            + "\n" + err);
      }
      Thread.sleep(10);
    }
    throw new AssertionError("no /" + regex + "/ in 60 s:\n" + out + "\n" + err);
  }

  boolean running() {
    return !code.isDone();
  }

  /** Waits for the command to end (up to 5 minutes) and returns what it printed. */
  CliResult join() throws Exception {
    int c = code.get(5, TimeUnit.MINUTES);
    return new CliResult(c, out.toString(), err.toString());
  }

  @Override
  public void close() throws Exception {
    join();
  }
}
