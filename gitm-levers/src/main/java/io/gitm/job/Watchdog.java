package io.gitm.job;


import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs each call into a job on a worker thread with a deadline. A call that does not return in time is a
 * {@link TrialFailure.Kind#HANG}: its worker is interrupted and abandoned (a daemon thread, so a job that ignores
 * interruption cannot keep the process alive) and later calls get a fresh worker. Every throwable from the job
 * becomes a {@link TrialFailure}; nothing the job throws escapes.
 *
 * <p>The deadline is a wait on the worker, not a reading of a clock.
 */
public final class Watchdog implements AutoCloseable {
  private static final AtomicInteger THREADS = new AtomicInteger();
  private static final ThreadFactory DAEMONS = r -> {
    Thread t = new Thread(r, "gitm-gate-worker-" + THREADS.incrementAndGet());
    t.setDaemon(true);
    return t;
  };

  private final Duration timeout;
  private ExecutorService worker = Executors.newSingleThreadExecutor(DAEMONS);

  public Watchdog(Duration timeout) {
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("a watchdog timeout must be positive, got " + timeout);
    }
    this.timeout = timeout;
  }

  /**
   * Runs {@code call} on the worker and returns its value.
   *
   * @param what what the call does, for the failure's message (e.g. {@code block 3 of the candidate})
   * @throws TrialFailure HANG on timeout; the job's own failure; CRASH, OUT_OF_MEMORY for anything else it throws
   * @throws InterruptedException when the calling thread is interrupted while waiting (the call is cancelled)
   */
  public <T> T call(String what, Callable<T> call) throws TrialFailure, InterruptedException {
    Future<T> future = worker.submit(call);
    try {
      return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      abandon(future);
      throw new TrialFailure(TrialFailure.Kind.HANG, what + " did not return within " + describe(timeout));
    } catch (InterruptedException e) {
      abandon(future);
      throw e;
    } catch (ExecutionException e) {
      throw failure(what, e.getCause());
    }
  }

  /** Closes {@code resource} under the watchdog, swallowing whatever happens: closing after a trial is best effort. */
  public void closeQuietly(AutoCloseable resource) {
    if (resource == null) {
      return;
    }
    try {
      call("close", () -> {
        resource.close();
        return null;
      });
    } catch (TrialFailure e) {
      // best effort: a run that cannot be closed is left to the job
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void abandon(Future<?> future) {
    future.cancel(true);
    worker.shutdownNow();
    worker = Executors.newSingleThreadExecutor(DAEMONS);
  }

  static TrialFailure failure(String what, Throwable cause) {
    return switch (cause) {
      case TrialFailure f -> f;
      case OutOfMemoryError e -> new TrialFailure(TrialFailure.Kind.OUT_OF_MEMORY, what + ": " + describe(e), e);
      case null -> new TrialFailure(TrialFailure.Kind.CRASH, what + " failed without a cause");
      default -> new TrialFailure(TrialFailure.Kind.CRASH, what + " threw " + describe(cause), cause);
    };
  }

  private static String describe(Throwable t) {
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getClass().getSimpleName() + ": " + t.getMessage();
  }

  static String describe(Duration d) {
    return d.toMillis() < 10_000 ? d.toMillis() + " ms" : d.toSeconds() + " s";
  }

  @Override
  public void close() {
    worker.shutdownNow();
  }
}
