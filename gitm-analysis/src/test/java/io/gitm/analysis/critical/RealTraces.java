package io.gitm.analysis.critical;

import io.gitm.trace.TraceRecord;
import io.gitm.tracer.KinetoImporter;
import io.gitm.tracer.TraceReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The real PyTorch profiler traces of gitm-trace's test resources, imported. */
final class RealTraces {
  private static final Path DIR = Path.of("../gitm-trace/src/test/resources/tracer/real/kineto");

  private RealTraces() {}

  static List<TraceRecord> load(String job, Path tmp) throws IOException {
    Path gtrace = tmp.resolve(job + ".gtrace");
    KinetoImporter.importTrace(DIR.resolve(job + ".pt.trace.json.gz"), gtrace);
    List<TraceRecord> out = new ArrayList<>();
    try (TraceReader r = TraceReader.open(gtrace)) {
      r.read(out::add);
    }
    return out;
  }
}
