package io.gitm.workloads.kitti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Generated frames land in KITTI's layout, pinned by sha256; a changed or unpinned scan is refused. */
class KittiDatasetTest {
  static final ScanGenerator G = new ScanGenerator(8, 8, 64);

  @TempDir
  Path dir;

  @Test
  void framesAreGeneratedInKittisLayoutAndReadBackTheSame() {
    List<Scan> first = KittiDataset.load(dir, G, 2);
    Path root = dir.resolve(KittiDataset.name(G));
    assertThat(root.resolve("velodyne/000001.bin")).exists();
    assertThat(root.resolve("velodyne/000001.bin.sha256")).content().startsWith(
        KittiDataset.sha256(first.get(1).bytes()));
    assertThat(Label.read(root.resolve("label_2/000000.txt"))).hasSameSizeAs(G.frame(0).labels());
    assertThat(Calibration.read(root.resolve("calib/000000.txt")).p2()).containsExactly(Calibration.typical().p2());
    List<Scan> again = KittiDataset.load(dir, G, 2);
    assertThat(again.get(0).xyzr()).containsExactly(first.get(0).xyzr());
    assertThat(again.get(1).xyzr()).containsExactly(G.frame(1).scan().xyzr());
  }

  @Test
  void aChangedScanIsRefused() throws Exception {
    KittiDataset.load(dir, G, 1);
    Path bin = dir.resolve(KittiDataset.name(G)).resolve("velodyne/000000.bin");
    byte[] b = Files.readAllBytes(bin);
    b[5] ^= 1;
    Files.write(bin, b);
    assertThatThrownBy(() -> KittiDataset.load(dir, G, 1)).hasMessageContaining("changed").hasMessageContaining(
        "000000.bin");
  }

  @Test
  void anUnpinnedScanIsRefused() throws Exception {
    KittiDataset.load(dir, G, 1);
    Files.delete(dir.resolve(KittiDataset.name(G)).resolve("velodyne/000000.bin.sha256"));
    assertThatThrownBy(() -> KittiDataset.load(dir, G, 1)).hasMessageContaining("not pinned");
  }
}
