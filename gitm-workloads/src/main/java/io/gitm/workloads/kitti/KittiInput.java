package io.gitm.workloads.kitti;

import io.gitm.workload.InputFingerprint;
import io.gitm.workload.OutputScore;
import io.gitm.workload.WorkloadInput;
import io.gitm.workloads.kit.FileKinds;
import io.gitm.workloads.kit.PinnedDatasets;
import io.gitm.workloads.kit.Settings;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * kitti on a user's KITTI data: a folder in KITTI's object-detection layout ({@code velodyne/NNNNNN.bin}, and
 * optionally {@code calib/NNNNNN.txt}, {@code label_2/NNNNNN.txt}, {@code image_2/NNNNNN.png}), a folder of
 * {@code .bin} scans, or one {@code .bin} file (with its frame's calibration and labels beside it when it lies in a
 * {@code velodyne/} folder). The input is scanned once when the first session opens: every file read, hashed and
 * validated. Detection needs the scans alone; scoring the detections against {@code label_2} needs each scored frame's
 * {@code P2}, {@code R0_rect} and {@code Tr_velo_to_cam} (a frame with labels and a calibration lacking one is refused
 * naming the matrix, unless scoring is turned off).
 */
final class KittiInput {
  static final List<String> OPTIONS = List.of("frames", "score");
  static final List<String> FORMATS = List.of(
      "a KITTI object-detection folder (velodyne/*.bin float32 x y z reflectance; calib/*.txt, label_2/*.txt and"
          + " image_2/*.png optional; the calibration may hold only some matrices), a folder of .bin scans, or one"
          + " .bin scan; options: frames=0-99,120 (frame ids), score=off (do not score detections against label_2)");
  /** Scans up to this many bytes in all are held in memory; more are read from their files as each step stages them. */
  static final long HELD_BYTES = 256L << 20;
  /** Where no {@code image_2} file says otherwise: KITTI's usual image size. */
  static final int IMAGE_WIDTH = 1242;
  static final int IMAGE_HEIGHT = 375;
  /** A coordinate beyond this many metres is no LiDAR return (a file of another layout read as KITTI's). */
  private static final float MAX_METRES = 1000f;

  private final WorkloadInput in;
  private final Set<String> pick;
  private final boolean score;
  private Scanned scan;
  /** The first detections seen for each frame, by index: every gated configuration's output is bit-identical. */
  private final TreeMap<Integer, Detections> seen = new TreeMap<>();
  /** The weights the sessions ran with, as the score names them. */
  private String model;

  /**
   * One frame of the input.
   *
   * @param labels the frame's labels, or null when it has none (or scoring is off)
   * @param calib its calibration, or null when it has none
   */
  record FrameFile(String id, Path bin, int points, Calibration calib, List<Label> labels, int imageWidth,
      int imageHeight) {}

  /**
   * The input as scanned.
   *
   * @param held the scans when they fit {@link #HELD_BYTES}, else null (read per step)
   * @param scoring why the detections are not scored, or null when they are
   */
  record Scanned(List<FrameFile> frames, String sha256, long bytes, String format, List<Scan> held, String notScored,
      Map<String, Object> found, List<InputFingerprint.File> files) {}

  private KittiInput(WorkloadInput in, Set<String> pick, boolean score) {
    this.in = in;
    this.pick = pick;
    this.score = score;
  }

  static KittiInput of(WorkloadInput in) {
    Settings.checkInputOptions(in.options(), "kitti", OPTIONS);
    boolean score = true;
    String s = in.options().get("score");
    if (s != null) {
      score = switch (s.strip()) {
        case "on" -> true;
        case "off" -> false;
        default -> throw new IllegalArgumentException("kitti: score must be on or off, got '" + s + "'");
      };
    }
    return new KittiInput(in, frameIds(in.options().get("frames")), score);
  }

