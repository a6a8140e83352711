package io.gitm.workloads.kitti;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

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

  /** The detection {@code k} as a box in the LiDAR's frame. */
  Box box(int k) {
    int o = k * KittiKernels.BOX_FLOATS;
    return new Box((int) boxes[o + 8], boxes[o], boxes[o + 1], boxes[o + 2], boxes[o + 3], boxes[o + 4], boxes[o + 5],
        boxes[o + 6], boxes[o + 7]);
  }

  /** {@link #labels(Calibration, int, int)} for KITTI's usual 1242×375 image. */
  List<Label> labels(Calibration calib) {
    return labels(calib, KittiInput.IMAGE_WIDTH, KittiInput.IMAGE_HEIGHT);
  }

  /**
   * The detections as lines of a KITTI result file (labels with a 16th field, the score; occlusion -1, unknown), their
   * 2D boxes clipped to a {@code width}×{@code height} image, so that they can be scored against the frame's labels.
   */
  List<Label> labels(Calibration calib, int width, int height) {
    List<Label> out = new ArrayList<>();
    for (int k = 0; k < anchors.length; k++) {
      Box b = box(k);
      Label l = b.label(calib, -1, width, height);
      out.add(new Label(l.type(), l.truncated(), l.occluded(), l.alpha(), l.bbox(), l.h(), l.w(), l.l(), l.x(), l.y(),
          l.z(), l.rotationY(), b.score()));
    }
    return out;
  }
}
