package io.gitm.nvidia.cupti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Device UUIDs are written as nvidia-smi shows them, so traces and NVML samples name a GPU the same way. */
class DriverUuidTest {
  @Test
  void sixteenBytesFormatAsNvidiaSmiDoes() {
    byte[] b = new byte[16];
    for (int i = 0; i < 16; i++) {
      b[i] = (byte) (0xF0 + i - 8 * (i % 2));
    }
    assertThat(Driver.formatUuid(b)).isEqualTo("GPU-f0e9f2eb-f4ed-f6ef-f8f1-faf3fcf5fef7");
  }

  @Test
  void otherLengthsAreRefused() {
    assertThatThrownBy(() -> Driver.formatUuid(new byte[15])).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("16 bytes");
  }
}
