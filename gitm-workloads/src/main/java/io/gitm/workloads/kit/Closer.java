package io.gitm.workloads.kit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * Resources to close together, in the order they were added. {@link #close()} closes every one of them, skipping
 * nulls, even where some fail: the first failure is thrown once all were tried, the later ones suppressed in it (a
 * checked exception wrapped in an {@link IllegalStateException}).
 */
public final class Closer implements AutoCloseable {
  private final List<AutoCloseable> all = new ArrayList<>();

  /** Adds {@code c} (may be null). */
  public Closer add(AutoCloseable c) {
    all.add(c);
    return this;
  }

  /** Adds each of {@code cs} in order (entries may be null). */
  public Closer addAll(Collection<? extends AutoCloseable> cs) {
    all.addAll(cs);
    return this;
  }

  /** Adds each of {@code cs} in order (entries may be null). */
  public Closer addAll(AutoCloseable... cs) {
    return addAll(Arrays.asList(cs));
  }

  @Override
  public void close() {
    RuntimeException first = null;
    for (AutoCloseable c : all) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        RuntimeException r = e instanceof RuntimeException re ? re : new IllegalStateException(e);
        if (first == null) {
          first = r;
        } else {
          first.addSuppressed(r);
        }
      }
    }
    all.clear();
    if (first != null) {
      throw first;
    }
  }
}
