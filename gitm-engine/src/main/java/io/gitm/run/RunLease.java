package io.gitm.run;

import io.gitm.store.RunDir;
import io.gitm.store.RunLock;
import java.io.IOException;

/** The run folder's writer lock, taken as soon as the folder is known and held until the run ends. */
final class RunLease implements AutoCloseable {
  private RunLock lock;

  /**
   * Takes {@code run}'s lock.
   *
   * @throws RunLock.HeldException when a live process writes the folder
   */
  void take(RunDir run) throws IOException {
    if (lock != null) {
      throw new IllegalStateException("a run holds one folder's lock");
    }
    lock = run.lock();
  }

  @Override
  public void close() throws IOException {
    if (lock != null) {
      lock.close();
      lock = null;
    }
  }
}
