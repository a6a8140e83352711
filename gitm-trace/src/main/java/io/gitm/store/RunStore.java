package io.gitm.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * gitm's local data folder ({@code $GITM_SCRATCH}, default {@code ~/.cache/gitm}) with the seed's layout:
 * {@code datasets/{hft,biotech,edge}/} (immutable inputs), {@code runs/} (one folder per run), {@code traces/}
 * and {@code telemetry/}, plus {@code hardware/}: the specs {@code gitm calibrate} measured, one file per device.
 */
public final class RunStore {
  public static final List<String> TOP_LEVEL = List.of("datasets", "runs", "traces", "telemetry", "hardware");
  public static final List<String> DATASET_DOMAINS = List.of("hft", "biotech", "edge");

  private final Path root;

  private RunStore(Path root) {
    this.root = root;
  }

  /** The root from the environment: {@code GITM_SCRATCH}, else {@code ~/.cache/gitm}. */
  public static Path defaultRoot(Map<String, String> env) {
    String s = env.get("GITM_SCRATCH");
    if (s != null && !s.isBlank()) {
      return Path.of(s).toAbsolutePath();
    }
    return Path.of(System.getProperty("user.home"), ".cache", "gitm");
  }

  /** Opens the store at {@code root}, creating the layout's folders where missing. */
  public static RunStore open(Path root) throws IOException {
    Path r = root.toAbsolutePath();
    if (Files.exists(r) && !Files.isDirectory(r)) {
      throw new IOException("the gitm store " + r + " is a file, not a folder");
    }
    Files.createDirectories(r);
    for (String t : TOP_LEVEL) {
      // runs/ holds commands and measurements: the user's alone (0700) where it is created
      Files.createDirectories(r.resolve(t), t.equals("runs") ? AtomicFiles.privateFolder(r) : new FileAttribute<?>[0]);
    }
    for (String d : DATASET_DOMAINS) {
      Files.createDirectories(r.resolve("datasets").resolve(d));
    }
    return new RunStore(r);
  }

  public Path root() {
    return root;
  }

  public Path runs() {
    return root.resolve("runs");
  }

  public Path traces() {
    return root.resolve("traces");
  }

  public Path telemetry() {
    return root.resolve("telemetry");
  }

  /** The file a calibration of this device (name, UUID, driver) is kept in. */
  public Path hardwareSpec(String deviceName, String uuid, String driver) {
    String key = (deviceName + "-" + uuid + "-" + driver).replaceAll("[^A-Za-z0-9._-]+", "_");
    return root.resolve("hardware").resolve(key + ".json");
  }

  /** The dataset folder of a domain ({@code hft}, {@code biotech}, {@code edge}). */
  public Path datasets(String domain) {
    if (!DATASET_DOMAINS.contains(domain)) {
      throw new IllegalArgumentException("unknown dataset domain '" + domain + "'; known: " + DATASET_DOMAINS);
    }
    return root.resolve("datasets").resolve(domain);
  }

  /** The ids of the runs in the store, oldest first (ids sort by creation time). */
  public List<String> runIds() throws IOException {
    List<String> ids = new ArrayList<>();
    try (Stream<Path> s = Files.list(runs())) {
      s.filter(p -> Files.isDirectory(p) && Files.exists(p.resolve(RunDir.RUN_FILE)))
          .forEach(p -> ids.add(p.getFileName().toString()));
    }
    ids.sort(null);
    return ids;
  }

  /** Finds a run by id, or by the path of its folder. */
  public RunDir run(String idOrPath) throws IOException {
    Path p = Path.of(idOrPath);
    Path dir = Files.isDirectory(p) && Files.exists(p.resolve(RunDir.RUN_FILE)) ? p : runs().resolve(idOrPath);
    if (!Files.exists(dir.resolve(RunDir.RUN_FILE))) {
      throw new IOException("no run '" + idOrPath + "' in " + runs());
    }
    return RunDir.open(dir);
  }
}
