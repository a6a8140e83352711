package io.gitm.levers;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.api.Ticker;
import io.gitm.job.ProcessJob;
import io.gitm.job.ProcessMetric;
import io.gitm.job.ProcessSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The process levers change what a black-box job's process gets, seen from inside the child: the environment it
 * reads, the CPUs it may run on, and the workers a CPU-bound job that sizes its pool like an OpenMP runtime starts.
 */
class ProcessLeversChangeTheRunTest {
  @TempDir
  Path dir;

  /** This host's CPUs, as the run's facts give them. */
  static final int CPUS = Runtime.getRuntime().availableProcessors();

  private ProcessJob job(String body) throws IOException {
    Path p = dir.resolve("job.sh");
    Files.writeString(p, "#!/bin/bash\n" + body + "\necho 'it/s: 1'\n");
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    Map<String, String> env = ProcessSpec.environment(System.getenv(), List.of("PATH"), List.of());
    ProcessSpec spec = new ProcessSpec(List.of(p.toString()), false, dir, env,
        new ProcessMetric(ProcessMetric.Kind.REGEX, "it/s: ([0-9.]+)", null, true, null), List.of(), 0, 0, null);
    return new ProcessJob(spec, dir.resolve("run"), Ticker.system(), Duration.ofSeconds(30));
  }

  private static LeverContext process(Map<String, Double> facts) {
    return new LeverContext(null, Contexts.REAL_H200, List.of(), facts, false, Setup.shipped());
  }

  private static String line(ProcessJob.RunResult r, String prefix) throws IOException {
    assertThat(r.ok()).as(r.failure()).isTrue();
    return Files.readString(r.stdout()).lines().filter(l -> l.startsWith(prefix)).findFirst()
        .map(l -> l.substring(prefix.length())).orElseThrow(() -> new AssertionError("no '" + prefix + "' line"));
  }

  @Test
  void eachEnvironmentLeverSetsWhatTheChildReadsAndOnlyUnderTheLever() throws Exception {
    LeverContext c = process(Map.of(LeverContext.FACT_HOST_CPUS, (double) CPUS));
    List<Lever> env = Levers.all().stream().filter(l -> l instanceof EnvironmentLever || l instanceof OmpThreads)
        .toList();
    assertThat(env).hasSize(7);
    for (Lever l : env) {
      Setup s = l.apply(Setup.shipped(), c);
      String name = s.environment().keySet().iterator().next();
      try (ProcessJob j = job("echo \"seen=${" + name + "-unset}\"")) {
        assertThat(line(j.execute(s, Map.of(), l.id()), "seen=")).as(l.id()).isEqualTo(s.environment().get(name));
        assertThat(line(j.execute(Setup.shipped(), Map.of(), "base"), "seen=")).as(l.id()).isEqualTo("unset");
      }
    }
  }

  @Test
  void processAffinityRestrictsTheCpusTheChildMayRunOn() throws Exception {
    Lever l = Levers.byId("process-cpu-affinity");
    LeverContext c = process(Map.of(LeverContext.FACT_HOST_CPUS, (double) CPUS));
    Setup pinned = l.apply(Setup.shipped(), c);
    int cpu = pinned.cpus().first();
    try (ProcessJob j = job("echo \"cpus=$(grep Cpus_allowed_list /proc/self/status | cut -f2)\"")) {
      assertThat(line(j.execute(pinned, Map.of(), "pinned"), "cpus=")).isEqualTo(Integer.toString(cpu));
      String base = line(j.execute(Setup.shipped(), Map.of(), "base"), "cpus=");
      if (CPUS > 1) {
        assertThat(base).isNotEqualTo(Integer.toString(cpu));
      }
    }
  }

  @Test
  void ompThreadsSizeACpuBoundJobsWorkersToTheCpusItMayUse() throws Exception {
    // Like an OpenMP runtime: OMP_NUM_THREADS workers, else one per CPU the process may run on; each burns CPU.
    String body = "n=${OMP_NUM_THREADS:-$(nproc)}\n"
        + "for i in $(seq \"$n\"); do ( s=0; for k in $(seq 20000); do s=$((s+k)); done ) & done\n"
        + "wait\necho \"workers=$n\"\necho \"cpus=$(nproc)\"";
    Lever l = Levers.byId("env-omp-threads");
    // three busy processes share the host's CPUs: each gets its share (at least one)
    LeverContext busy = process(Map.of(LeverContext.FACT_HOST_CPUS, (double) CPUS,
        LeverContext.FACT_JOB_PROCESSES, 3.0));
    Setup onePinned = Setup.shipped().withCpus(Set.of(0));
    try (ProcessJob j = job(body)) {
      ProcessJob.RunResult shared = j.execute(l.apply(Setup.shipped(), busy), Map.of(), "omp");
      assertThat(Integer.parseInt(line(shared, "workers="))).isEqualTo(Math.max(1, CPUS / 3));
      ProcessJob.RunResult base = j.execute(Setup.shipped(), Map.of(), "base");
      assertThat(Integer.parseInt(line(base, "workers="))).isEqualTo(CPUS);
      // pinned to one CPU, the lever starts one worker where the unpinned default would start one per host CPU
      ProcessJob.RunResult pinned = j.execute(l.apply(onePinned, process(Map.of())), Map.of(), "pinned");
      assertThat(line(pinned, "workers=")).isEqualTo("1");
      assertThat(line(pinned, "cpus=")).isEqualTo("1");
    }
  }
}
