package io.gitm.search;

import io.gitm.search.Agent.StopReason;

/**
 * How a search ends: the first reason it was stopped for, with its detail, the notes its result line carries, and
 * whether levers were skipped as not promising once the target was reached.
 */
final class Stop {
  private StopReason reason;
  private String detail = "";
  private String notes = "";
  private boolean skippedForTarget;

  /** Stops the search for {@code reason}, unless it was stopped already. */
  void stop(StopReason reason, String detail) {
    if (this.reason == null) {
      this.reason = reason;
      this.detail = detail;
    }
  }

  boolean stopped() {
    return reason != null;
  }

  /** Why it was stopped; null while it was not. */
  StopReason reason() {
    return reason;
  }

  String detail() {
    return detail;
  }

  /** Adds a note to the result line. */
  void note(String note) {
    notes += "; " + note;
  }

  /** The setup the notes so far spoke of was given up, for {@code why}: that is the only note left. */
  void gaveUp(String why) {
    notes = "; " + why;
  }

  /** The notes, each after {@code "; "}. */
  String notes() {
    return notes;
  }

  void skippedForTarget() {
    skippedForTarget = true;
  }

  boolean skippedAnyForTarget() {
    return skippedForTarget;
  }
}
