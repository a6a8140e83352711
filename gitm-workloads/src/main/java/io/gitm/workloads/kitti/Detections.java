package io.gitm.workloads.kitti;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A frame's detections: the kept anchors' indices in NMS order and their boxes, {@link KittiKernels#BOX_FLOATS} floats
 * each (x, y, z, l, w, h, yaw, score, class).
 */
record Detections(int[] anchors, float[] boxes) {
  /** Reads {@code kitti_nms}'s output: the count, then per detection its anchor index and box. */
  static Detections of(byte[] out) {
    ByteBuffer b = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
    int n = b.getInt(0);
    int[] anchors = new int[n];
    float[] boxes = new float[n * KittiKernels.BOX_FLOATS];
    for (int k = 0; k < n; k++) {
      int o = 4 * (1 + k * KittiKernels.DET_WORDS);
      anchors[k] = b.getInt(o);
      for (int j = 0; j < KittiKernels.BOX_FLOATS; j++) {
        boxes[k * KittiKernels.BOX_FLOATS + j] = b.getFloat(o + 4 + 4 * j);
      }
    }
    return new Detections(anchors, boxes);
  }
}
