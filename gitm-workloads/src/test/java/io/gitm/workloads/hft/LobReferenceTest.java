package io.gitm.workloads.hft;

import static io.gitm.workloads.hft.LobLayout.FEAT;
import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.OutputDigest;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reference on a hand-made book, checked against values worked out by hand, and the kernels against it. */
class LobReferenceTest {
  static final HftLobWorkload.Params P = new HftLobWorkload.Params(0, 1, 0, 6, 4, 10, 7, "hand");

  static ItchFile scenario() {
    return ItchReader.parse(new ItchBuilder(ItchBuilder.Prefix.LENGTH).system('O').directory(1, "AAPL")
        .addOrder(1, 1, 'B', 300, 1_000_000)
        .addOrder(1, 2, 'B', 200, 999_900)
        .addMpid(1, 3, 'S', 100, 1_000_100, "GSCO")
        .addOrder(1, 4, 'S', 50, 1_000_100)
        // second batch
        .executed(1, 1, 100)
        .executedWithPrice(1, 3, 100, 1_000_000)
        .cancel(1, 2, 50)
        .replace(1, 4, 5, 80, 1_000_200)
        .trade(1, 'S', 70, 1_000_100)
        .delete(1, 99)
        .bytes());
  }

  static long[] feat(BatchOutput b) {
    return Arrays.copyOf(b.features(), FEAT);
  }

  @Test
  void booksAndFeaturesMatchHandComputedValues() {
    List<BatchOutput> out = LobReference.run(scenario(), 6, 7);
    assertThat(out).hasSize(2);
    int[] top1 = out.get(0).top();
    assertThat(Arrays.copyOfRange(top1, 0, 6)).containsExactly(1_000_000, 300, 999_900, 200, 0, 0);
    assertThat(Arrays.copyOfRange(top1, 20, 24)).containsExactly(1_000_100, 150, 0, 0);
    // bid, ask, sizes, spread, 2 x mid, micro-price, depths, OFI, volume, messages, EWMA var, unknown, live, errors
    assertThat(feat(out.get(0))).containsExactly(1_000_000, 1_000_100, 300, 150, 100, 2_000_100, 1_000_066, 500, 150,
        300, 0, 4, 0, 0, 4, 0);
    int[] top2 = out.get(1).top();
    assertThat(Arrays.copyOfRange(top2, 0, 6)).containsExactly(1_000_000, 200, 999_900, 150, 0, 0);
    assertThat(Arrays.copyOfRange(top2, 20, 24)).containsExactly(1_000_200, 80, 0, 0);
    assertThat(feat(out.get(1))).containsExactly(1_000_000, 1_000_200, 200, 80, 200, 2_000_200, 1_000_142, 350, 80,
        50, 270, 6, 625, 1, 3, 0);
    assertThat(out.get(1).signals()[0]).isBetween(-1f, 1f).isNotZero();
  }

  @Test
  void kernelsReproduceTheHandComputedBook() {
    ItchFile file = scenario();
    LobDigest ref = new LobDigest(1);
    LobReference.run(file, 6, 7).forEach(ref::add);
    for (ExecutionConfig c : List.of(ExecutionConfig.shipped(), ExecutionConfig.shipped().withBatchCoalesce(2))) {
      try (LobSession s = new LobSession(new EmulatedDevice(), c, P, file)) {
        while (s.hasNext()) {
          s.step();
        }
        OutputDigest d = s.output();
        assertThat(d.sha256()).isEqualTo(ref.digest().sha256());
        assertThat(d.values()).containsExactly(ref.digest().values());
      }
    }
  }

  @Test
  void crowdedOrderTablesWithManyCollisionsStayExact() {
    // 15 slots per instrument, up to 12 live orders: long probe chains, deletions shifting entries back.
    ItchFile file = ItchReader.parse(new ItchGenerator(5, 6, 30_000, 12, 9).generate());
    HftLobWorkload.Params p = new HftLobWorkload.Params(5, 6, 30_000, 1000, 4, 10, 3, "crowded");
    LobDigest ref = new LobDigest(file.instruments());
    LobReference.run(file, p.batchMessages(), p.weightSeed()).forEach(ref::add);
    try (LobSession s = new LobSession(new EmulatedDevice(), ExecutionConfig.shipped().withBatchCoalesce(2), p, file)) {
      while (s.hasNext()) {
        s.step();
      }
      OutputDigest d = s.output();
      assertThat(d.sha256()).isEqualTo(ref.digest().sha256());
      assertThat(d.maxRelativeDifference(ref.digest())).isLessThanOrEqualTo(HftLobWorkload.SIGNAL_TOLERANCE);
    }
  }
}