  /** The frame ids of {@code frames=...}: ids, and ranges {@code A-B} of numeric ids; empty keeps every frame. */
  static Set<String> frameIds(String spec) {
    Set<String> out = new LinkedHashSet<>();
    if (spec == null) {
      return out;
    }
    for (String part : spec.split(",", -1)) {
      String t = part.strip();
      int dash = t.indexOf('-', 1);
      if (t.isEmpty() || !t.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '_' || c == '-')) {
        throw new IllegalArgumentException("kitti: frames: '" + part + "' is no frame id or range A-B");
      }
      if (dash > 0 && t.substring(0, dash).chars().allMatch(Character::isDigit)
          && t.substring(dash + 1).chars().allMatch(Character::isDigit)) {
        long a = Long.parseLong(t.substring(0, dash));
        long b = Long.parseLong(t.substring(dash + 1));
        if (b < a || b - a >= 1_000_000) {
          throw new IllegalArgumentException("kitti: frames: range '" + t + "' is empty or over a million frames");
        }
        for (long i = a; i <= b; i++) {
          out.add(Long.toString(i));
        }
      } else {
        out.add(t.chars().allMatch(Character::isDigit) ? Long.toString(Long.parseLong(t)) : t);
      }
    }
    return out;
  }

  synchronized Scanned scanned() {
    if (scan == null) {
      scan = scan();
    }
    return scan;
  }

  /** The frames a session runs: held in memory, or read from their files as each step stages them. */
  Frames frames() {
    Scanned s = scanned();
    if (s.held() != null) {
      return Frames.of(s.held());
    }
    int max = s.frames().stream().mapToInt(FrameFile::points).max().orElse(0);
    return new Frames() {
      @Override
      public int size() {
        return s.frames().size();
      }

      @Override
      public int maxPoints() {
        return max;
      }

      @Override
      public Scan scan(int f) {
        FrameFile ff = s.frames().get(f);
        Scan sc = Scan.read(ff.bin());
        if (sc.points() != ff.points()) {
          throw new IllegalStateException("kitti: " + ff.bin() + " changed while the run read it (" + ff.points()
              + " points when scanned, " + sc.points() + " now)");
        }
        return sc;
      }
    };
  }

  private Scanned scan() {
    Path p = in.path();
    if (!Files.exists(p)) {
      throw new IllegalArgumentException("kitti: " + p + ": no such file or folder");
    }
    Layout layout = layout(p);
    List<String> ids = new ArrayList<>(layout.bins().keySet());
    if (!pick.isEmpty()) {
      Map<String, String> byKey = new LinkedHashMap<>();
      for (String id : ids) {
        byKey.put(key(id), id);
      }
      List<String> chosen = new ArrayList<>();
      for (String want : pick) {
        String id = byKey.get(want);
        if (id == null) {
          throw new IllegalArgumentException("kitti: frames: " + layout.where() + " has no frame " + want);
        }
        chosen.add(id);
      }
      ids = chosen;
    }
    TreeMap<String, String> hashes = new TreeMap<>();
    List<FrameFile> frames = new ArrayList<>();
    List<Scan> held = new ArrayList<>();
    long scanBytes = 0;
    for (String id : ids) {
      scanBytes += size(layout.bins().get(id));
    }
    boolean hold = scanBytes <= HELD_BYTES;
    String notScored = score ? null : "score=off";
    boolean anyLabels = false;
    for (String id : ids) {
      Path bin = layout.bins().get(id);
      byte[] bytes = read(bin);
      hashes.put(layout.relative(bin), PinnedDatasets.sha256(bytes));
      Scan sc = checked(bytes, bin);
      if (hold) {
        held.add(sc);
      }
      Calibration calib = null;
      Path calibFile = layout.companion("calib", id, ".txt");
      if (calibFile != null) {
        byte[] c = read(calibFile);
        hashes.put(layout.relative(calibFile), PinnedDatasets.sha256(c));
        calib = Calibration.parse(lines(c, calibFile, "a KITTI calibration is lines 'KEY: values'"),
            calibFile.toString());
      }
      List<Label> labels = null;
      Path labelFile = score ? layout.companion("label_2", id, ".txt") : null;
      if (labelFile != null) {
        byte[] l = read(labelFile);
        hashes.put(layout.relative(labelFile), PinnedDatasets.sha256(l));
        labels = Label.parse(lines(l, labelFile, "a KITTI label file is lines of 15 fields"), labelFile.toString());
        anyLabels = true;
      } else if (score && layout.hasFolder("label_2")) {
        throw new IllegalArgumentException("kitti: " + layout.where() + " has label_2/ but no label_2/" + id
            + ".txt (give score=off to run without scoring)");
      }
      int[] image = {IMAGE_WIDTH, IMAGE_HEIGHT};
      Path png = layout.companion("image_2", id, ".png");
      if (png != null) {
        image = pngSize(png);
      }
      if (labels != null) {
        String missing = calib == null ? "calibration" : calib.missing(Calibration.FOR_SCORING);
        if (missing != null) {
          throw new IllegalArgumentException("kitti: " + (calib == null ? "no calib/" + id + ".txt"
              : calibFile + " has no " + missing + " line") + ": scoring the detections against " + labelFile
              + " needs P2, R0_rect and Tr_velo_to_cam (give score=off to run without scoring)");
        }
      }
      frames.add(new FrameFile(id, bin, sc.points(), calib, labels, image[0], image[1]));
    }
    if (notScored == null && !anyLabels) {
      notScored = "no label_2";
    }
    StringBuilder listing = new StringBuilder();
    long bytes = 0;
    for (Map.Entry<String, String> e : hashes.entrySet()) {
      listing.append(e.getValue()).append("  ").append(e.getKey()).append('\n');
    }
    List<InputFingerprint.File> files = new ArrayList<>();
    for (Map.Entry<String, String> e : hashes.entrySet()) {
      Path f = layout.root().resolve(e.getKey());
      long n = size(f);
      bytes += n;
      files.add(new InputFingerprint.File(e.getKey(), f.toString(), e.getValue(), n));
    }
    String sha = hashes.size() == 1 && layout.single()
        ? hashes.firstEntry().getValue() : PinnedDatasets.sha256(listing.toString().getBytes(StandardCharsets.UTF_8));
    return new Scanned(List.copyOf(frames), sha, bytes, layout.format(), hold ? List.copyOf(held) : null, notScored,
        found(frames, hold, notScored), List.copyOf(files));
  }

  /** A frame id as {@code frames=} names it: a numeric id without its leading zeros. */
  private static String key(String id) {
    return !id.isEmpty() && id.length() < 19 && id.chars().allMatch(Character::isDigit) ? Long.toString(Long.parseLong(
        id)) : id;
  }

  private static Map<String, Object> found(List<FrameFile> frames, boolean hold, String notScored) {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("frames", frames.size());
    f.put("points", frames.stream().mapToLong(FrameFile::points).sum());
    f.put("pointsPerFrameMax", frames.stream().mapToInt(FrameFile::points).max().orElse(0));
    f.put("calibrated", frames.stream().filter(x -> x.calib() != null).count());
    Set<String> keys = new LinkedHashSet<>();
    frames.stream().filter(x -> x.calib() != null).forEach(x -> keys.addAll(x.calib().all().keySet()));
    if (!keys.isEmpty()) {
      f.put("calibrationMatrices", String.join(" ", keys));
    }
    f.put("labelled", frames.stream().filter(x -> x.labels() != null).count());
    Map<String, Long> objects = new TreeMap<>();
    for (FrameFile x : frames) {
      if (x.labels() != null) {
        for (Label l : x.labels()) {
          objects.merge(l.type(), 1L, Long::sum);
        }
      }
    }
    if (!objects.isEmpty()) {
      f.put("objects", objects);
    }
    f.put("scored", notScored == null ? "yes" : "no (" + notScored + ")");
    f.put("held", hold ? "in memory" : "read from disk each step");
    return f;
  }

  /** Where the input's files are. */
  private record Layout(Path root, String where, Map<String, Path> bins, boolean kittiFolders, boolean single,
      String format) {
    Path companion(String folder, String id, String ext) {
      if (!kittiFolders) {
        return null;
      }
      Path f = root.resolve(folder).resolve(id + ext);
      return Files.isRegularFile(f) ? f : null;
    }

    boolean hasFolder(String folder) {
      return kittiFolders && Files.isDirectory(root.resolve(folder));
    }

    String relative(Path file) {
      return root.relativize(file).toString().replace('\\', '/');
    }
  }

  private static Layout layout(Path p) {
    if (Files.isRegularFile(p)) {
      byte[] head = head(p);
      String kind = FileKinds.sniff(head);
      if (kind != null) {
        throw new IllegalArgumentException("kitti: " + p + " is " + kind + ", not a KITTI velodyne scan (raw float32"
            + " x y z reflectance, 16 bytes a point)");
      }
      String name = p.getFileName().toString();
      if (!name.endsWith(".bin")) {
        throw new IllegalArgumentException("kitti: " + p + " is not a .bin velodyne scan (or a KITTI folder)");
      }
      String id = name.substring(0, name.length() - 4);
      Path parent = p.toAbsolutePath().getParent();
      boolean velodyne = parent.getFileName() != null && parent.getFileName().toString().equals("velodyne");
      Path root = velodyne ? parent.getParent() : parent;
      return new Layout(root, p.toString(), Map.of(id, p.toAbsolutePath()), velodyne, true, velodyne
          ? "KITTI velodyne scan, its frame's calib/label_2 beside it where present" : "KITTI velodyne scan (.bin)");
    }
    Path velodyne = p.resolve("velodyne");
    if (Files.isDirectory(velodyne)) {
      Map<String, Path> bins = bins(velodyne, p);
      List<String> parts = new ArrayList<>(List.of("velodyne"));
      for (String f : List.of("calib", "label_2", "image_2")) {
        if (Files.isDirectory(p.resolve(f))) {
          parts.add(f);
        }
      }
      return new Layout(p.toAbsolutePath(), p.toString(), bins, true, false, "KITTI object folder (" + String.join(
          ", ", parts) + ")");
    }
    if (Files.isDirectory(p.resolve("training")) || Files.isDirectory(p.resolve("testing"))) {
      throw new IllegalArgumentException("kitti: " + p + " has no velodyne/ folder; KITTI's object layout keeps it in"
          + " training/ and testing/: give " + p.resolve("training") + " (or testing)");
    }
    Map<String, Path> bins = bins(p, p);
    return new Layout(p.toAbsolutePath(), p.toString(), bins, false, false, "folder of velodyne scans (.bin)");
  }

  /** The {@code .bin} files of {@code dir} by frame id, in id order (numeric where the ids are). */
  private static Map<String, Path> bins(Path dir, Path given) {
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(f -> f.getFileName().toString().endsWith(".bin") && Files.isRegularFile(f)).toList();
    } catch (IOException e) {
      throw new UncheckedIOException("kitti: " + dir + ": " + e.getMessage(), e);
    }
    if (files.isEmpty()) {
      throw new IllegalArgumentException("kitti: " + dir + " holds no .bin velodyne scans (a KITTI input is a folder"
          + " with velodyne/NNNNNN.bin, a folder of .bin scans, or one .bin)");
    }
    Map<String, Path> out = new LinkedHashMap<>();
    files.stream().sorted(Comparator.comparing((Path f) -> key(id(f)).length() < 19 && key(id(f)).chars()
        .allMatch(Character::isDigit) ? String.format("%019d", Long.parseLong(key(id(f)))) : "~" + id(f)))
        .forEach(f -> out.put(id(f), f.toAbsolutePath()));
    return out;
  }

  private static String id(Path bin) {
    String n = bin.getFileName().toString();
    return n.substring(0, n.length() - 4);
  }

  /** A scan's bytes parsed and checked: a whole number of points, each finite and within reach of a LiDAR. */
  static Scan checked(byte[] bytes, Path file) {
    String kind = FileKinds.sniff(bytes);
    if (kind != null) {
      throw new KittiFormatException(file + " is " + kind + ", not a KITTI velodyne scan (raw float32 x y z"
          + " reflectance, 16 bytes a point)");
    }
    Scan s = Scan.parse(bytes, file.toString());
    float[] v = s.xyzr();
    for (int i = 0; i < v.length; i++) {
      boolean coordinate = i % 4 != 3;
      if (!Float.isFinite(v[i]) || coordinate && Math.abs(v[i]) > MAX_METRES) {
        throw new KittiFormatException(file + ": point " + (i / 4) + " (byte " + 16L * (i / 4) + ") has "
            + "xyzr".charAt(i % 4) + " = " + v[i] + ": not a LiDAR return in metres (a KITTI scan is float32 x y z"
            + " reflectance, 16 bytes a point)");
      }
    }
    return s;
  }

  /** Width and height from a PNG's IHDR chunk. */
  static int[] pngSize(Path png) {
    byte[] h = head(png);
    if (!FileKinds.starts(h, 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n') || h.length < 24
        || !new String(h, 12, 4, StandardCharsets.US_ASCII).equals("IHDR")) {
      String kind = FileKinds.sniff(h);
      throw new KittiFormatException(png + " is " + (kind == null ? "not a PNG image" : kind) + " (image_2 holds the"
          + " left colour camera's PNG images)");
    }
    ByteBuffer b = ByteBuffer.wrap(h).order(ByteOrder.BIG_ENDIAN);
    int w = b.getInt(16);
    int hh = b.getInt(20);
    if (w <= 0 || hh <= 0) {
      throw new KittiFormatException(png + ": its IHDR gives a " + w + "×" + hh + " image");
    }
    return new int[] {w, hh};
  }

  private static byte[] head(Path f) {
    try (InputStream s = Files.newInputStream(f)) {
      return s.readNBytes(32);
    } catch (IOException e) {
      throw new UncheckedIOException("kitti: " + f + ": " + e.getMessage(), e);
    }
  }

  private static byte[] read(Path f) {
    try {
      return Files.readAllBytes(f);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("kitti: " + f + ": no such file");
    } catch (IOException e) {
      throw new UncheckedIOException("kitti: " + f + ": " + e.getMessage(), e);
    }
  }

  private static long size(Path f) {
    try {
      return Files.size(f);
    } catch (IOException e) {
      throw new UncheckedIOException("kitti: " + f + ": " + e.getMessage(), e);
    }
  }

  private static List<String> lines(byte[] bytes, Path file, String expected) {
    String kind = FileKinds.sniff(bytes);
    if (kind != null) {
      throw new KittiFormatException(file + " is " + kind + ", not text (" + expected + ")");
    }
    var dec = StandardCharsets.UTF_8.newDecoder();
    try {
      return dec.decode(ByteBuffer.wrap(bytes)).toString().lines().toList();
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new KittiFormatException(file + " is not text (" + expected + ")");
    }
  }

  // ----------------------------------------------------------------------------------------------- the score

  /** Records frame {@code f}'s detections, when it is the first seen for that frame. */
  synchronized void saw(int f, Detections d) {
    seen.putIfAbsent(f, d);
  }

  Optional<InputFingerprint> fingerprint() {
    Scanned s;
    synchronized (this) {
      s = scan;
    }
    if (s == null) {
      return Optional.empty();
    }
    return Optional.of(new InputFingerprint(in.path().toAbsolutePath().toString(), s.sha256(), s.bytes(), s.format(),
        s.found(), s.files()));
  }

  /** Records which weights and grid the sessions ran with, as the score names them. */
  synchronized void model(KittiWorkload.Params p) {
    model = "seeded, untrained weights (weightSeed " + p.weightSeed() + ", " + p.pillar() + " m pillars, C "
        + p.channels() + "): no trained PointPillars weights can be had from a package registry gitm's build reaches,"
        + " so these are the APs of an untrained detector: they show the scoring at work on the user's labels, not"
        + " how well PointPillars detects";
  }

  /** The scored frames' ground truth and detections (as labels in the frame's camera), for {@link KittiEval}. */
  synchronized List<KittiEval.Frame> scoredFrames() {
    List<KittiEval.Frame> out = new ArrayList<>();
    if (scan == null || scan.notScored() != null) {
      return out;
    }
    for (Map.Entry<Integer, Detections> e : seen.entrySet()) {
      FrameFile ff = scan.frames().get(e.getKey());
      if (ff.labels() != null) {
        out.add(new KittiEval.Frame(ff.labels(), e.getValue().labels(ff.calib(), ff.imageWidth(), ff.imageHeight())));
      }
    }
    return out;
  }

  /**
   * The detections seen so far scored against their frames' labels: per class and difficulty, the objects that count
   * and the BEV and 3D APs at 40 and 11 recall points; empty when scoring is off, the input has no labels, or no
   * labelled frame has run.
   */
  synchronized Optional<OutputScore> score() {
    List<KittiEval.Frame> frames = scoredFrames();
    if (frames.isEmpty()) {
      return Optional.empty();
    }
    long labelled = scan.frames().stream().filter(x -> x.labels() != null).count();
    long detections = frames.stream().mapToLong(x -> x.detections().size()).sum();
    List<KittiEval.Ap> aps = KittiEval.evaluate(frames);
    List<OutputScore.Row> rows = new ArrayList<>();
    for (int i = 0; i < aps.size(); i += 2) {
      KittiEval.Ap bev = aps.get(i);
      KittiEval.Ap d3 = aps.get(i + 1);
      rows.add(new OutputScore.Row(bev.cls() + " " + bev.difficulty(), java.util.Arrays.asList((double) bev
          .groundTruth(), defined(bev.apR40()), defined(d3.apR40()), defined(bev.apR11()), defined(d3.apR11()))));
    }
    String method = "KITTI object benchmark: the devkit's matching and average precision (as OpenPCDet's port"
        + " computes them) over " + frames.size() + " of " + labelled + " labelled frames (each frame's first output; "
        + detections + " detections), IoU above 0.7 for Car and 0.5 for Pedestrian and Cyclist, AP in % at 40 recall"
        + " points (R40) and at 11 (R11); n/a where no object counts at that difficulty";
    return Optional.of(new OutputScore(method, model == null ? "seeded, untrained weights" : model, List.of(
        "objects", "BEV AP R40", "3D AP R40", "BEV AP R11", "3D AP R11"), rows));
  }

  private static Double defined(double v) {
    return Double.isNaN(v) ? null : v;
  }

  @Override
  public String toString() {
    return "KittiInput[" + in + ", frames " + pick + ", score " + score + "]";
  }
}
