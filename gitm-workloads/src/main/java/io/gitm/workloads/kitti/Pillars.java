package io.gitm.workloads.kitti;

/**
 * A frame's pillars in order of their cells: each pillar's cell ({@code iy·nx + ix}) and the indices of the points
 * it kept, ascending.
 */
record Pillars(int[] cells, int[][] points) {
}
