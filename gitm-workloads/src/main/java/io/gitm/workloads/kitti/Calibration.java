package io.gitm.workloads.kitti;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A KITTI object-detection calibration file ({@code calib/NNNNNN.txt}): lines {@code KEY: v1 v2 ...} with the camera
 * projections {@code P0..P3} (3×4, row-major), the rectifying rotation {@code R0_rect} (3×3) and the rigid transforms
 * {@code Tr_velo_to_cam} and {@code Tr_imu_to_velo} (3×4). Blank lines are skipped; keys other than these are kept
 * but not used.
 *
 * @param p2 the left colour camera's projection, rectified coordinates to pixels (3×4)
 * @param r0 the rectifying rotation (3×3)
 * @param veloToCam LiDAR to (unrectified) camera coordinates (3×4)
 * @param all every line's values by key, in file order
 */
record Calibration(double[] p2, double[] r0, double[] veloToCam, Map<String, double[]> all) {
  private static final List<String> REQUIRED = List.of("P2", "R0_rect", "Tr_velo_to_cam");

  /**
   * A typical KITTI calibration (the values of the raw recordings of 2011-09-26, rounded): LiDAR x forward, y left, z
   * up to camera x right, y down, z forward, the camera 0.27 m ahead of and 0.08 m below the LiDAR.
   */
  static Calibration typical() {
    Map<String, double[]> m = new LinkedHashMap<>();
    double[] p = {721.5377, 0, 609.5593, 0, 0, 721.5377, 172.854, 0, 0, 0, 1, 0};
    m.put("P0", p.clone());
    m.put("P1", new double[] {721.5377, 0, 609.5593, -387.5744, 0, 721.5377, 172.854, 0, 0, 0, 1, 0});
    m.put("P2", new double[] {721.5377, 0, 609.5593, 44.85728, 0, 721.5377, 172.854, 0.2163791, 0, 0, 1, 0.002745884});
    m.put("P3", new double[] {721.5377, 0, 609.5593, -339.5242, 0, 721.5377, 172.854, 2.199936, 0, 0, 1, 0.002729905});
    m.put("R0_rect", new double[] {1, 0, 0, 0, 1, 0, 0, 0, 1});
    m.put("Tr_velo_to_cam", new double[] {0, -1, 0, 0, 0, 0, -1, -0.08, 1, 0, 0, -0.27});
    m.put("Tr_imu_to_velo", new double[] {1, 0, 0, -0.81, 0, 1, 0, 0.32, 0, 0, 1, -0.8});
    return of(m, "typical");
  }

  private static Calibration of(Map<String, double[]> m, String name) {
    for (String k : REQUIRED) {
      if (!m.containsKey(k)) {
        throw new KittiFormatException(name + ": no " + k + " line");
      }
    }
    return new Calibration(m.get("P2"), m.get("R0_rect"), m.get("Tr_velo_to_cam"), m);
  }

  static Calibration read(Path file) {
    try {
      return parse(Files.readAllLines(file, StandardCharsets.UTF_8), file.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(file + ": " + e.getMessage(), e);
    }
  }

  static Calibration parse(List<String> lines, String name) {
    Map<String, double[]> m = new LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty()) {
        continue;
      }
      int colon = line.indexOf(':');
      if (colon <= 0) {
        throw new KittiFormatException(name + ":" + (i + 1) + ": expected 'KEY: values', got '" + line + "'");
      }
      String key = line.substring(0, colon).strip();
      String[] f = line.substring(colon + 1).strip().split("\\s+");
      int want = switch (key) {
        case "R0_rect", "R_rect" -> 9;
        case "P0", "P1", "P2", "P3", "Tr_velo_to_cam", "Tr_imu_to_velo", "Tr_velo_cam", "Tr_imu_velo" -> 12;
        default -> -1;
      };
      if (want > 0 && f.length != want) {
        throw new KittiFormatException(name + ":" + (i + 1) + ": " + key + " needs " + want + " values, got "
            + (f[0].isEmpty() ? 0 : f.length));
      }
      double[] v = new double[f.length];
      for (int k = 0; k < f.length; k++) {
        try {
          v[k] = Double.parseDouble(f[k]);
        } catch (NumberFormatException e) {
          throw new KittiFormatException(name + ":" + (i + 1) + ": " + key + " value " + (k + 1) + " is not a number: '"
              + f[k] + "'");
        }
      }
      if (m.put(key, v) != null) {
        throw new KittiFormatException(name + ":" + (i + 1) + ": " + key + " given twice");
      }
    }
    return of(m, name);
  }

  /** The file's text, one line a key as KITTI writes it. */
  String text() {
    StringBuilder b = new StringBuilder();
    for (Map.Entry<String, double[]> e : all.entrySet()) {
      b.append(e.getKey()).append(':');
      for (double v : e.getValue()) {
        b.append(' ').append(String.format(Locale.ROOT, "%.12e", v));
      }
      b.append('\n');
    }
    return b.toString();
  }

  /** A LiDAR point in rectified camera coordinates: {@code R0_rect · Tr_velo_to_cam · (x, y, z, 1)}. */
  double[] veloToRect(double x, double y, double z) {
    double[] c = new double[3];
    for (int r = 0; r < 3; r++) {
      c[r] = veloToCam[4 * r] * x + veloToCam[4 * r + 1] * y + veloToCam[4 * r + 2] * z + veloToCam[4 * r + 3];
    }
    double[] out = new double[3];
    for (int r = 0; r < 3; r++) {
      out[r] = r0[3 * r] * c[0] + r0[3 * r + 1] * c[1] + r0[3 * r + 2] * c[2];
    }
    return out;
  }

  /** A rectified camera point projected by {@code P2} to pixel coordinates (u, v, depth). */
  double[] project(double[] rect) {
    double[] h = new double[3];
    for (int r = 0; r < 3; r++) {
      h[r] = p2[4 * r] * rect[0] + p2[4 * r + 1] * rect[1] + p2[4 * r + 2] * rect[2] + p2[4 * r + 3];
    }
    return new double[] {h[0] / h[2], h[1] / h[2], h[2]};
  }
}
