package io.gitm.optimizer.qualification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gitm.agents.Candidate;
import io.gitm.kernels.Levers;
import io.gitm.optimizer.Analysis;
import io.gitm.optimizer.Ceilings;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QualificationTest {
  @Test
  void aTraceWithoutKernelsRulesNothingOutAndSaysWhy() {
    TraceMeta meta = new TraceMeta("black-box process", ClockDomain.HOST_MONOTONIC, List.of(), Map.of());
    Analysis.Result a = Analysis.analyze(meta, List.of(), Ceilings.forTrace(meta, null).spec());
    Qualification q = Qualification.of(a, List.of(Candidate.prior(Levers.byId("env-omp-threads"), 1.3, 0.1)), 0.15);
    assertThat(q.reachable()).isTrue();
    assertThat(q.predictedHeadroom()).isCloseTo(0.3, within(1e-9));
    assertThat(q.diagnosis()).contains("holds no kernel").contains("the gates decide");
    assertThat(q.summary()).isEqualTo("no kernel traced: no floor; levers estimate 30%: target not ruled out");
  }

  /** 100 FP32 GEMMs of 2 ms back to back: the kernels fill the span and each runs at its fastest. */
  static Analysis.Result gemmBound() {
    TraceMeta meta = new TraceMeta("black-box process", ClockDomain.HOST_MONOTONIC, List.of(), Map.of());
    List<TraceRecord> trace = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      long start = 1_000_000L + i * 2_000_000L;
      trace.add(new KernelRecord("cutlass_80_simt_sgemm_256x128_8x4_nn_align1", 0, 7, i + 1, start,
          start + 2_000_000L, new Dim3(512, 1, 1), new Dim3(256, 1, 1), 128, 0, 0));
    }
    return Analysis.analyze(meta, trace, Ceilings.forTrace(meta, null).spec());
  }

  @Test
  void kernelsAtTheirFastestRuleOutTheTargetForLeversThatKeepTheKernels() {
    Qualification q = Qualification.of(gemmBound(), List.of(Candidate.prior(Levers.byId("env-omp-threads"), 1.3,
        0.1)), 0.15);
    assertThat(q.reachable()).isFalse();
    assertThat(q.floorHeadroom()).isLessThan(0.15);
    assertThat(q.diagnosis()).contains("is not reachable").contains("without changing the kernels")
        .doesNotContain("moves that floor");
  }

  @Test
  void aLeverThatReplacesTheKernelsMovesTheFloorByItsPrediction() {
    Qualification q = Qualification.of(gemmBound(), List.of(Candidate.prior(Levers.byId("env-tf32-override"), 3.0,
        2.0), Candidate.prior(Levers.byId("env-omp-threads"), 1.01, 0.02)), 0.15);
    assertThat(q.reachable()).isTrue();
    assertThat(q.floorHeadroom()).isGreaterThan(1.9);
    assertThat(q.diagnosis()).contains("looks reachable").contains("env-tf32-override, which replaces kernels, moves"
        + " that floor by its predicted 200%");
  }
}
