package io.gitm.store.s3;

import io.gitm.api.Ticker;
import io.gitm.store.AtomicFiles;
import io.gitm.store.RunDir;
import io.gitm.store.RunStore;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Copies the run store to S3 ({@code GITM_S3_ROOT}) and pinned datasets back. Under the root, objects have the
 * store's paths: {@code datasets/DOMAIN/NAME} with its pin {@code NAME.sha256}, {@code runs/ID/...},
 * {@code traces/...}, {@code telemetry/...}; the user's input of a run ({@code --input}) goes, pinned file by file,
 * under {@code datasets/inputs/SHA256/} (pushed, never fetched).
 *
 * <ul>
 *   <li><b>Datasets</b> are immutable and sha256-pinned: a file is uploaded only when it matches its local pin, and
 *       its pin object is written after it, so a pin in S3 always names a whole object. A dataset whose pin or bytes
 *       in S3 differ from the local ones is refused, never overwritten; a pinned dataset missing here is downloaded,
 *       checked against its pin, and kept only when it matches.
 *   <li><b>Runs, traces and telemetry</b> are synced one folder at a time ({@code runs/ID}, {@code traces},
 *       {@code telemetry}): the files that changed since the folder's {@link Manifest} are uploaded, then the manifest
 *       is written. Nothing in S3 is ever deleted.
 *   <li>A file larger than the part size goes as a multipart upload, which S3 shows only once completed, and an
 *       interrupted one is continued by the next sync ({@link Uploader}). Every request is retried with backoff.
 * </ul>
 *
 * <p>A refusal is reported (an event, a line of the summary) and the sync goes on; a failure of S3 itself, once
 * retried, ends the sync with an {@link IOException} naming the object. Temporary files of interrupted local writes
 * ({@code *.tmp}) are never uploaded.
 */
public final class S3Sync implements AutoCloseable {
  /** Where the users' inputs go, each under its fingerprint: {@code datasets/inputs/SHA256/NAME}. */
  static final String INPUTS = "datasets/inputs/";
  private static final ObjectMapper INPUT_JSON = JsonMapper.builder().build();
  /** What happened to one file. */
  public enum Kind {
    /** The file is now in S3 (uploaded whole, or its interrupted upload completed). */
    UPLOADED,
    /** S3 already held this file. */
    UP_TO_DATE,
    /** A pinned dataset was fetched from S3 and matched its pin. */
    DOWNLOADED,
    /** A dataset whose bytes or pin differ between here and S3, left as it was on both sides. */
    REFUSED,
    /** One part of a multipart upload was sent. */
    PART,
    /** S3 has not answered a request (or failed it) and the request is tried again; no file, the wait in words. */
    WAITING
  }

  /** One thing the sync did: its kind, the file's path in the store, its bytes, and the details in words. */
  public record Event(Kind kind, String path, long bytes, String detail) {}

  /** Told of each event as it happens. */
  @FunctionalInterface
  public interface Listener {
    void on(Event event);

    static Listener none() {
      return e -> {};
    }
  }

  /**
   * What a sync did: files and bytes uploaded, of which {@code resumed} continued an interrupted upload (reusing
   * {@code reusedParts} parts), files already in S3, datasets downloaded, and the refusals in words.
   */
  public record Summary(int uploaded, long uploadedBytes, int resumed, int reusedParts, int upToDate, int downloaded,
      List<String> refused) {
    public Summary {
      refused = List.copyOf(refused);
    }

    /** One line: {@code 3 uploaded (12.0 MiB), 1 resumed, 40 up to date, 1 downloaded, 0 refused}. */
    public String describe() {
      return uploaded + " uploaded (" + mib(uploadedBytes) + ")" + (resumed > 0 ? ", " + resumed + " resumed ("
          + reusedParts + " parts already in S3)" : "") + ", " + upToDate + " up to date, " + downloaded
          + " downloaded, " + refused.size() + " refused";
    }
  }

  private static final String PIN_SUFFIX = ".sha256";

  private final S3Settings settings;
  private final Bucket bucket;
  private final Clock clock;
  /** Who hears of the waits of the sync in progress. */
  private volatile Listener current = Listener.none();

  private S3Sync(S3Settings settings, Clock clock, Ticker ticker, long untilNanos) {
    this.settings = settings;
    this.bucket = Bucket.open(settings, ticker, untilNanos, m -> current.on(new Event(Kind.WAITING, "", 0, m)));
    this.clock = clock;
  }

  /** A sync to the settings' root; {@code clock} stamps the manifests. Nothing is contacted yet. */
  public static S3Sync open(S3Settings settings, Clock clock) {
    return new S3Sync(settings, clock, Ticker.system(), Long.MAX_VALUE);
  }

