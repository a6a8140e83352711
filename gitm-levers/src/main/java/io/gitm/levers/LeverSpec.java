package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.levers.Lever.Scope;
import java.util.Set;

/**
 * What a lever is, apart from what it does: the words journals, reports and {@code --levers} know it by, the causes
 * it addresses, what it may do to the output and the device, and the kind of job it acts on.
 *
 * @param id stable id, e.g. {@code pinned-host-memory}
 * @param description what it does, in one sentence
 * @param addresses the causes it addresses (none: it raises a ceiling rather than removing a loss)
 * @param safety what it may do to a job's output and to the device
 * @param scope which kind of job it acts on
 */
public record LeverSpec(String id, String description, Set<Cause> addresses, SafetyClass safety, Scope scope) {
  public LeverSpec {
    if (id == null || id.isBlank() || description == null || description.isBlank()) {
      throw new IllegalArgumentException("a lever needs an id and a description, got '" + id + "'");
    }
    if (safety == null || scope == null) {
      throw new IllegalArgumentException("lever " + id + " needs a safety class and a scope");
    }
    addresses = Set.copyOf(addresses == null ? Set.of() : addresses);
  }
}
