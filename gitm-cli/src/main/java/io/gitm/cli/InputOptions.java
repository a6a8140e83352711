package io.gitm.cli;

import io.gitm.workload.Workload;
import io.gitm.workload.WorkloadInput;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** {@code --input} and its options: a managed workload on the user's own data instead of its generated dataset. */
final class InputOptions {
  @Option(names = "--input", paramLabel = "PATH",
      description = "Run the workload on this input instead of its generated dataset (formats per workload: see"
          + " gitm run --help, docs/hft-lob.md, docs/kitti.md, docs/af2.md).")
  Path input;

  @Option(names = "--symbols", paramLabel = "SYM,...", split = ",",
      description = "hft-lob with --input: keep only these instruments (stock symbols of the stock directory).")
  List<String> symbols;

  @Option(names = "--book-depth", paramLabel = "N",
      description = "hft-lob with --input: the price levels a side the books hold; data that needs more is refused"
          + " naming where (default: as many as the data needs).")
  Integer bookDepth;

  @Option(names = "--max-msa", paramLabel = "N",
      description = "af2 with --input: the merged alignment's rows the model is given (default: the device's"
          + " preset, 512 on a GPU).")
  Integer maxMsa;

  @Option(names = "--input-option", paramLabel = "KEY=VALUE",
      description = "A workload's own option for reading --input (repeatable).")
  Map<String, String> options = new LinkedHashMap<>();

  /** The options for reading the input, as the workload takes them ({@code symbols}, {@code book-depth}, …). */
  Map<String, String> all() {
    Map<String, String> o = new LinkedHashMap<>(options);
    if (symbols != null) {
      o.put("symbols", String.join(",", symbols));
    }
    if (bookDepth != null) {
      o.put("book-depth", bookDepth.toString());
    }
    if (maxMsa != null) {
      o.put("max-msa", maxMsa.toString());
    }
    return o;
  }

  /** What a run's journal keeps of these options, for a resume ({@link #restore}). */
  void journal(Map<String, Object> m) {
    if (input != null) {
      m.put("input", input.toAbsolutePath().toString());
      m.put("input-options", all());
    }
  }

  /** The options a run's journal kept ({@link #journal}). */
  void restore(Map<String, ?> journaled) {
    Object in = journaled.get("input");
    input = in == null ? null : Path.of(in.toString());
    symbols = null;
    bookDepth = null;
    maxMsa = null;
    options = new LinkedHashMap<>();
    if (journaled.get("input-options") instanceof Map<?, ?> o) {
      o.forEach((k, v) -> options.put(k.toString(), v.toString()));
    }
  }

  boolean given() {
    return input != null || symbols != null || bookDepth != null || maxMsa != null || !options.isEmpty();
  }

  /** {@code w} on the input given, or {@code w} itself when none was. */
  Workload apply(CommandLine cl, Workload w) {
    if (input == null) {
      if (given()) {
        throw new CommandLine.ParameterException(cl, "--symbols, --book-depth, --max-msa and --input-option need"
            + " --input PATH");
      }
      return w;
    }
    if (!Files.exists(input)) {
      throw new CommandLine.ParameterException(cl, "--input " + input + " does not exist");
    }
    try {
      return w.withInput(new WorkloadInput(input, all()));
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cl, Main.oneLine(e.getMessage()));
    }
  }

  /** The help section that lists each workload with the input formats it reads. */
  static final String HELP_SECTION = "inputs";

  /** Adds {@link #HELP_SECTION} before the footer of {@code sub}'s help; it is rendered only when help is shown. */
  static void addHelpSection(CommandLine sub) {
    sub.getHelpSectionMap().put(HELP_SECTION, help -> formats());
    List<String> keys = new java.util.ArrayList<>(sub.getHelpSectionKeys());
    keys.add(keys.indexOf(CommandLine.Model.UsageMessageSpec.SECTION_KEY_FOOTER_HEADING), HELP_SECTION);
    sub.setHelpSectionKeys(keys);
  }

  /** Each workload and the inputs it reads, for the commands' help. */
  static String formats() {
    String nl = System.lineSeparator();
    StringBuilder b = new StringBuilder(nl + "Workloads and their inputs (--input PATH):" + nl);
    for (Workload w : Workloads.all().stream().sorted(java.util.Comparator.comparing(x -> x.spec().name())).toList()) {
      List<String> f = w.inputFormats();
      b.append("  ").append(w.spec().name()).append(": ").append(f.isEmpty() ? "its generated dataset only (no --input"
          + " yet)" : String.join("; ", f)).append(nl);
    }
    return b.toString();
  }
}
