package io.gitm.workloads.kitti;

import io.gitm.workloads.kit.PinnedDatasets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Generated frames in KITTI's object-detection layout under a dataset folder ({@code datasets/edge/}):
 * {@code NAME/velodyne/NNNNNN.bin} pinned by {@code NNNNNN.bin.sha256} (one sha256sum line),
 * {@code NAME/label_2/NNNNNN.txt} and {@code NAME/calib/NNNNNN.txt}. A missing frame is generated and pinned; a
 * scan whose hash differs from its manifest is refused.
 */
final class KittiDataset {
  /** The generator's version, part of the folder name: a change to the generator changes it. */
  static final int VERSION = 1;

  private KittiDataset() {
  }

  static String name(ScanGenerator g) {
    return String.format(Locale.ROOT, "kitti-g%d-s%d-b%d-a%d", VERSION, g.seed(), g.beams(), g.azimuthSteps());
  }

  /** The scans of frames 0..frames-1, generated (with labels and calibration) and pinned first where missing. */
  static List<Scan> load(Path dir, ScanGenerator g, int frames) {
    Path root = dir.resolve(name(g));
    List<Scan> out = new ArrayList<>();
    try {
      Files.createDirectories(root.resolve("velodyne"));
      Files.createDirectories(root.resolve("label_2"));
      Files.createDirectories(root.resolve("calib"));
      for (int i = 0; i < frames; i++) {
        String id = String.format(Locale.ROOT, "%06d", i);
        Path bin = root.resolve("velodyne").resolve(id + ".bin");
        Path pin = root.resolve("velodyne").resolve(id + ".bin.sha256");
        if (!Files.exists(bin)) {
          ScanGenerator.Frame f = g.frame(i);
          byte[] bytes = f.scan().bytes();
          write(root.resolve("label_2").resolve(id + ".txt"), labels(f.labels()));
          write(root.resolve("calib").resolve(id + ".txt"), Calibration.typical().text().getBytes(
              StandardCharsets.US_ASCII));
          write(bin, bytes);
          if (!Files.exists(pin)) {
            write(pin, (sha256(bytes) + "  " + id + ".bin\n").getBytes(StandardCharsets.US_ASCII));
          }
        }
        if (!Files.exists(pin)) {
          throw new IllegalStateException("kitti: dataset " + bin + " is not pinned: " + pin + " is missing");
        }
        byte[] bytes = Files.readAllBytes(bin);
        String want = Files.readString(pin, StandardCharsets.US_ASCII).strip().split("\\s+")[0];
        if (!sha256(bytes).equals(want)) {
          throw new IllegalStateException("kitti: dataset " + bin + " changed: its sha256 is " + sha256(bytes) + " but "
              + pin + " pins " + want + "; refusing it (datasets are immutable)");
        }
        out.add(Scan.parse(bytes, bin.toString()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("kitti: dataset " + root + ": " + e.getMessage(), e);
    }
    return out;
  }

  private static byte[] labels(List<Label> labels) {
    StringBuilder b = new StringBuilder();
    for (Label l : labels) {
      b.append(l.line()).append('\n');
    }
    return b.toString().getBytes(StandardCharsets.US_ASCII);
  }

  private static void write(Path target, byte[] bytes) throws IOException {
    Path tmp = Files.createTempFile(target.getParent(), target.getFileName().toString(), ".tmp");
    Files.write(tmp, bytes);
    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  static String sha256(byte[] bytes) {
    return PinnedDatasets.sha256(bytes);
  }
}
