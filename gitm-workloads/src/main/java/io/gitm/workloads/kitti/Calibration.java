package io.gitm.workloads.kitti;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A KITTI calibration file ({@code calib/NNNNNN.txt}): lines {@code KEY: v1 v2 ...} with the camera projections
 * {@code P0..P3} (3×4, row-major), the rectifying rotation {@code R0_rect} (3×3) and the rigid transforms
 * {@code Tr_velo_to_cam} and {@code Tr_imu_to_velo} (3×4). The tracking benchmark's spellings ({@code R_rect},
 * {@code Tr_velo_cam}, {@code Tr_imu_velo}, with or without the colon) are read as those names. Blank lines are
 * skipped; other keys are kept but not used. A file may hold only some matrices (demo frames ship {@code P2} alone):
 * what needs a missing one asks for it with {@link #matrix} and is refused naming the file and the matrix.
 *
 * @param name the file, for messages
 * @param all every line's values by key (aliases under KITTI's object-benchmark name), in file order
 */
record Calibration(String name, Map<String, double[]> all) {
  /** The matrices that scoring detections against labels needs: LiDAR to rectified camera, then to pixels. */
  static final List<String> FOR_SCORING = List.of("P2", "R0_rect", "Tr_velo_to_cam");
  private static final Map<String, String> ALIASES = Map.of("R_rect", "R0_rect", "Tr_velo_cam", "Tr_velo_to_cam",
      "Tr_imu_velo", "Tr_imu_to_velo");

  Calibration {
    all = Collections.unmodifiableMap(new LinkedHashMap<>(all));
  }

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
    return new Calibration("typical", m);
  }

  /** The first of {@code keys} the file lacks, or null. */
  String missing(List<String> keys) {
    return keys.stream().filter(k -> !all.containsKey(k)).findFirst().orElse(null);
  }

  /** Matrix {@code key}; refused naming the file and the matrix when the file has none, for {@code purpose}. */
  double[] matrix(String key, String purpose) {
    double[] v = all.get(key);
    if (v == null) {
      throw new KittiFormatException(name + ": no " + key + " line (" + purpose + " needs it)");
    }
    return v;
  }

  double[] p2() {
    return matrix("P2", "projecting boxes to the image");
  }

  static Calibration read(Path file) {
    try {
      return parse(Files.readAllLines(file, StandardCharsets.UTF_8), file.toString());
    } catch (MalformedInputException e) {
      throw new KittiFormatException(file + ": not a text file (a KITTI calibration is lines 'KEY: values')");
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
      String[] f = line.split("\\s+");
      int colon = f[0].indexOf(':');
      String key;
      String[] values;
      if (colon >= 0 && colon < f[0].length() - 1) { // "KEY:1 2 3"
        key = f[0].substring(0, colon);
        values = Stream.concat(Stream.of(f[0].substring(colon + 1)),
            Arrays.stream(f, 1, f.length)).toArray(String[]::new);
      } else {
        key = colon >= 0 ? f[0].substring(0, colon) : f[0];
        values = Arrays.copyOfRange(f, 1, f.length);
      }
      if (key.isEmpty() || !Character.isLetter(key.charAt(0))) {
        throw new KittiFormatException(name + ":" + (i + 1) + ": expected 'KEY: values', got '" + line + "'");
      }
      key = ALIASES.getOrDefault(key, key);
      int want = switch (key) {
        case "R0_rect" -> 9;
        case "P0", "P1", "P2", "P3", "Tr_velo_to_cam", "Tr_imu_to_velo" -> 12;
        default -> -1;
      };
      if (want > 0 && values.length != want) {
        throw new KittiFormatException(name + ":" + (i + 1) + ": " + key + " needs " + want + " values, got "
            + values.length);
      }
      double[] v = new double[values.length];
      for (int k = 0; k < values.length; k++) {
        try {
          v[k] = Double.parseDouble(values[k]);
        } catch (NumberFormatException e) {
          v[k] = Double.NaN;
        }
        if (!Double.isFinite(v[k])) {
          throw new KittiFormatException(name + ":" + (i + 1) + ": " + key + " value " + (k + 1) + " is not a"
              + " number: '" + values[k] + "'");
        }
      }
      if (m.put(key, v) != null) {
        throw new KittiFormatException(name + ":" + (i + 1) + ": " + key + " given twice");
      }
    }
    return new Calibration(name, m);
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
    double[] veloToCam = matrix("Tr_velo_to_cam", "mapping LiDAR points to the camera");
    double[] r0 = matrix("R0_rect", "mapping LiDAR points to the rectified camera");
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
    double[] p2 = p2();
    double[] h = new double[3];
    for (int r = 0; r < 3; r++) {
      h[r] = p2[4 * r] * rect[0] + p2[4 * r + 1] * rect[1] + p2[4 * r + 2] * rect[2] + p2[4 * r + 3];
    }
    return new double[] {h[0] / h[2], h[1] / h[2], h[2]};
  }
}