  /**
   * A sync that is over within {@code allowed} from now on {@code ticker}: every request is cut to the time left,
   * and once it has run out no request is made and the sync ends with an {@link IOException} saying it gave up.
   */
  public static S3Sync open(S3Settings settings, Clock clock, Ticker ticker, Duration allowed) {
    if (allowed == null || allowed.isNegative()) {
      throw new IllegalArgumentException("a sync's time must be 0 or more, got " + allowed);
    }
    return new S3Sync(settings, clock, ticker, ticker.nanos() + allowed.toNanos());
  }

  public S3Settings settings() {
    return settings;
  }

  /**
   * Everything: pinned datasets missing here are fetched, then datasets, every run, traces and telemetry are pushed.
   */
  public Summary sync(RunStore store, Listener listener) throws IOException {
    Tally t = new Tally(listener);
    current = t;
    pullDatasets(store, t);
    pushDatasets(store, t);
    for (String id : store.runIds()) {
      pushInput(id, store.runs().resolve(id), t);
      pushFolder("runs/" + id, store.runs().resolve(id), t);
    }
    pushFolder("traces", store.traces(), t);
    pushFolder("telemetry", store.telemetry(), t);
    new Uploader(bucket, settings, t).sweepMarkers();
    return t.summary();
  }

  /** What a run adds: datasets, that run's folder, traces and telemetry are pushed (nothing is fetched). */
  public Summary pushRun(RunStore store, String runId, Listener listener) throws IOException {
    Tally t = new Tally(listener);
    current = t;
    pushDatasets(store, t);
    pushInput(runId, store.runs().resolve(runId), t);
    pushFolder("runs/" + runId, store.runs().resolve(runId), t);
    pushFolder("traces", store.traces(), t);
    pushFolder("telemetry", store.telemetry(), t);
    return t.summary();
  }

  /** Fetches the pinned datasets that S3 holds and this store lacks. */
  public Summary pullDatasets(RunStore store, Listener listener) throws IOException {
    Tally t = new Tally(listener);
    current = t;
    pullDatasets(store, t);
    return t.summary();
  }

  @Override
  public void close() {
    bucket.close();
  }

