package io.gitm.cli;

import io.gitm.run.RunLoop;
import java.io.PrintWriter;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * How {@code gitm run} answers the signals that stop it. The first Ctrl-C (SIGINT) asks the run to stop gracefully:
 * the trial in progress is cut, the anchor is re-applied, the report of what was done is written, and gitm exits with
 * 130. A second Ctrl-C stops at once; the journal then holds every completed trial and {@code --resume} continues.
 * SIGTERM (a service manager, {@code kill}) asks for the same graceful stop through a shutdown hook, which waits for
 * the report up to {@value #TERM_GRACE_SECONDS} seconds before the JVM exits.
 */
final class Interrupts implements AutoCloseable {
  static final long TERM_GRACE_SECONDS = 60;
  private static final Signal INT = new Signal("INT");

  private final Thread hook;
  private final CountDownLatch done = new CountDownLatch(1);
  private final SignalHandler previous;

  private Interrupts(RunLoop.Control control, PrintWriter err) {
    AtomicInteger count = new AtomicInteger();
    previous = Signal.handle(INT, sig -> {
      if (count.incrementAndGet() == 1) {
        err.println("gitm: stopping: cutting the trial in progress, reverting to the anchor and writing the report"
            + " (Ctrl-C again to stop at once; --resume continues)");
        err.flush();
        control.requestStop();
      } else {
        err.println("gitm: stopped at once; the journal keeps every completed trial (gitm run --resume RUN)");
        err.flush();
        Runtime.getRuntime().halt(130);
      }
    });
    hook = new Thread(() -> {
      control.requestStop();
      try {
        done.await(TERM_GRACE_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "gitm-stop");
    Runtime.getRuntime().addShutdownHook(hook);
  }

  static Interrupts install(RunLoop.Control control, PrintWriter err) {
    return new Interrupts(control, err);
  }

  /** The run has ended: a shutdown in progress may finish, and the signals get their usual meaning back. */
  @Override
  public void close() {
    done.countDown();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running: it waits for done, counted down above
    }
    Signal.handle(INT, previous);
  }
}
