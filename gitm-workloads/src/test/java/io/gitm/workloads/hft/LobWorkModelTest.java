package io.gitm.workloads.hft;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.device.Device;
import io.gitm.device.DeviceMemory;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.LaunchConfig;
import io.gitm.device.SchedulingMode;
import io.gitm.trace.Dim3;
import io.gitm.trace.Work;
import java.nio.ByteOrder;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The work models' dependent-access chains, from the routed batch the simulated device lets them see. */
class LobWorkModelTest {
  private static final int N = 64;
  private static final int LOG_OC = 10;
  private static final int LV = 128;
  private Device device;

  @BeforeEach
  void open() {
    device = DeviceProvider.all().stream().filter(p -> p.kind().equals("sim")).findFirst().orElseThrow()
        .open(new DeviceRequest(0, SchedulingMode.AUTO, Map.of("preset", "h200")));
  }

  @AfterEach
  void close() {
    device.close();
  }

  private DeviceMemory ints(int... v) {
    DeviceMemory d = device.malloc(4L * v.length);
    try (var h = device.allocHost(4L * v.length, HostMemoryKind.PINNED)) {
      var b = h.buffer().order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < v.length; i++) {
        b.putInt(4 * i, v[i]);
      }
      device.copy(d, 0, h, 0, 4L * v.length);
    }
    device.synchronize();
    return d;
  }

  /** lob_book's arguments for a batch where instrument 7 has {@code hot} messages and {@code levels} a side. */
  private Object[] bookArgs(int hot, int levels, int live) {
    int[] totals = new int[N];
    java.util.Arrays.fill(totals, 2);
    totals[7] = hot;
    int[] nlv = new int[2 * N];
    nlv[14] = levels;
    nlv[15] = levels;
    int[] lives = new int[N];
    lives[7] = live;
    DeviceMemory none = device.malloc(4);
    return new Object[] {none, none, none, ints(totals), none, none, ints(nlv), ints(lives), none, none, none, N, 1,
        LOG_OC, LV, hot + 2 * (N - 1)};
  }

  private static final LaunchConfig PER_INSTRUMENT = LaunchConfig.cover(N, 128);

  @Test
  void bookChainFollowsTheHottestInstrumentsMessages() {
    Work a = LobKernels.bookWork(PER_INSTRUMENT, bookArgs(100, 20, 300));
    Work b = LobKernels.bookWork(PER_INSTRUMENT, bookArgs(200, 20, 300));
    assertThat(a.dependentAccesses()).isEqualTo(2 * 100);
    assertThat(b.dependentAccesses()).isEqualTo(2 * 200);
    assertThat((double) b.dependentOnChipAccesses() / a.dependentOnChipAccesses()).isBetween(1.95, 2.05);
  }

  @Test
  void deeperBooksLengthenTheThreadChainMoreThanTheWarpChain() {
    Work shallow = LobKernels.bookWork(PER_INSTRUMENT, bookArgs(100, 4, 300));
    Work deep = LobKernels.bookWork(PER_INSTRUMENT, bookArgs(100, 28, 300));
    Work shallowWarp = LobKernels.bookWarpWork(PER_INSTRUMENT, bookArgs(100, 4, 300));
    Work deepWarp = LobKernels.bookWarpWork(PER_INSTRUMENT, bookArgs(100, 28, 300));
    // thread: 0.75 level steps per message per level; warp: one round of 32 levels either way
    assertThat(deep.dependentOnChipAccesses() - shallow.dependentOnChipAccesses()).isEqualTo(100 * 18);
    assertThat(deepWarp.dependentOnChipAccesses()).isEqualTo(shallowWarp.dependentOnChipAccesses());
    assertThat(deepWarp.dependentOnChipAccesses()).isLessThan(deep.dependentOnChipAccesses());
  }

  @Test
  void bookChainIsUnknownWhereTheDeviceHidesItsMemory() {
    Object[] args = bookArgs(100, 20, 300);
    DeviceMemory hidden = new DeviceMemory() {
      @Override
      public boolean pooled() {
        return false;
      }

      @Override
      public long bytes() {
        return 4L * N;
      }

      @Override
      public void close() {
      }
    };
    args[3] = hidden;
    Work w = LobKernels.bookWork(PER_INSTRUMENT, args);
    assertThat(w.hasChain()).isFalse();
    assertThat(w.bytes()).isEqualTo(LobKernels.bookWork(PER_INSTRUMENT, bookArgs(100, 20, 300)).bytes());
  }

  @Test
  void chunkPrefixWalksOneStepPerChunk() {
    Work w = LobKernels.chunksWork(PER_INSTRUMENT, new Object[] {null, 128, N, null});
    assertThat(w.dependentAccesses()).isEqualTo(128);
    assertThat(w.dependentOnChipAccesses()).isZero();
  }

  @Test
  void scanWalksTheBlocksPartialsThenItsSpan() {
    Work w = LobKernels.scanWork(new LaunchConfig(Dim3.ONE, Dim3.of(128), 0), new Object[] {null, 4096, null});
    assertThat(w.dependentOnChipAccesses()).isEqualTo(128 + 32);
  }
}
