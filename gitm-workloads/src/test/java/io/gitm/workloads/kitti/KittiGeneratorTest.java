package io.gitm.workloads.kitti;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generator's scans look like a 64-beam LiDAR's over a street, are seeded, and label their objects. */
class KittiGeneratorTest {
  static final ScanGenerator.Frame FULL = ScanGenerator.hdl64(3).frame(0);

  @TempDir
  Path dir;

  @Test
  void aFullFrameHasAbout120kPointsInARingPatternOverTheGround() {
    Scan s = FULL.scan();
    assertThat(s.points()).isBetween(105_000, 135_000);
    float[] p = s.xyzr();
    int ground = 0;
    for (int i = 0; i < p.length; i += 4) {
      double range = Math.sqrt(p[i] * p[i] + p[i + 1] * p[i + 1] + p[i + 2] * p[i + 2]);
      assertThat(range).isBetween(2.4, 120.1);
      assertThat(p[i + 3]).isBetween(0f, 1f);
      if (Math.abs(p[i + 2] + ScanGenerator.SENSOR_HEIGHT) < 0.1) {
        ground++;
      }
    }
    assertThat(ground).isGreaterThan(s.points() / 2);
    // the rings: on the ground, ranges cluster at SENSOR_HEIGHT / tan(beam), not spread evenly
    int[] hist = new int[200];
    for (int i = 0; i < p.length; i += 4) {
      double r = Math.hypot(p[i], p[i + 1]);
      if (Math.abs(p[i + 2] + ScanGenerator.SENSOR_HEIGHT) < 0.1 && r < 20) {
        hist[(int) (r * 10)]++;
      }
    }
    // rings 0.4-1.7 m apart there; objects near the ground in between
    long empty = java.util.Arrays.stream(hist, 100, 200).filter(h -> h < 20).count();
    assertThat(empty).isGreaterThan(70);
  }

  @Test
  void framesAreSeededAndDiffer() {
    ScanGenerator g = new ScanGenerator(3, 16, 256);
    assertThat(g.frame(1).scan().xyzr()).containsExactly(g.frame(1).scan().xyzr());
    assertThat(g.frame(1).scan().xyzr()).isNotEqualTo(g.frame(2).scan().xyzr());
    assertThat(new ScanGenerator(4, 16, 256).frame(1).scan().xyzr()).isNotEqualTo(g.frame(1).scan().xyzr());
  }

  @Test
  void objectsAreCarsPedestriansAndCyclistsAtKittiRangesAndReturnPoints() {
    List<Box> objects = FULL.objects();
    assertThat(objects).extracting(Box::cls).contains(0, 1, 2);
    float[] p = FULL.scan().xyzr();
    int withPoints = 0;
    for (Box b : objects) {
      assertThat(Math.hypot(b.x(), b.y())).isBetween(4.0, 70.0);
      assertThat(b.z() - b.h() / 2).isCloseTo((float) -ScanGenerator.SENSOR_HEIGHT,
          org.assertj.core.data.Offset.offset(1e-4f));
      int inside = 0;
      for (int i = 0; i < p.length; i += 4) {
        double c = Math.cos(b.yaw());
        double s = Math.sin(b.yaw());
        double lx = (p[i] - b.x()) * c + (p[i + 1] - b.y()) * s;
        double ly = -(p[i] - b.x()) * s + (p[i + 1] - b.y()) * c;
        if (Math.abs(lx) <= b.l() / 2 + 0.1 && Math.abs(ly) <= b.w() / 2 + 0.1
            && Math.abs(p[i + 2] - b.z()) <= b.h() / 2 + 0.1) {
          inside++;
        }
      }
      if (inside > 0) {
        withPoints++;
      }
    }
    assertThat(withPoints).isGreaterThan(objects.size() / 2); // the rest are occluded or beyond the beams
  }

  @Test
  void theObjectsAreWrittenAsKittiLabelsInCameraCoordinates() {
    Path f = dir.resolve("000000.txt");
    Label.write(f, FULL.labels());
    List<Label> back = Label.read(f);
    assertThat(back).hasSameSizeAs(FULL.objects());
    for (int i = 0; i < back.size(); i++) {
      Box b = FULL.objects().get(i);
      Label l = back.get(i);
      assertThat(l.type()).isEqualTo(Box.CLASSES[b.cls()]);
      assertThat(l.z()).isCloseTo(b.x() - 0.27, org.assertj.core.data.Offset.offset(0.011)); // camera z = LiDAR x
      assertThat(l.x()).isCloseTo(-b.y(), org.assertj.core.data.Offset.offset(0.011));
      assertThat(l.y()).isCloseTo(ScanGenerator.SENSOR_HEIGHT - 0.08, org.assertj.core.data.Offset.offset(0.011));
      assertThat(l.l()).isCloseTo(b.l(), org.assertj.core.data.Offset.offset(0.006));
      assertThat(l.rotationY()).isCloseTo(Label.wrap(-b.yaw() - Math.PI / 2), org.assertj.core.data.Offset.offset(
          0.006));
      assertThat(l.occluded()).isBetween(0, 2);
    }
  }
}
