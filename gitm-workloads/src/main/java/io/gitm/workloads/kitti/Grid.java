package io.gitm.workloads.kitti;

/**
 * The detection range and its pillar grid (PointPillars' car range by default): points with x in [xMin, xMax),
 * y in [yMin, yMax), z in [zMin, zMax) are kept; pillars are {@code pillar}×{@code pillar} metre columns, {@code nx}
 * along x and {@code ny} along y; cell {@code iy·nx + ix}.
 */
record Grid(float xMin, float yMin, float zMin, float xMax, float yMax, float zMax, float pillar) {
  Grid {
    if (!(xMax > xMin && yMax > yMin && zMax > zMin && pillar > 0)) {
      throw new IllegalArgumentException("kitti: empty range or pillar size " + pillar);
    }
  }

  /** PointPillars' KITTI car range: x 0..69.12, y -39.68..39.68, z -3..1 metres. */
  static Grid pointPillars(float pillar) {
    return new Grid(0f, -39.68f, -3f, 69.12f, 39.68f, 1f, pillar);
  }

  int nx() {
    return Math.round((xMax - xMin) / pillar);
  }

  int ny() {
    return Math.round((yMax - yMin) / pillar);
  }

  int cells() {
    return nx() * ny();
  }

  /**
   * The cell of a point, or -1 when it is cropped (NaN coordinates are cropped), in float as the kernel computes it.
   */
  int cell(float x, float y, float z) {
    if (!(x >= xMin && x < xMax && y >= yMin && y < yMax && z >= zMin && z < zMax)) {
      return -1;
    }
    int ix = Math.min((int) Math.floor((x - xMin) / pillar), nx() - 1);
    int iy = Math.min((int) Math.floor((y - yMin) / pillar), ny() - 1);
    return iy * nx() + ix;
  }
}
