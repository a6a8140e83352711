package io.gitm.sim;

/**
 * The device time-sliced between the job's context and one other (the {@code time-slicing} fault), on the device's
 * clock: from {@code onsetNs} the job's slice of {@code jobNs}, then the other context's of {@code otherNs}, repeating,
 * until {@code endNs}. Outside that window the job has the device to itself. The job's work runs only in its own
 * slices: an operation ready during the other's slice starts when the job's next slice begins, and one running at the
 * end of a job slice is paused for the other's slice and resumes after it (compute preemption). Switching contexts
 * costs nothing (model assumption).
 */
record TimeSlices(long onsetNs, long endNs, long jobNs, long otherNs) {
  TimeSlices {
    if (jobNs <= 0 || otherNs <= 0 || endNs < onsetNs) {
      throw new IllegalArgumentException("time slices need positive slices and an end not before the onset: job "
          + jobNs + " ns, other " + otherNs + " ns, window " + onsetNs + ".." + endNs);
    }
  }

  /** The slices of an injected {@code time-slicing} fault. */
  static TimeSlices of(InjectedFault f) {
    return new TimeSlices(f.onsetNs(), f.endNs(), Math.max(1, Math.round(f.param("jobSliceUs") * 1e3)),
        Math.max(1, Math.round(f.param("sliceUs") * 1e3)));
  }

  /** Whether the other context is on the device at {@code t} (the window holds {@code t}). */
  boolean activeAt(long t) {
    return t >= onsetNs && t < endNs;
  }

  /** The other context's share of the device's time while the fault is active. */
  double otherShare() {
    return (double) otherNs / (jobNs + otherNs);
  }

  /** The earliest time at or after {@code t} at which the job's work may run. */
  long runnableFrom(long t) {
    if (!activeAt(t)) {
      return t;
    }
    long period = jobNs + otherNs;
    long into = (t - onsetNs) % period;
    if (into < jobNs) {
      return t;
    }
    long next = t - into + period;
    return Math.min(next, endNs);
  }

  /**
   * When work that needs {@code d} of device time and starts at {@code start} ends, paused through the other context's
   * slices (a start in the other's slice waits for the job's next).
   */
  long endOf(long start, long d) {
    long t = runnableFrom(start);
    long left = d;
    long period = jobNs + otherNs;
    while (true) {
      if (t >= endNs) {
        return t + left;
      }
      if (t < onsetNs) {
        if (t + left <= onsetNs) {
          return t + left;
        }
        left -= onsetNs - t;
        t = onsetNs;
      }
      long into = (t - onsetNs) % period;
      long sliceEnd = Math.min(t - into + jobNs, endNs);
      if (t + left <= sliceEnd) {
        return t + left;
      }
      // whole slices of the job at once, while the window lasts
      left -= sliceEnd - t;
      t = runnableFrom(sliceEnd);
      long whole = (left - 1) / jobNs;
      if (whole > 0 && endNs - t > whole * period) {
        t += whole * period;
        left -= whole * jobNs;
      }
    }
  }
}
