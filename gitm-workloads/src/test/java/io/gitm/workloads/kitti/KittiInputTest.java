package io.gitm.workloads.kitti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.workloads.kit.PythonWriter;
import io.gitm.workload.OutputScore;
import io.gitm.workload.WorkloadInput;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kitti on a user's KITTI folder, written by {@code kitti_gen.py} with Python's standard library (struct, zlib,
 * hashlib) and its own matrix arithmetic: the reader's counts and hashes against the writer's, the calibration read
 * whole, partial and in the tracking benchmark's spelling, and the labelled boxes handed back as detections scored as
 * KITTI's evaluation scores a perfect detector on that many objects.
 */
class KittiInputTest {
  @TempDir
  Path dir;

  /** Runs kitti_gen.py; returns its "key value" lines. */
  static Map<String, String> python(Path out, String... args) throws IOException, InterruptedException {
    return PythonWriter.write(KittiInputTest.class, "kitti_gen.py", out, args);
  }

  private static KittiInput input(Path p, String... options) {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i < options.length; i += 2) {
      o.put(options[i], options[i + 1]);
    }
    return KittiInput.of(new WorkloadInput(p, o));
  }

  private static long n(Map<String, String> m, String k) {
    return Long.parseLong(m.getOrDefault(k, "0"));
  }

  @Test
  void aKittiFolderIsCountedAndHashedAsItsWriterCountedIt() throws Exception {
    Path root = dir.resolve("training");
    Map<String, String> want = python(root, "--frames", "5");
    KittiInput in = input(root);
    KittiInput.Scanned s = in.scanned();
    assertThat(s.frames()).extracting(KittiInput.FrameFile::id).containsExactly("000000", "000001", "000002",
        "000003", "000004");
    assertThat(s.sha256()).isEqualTo(want.get("sha256"));
    assertThat(s.bytes()).isEqualTo(n(want, "bytes"));
    assertThat(s.format()).isEqualTo("KITTI object folder (velodyne, calib, label_2, image_2)");
    assertThat(s.held()).as("held in memory").isNotNull();
    Map<String, Object> f = s.found();
    assertThat(f.get("frames")).isEqualTo(5);
    assertThat(((Number) f.get("points")).longValue()).isEqualTo(n(want, "points"));
    assertThat(((Number) f.get("pointsPerFrameMax")).longValue()).isEqualTo(n(want, "pointsPerFrameMax"));
    assertThat(((Number) f.get("labelled")).longValue()).isEqualTo(5);
    assertThat(f.get("calibrationMatrices")).isEqualTo("P0 P1 P2 P3 R0_rect Tr_velo_to_cam Tr_imu_to_velo");
    @SuppressWarnings("unchecked")
    Map<String, Long> objects = (Map<String, Long>) f.get("objects");
    for (String type : List.of("Car", "Van", "Pedestrian", "Cyclist", "DontCare")) {
      assertThat(objects.getOrDefault(type, 0L)).as(type).isEqualTo(n(want, "objects." + type));
    }
    assertThat(f.get("scored")).isEqualTo("yes");
    // the scans read are the bytes the writer wrote
    Scan first = in.frames().scan(0);
    byte[] bin = Files.readAllBytes(root.resolve("velodyne/000000.bin"));
    assertThat(first.xyzr()[1]).isEqualTo(ByteBuffer.wrap(bin).order(ByteOrder.LITTLE_ENDIAN).getFloat(4));
    assertThat(in.fingerprint()).hasValueSatisfying(fp -> assertThat(fp.sha256()).isEqualTo(want.get("sha256")));
  }

  @Test
  void oneBinIsHashedAsItselfAndInAVelodyneFolderWithItsFramesCalibrationAndLabels() throws Exception {
    Path root = dir.resolve("training");
    Map<String, String> want = python(root, "--frames", "3");
    Path lone = dir.resolve("lone.bin");
    Files.copy(root.resolve("velodyne/000001.bin"), lone);
    KittiInput.Scanned alone = input(lone).scanned();
    assertThat(alone.sha256()).isEqualTo(want.get("sha256.velodyne/000001.bin"));
    assertThat(alone.frames()).singleElement().satisfies(ff -> assertThat(ff.calib()).isNull());
    KittiInput.Scanned s = input(root.resolve("velodyne/000001.bin")).scanned();
    StringBuilder listing = new StringBuilder();
    for (String rel : List.of("calib/000001.txt", "label_2/000001.txt", "velodyne/000001.bin")) {
      listing.append(want.get("sha256." + rel)).append("  ").append(rel).append('\n');
    }
    assertThat(s.sha256()).isEqualTo(io.gitm.workloads.kit.PinnedDatasets.sha256(listing.toString().getBytes(
        StandardCharsets.UTF_8)));
    assertThat(s.frames()).singleElement().satisfies(ff -> {
      assertThat(ff.calib()).isNotNull();
      assertThat(ff.labels()).isNotEmpty();
    });
  }

  /** Reads the writer's LiDAR-frame boxes of each frame as detections, scores descending through the file. */
  private static Map<Integer, Detections> boxes(Path file) throws IOException {
    Map<Integer, List<float[]>> byFrame = new HashMap<>();
    int k = 0;
    for (String line : Files.readAllLines(file)) {
      String[] f = line.split(" ");
      int cls = List.of(Box.CLASSES).indexOf(f[1]);
      if (cls < 0) {
        continue; // a Van: nothing KITTI scores detects it
      }
      float[] b = new float[KittiKernels.BOX_FLOATS];
      for (int j = 0; j < 7; j++) {
        b[j] = Float.parseFloat(f[2 + j]);
      }
      b[7] = 0.99f - 0.001f * k++;
      b[8] = cls;
      byFrame.computeIfAbsent(Integer.parseInt(f[0]), x -> new ArrayList<>()).add(b);
    }
    Map<Integer, Detections> out = new HashMap<>();
    byFrame.forEach((frame, list) -> {
      float[] all = new float[list.size() * KittiKernels.BOX_FLOATS];
      for (int i = 0; i < list.size(); i++) {
        System.arraycopy(list.get(i), 0, all, i * KittiKernels.BOX_FLOATS, KittiKernels.BOX_FLOATS);
      }
      out.put(frame, new Detections(new int[list.size()], all));
    });
    return out;
  }

  /**
   * KITTI's AP of a detector that finds every one of {@code n} objects and nothing else: the devkit samples precision
   * at one score threshold per hit up to 41, so with n ≤ 40 only the first n of the 41 recall points have precision 1.
   */
  private static double[] perfect(long n) {
    long points = Math.min(n, 41);
    double r40 = (points - 1) / 40.0 * 100;
    double r11 = ((points - 1) / 4 + 1) / 11.0 * 100;
    return new double[] {r40, r11};
  }

  private static void assertPerfectScore(OutputScore score, Map<String, String> want) {
    assertThat(score.columns()).containsExactly("objects", "BEV AP R40", "3D AP R40", "BEV AP R11", "3D AP R11");
    assertThat(score.rows()).hasSize(9);
    for (OutputScore.Row r : score.rows()) {
      String[] cd = r.name().split(" ");
      long objects = n(want, "gt." + cd[0] + "." + cd[1]);
      assertThat(r.values().get(0)).as(r.name()).isEqualTo((double) objects);
      if (objects == 0) {
        assertThat(r.values().subList(1, 5)).as(r.name()).containsOnlyNulls();
        continue;
      }
      double[] p = perfect(objects);
      assertThat(r.values().subList(1, 5)).as(r.name() + " with " + objects + " objects").containsExactly(p[0], p[0],
          p[1], p[1]);
    }
  }

  @Test
  void theLabelledBoxesHandedBackAsDetectionsScoreAsAPerfectDetectorOnThatManyObjects() throws Exception {
    Path root = dir.resolve("training");
    Map<String, String> want = python(root, "--frames", "8", "--image", "1224x370");
    KittiInput in = input(root);
    assertThat(in.scanned().frames().get(0).imageWidth()).isEqualTo(1224);
    assertThat(in.scanned().frames().get(0).imageHeight()).isEqualTo(370);
    assertThat(in.score()).as("nothing seen yet").isEmpty();
    boxes(dir.resolve("training.boxes")).forEach(in::saw);
    OutputScore score = in.score().orElseThrow();
    assertPerfectScore(score, want);
    assertThat(score.method()).contains("over 8 of 8 labelled frames");
    assertThat(score.model()).startsWith("seeded, untrained weights");
  }

  @Test
  void theTrackingBenchmarksSpellingsScoreAsTheObjectBenchmarksNames() throws Exception {
    Path root = dir.resolve("training");
    Map<String, String> want = python(root, "--frames", "6", "--calib", "tracking", "--no-images");
    KittiInput in = input(root);
    assertThat(in.scanned().found().get("calibrationMatrices"))
        .isEqualTo("P0 P1 P2 P3 R0_rect Tr_velo_to_cam Tr_imu_to_velo");
    boxes(dir.resolve("training.boxes")).forEach(in::saw);
    assertPerfectScore(in.score().orElseThrow(), want);
  }

  @Test
  void aLabelledFrameWhoseCalibrationLacksAMatrixIsRefusedNamingItUnlessScoringIsOff() throws Exception {
    Path root = dir.resolve("training");
    python(root, "--frames", "4", "--p2only-frame", "2");
    assertThatThrownBy(() -> input(root).scanned()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(root.resolve("calib/000002.txt") + " has no R0_rect line")
        .hasMessageContaining("give score=off");
    KittiInput off = input(root, "score", "off");
    assertThat(off.scanned().found()).containsEntry("scored", "no (score=off)").containsEntry("labelled", 0L);
    assertThat(off.score()).isEmpty();
  }

  @Test
  void scansWithOnlyP2AndNoLabelsRunUnscored() throws Exception {
    Path root = dir.resolve("demo");
    python(root, "--frames", "2", "--calib", "p2only", "--no-labels");
    KittiInput in = input(root);
    assertThat(in.scanned().found()).containsEntry("scored", "no (no label_2)").containsEntry("calibrated", 2L)
        .containsEntry("calibrationMatrices", "P2");
    assertThat(in.frames().size()).isEqualTo(2);
  }

  @Test
  void framesPicksIdsAndRangesWithoutLeadingZerosAndRefusesAnIdTheFolderLacks() throws Exception {
    Path root = dir.resolve("training");
    python(root, "--frames", "7", "--no-images");
    assertThat(input(root, "frames", "1-3,6").scanned().frames()).extracting(KittiInput.FrameFile::id)
        .containsExactly("000001", "000002", "000003", "000006");
    assertThatThrownBy(() -> input(root, "frames", "9").scanned()).hasMessageContaining("has no frame 9");
    assertThatThrownBy(() -> input(root, "frames", "3-1")).hasMessageContaining("range '3-1' is empty");
    assertThatThrownBy(() -> input(root, "frames", "1;2")).hasMessageContaining("'1;2' is no frame id");
    assertThatThrownBy(() -> input(root, "score", "maybe")).hasMessageContaining("score must be on or off");
    assertThatThrownBy(() -> input(root, "depth", "3")).hasMessageContaining("unknown input option 'depth'");
  }

  @Test
  void aLabelFolderMissingAFramesFileIsRefusedNamingTheFrame() throws Exception {
    Path root = dir.resolve("training");
    python(root, "--frames", "3", "--no-images");
    Files.delete(root.resolve("label_2/000001.txt"));
    assertThatThrownBy(() -> input(root).scanned()).hasMessageContaining("has label_2/ but no label_2/000001.txt")
        .hasMessageContaining("score=off");
    assertThat(input(root, "score", "off").scanned().frames()).hasSize(3);
  }

  @Test
  void filesOfAnotherKindAreNamedAsSuch() throws Exception {
    Path root = dir.resolve("training");
    python(root, "--frames", "2");
    Path png = root.resolve("image_2/000000.png");
    assertThatThrownBy(() -> input(png).scanned()).hasMessageContaining("is a PNG image, not a KITTI velodyne scan");
    Path gz = root.resolve("velodyne/000001.bin");
    byte[] raw = Files.readAllBytes(gz);
    try (GZIPOutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write(raw);
    }
    assertThatThrownBy(() -> input(root).scanned()).isInstanceOf(KittiFormatException.class)
        .hasMessageContaining(gz + " is gzip-compressed (decompress it first)");
    Files.write(gz, java.util.Arrays.copyOf(raw, raw.length - 5));
    assertThatThrownBy(() -> input(root).scanned()).isInstanceOf(KittiFormatException.class)
        .hasMessageContaining("truncated point at byte offset " + (raw.length - 16));
    byte[] nan = raw.clone();
    ByteBuffer.wrap(nan).order(ByteOrder.LITTLE_ENDIAN).putFloat(16 * 3 + 8, Float.NaN);
    Files.write(gz, nan);
    assertThatThrownBy(() -> input(root).scanned()).isInstanceOf(KittiFormatException.class)
        .hasMessageContaining("point 3 (byte 48) has z = NaN");
    Files.write(gz, raw);
    Files.write(root.resolve("calib/000000.txt"), Files.readAllBytes(png));
    assertThatThrownBy(() -> input(root).scanned()).hasMessageContaining("calib/000000.txt is a PNG image, not text");
  }

  @Test
  void aBenchmarkRootOrAFolderWithoutScansIsRefusedWithWhatToGive() throws Exception {
    python(dir.resolve("kitti/training"), "--frames", "1");
    assertThatThrownBy(() -> input(dir.resolve("kitti")).scanned()).hasMessageContaining("give " + dir.resolve(
        "kitti/training"));
    Files.createDirectories(dir.resolve("empty"));
    assertThatThrownBy(() -> input(dir.resolve("empty")).scanned()).hasMessageContaining("holds no .bin velodyne"
        + " scans");
    assertThatThrownBy(() -> input(dir.resolve("nowhere")).scanned()).hasMessageContaining("no such file or folder");
  }
}
