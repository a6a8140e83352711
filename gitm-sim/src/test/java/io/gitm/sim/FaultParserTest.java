package io.gitm.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class FaultParserTest {
  private static List<InjectedFault> parse(String s) {
    return FaultParser.parse(s, 132, 1980, 700);
  }

  @Test
  void emptyOrNoneMeansNoFaults() {
    assertThat(parse("")).isEmpty();
    assertThat(parse(null)).isEmpty();
    assertThat(parse("none")).isEmpty();
  }

  @Test
  void defaultsAreFilledInAndRelativeOnesResolvedAgainstTheDevice() {
    List<InjectedFault> f = parse("noisy-neighbour,clock-drop,power-cap");
    assertThat(f.get(0).param("sms")).isEqualTo(66);
    assertThat(f.get(1).param("mhz")).isEqualTo(990);
    assertThat(f.get(2).param("watts")).isEqualTo(350);
    assertThat(f.get(0).onsetNs()).isZero();
    assertThat(f.get(0).endNs()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void timesTakeUnits() {
    assertThat(parse("thermal@500ms").getFirst().onsetNs()).isEqualTo(500_000_000L);
    assertThat(parse("thermal@2m").getFirst().onsetNs()).isEqualTo(120_000_000_000L);
    assertThat(parse("thermal@3").getFirst().onsetNs()).isEqualTo(3_000_000_000L);
    assertThat(parse("thermal@10us:duration=5ms").getFirst().endNs()).isEqualTo(5_010_000L);
  }

  @Test
  void everyFaultOfTheCatalogueParses() {
    for (FaultKind k : FaultKind.values()) {
      assertThat(parse(k.id + "@1s")).singleElement().extracting(InjectedFault::name).isEqualTo(k.id);
    }
    assertThat(FaultKind.values()).hasSizeGreaterThanOrEqualTo(10);
  }

  @Test
  void badSpecsFailWithOneLineMessagesNamingThePart() {
    assertThatThrownBy(() -> parse("thermo")).hasMessageStartingWith("unknown fault 'thermo': known faults are thermal")
        .hasMessageNotContaining("\n");
    assertThatThrownBy(() -> parse("thermal:heat=3")).hasMessage(
        "fault 'thermal' has no parameter 'heat': it takes severity, duration");
    assertThatThrownBy(() -> parse("thermal@soon"))
        .hasMessageContaining("onset of fault 'thermal' 'soon' is not a time");
    assertThatThrownBy(() -> parse("thermal:severity=2")).hasMessageContaining("outside 0.0..1.0");
    assertThatThrownBy(() -> parse("thermal:severity=x")).hasMessageContaining("is not a non-negative number");
    assertThatThrownBy(() -> parse("severity=1")).hasMessageContaining("before any fault");
    assertThatThrownBy(() -> parse("thermal,,power-cap")).hasMessageContaining("empty entry");
    assertThatThrownBy(() -> parse("thermal:severity")).hasMessageContaining("write key=value");
    assertThatThrownBy(() -> parse("thermal:severity=0.1:severity=0.2")).hasMessageContaining("twice");
    assertThatThrownBy(() -> parse("noisy-neighbour:sms=132")).hasMessageContaining("outside");
  }
}
