package io.gitm.run;

import io.gitm.store.Journal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;

/** A run's journal with the clock its entries are stamped by. */
final class RunJournal {
  private final Journal journal;
  private final Clock clock;

  RunJournal(Journal journal, Clock clock) {
    this.journal = journal;
    this.clock = clock;
  }

  Instant now() {
    return clock.instant();
  }

  /** Appends an entry stamped now. */
  void append(String type, Map<String, Object> data) throws IOException {
    journal.append(type, now().toString(), data);
  }

  /**
   * Appends an entry with the thread's interrupt status cleared for the write (an interrupt during channel I/O
   * would close the journal), then restored.
   */
  void record(String type, Map<String, Object> data) {
    boolean interrupted = Thread.interrupted();
    try {
      append(type, data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
