package io.gitm.workloads.kitti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The velodyne, calibration and label readers read what KITTI writes and name where a malformed file goes wrong. */
class KittiReadersTest {
  @TempDir
  Path dir;

  @Test
  void aVelodyneFileRoundTripsItsLittleEndianFloats() {
    Scan s = new Scan(new float[] {1.5f, -2.25f, 0.125f, 0.5f, 70f, 39f, -3f, 0f});
    Path f = dir.resolve("000000.bin");
    s.write(f);
    assertThat(f).hasSize(32);
    Scan back = Scan.read(f);
    assertThat(back.points()).isEqualTo(2);
    assertThat(back.xyzr()).containsExactly(s.xyzr());
    byte[] b = s.bytes();
    assertThat(b[0]).isEqualTo((byte) 0); // 1.5f = 0x3fc00000, low byte first
    assertThat(b[3]).isEqualTo((byte) 0x3f);
  }

  @Test
  void aTruncatedVelodyneFileNamesTheOffsetOfItsPartialPoint() throws Exception {
    Path f = dir.resolve("bad.bin");
    Files.write(f, Arrays.copyOf(new Scan(new float[12]).bytes(), 41));
    assertThatThrownBy(() -> Scan.read(f)).isInstanceOf(KittiFormatException.class)
        .hasMessageContaining("bad.bin").hasMessageContaining("byte offset 32").hasMessageContaining("9 of 16");
  }

  @Test
  void aCalibrationFileIsReadAndMapsLidarToCameraAndPixels() throws Exception {
    Path f = dir.resolve("calib.txt");
    Files.writeString(f, Calibration.typical().text() + "\n");
    Calibration c = Calibration.read(f);
    assertThat(c.all()).containsOnlyKeys("P0", "P1", "P2", "P3", "R0_rect", "Tr_velo_to_cam", "Tr_imu_to_velo");
    double[] rect = c.veloToRect(10, 0, 0); // ten metres ahead: camera z forward
    assertThat(rect[2]).isCloseTo(9.73, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(rect[0]).isZero();
    double[] px = c.project(rect);
    assertThat(px[0]).isBetween(600.0, 620.0); // near the principal point's column
  }

  @Test
  void aMalformedCalibrationLineIsNamed() {
    assertThatThrownBy(() -> Calibration.parse(List.of("P2: 1 2 3", "R0_rect: 1 0 0 0 1 0 0 0 1"), "c.txt"))
        .hasMessage("c.txt:1: P2 needs 12 values, got 3");
    assertThatThrownBy(() -> Calibration.parse(List.of("", "P2 1 2"), "c.txt")).hasMessageStartingWith("c.txt:2: ");
    assertThatThrownBy(() -> Calibration.parse(List.of("R0_rect: 1 0 0 0 x 0 0 0 1"), "c.txt"))
        .hasMessage("c.txt:1: R0_rect value 5 is not a number: 'x'");
  }

  @Test
  void aPartialCalibrationIsReadAndOnlyWhatNeedsAMissingMatrixIsRefusedNamingIt() {
    Calibration c = Calibration.parse(List.of("P2: 7.215377e+02 0 6.095593e+02 4.485728e+01 0 7.215377e+02"
        + " 1.728540e+02 2.163791e-01 0 0 1 2.745884e-03"), "calib/000008.txt");
    assertThat(c.p2()[0]).isEqualTo(721.5377);
    assertThat(c.missing(Calibration.FOR_SCORING)).isEqualTo("R0_rect");
    assertThatThrownBy(() -> c.veloToRect(1, 2, 3)).isInstanceOf(KittiFormatException.class)
        .hasMessage("calib/000008.txt: no Tr_velo_to_cam line (mapping LiDAR points to the camera needs it)");
  }

  @Test
  void theTrackingBenchmarksSpellingsWithoutColonsAreReadAsTheObjectBenchmarksNames() {
    Calibration c = Calibration.parse(List.of("R_rect 1 0 0 0 1 0 0 0 1",
        "Tr_velo_cam 0 -1 0 0 0 0 -1 -0.08 1 0 0 -0.27", "P2:721.5 0 609.5 44.8 0 721.5 172.8 0.2 0 0 1 0.003"),
        "calib/0001.txt");
    assertThat(c.all()).containsOnlyKeys("R0_rect", "Tr_velo_to_cam", "P2");
    assertThat(c.missing(Calibration.FOR_SCORING)).isNull();
    assertThat(c.veloToRect(10, 0, 0)[2]).isCloseTo(9.73, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void labelLinesAreReadWithAndWithoutAScore() {
    List<Label> l = Label.parse(List.of(
        "Car 0.00 0 -1.58 587.01 173.33 614.12 200.12 1.65 1.67 3.64 -0.65 1.71 46.70 -1.59",
        "",
        "Pedestrian 0.00 1 0.21 423.17 173.67 433.17 224.03 1.60 0.52 0.80 -5.64 1.69 30.21 0.03 0.8125",
        "DontCare -1 -1 -10 503.89 169.71 590.61 190.13 -1 -1 -1 -1000 -1000 -1000 -10"),
        "l.txt");
    assertThat(l).hasSize(3);
    assertThat(l.get(2).occluded()).isEqualTo(-1);
    assertThat(l.get(2).x()).isEqualTo(-1000);
    assertThat(l.get(0).type()).isEqualTo("Car");
    assertThat(l.get(0).z()).isEqualTo(46.70);
    assertThat(l.get(0).score()).isNaN();
    assertThat(l.get(1).score()).isEqualTo(0.8125);
    assertThat(l.get(1).occluded()).isEqualTo(1);
    assertThat(Label.parse(List.of(l.get(1).line()), "x")).usingRecursiveFieldByFieldElementComparator()
        .containsExactly(l.get(1));
  }

  @Test
  void aMalformedLabelLineIsNamedWithItsField() {
    assertThatThrownBy(() -> Label.parse(List.of("Car 0 0 1"), "l.txt"))
        .hasMessage("l.txt:1: expected 15 fields (16 with a score), got 4");
    assertThatThrownBy(() -> Label.parse(List.of("", "Boat 0 0 0 0 0 0 0 0 0 0 0 0 0 0"), "l.txt"))
        .hasMessage("l.txt:2: unknown type 'Boat'");
    assertThatThrownBy(() -> Label.parse(List.of("Car 0 0 0 0 0 0 0 0 0 zz 0 0 0 0"), "l.txt"))
        .hasMessage("l.txt:1: field 11 is not a number: 'zz'");
    assertThatThrownBy(() -> Label.parse(List.of("Car 0 7 0 0 0 0 0 0 0 0 0 0 0 0"), "l.txt"))
        .hasMessage("l.txt:1: occluded must be -1..3, got '7'");
  }
}
