package io.gitm.cli;

import io.gitm.workload.Workload;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/** The managed workloads on the class path, found by {@code ServiceLoader}. */
final class Workloads {
  private Workloads() {}

  static List<Workload> all() {
    return ServiceLoader.load(Workload.class).stream().map(ServiceLoader.Provider::get).toList();
  }

  static Optional<Workload> find(String name) {
    return all().stream().filter(w -> w.spec().name().equals(name)).findFirst();
  }

  static String knownNames() {
    List<String> names = all().stream().map(w -> w.spec().name()).sorted().toList();
    return names.isEmpty() ? "(none on the class path)" : String.join(", ", names);
  }

  /** The workloads' names, for the commands' help ({@code ${COMPLETION-CANDIDATES}}). */
  static final class Names implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      List<String> names = all().stream().map(w -> w.spec().name()).sorted().toList();
      return (names.isEmpty() ? List.of("(none on the class path)") : names).iterator();
    }
  }
}
