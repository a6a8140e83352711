package io.gitm.workloads.kitti;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One object of a KITTI label file ({@code label_2/NNNNNN.txt}), one line of 15 fields (16 with a detection's score),
 * separated by spaces: type, truncated (0..1), occluded (0 fully visible, 1 partly, 2 largely, 3 unknown), alpha
 * (observation angle, radians), the 2D box left top right bottom (pixels), height width length (metres), location x y z
 * (the bottom centre in rectified camera coordinates, metres), rotation_y (radians, about the camera's y axis),
 * optionally score.
 *
 * @param score the detection's score; NaN for a ground-truth label (written without it)
 */
record Label(String type, double truncated, int occluded, double alpha, double[] bbox, double h, double w, double l,
    double x, double y, double z, double rotationY, double score) {
  /** The object types of KITTI's object benchmark. */
  static final Set<String> TYPES = Set.of("Car", "Van", "Truck", "Pedestrian", "Person_sitting", "Cyclist", "Tram",
      "Misc", "DontCare");

  static double wrap(double a) {
    double r = a % (2 * Math.PI);
    if (r > Math.PI) {
      r -= 2 * Math.PI;
    } else if (r <= -Math.PI) {
      r += 2 * Math.PI;
    }
    return r;
  }

  static List<Label> read(Path file) {
    try {
      return parse(Files.readAllLines(file, StandardCharsets.UTF_8), file.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(file + ": " + e.getMessage(), e);
    }
  }

  /** The labels of a file's lines; blank lines are skipped, a malformed one is refused naming its line and field. */
  static List<Label> parse(List<String> lines, String name) {
    List<Label> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty()) {
        continue;
      }
      String at = name + ":" + (i + 1) + ": ";
      String[] f = line.split("\\s+");
      if (f.length != 15 && f.length != 16) {
        throw new KittiFormatException(at + "expected 15 fields (16 with a score), got " + f.length);
      }
      if (!TYPES.contains(f[0])) {
        throw new KittiFormatException(at + "unknown type '" + f[0] + "'");
      }
      double[] v = new double[f.length];
      for (int k = 1; k < f.length; k++) {
        try {
          v[k] = Double.parseDouble(f[k]);
        } catch (NumberFormatException e) {
          throw new KittiFormatException(at + "field " + (k + 1) + " is not a number: '" + f[k] + "'");
        }
      }
      if (v[2] != Math.rint(v[2]) || v[2] < -1 || v[2] > 3) {
        throw new KittiFormatException(at + "occluded must be -1..3, got '" + f[2] + "'");
      }
      out.add(new Label(f[0], v[1], (int) v[2], v[3], new double[] {v[4], v[5], v[6], v[7]}, v[8], v[9], v[10], v[11],
          v[12], v[13], v[14], f.length == 16 ? v[15] : Double.NaN));
    }
    return out;
  }

  String line() {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%s %.2f %d %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f"
        + " %.2f %.2f %.2f %.2f", type, truncated, occluded, alpha, bbox[0], bbox[1], bbox[2], bbox[3], h, w, l, x, y,
        z, rotationY));
    if (!Double.isNaN(score)) {
      b.append(String.format(Locale.ROOT, " %.4f", score));
    }
    return b.toString();
  }

  static void write(Path file, List<Label> labels) {
    StringBuilder b = new StringBuilder();
    for (Label l : labels) {
      b.append(l.line()).append('\n');
    }
    try {
      Files.writeString(file, b.toString(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(file + ": " + e.getMessage(), e);
    }
  }
}
