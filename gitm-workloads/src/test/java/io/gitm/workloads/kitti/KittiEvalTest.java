package io.gitm.workloads.kitti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** KITTI's evaluation on cases small enough to work out by hand. */
class KittiEvalTest {
  /** A label at (x, z) of the camera's ground plane, facing along x ({@code rotation_y} 0), with a 2D box this tall. */
  private static Label at(String type, double x, double z, double l, double w, double h, double boxHeight,
      double score) {
    return new Label(type, 0, 0, 0, new double[] {100, 100, 200, 100 + boxHeight}, h, w, l, x, 1.6, z, 0, score);
  }

  private static Label car(double x, double z, double score) {
    return at("Car", x, z, 4, 2, 1.5, 60, score);
  }

  @Test
  void overlapsOfAxisAlignedBoxesAreTheirRectanglesAndHeights() {
    // 4 × 2 footprints 1 m apart along x: intersection 3 × 2 = 6, union 8 + 8 - 6 = 10
    assertThat(KittiEval.overlap(car(0, 20, 1), car(1, 20, 1), KittiEval.Metric.BEV)).isCloseTo(0.6, within(1e-6));
    // heights 1.5 and 1.5 with bottoms 0.5 apart (y down): 1.0 shared; 6 × 1 / (12 + 12 - 6)
    Label lower = new Label("Car", 0, 0, 0, new double[] {0, 0, 0, 60}, 1.5, 2, 4, 1, 2.1, 20, 0, 1);
    assertThat(KittiEval.overlap(car(0, 20, 1), lower, KittiEval.Metric.THREE_D)).isCloseTo(6.0 / 18, within(1e-6));
    // a quarter turn: the 4 × 2 box becomes 2 × 4 about the same centre, sharing 2 × 2 = 4 of 8 + 8 - 4
    Label turned = new Label("Car", 0, 0, 0, new double[] {0, 0, 0, 60}, 1.5, 2, 4, 0, 1.6, 20, Math.PI / 2, 1);
    assertThat(KittiEval.overlap(car(0, 20, 1), turned, KittiEval.Metric.BEV)).isCloseTo(4.0 / 12, within(1e-5));
    assertThat(KittiEval.overlap(car(0, 20, 1), car(10, 20, 1), KittiEval.Metric.BEV)).isZero();
  }

  private static KittiEval.Ap carModerateBev(List<KittiEval.Frame> frames) {
    return KittiEval.evaluate(frames, 0, 1, KittiEval.Metric.BEV);
  }

  @Test
  void aFalsePositiveScoredAboveTheHitHalvesTheOnlyPrecisionSampled() {
    // one object, hit at score 0.8, a miss-placed detection at 0.9: one threshold (0.8), precision 1/2 there; R40
    // skips the recall-0 point, R11 counts it
    KittiEval.Ap ap = carModerateBev(List.of(new KittiEval.Frame(List.of(car(0, 20, Double.NaN)),
        List.of(car(0.1, 20, 0.8), car(8, 30, 0.9)))));
    assertThat(ap.groundTruth()).isEqualTo(1);
    assertThat(ap.apR40()).isZero();
    assertThat(ap.apR11()).isCloseTo(0.5 / 11 * 100, within(1e-9));
  }

  @Test
  void aPerfectDetectorOnFortyOneObjectsScoresOneHundredAndOnFewerTheShareOfRecallPointsItReaches() {
    List<KittiEval.Frame> frames = new ArrayList<>();
    for (int i = 0; i < 41; i++) {
      frames.add(new KittiEval.Frame(List.of(car(i % 3, 20, Double.NaN)), List.of(car(i % 3, 20, 0.5 + i / 100.0))));
    }
    assertThat(carModerateBev(frames).apR40()).isCloseTo(100, within(1e-9));
    assertThat(carModerateBev(frames).apR11()).isCloseTo(100, within(1e-9));
    KittiEval.Ap ten = carModerateBev(frames.subList(0, 10));
    assertThat(ten.apR40()).isCloseTo(9 / 40.0 * 100, within(1e-9));
    assertThat(ten.apR11()).isCloseTo(3 / 11.0 * 100, within(1e-9));
  }

  @Test
  void neighbouringClassesSmallObjectsAndLowDetectionsAreNeitherHitsNorMisses() {
    // a Van hit by a Car detection is ignored for Car; a 20-pixel Car counts at no difficulty; a detection lower than
    // moderate's 25 pixels is ignored there: the one counted Car, hit, is the only thing left
    Label van = at("Van", 10, 30, 5, 2, 2, 60, Double.NaN);
    Label small = at("Car", -10, 40, 4, 2, 1.5, 20, Double.NaN);
    List<KittiEval.Frame> frames = new ArrayList<>();
    for (int i = 0; i < 41; i++) {
      frames.add(new KittiEval.Frame(List.of(car(0, 20, Double.NaN), van, small), List.of(car(0, 20, 0.9),
          at("Car", 10, 30, 5, 2, 2, 60, 0.95), at("Car", -10, 40, 4, 2, 1.5, 20, 0.97),
          at("Car", 30, 60, 4, 2, 1.5, 20, 0.99))));
    }
    KittiEval.Ap ap = carModerateBev(frames);
    assertThat(ap.groundTruth()).isEqualTo(41);
    assertThat(ap.apR40()).isCloseTo(100, within(1e-9));
    // with a counted false positive in each frame, precision is 1/2 at every threshold
    for (KittiEval.Frame f : new ArrayList<>(frames)) {
      List<Label> d = new ArrayList<>(f.detections());
      d.add(at("Car", 30, 60, 4, 2, 1.5, 60, 0.99));
      frames.set(frames.indexOf(f), new KittiEval.Frame(f.truth(), d));
    }
    assertThat(carModerateBev(frames).apR40()).isCloseTo(50, within(1e-9));
  }

  @Test
  void aClassWithNoObjectsAtADifficultyHasNoAp() {
    KittiEval.Ap ap = KittiEval.evaluate(List.of(new KittiEval.Frame(List.of(car(0, 20, Double.NaN)), List.of())), 1,
        0, KittiEval.Metric.THREE_D);
    assertThat(ap.groundTruth()).isZero();
    assertThat(ap.apR40()).isNaN();
    assertThat(KittiEval.evaluate(List.of())).hasSize(18);
  }
}
