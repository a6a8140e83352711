package io.gitm.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.workload.OutputDigest;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The live equivalence check's outputs compared as restart mode compares output files: numpy's allclose with the
 * run's {@code --rtol} and {@code --atol}, so that logits near zero which TF32 moves by a little are not "changed".
 */
class LiveCheckDigestTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static JsonNode output(double... values) throws Exception {
    StringBuilder v = new StringBuilder();
    for (double d : values) {
      v.append(v.isEmpty() ? "" : ",").append(d);
    }
    return JSON.readTree("{\"sha256\":\"s\",\"fixedSha256\":\"f\",\"values\":[" + v + "],\"count\":"
        + values.length + "}");
  }

  @Test
  void valuesNearZeroAreComparedWithinAtolAndLargeOnesWithinRtol() throws Exception {
    double floor = new ProcessSpec(List.of("python3"), false, Path.of("."), Map.of(),
        ProcessMetric.counted(ProcessMetric.Kind.STEPS), List.of(), 1e-2, 1e-2, null).floor();
    OutputDigest fp32 = LiveJob.digest(output(0.001, 12.0, -3.0), floor);
    OutputDigest tf32 = LiveJob.digest(output(-0.001, 12.01, -3.004), floor);
    assertThat(fp32.maxRelativeDifference(tf32)).as("within rtol and atol 1e-2").isLessThan(1e-2);

    OutputDigest far = LiveJob.digest(output(0.5, 12.0, -3.0), floor);
    assertThat(fp32.maxRelativeDifference(far)).as("0.499 apart near zero: beyond atol").isGreaterThan(1e-2);
    OutputDigest pureRelative = LiveJob.digest(output(0.001, 12.0, -3.0), OutputDigest.DEFAULT_FLOOR);
    assertThat(pureRelative.maxRelativeDifference(LiveJob.digest(output(-0.001, 12.01, -3.004),
        OutputDigest.DEFAULT_FLOOR))).as("without atol the near-zero pair alone differs by 200%").isEqualTo(2.0);
  }
}
