package io.gitm.workloads.kitti;

/**
 * Bird's-eye-view geometry of rotated boxes in float, as {@code kitti_nms} computes it: footprints, their
 * intersection by Sutherland–Hodgman clipping and the intersection over union.
 */
final class Bev {
  private Bev() {
  }

  /** Corners of a footprint centred at (x, y), counter-clockwise, into {@code out} (8 floats). */
  static void corners(float x, float y, float l, float w, float yaw, float[] out) {
    float c = (float) Math.cos(yaw);
    float s = (float) Math.sin(yaw);
    float[] dx = {0.5f * l, -0.5f * l, -0.5f * l, 0.5f * l};
    float[] dy = {0.5f * w, 0.5f * w, -0.5f * w, -0.5f * w};
    for (int k = 0; k < 4; k++) {
      out[2 * k] = x + c * dx[k] - s * dy[k];
      out[2 * k + 1] = y + s * dx[k] + c * dy[k];
    }
  }

  /**
   * Intersection over union of two footprints given as (x, y, l, w, yaw); 0 when their circumscribed circles are
   * apart.
   */
  static float iou(float ax, float ay, float al, float aw, float ayaw, float bx, float by, float bl, float bw,
      float byaw) {
    float inter = intersection(ax, ay, al, aw, ayaw, bx, by, bl, bw, byaw);
    float union = al * aw + bl * bw - inter;
    return union <= 0f ? 0f : inter / union;
  }

  /**
   * Area of the intersection of two footprints given as (x, y, l, w, yaw), by Sutherland–Hodgman clipping; 0 when
   * their circumscribed circles are apart.
   */
  static float intersection(float ax, float ay, float al, float aw, float ayaw, float bx, float by, float bl, float bw,
      float byaw) {
    float ra = 0.5f * (float) Math.sqrt(al * al + aw * aw);
    float rb = 0.5f * (float) Math.sqrt(bl * bl + bw * bw);
    float ddx = ax - bx;
    float ddy = ay - by;
    if (ddx * ddx + ddy * ddy >= (ra + rb) * (ra + rb)) {
      return 0f;
    }
    float[] a = new float[8];
    float[] b = new float[8];
    corners(ax, ay, al, aw, ayaw, a);
    corners(bx, by, bl, bw, byaw, b);
    float[] poly = new float[32];
    float[] next = new float[32];
    System.arraycopy(a, 0, poly, 0, 8);
    int n = 4;
    for (int e = 0; e < 4 && n > 0; e++) {
      float ex0 = b[2 * e];
      float ey0 = b[2 * e + 1];
      float ex1 = b[2 * ((e + 1) % 4)];
      float ey1 = b[2 * ((e + 1) % 4) + 1];
      int m = 0;
      for (int i = 0; i < n; i++) {
        float px = poly[2 * i];
        float py = poly[2 * i + 1];
        float qx = poly[2 * ((i + 1) % n)];
        float qy = poly[2 * ((i + 1) % n) + 1];
        float sp = (ex1 - ex0) * (py - ey0) - (ey1 - ey0) * (px - ex0);
        float sq = (ex1 - ex0) * (qy - ey0) - (ey1 - ey0) * (qx - ex0);
        if (sp >= 0) {
          next[2 * m] = px;
          next[2 * m + 1] = py;
          m++;
        }
        if ((sp >= 0) != (sq >= 0)) {
          float t = sp / (sp - sq);
          next[2 * m] = px + t * (qx - px);
          next[2 * m + 1] = py + t * (qy - py);
          m++;
        }
      }
      float[] tmp = poly;
      poly = next;
      next = tmp;
      n = m;
    }
    float inter = 0f;
    for (int i = 0; i < n; i++) {
      int j = (i + 1) % n;
      inter += poly[2 * i] * poly[2 * j + 1] - poly[2 * j] * poly[2 * i + 1];
    }
    return Math.abs(inter) * 0.5f;
  }
}
