package io.gitm.nvidia.cuda;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.device.DeviceRequest;
import io.gitm.device.SchedulingMode;
import io.gitm.device.UnsupportedFeatureException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The NVIDIA backend never changes a real card's settings: a request with any is refused before the driver is touched.
 */
class DeviceSettingsRefusedTest {
  @Test
  void aPowerLimitOrClockSettingIsRefusedWithoutTouchingTheCard() {
    for (String key : DeviceRequest.DEVICE_SETTINGS) {
      assertThatThrownBy(() -> new CudaProvider().open(new DeviceRequest(0, SchedulingMode.AUTO,
          Map.of(key, "default")))).isInstanceOf(UnsupportedFeatureException.class)
          .hasMessageContaining("never changes a real card's settings").hasMessageContaining(key);
    }
  }
}
