package io.gitm.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.testkit.Fixtures;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.tracer.KinetoImporter;
import io.gitm.tracer.TraceReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real PyTorch 2.11 traces whose events were shuffled in the file (scripts/kineto_reorder.py; the counts are in
 * {@code tracer/real/kineto-reordered/manifest.json}, counted with Python): a hundred kernels sit in the file after a
 * later kernel of their stream, none overlaps another in time. Time order is judged by the timestamps, so neither the
 * shuffled nor the original file has a diagnostic of timestamps going backwards, and both import the same kernels.
 */
class ReorderedKinetoTraceTest {
  @TempDir
  Path dir;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"single-stream-mlp", "two-streams"})
  void aRealTraceReorderedInTheFileHasNoDiagnosticOfTimestampsGoingBackwards(String job) throws Exception {
    Analyzed shuffled = analyze("/tracer/real/kineto-reordered/" + job + ".shuffled.pt.trace.json.gz", "s.gtrace");
    Analyzed original = analyze("/tracer/real/kineto/" + job + ".pt.trace.json.gz", "o.gtrace");
    assertThat(shuffled.result().diagnostics()).noneMatch(d -> d.contains("go backwards"));
    assertThat(original.result().diagnostics()).noneMatch(d -> d.contains("go backwards"));
    assertThat(shuffled.kernels()).isNotEmpty().containsExactlyElementsOf(original.kernels());
  }

  private record Analyzed(Analysis.Result result, List<KernelRecord> kernels) {}

  private Analyzed analyze(String resource, String name) throws Exception {
    Path gtrace = dir.resolve(name);
    KinetoImporter.importTrace(Fixtures.file(resource), gtrace);
    List<TraceRecord> records = new ArrayList<>();
    TraceMeta meta;
    try (TraceReader r = TraceReader.open(gtrace)) {
      meta = r.meta();
      r.read(records::add);
    }
    List<KernelRecord> kernels = new ArrayList<>(records.stream().filter(KernelRecord.class::isInstance)
        .map(KernelRecord.class::cast).toList());
    kernels.sort(Comparator.comparingLong(KernelRecord::startNs).thenComparing(KernelRecord::name));
    return new Analyzed(Analysis.analyze(meta, records, Ceilings.forTrace(meta, null).spec()), kernels);
  }
}
