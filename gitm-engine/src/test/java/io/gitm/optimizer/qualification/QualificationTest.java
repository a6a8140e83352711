package io.gitm.optimizer.qualification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gitm.agents.Candidate;
import io.gitm.kernels.Levers;
import io.gitm.optimizer.Analysis;
import io.gitm.optimizer.Ceilings;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.TraceMeta;
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
}