  private void pullDatasets(RunStore store, Tally t) throws IOException {
    for (String key : bucket.list(settings.key("datasets/")).keySet()) {
      String rel = settings.relative(key);
      if (rel == null || !rel.endsWith(PIN_SUFFIX)) {
        continue;
      }
      String[] p = rel.split("/");
      if (p.length != 3 || !RunStore.DATASET_DOMAINS.contains(p[1])) {
        continue;
      }
      String name = p[2].substring(0, p[2].length() - PIN_SUFFIX.length());
      if (!plainName(name)) {
        continue;
      }
      Path dir = store.datasets(p[1]);
      Path file = dir.resolve(name);
      if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
        continue;
      }
      String path = "datasets/" + p[1] + "/" + name;
      byte[] remotePinBytes = bucket.get(key).orElse(null);
      if (remotePinBytes == null) {
        continue;
      }
      String remotePin = Pins.parse(remotePinBytes, name);
      if (remotePin == null) {
        t.refuse(path, "its pin in S3 (" + uri(rel) + ") is not one sha256sum line for " + name + "; not downloaded");
        continue;
      }
      Path localPinFile = dir.resolve(name + PIN_SUFFIX);
      if (Files.exists(localPinFile)) {
        String localPin = Pins.parse(Files.readAllBytes(localPinFile), name);
        if (!remotePin.equals(localPin)) {
          t.refuse(path, "S3 pins sha256 " + remotePin + " but " + localPinFile + " pins " + localPin
              + "; not downloaded");
          continue;
        }
      }
      String got;
      long size;
      try (AtomicFiles.Pending out = AtomicFiles.open(file)) {
        var md = Digests.sha256();
        var digesting = new java.security.DigestOutputStream(out, md);
        if (!bucket.download(settings.key(path), digesting)) {
          t.refuse(path, "S3 pins it but holds no " + uri(path) + "; not downloaded");
          continue;
        }
        digesting.flush();
        got = Digests.hex(md.digest());
        size = Files.size(out.temporary());
        if (!got.equals(remotePin)) {
          t.refuse(path, uri(path) + " does not match its pin (sha256 " + got + ", pinned " + remotePin
              + "); not downloaded");
          continue;
        }
        out.commit();
      }
      if (!Files.exists(localPinFile)) {
        AtomicFiles.write(localPinFile, Pins.line(remotePin, name));
      }
      t.on(new Event(Kind.DOWNLOADED, path, size, "sha256 " + got + " matches its pin"));
      t.downloaded++;
    }
  }

  private void pushDatasets(RunStore store, Tally t) throws IOException {
    for (String domain : RunStore.DATASET_DOMAINS) {
      Path dir = store.root().resolve("datasets").resolve(domain);
      for (Path pinFile : files(dir, false)) {
        String pinName = pinFile.getFileName().toString();
        if (!pinName.endsWith(PIN_SUFFIX)) {
          continue;
        }
        String name = pinName.substring(0, pinName.length() - PIN_SUFFIX.length());
        Path file = dir.resolve(name);
        if (!plainName(name) || !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        pushDataset("datasets/" + domain + "/" + name, file, Files.readAllBytes(pinFile), t);
      }
    }
  }

  private void pushDataset(String path, Path file, byte[] localPinBytes, Tally t) throws IOException {
    String name = file.getFileName().toString();
    String pin = Pins.parse(localPinBytes, name);
    if (pin == null) {
      t.refuse(path, "its pin " + file + PIN_SUFFIX + " is not one sha256sum line for " + name + "; not uploaded");
      return;
    }
    String dataKey = settings.key(path);
    String pinKey = settings.key(path + PIN_SUFFIX);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      String sha = Digests.sha256(ch, size);
      if (!sha.equals(pin)) {
        t.refuse(path, "its sha256 is " + sha + " but its pin says " + pin
            + "; not uploaded (datasets are immutable)");
        return;
      }
      byte[] remotePinBytes = bucket.get(pinKey).orElse(null);
      if (remotePinBytes != null) {
        String remotePin = Pins.parse(remotePinBytes, name);
        if (!pin.equals(remotePin)) {
          t.refuse(path, "S3 pins " + (remotePin == null ? "something unreadable" : "sha256 " + remotePin)
              + " at " + uri(path + PIN_SUFFIX) + ", here it is " + pin + "; S3 is left as it is");
          return;
        }
      }
      var head = bucket.head(dataKey);
      if (head.isPresent()) {
        if (!pin.equals(head.get().sha256()) || head.get().size() != size) {
          t.refuse(path, uri(path) + " holds other bytes (" + head.get().size() + " bytes, sha256 "
              + (head.get().sha256() == null ? "not recorded" : head.get().sha256()) + ") than the pin " + pin
              + "; not overwritten");
          return;
        }
        if (remotePinBytes != null) {
          t.upToDate(path, size);
          return;
        }
      } else {
        Uploader.Result r = new Uploader(bucket, settings, t).upload(ch, size, pin, dataKey, path);
        t.uploaded(path, size, r);
      }
      if (remotePinBytes == null) {
        bucket.put(pinKey, Pins.line(pin, name), null);
        if (head.isPresent()) {
          t.uploaded(path + PIN_SUFFIX, localPinBytes.length, new Uploader.Result(1, 0));
        }
      }
    }
  }

  /**
   * The user's input a run read ({@code --input}: the files its {@code input.json} lists), each file a pinned dataset
   * under {@code datasets/inputs/SHA256/NAME}, SHA256 the input's fingerprint and NAME the file's path in the input.
   * A file changed since the run read it is refused as a dataset whose bytes no longer match its pin is.
   */
  private void pushInput(String runId, Path runDir, Tally t) throws IOException {
    Path f = runDir.resolve(RunDir.INPUT_FILE);
    if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    String where = "runs/" + runId + "/" + RunDir.INPUT_FILE;
    JsonNode in;
    try {
      in = INPUT_JSON.readTree(f.toFile());
    } catch (JacksonException e) {
      t.refuse(where, "not readable JSON; the run's input is not uploaded");
      return;
    }
    String sha = in.path("sha256").asString("");
    if (!sha.matches("[0-9a-f]{64}")) {
      t.refuse(where, "names no sha256 of the input; the run's input is not uploaded");
      return;
    }
    for (JsonNode file : in.path("files")) {
      String name = file.path("name").asString("");
      String local = file.path("file").asString("");
      String fileSha = file.path("sha256").asString("");
      String path = INPUTS + sha + "/" + name;
      if (!relativeName(name) || local.isEmpty() || !fileSha.matches("[0-9a-f]{64}")) {
        t.refuse(path, where + " lists it without a plain relative name, a file and a sha256; not uploaded");
        continue;
      }
      Path lf = Path.of(local);
      if (!Files.isRegularFile(lf)) {
        t.refuse(path, "the input's file " + local + " is no longer there; not uploaded");
        continue;
      }
      pushDataset(path, lf, Pins.line(fileSha, lf.getFileName().toString()), t);
    }
  }

  /** A path of plain segments: no empty one, none that starts with a dot, no backslash. */
  private static boolean relativeName(String name) {
    if (name.isEmpty() || name.contains("\\")) {
      return false;
    }
    for (String seg : name.split("/", -1)) {
      if (seg.isEmpty() || seg.startsWith(".")) {
        return false;
      }
    }
    return true;
  }

  /** Pushes one folder's changed files, then its manifest. */
  private void pushFolder(String folder, Path dir, Tally t) throws IOException {
    List<Path> local = files(dir, true);
    String prefix = settings.key(folder + "/");
    String manifestKey = settings.key(folder + "/" + Manifest.NAME);
    Manifest old = bucket.get(manifestKey).map(Manifest::parse).orElse(null);
    if (local.isEmpty() && old == null) {
      return;
    }
    Map<String, Manifest.Entry> before = old == null ? Map.of() : old.byPath();
    Map<String, Long> remote = bucket.list(prefix);
    Map<String, Manifest.Entry> now = new LinkedHashMap<>();
    for (Path f : local) {
      String rel = dir.relativize(f).toString().replace('\\', '/');
      if (rel.equals(Manifest.NAME)) {
        continue;
      }
      String path = folder + "/" + rel;
      String key = settings.key(path);
      try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
        long size = ch.size();
        long modified = Files.getLastModifiedTime(f).toMillis();
        Long there = remote.get(key);
        Manifest.Entry prev = before.get(rel);
        if (prev != null && prev.size() == size && prev.modified() == modified && there != null && there == size) {
          now.put(rel, prev);
          t.upToDate(path, size);
          continue;
        }
        String sha = Digests.sha256(ch, size);
        Manifest.Entry e = new Manifest.Entry(rel, size, sha, modified);
        if (there != null && there == size && bucket.head(key).map(h -> sha.equals(h.sha256())).orElse(false)) {
          now.put(rel, e);
          t.upToDate(path, size);
          continue;
        }
        Uploader.Result r = new Uploader(bucket, settings, t).upload(ch, size, sha, key, path);
        now.put(rel, e);
        t.uploaded(path, size, r);
      }
    }
    // files gone from here stay listed while S3 holds them: nothing in S3 is deleted
    for (Manifest.Entry e : before.values()) {
      Long there = remote.get(settings.key(folder + "/" + e.path()));
      if (!now.containsKey(e.path()) && there != null && there == e.size()) {
        now.put(e.path(), e);
      }
    }
    List<Manifest.Entry> entries = new ArrayList<>(now.values());
    entries.sort(java.util.Comparator.comparing(Manifest.Entry::path));
    if (old != null && old.files().equals(entries)) {
      return;
    }
    bucket.put(manifestKey, new Manifest(Manifest.FORMAT, folder, clock.instant().toString(), entries).toJson(), null);
  }

  /**
   * The regular files under {@code dir} (all levels, or only its own), sorted, without temporary files and without
   * the files a run folder keeps on this machine ({@link RunDir#LOCAL_ONLY}).
   */
  private static List<Path> files(Path dir, boolean deep) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = deep ? Files.walk(dir) : Files.list(dir)) {
      return s.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
          .filter(p -> !p.getFileName().toString().endsWith(AtomicFiles.TMP_SUFFIX))
          .filter(p -> !RunDir.LOCAL_ONLY.contains(p.getFileName().toString()))
          .sorted().toList();
    }
  }

  private static boolean plainName(String name) {
    return !name.isEmpty() && !name.startsWith(".") && !name.contains("/") && !name.contains("\\");
  }

  private String uri(String path) {
    return "s3://" + bucket.name() + "/" + settings.key(path);
  }

  /** Counts what happened and passes each event on. */
  private static final class Tally implements Listener {
    final Listener listener;
    int uploaded;
    long uploadedBytes;
    int resumed;
    int reusedParts;
    int upToDate;
    int downloaded;
    final List<String> refused = new ArrayList<>();

    Tally(Listener listener) {
      this.listener = listener;
    }

    @Override
    public void on(Event e) {
      listener.on(e);
    }

    void uploaded(String path, long size, Uploader.Result r) {
      uploaded++;
      uploadedBytes += size;
      String detail = r.parts() == 1 ? "one request" : r.parts() + " parts";
      if (r.reused() > 0) {
        resumed++;
        reusedParts += r.reused();
        detail = "resumed: " + r.reused() + " of " + r.parts() + " parts were already in S3";
      }
      on(new Event(Kind.UPLOADED, path, size, detail));
    }

    void upToDate(String path, long size) {
      upToDate++;
      on(new Event(Kind.UP_TO_DATE, path, size, "already in S3"));
    }

    void refuse(String path, String why) {
      refused.add(path + ": " + why);
      on(new Event(Kind.REFUSED, path, 0, why));
    }

    Summary summary() {
      return new Summary(uploaded, uploadedBytes, resumed, reusedParts, upToDate, downloaded, refused);
    }
  }

  static String mib(long bytes) {
    return bytes < (1 << 20) ? String.format(java.util.Locale.ROOT, "%.1f KiB", bytes / 1024.0)
        : String.format(java.util.Locale.ROOT, "%.1f MiB", bytes / (double) (1 << 20));
  }
}
