package io.gitm.run;

import io.gitm.analysis.Ceilings;
import io.gitm.device.DeviceInfo;
import io.gitm.sim.SimSpec;
import io.gitm.store.RunDir;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the profile phase leaves to the next: the run's folder and device, what a resumed run takes over, the
 * profile (the interrupted run's when it had one), the trace, and the ceilings and device model it is read against.
 *
 * @param device the run's device as {@code run.json} and the journal's start entry describe it
 * @param used the profile phase's wall time (zero when the interrupted run's profile was reused)
 * @param profile the profile, with the facts read off its trace
 * @param replaySpec the device model counterfactual replay runs on; empty for none
 */
record Profiled(RunDir run, DeviceInfo info, Map<String, String> device, Resume resume, Profile profile,
    Duration used, TraceMeta meta, List<TraceRecord> records, Ceilings.Choice ceilings,
    Optional<SimSpec> replaySpec) {
  Profiler.Baseline baseline() {
    return profile.baseline();
  }
}
