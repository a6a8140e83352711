package io.gitm.levers;

/**
 * A lever that takes effect only when the job starts over: a process reads its environment when it starts, and a
 * device context takes its scheduling mode and device settings when it is opened. Each trial pays for the restart,
 * and replay, which re-times the recorded calls on a device it opens its own way, does not model such a lever.
 */
interface Restarting extends Lever {
  /**
   * What a restart adds to a trial: the process started again, or the device context and the workload's session
   * reopened.
   */
  double RESTART_SECONDS = 1.0;

  @Override
  default double trialCostSeconds() {
    return RESTART_SECONDS;
  }
}
