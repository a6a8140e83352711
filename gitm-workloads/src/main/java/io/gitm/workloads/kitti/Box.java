package io.gitm.workloads.kitti;

/**
 * A 3D box in the LiDAR's frame: centre (x, y, z), length along its heading, width, height, heading {@code yaw} about
 * z from the x axis (radians), class and score.
 */
record Box(int cls, float x, float y, float z, float l, float w, float h, float yaw, float score) {
  /** The classes detected, as KITTI names them; a box's {@code cls} indexes this. */
  static final String[] CLASSES = {"Car", "Pedestrian", "Cyclist"};

  /** The four corners of its bird's-eye footprint, counter-clockwise: x0, y0, x1, y1, ... */
  double[] footprint() {
    double c = Math.cos(yaw);
    double s = Math.sin(yaw);
    double[] out = new double[8];
    double[][] d = {{l / 2.0, w / 2.0}, {-l / 2.0, w / 2.0}, {-l / 2.0, -w / 2.0}, {l / 2.0, -w / 2.0}};
    for (int k = 0; k < 4; k++) {
      out[2 * k] = x + c * d[k][0] - s * d[k][1];
      out[2 * k + 1] = y + s * d[k][0] + c * d[k][1];
    }
    return out;
  }

  /** {@link #label(Calibration, int, int, int)} for KITTI's usual 1242×375 image. */
  Label label(Calibration calib, int occluded) {
    return label(calib, occluded, KittiInput.IMAGE_WIDTH, KittiInput.IMAGE_HEIGHT);
  }

  /**
   * The box as a KITTI label under {@code calib}: location its bottom centre in rectified camera coordinates,
   * {@code rotation_y = -yaw - π/2}, the 2D box the projection of its corners clipped to a {@code width}×{@code
   * height} image (0 0 0 0 when a corner lies behind the camera: too low to count at any of KITTI's difficulties).
   */
  Label label(Calibration calib, int occluded, int width, int height) {
    double[] loc = calib.veloToRect(x, y, z - h / 2.0);
    double ry = Label.wrap(-yaw - Math.PI / 2);
    double alpha = Label.wrap(ry - Math.atan2(loc[0], loc[2]));
    double u0 = Double.MAX_VALUE;
    double v0 = Double.MAX_VALUE;
    double u1 = -Double.MAX_VALUE;
    double v1 = -Double.MAX_VALUE;
    double[] f = footprint();
    boolean behind = false;
    for (int k = 0; k < 8; k++) {
      double[] p =
          calib.project(calib.veloToRect(f[2 * (k % 4)], f[2 * (k % 4) + 1], k < 4 ? z - h / 2.0 : z + h / 2.0));
      behind |= p[2] <= 0.1;
      u0 = Math.min(u0, p[0]);
      v0 = Math.min(v0, p[1]);
      u1 = Math.max(u1, p[0]);
      v1 = Math.max(v1, p[1]);
    }
    double[] bbox = behind ? new double[] {0, 0, 0, 0}
        : new double[] {clamp(u0, width - 1), clamp(v0, height - 1), clamp(u1, width - 1), clamp(v1, height - 1)};
    double area = (u1 - u0) * (v1 - v0);
    double truncated = behind || area <= 0 ? 1
        : Math.max(0, Math.min(1, 1 - (bbox[2] - bbox[0]) * (bbox[3] - bbox[1]) / area));
    return new Label(CLASSES[cls], round2(truncated), occluded, round2(alpha), bbox, round2(h), round2(w), round2(l),
        round2(loc[0]), round2(loc[1]), round2(loc[2]), round2(ry), Double.NaN);
  }

  private static double clamp(double v, double hi) {
    return round2(Math.max(0, Math.min(hi, v)));
  }

  private static double round2(double v) {
    return Math.round(v * 100) / 100.0;
  }
}
