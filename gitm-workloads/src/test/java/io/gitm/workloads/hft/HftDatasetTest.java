package io.gitm.workloads.hft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HftDatasetTest {
  @TempDir
  Path dir;

  private final AtomicInteger generated = new AtomicInteger();

  private byte[] gen() {
    generated.incrementAndGet();
    return ItchGenerator.of(3, 20, 500).generate();
  }

  @Test
  void generatesOncePinsAndReusesTheFile() throws Exception {
    HftDataset.Loaded a = HftDataset.load(dir, "d.itch", this::gen);
    HftDataset.Loaded b = HftDataset.load(dir, "d.itch", this::gen);
    assertThat(generated).hasValue(1);
    assertThat(a.sha256()).isEqualTo(b.sha256())
        .isEqualTo(HftDataset.sha256(Files.readAllBytes(dir.resolve("d.itch"))));
    assertThat(Files.readString(dir.resolve("d.itch.sha256"))).isEqualTo(a.sha256() + "  d.itch\n");
    assertThat(a.itch()).isEqualTo(b.itch());
  }

  @Test
  void aChangedFileIsRefused() throws Exception {
    HftDataset.load(dir, "d.itch", this::gen);
    byte[] bytes = Files.readAllBytes(dir.resolve("d.itch"));
    bytes[100] ^= 1;
    Files.write(dir.resolve("d.itch"), bytes);
    assertThatThrownBy(() -> HftDataset.load(dir, "d.itch", this::gen)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("changed").hasMessageContaining("refusing");
  }

  @Test
  void anUnpinnedFileIsRefused() throws Exception {
    Files.write(dir.resolve("own.itch"), gen());
    assertThatThrownBy(() -> HftDataset.load(dir, "own.itch", null)).hasMessageContaining("not pinned");
  }

  @Test
  void aMissingNamedFileIsAClearError() {
    assertThatThrownBy(() -> HftDataset.load(dir, "nope.itch", null)).hasMessageContaining("does not exist");
    assertThatThrownBy(() -> HftDataset.load(dir, "../x", null)).hasMessageContaining("plain file name");
  }

  @Test
  void aPinnedFileWithAnyFramingIsRead() throws Exception {
    byte[] unframed = ItchReaderTest.everyBookType(ItchBuilder.Prefix.NONE).bytes();
    Files.write(dir.resolve("u.itch"), unframed);
    Files.writeString(dir.resolve("u.itch.sha256"), HftDataset.sha256(unframed) + "  u.itch\n");
    assertThat(HftDataset.load(dir, "u.itch", null).itch().framing()).isEqualTo(ItchFile.Framing.UNFRAMED);
  }
}
