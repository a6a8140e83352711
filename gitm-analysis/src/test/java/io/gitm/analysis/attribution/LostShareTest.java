package io.gitm.analysis.attribution;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A cause's effect is a share of the span: never more than all of it, whatever its overlapping events add up to. */
class LostShareTest {
  private static final Input SPAN_1000 = new Input(List.of(), null, null, null, 0, 1000, null, new int[0], null);

  @Test
  void lostTimeOnOverlappingStreamsIsCappedAtTheWholeSpanAndItsSumIsSaid() {
    Lost l = new Lost();
    for (int i = 0; i < 20; i++) {
      l.add(SPAN_1000, i * 50L, 60 + i % 5);
    }
    assertThat(l.total()).as("summed over streams, more than the span").isGreaterThan(1000);
    Map<Cause, Lost> lost = new EnumMap<>(Cause.class);
    lost.put(Cause.ALLOCATOR_STALL, l);
    List<Hypothesis> h = Attribution.rank(SPAN_1000, lost);
    assertThat(h).hasSize(1);
    assertThat(h.getFirst().effect()).isEqualTo(1.0);
    assertThat(h.getFirst().effectLow()).isBetween(0.0, 1.0);
    assertThat(h.getFirst().effectHigh()).isEqualTo(1.0);
    String test = h.getFirst().evidence().getLast().summary();
    assertThat(test).contains("the whole span").contains("summed, 124% of the span").doesNotContain("124.00%");
  }

  @Test
  void lostTimeWithinTheSpanIsItsShare() {
    assertThat(Attribution.share(0.1234)).isEqualTo("12.34% of the span");
  }
}
