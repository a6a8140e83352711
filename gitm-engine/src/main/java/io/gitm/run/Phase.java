package io.gitm.run;

import java.util.Locale;

/**
 * The five phases of a run, with their share of the budget in the seed's proportions (of 24 h: profile 0–2 h,
 * attribute 2–6 h, rank 6–12 h, apply 12–20 h, report 20–24 h).
 */
public enum Phase {
  PROFILE(2), ATTRIBUTE(4), RANK(6), APPLY(8), REPORT(4);

  private final int twentyFourths;

  Phase(int twentyFourths) {
    this.twentyFourths = twentyFourths;
  }

  /** This phase's share of the budget, in 24ths. */
  public int twentyFourths() {
    return twentyFourths;
  }

  public String label() {
    return name().charAt(0) + name().substring(1).toLowerCase(Locale.ROOT);
  }
}
