package io.gitm.cli;

import io.gitm.analysis.Analysis;
import io.gitm.analysis.Ceilings;
import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.tracer.KinetoImporter;
import io.gitm.tracer.TraceReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;

/** A PyTorch profiler (Kineto) trace of a black-box job, analyzed as {@code gitm analyze} does, in one line. */
final class KinetoEvidence {
  private KinetoEvidence() {}

  static String summarize(CommandLine cl, Path trace) {
    if (!Files.isRegularFile(trace)) {
      throw new CommandLine.ParameterException(cl, "--kineto " + trace + ": no such file");
    }
    Path tmp = null;
    try {
      tmp = Files.createTempFile("gitm-kineto-", ".gtrace");
      Files.delete(tmp);
      KinetoImporter.importTrace(trace, tmp);
      List<TraceRecord> records = new ArrayList<>();
      TraceMeta meta;
      try (TraceReader r = TraceReader.open(tmp)) {
        meta = r.meta();
        r.read(records::add);
      }
      Analysis.Result a = Analysis.analyze(meta, records, Ceilings.forTrace(meta, null).spec());
      StringBuilder sb = new StringBuilder("PyTorch profiler trace " + trace.getFileName() + ": " + records.size()
          + " records, " + a.violations().size() + " invariant violations");
      List<Hypothesis> hs = a.hypotheses();
      if (hs.isEmpty()) {
        sb.append(", no cause attributed");
      }
      for (int i = 0; i < Math.min(3, hs.size()); i++) {
        Hypothesis h = hs.get(i);
        sb.append(i == 0 ? "; causes: " : ", ").append(h.cause().label()).append(String.format(Locale.ROOT,
            " (%.1f%% of the time, confidence %.2f)", 100 * h.effect(), h.confidence()));
      }
      return sb.toString();
    } catch (IOException e) {
      throw new CommandLine.ParameterException(cl, "--kineto " + trace + ": " + Main.oneLine(e.getMessage()));
    } finally {
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp);
        } catch (IOException ignored) {
          // a temporary file
        }
      }
    }
  }
}
