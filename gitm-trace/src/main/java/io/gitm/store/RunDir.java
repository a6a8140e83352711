package io.gitm.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * One run's folder under {@code runs/}: {@code run.json} (its {@link RunInfo}), {@code journal.jsonl} (what happened,
 * in order, so that a run can be resumed), and the run's outputs (traces, telemetry, reports, ground truth). The
 * folder is its user's alone (0700), and so are the files written through it (0600), whatever the umask. Two files
 * stay on this machine ({@link #LOCAL_ONLY}): the writer's lock ({@link RunLock}) and {@value #SECRETS_FILE}, the
 * values of the job's environment that the other files show redacted.
 */
public final class RunDir {
  public static final String RUN_FILE = "run.json";
  public static final String JOURNAL_FILE = "journal.jsonl";
  /** The user's input a run read ({@code --input}): its path, sha256, format, what was found, and each file. */
  public static final String INPUT_FILE = "input.json";
  /** What a resume needs that no report shows: the values of the job's redacted environment variables. */
  public static final String SECRETS_FILE = "secrets.json";
  /** Files of a run folder that a sync never uploads. */
  public static final Set<String> LOCAL_ONLY = Set.of(RunLock.FILE, SECRETS_FILE);
  static final ObjectMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
  private static final DateTimeFormatter ID_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

  private final Path dir;
  private final RunInfo info;

  private RunDir(Path dir, RunInfo info) {
    this.dir = dir;
    this.info = info;
  }

  /**
   * Creates a new run folder; its id is {@code yyyyMMdd-HHmmss-WORKLOAD-XXXX} (UTC, random suffix), so ids sort by
   * creation time.
   */
  public static RunDir create(RunStore store, RunInfo template, Clock clock) throws IOException {
    String slug = template.workload() == null ? "job" : template.workload().replaceAll("[^A-Za-z0-9._-]", "_");
    String id = ID_TIME.format(clock.instant()) + "-" + slug + "-"
        + HexFormat.of().toHexDigits((short) ThreadLocalRandom.current().nextInt());
    Path dir = store.runs().resolve(id);
    Files.createDirectory(dir, AtomicFiles.privateFolder(store.runs()));
    RunInfo info = new RunInfo(id, template.workload(), template.command(), template.budget(), template.target(),
        template.device(), clock.instant().toString(), template.gitmVersion());
    AtomicFiles.write(dir.resolve(RUN_FILE), JSON.writeValueAsBytes(info));
    return new RunDir(dir, info);
  }

  /** Opens an existing run folder. */
  public static RunDir open(Path dir) throws IOException {
    Path f = dir.resolve(RUN_FILE);
    try {
      return new RunDir(dir, JSON.readValue(f.toFile(), RunInfo.class));
    } catch (tools.jackson.core.JacksonException e) {
      throw new IOException(f + " is not a readable run description: " + e.getOriginalMessage(), e);
    }
  }

  public Path dir() {
    return dir;
  }

  public RunInfo info() {
    return info;
  }

  public String id() {
    return info.id();
  }

  /**
   * Takes this folder's writer lock ({@link RunLock#acquire}).
   *
   * @throws RunLock.HeldException when a live process writes it
   */
  public RunLock lock() throws IOException {
    return RunLock.acquire(dir);
  }

  /** The run's journal, opened for appending. */
  public Journal journal() throws IOException {
    return Journal.open(dir.resolve(JOURNAL_FILE));
  }

  /** Writes {@code value} as JSON to {@code name} in the run folder, atomically. */
  public Path writeJson(String name, Object value) throws IOException {
    Path p = dir.resolve(name);
    AtomicFiles.write(p, JSON.writeValueAsBytes(value));
    return p;
  }

  /** Writes text to {@code name} in the run folder, atomically. */
  public Path writeText(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    AtomicFiles.writeString(p, text);
    return p;
  }
}
