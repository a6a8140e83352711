package io.gitm.workloads.af2;

import io.gitm.workload.InputFingerprint;
import io.gitm.workload.WorkloadInput;
import io.gitm.workloads.kit.FileKinds;
import io.gitm.workloads.kit.PinnedDatasets;
import io.gitm.workloads.kit.Settings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * af2 on a user's AlphaFold target: a folder as {@code run_alphafold.py} lays one out (a {@code msas/} folder, or the
 * msas folder itself, with {@code uniref90_hits.sto}, {@code bfd_uniref_hits.a3m} or {@code small_bfd_hits.sto},
 * {@code mgnify_hits.sto}, {@code pdb_hits.hhr}; the query's FASTA beside it, optional), or one {@code .a3m},
 * {@code .sto} or FASTA file. The alignments are merged as AlphaFold's monomer pipeline merges them
 * ({@code make_msa_features}): uniref90 (its first 10000 hits), BFD, MGnify (its first 501), then any other alignment
 * in name order; a row whose aligned sequence an earlier row had is dropped. The model is given the first
 * {@code max-msa} rows; the whole merged alignment's features are written as {@code .npy} files, named and encoded as
 * in AlphaFold's feature dictionary, so that they can be compared with it.
 */
final class Af2Input {
  static final List<String> OPTIONS = List.of("max-msa", "features");
  static final List<String> FORMATS = List.of(
      "an AlphaFold target folder (msas/ with uniref90_hits.sto, bfd_uniref_hits.a3m or small_bfd_hits.sto,"
          + " mgnify_hits.sto, pdb_hits.hhr; the query .fasta beside it) merged as AlphaFold does, or one .a3m, .sto"
          + " or .fasta; --max-msa N rows to the model; options: features=DIR (where the .npy features go)");
  /** AlphaFold's alignments in the order it merges them, with the hits it keeps of each (0: all). */
  private static final Map<String, Integer> KNOWN = knownSources();
  /** Template hits that are not an alignment for the MSA features (hmmsearch's, for the multimer model). */
  private static final String HMMSEARCH_TEMPLATES = "pdb_hits.sto";

  private final WorkloadInput in;
  private final Integer maxMsa;
  private final Path featuresDir;
  private Scanned scan;
  /** The rows the sessions gave the model, once one opened. */
  private int modelRows;

  /**
   * The input as read.
   *
   * @param msa the merged alignment, every row (the features' rows are its distinct ones)
   * @param templates the template hits of the {@code .hhr} files, in file order
   * @param features where the {@code .npy} features were written
   */
  record Scanned(Msa msa, List<HhrReader.Hit> templates, String sha256, long bytes, String format, Path features,
      Map<String, Object> found, List<InputFingerprint.File> files) {}

  private static Map<String, Integer> knownSources() {
    Map<String, Integer> m = new LinkedHashMap<>();
    m.put("uniref90_hits.sto", 10000);
    m.put("bfd_uniref_hits.a3m", 0);
    m.put("bfd_uniclust_hits.a3m", 0);
    m.put("small_bfd_hits.sto", 0);
    m.put("mgnify_hits.sto", 501);
    return m;
  }

  private Af2Input(WorkloadInput in, Integer maxMsa, Path featuresDir) {
    this.in = in;
    this.maxMsa = maxMsa;
    this.featuresDir = featuresDir;
  }

  static Af2Input of(WorkloadInput in) {
    Settings.checkInputOptions(in.options(), "af2", OPTIONS);
    Integer max = null;
    String m = in.options().get("max-msa");
    if (m != null) {
      try {
        max = Integer.parseInt(m.strip());
      } catch (NumberFormatException e) {
        max = -1;
      }
      if (max < 1 || max > 65536) {
        throw new IllegalArgumentException("af2: max-msa must be a number of rows 1..65536, got '" + m + "'");
      }
    }
    String f = in.options().get("features");
    return new Af2Input(in, max, f == null || f.isBlank() ? null : Path.of(f));
  }

  /** The rows the model is given: {@code max-msa}, else {@code dflt} (the device's preset). */
  int maxMsa(int dflt) {
    return maxMsa != null ? maxMsa : dflt;
  }

  /** The model's features for a session: the first {@code maxMsa(dflt)} distinct rows of the merged alignment. */
  synchronized Features modelFeatures(Path dataDir, int dflt) {
    Features f = scanned(dataDir).msa().features(maxMsa(dflt));
    modelRows = f.nSeq();
    return f;
  }

  /** The input, read once: {@code dataDir} holds the features when no {@code features=} folder was given. */
  synchronized Scanned scanned(Path dataDir) {
    if (scan == null) {
      scan = scan(dataDir);
    }
    return scan;
  }

  Optional<InputFingerprint> fingerprint() {
    Scanned s;
    Map<String, Object> found;
    synchronized (this) {
      s = scan;
      if (s == null) {
        return Optional.empty();
      }
      found = new LinkedHashMap<>(s.found());
      if (modelRows > 0) {
        found.put("rowsToModel", modelRows);
      }
    }
    return Optional.of(new InputFingerprint(in.path().toAbsolutePath().toString(), s.sha256(), s.bytes(), s.format(),
        found, s.files()));
  }

  /** One file read: the path relative to the input's root, its bytes' sha256 and size. */
  private record Read(String relative, String sha256, long bytes) {}

  private Scanned scan(Path dataDir) {
    Path p = in.path().toAbsolutePath();
    if (!Files.exists(p)) {
      throw new IllegalArgumentException("af2: " + p + ": no such file or folder");
    }
    Path root = Files.isDirectory(p) ? p : p.getParent();
    Path msas = Files.isDirectory(p.resolve("msas")) ? p.resolve("msas") : p;
    List<Path> alignments = new ArrayList<>();
    List<Path> hhr = new ArrayList<>();
    List<Path> fasta = new ArrayList<>();
    if (Files.isDirectory(p)) {
      for (Path f : list(msas)) {
        String n = name(f);
        if (n.equals(HMMSEARCH_TEMPLATES)) {
          continue;
        }
        if (n.endsWith(".a3m") || n.endsWith(".sto")) {
          alignments.add(f);
        } else if (n.endsWith(".hhr")) {
          hhr.add(f);
        }
      }
      for (Path f : list(p)) {
        if (name(f).endsWith(".fasta") || name(f).endsWith(".fa") || name(f).endsWith(".faa")) {
          fasta.add(f);
        }
      }
      alignments.sort(Comparator.comparing((Path f) -> {
        int k = new ArrayList<>(KNOWN.keySet()).indexOf(name(f));
        return k >= 0 ? String.format("%02d", k) : "~" + name(f);
      }));
      if (alignments.isEmpty() && fasta.isEmpty()) {
        throw new IllegalArgumentException("af2: " + p + " holds no alignment (.a3m, .sto) and no query (.fasta):"
            + " an AlphaFold target folder has msas/ with uniref90_hits.sto, bfd_uniref_hits.a3m, mgnify_hits.sto");
      }
      if (fasta.size() > 1) {
        throw new IllegalArgumentException("af2: " + p + " holds " + fasta.size() + " FASTA files (" + String.join(
            ", ", fasta.stream().map(Af2Input::name).toList()) + "): give the target's folder with one query");
      }
    } else {
      String n = name(p);
      if (n.endsWith(".a3m") || n.endsWith(".sto")) {
        alignments.add(p);
      } else if (n.endsWith(".hhr")) {
        throw new IllegalArgumentException("af2: " + p + " holds template hits, not an alignment: give the target's"
            + " folder (or an .a3m, .sto or .fasta)");
      } else {
        fasta.add(p);
      }
    }
    List<Read> reads = new ArrayList<>();
    String query = null;
    String queryFrom = null;
    String description = null;
    if (!fasta.isEmpty()) {
      Path f = fasta.getFirst();
      Msa q = MsaReader.fasta(text(f, root, reads, "a FASTA query: '>' header lines and residue letters"),
          f.toString());
      query = q.query();
      queryFrom = f.toString();
      description = q.descriptions().getFirst();
    }
    List<Msa> parts = new ArrayList<>();
    Map<String, Object> rows = new LinkedHashMap<>();
    for (Path a : alignments) {
      String n = name(a);
      Msa m;
      if (n.endsWith(".sto")) {
        int cap = Files.isDirectory(p) ? KNOWN.getOrDefault(n, 0) : 0;
        m = StockholmReader.parse(text(a, root, reads, "a Stockholm alignment"), a.toString(), cap > 0 ? cap
            : Integer.MAX_VALUE);
      } else {
        m = MsaReader.a3m(text(a, root, reads, "an A3M alignment: '>' header lines and aligned rows"), a.toString());
      }
      if (query == null) {
        query = m.query();
        queryFrom = a + "'s first row";
        description = m.descriptions().getFirst();
      } else if (!m.query().equals(query)) {
        throw new IllegalArgumentException("af2: " + a + ": its first row (the query) is not the query of "
            + queryFrom + " (" + m.query().length() + " and " + query.length() + " columns" + firstDifference(
            m.query(), query) + "): every alignment of a target starts with the same query");
      }
      parts.add(m);
      rows.put(n, m.depth());
    }
    if (query.length() > 4096) {
      throw new IllegalArgumentException("af2: the query of " + queryFrom + " has " + query.length() + " residues;"
          + " af2 runs up to 4096");
    }
    Msa merged = merge(parts, query, description, p.toString());
    List<HhrReader.Hit> templates = new ArrayList<>();
    for (Path h : hhr) {
      templates.addAll(HhrReader.parse(text(h, root, reads, "an HHsearch result: 'Query', the hit table, 'No N'"
          + " paragraphs"), h.toString()));
    }
    reads.sort(Comparator.comparing(Read::relative));
    String sha;
    if (reads.size() == 1 && !Files.isDirectory(p)) {
      sha = reads.getFirst().sha256();
    } else {
      StringBuilder listing = new StringBuilder();
      reads.forEach(r -> listing.append(r.sha256()).append("  ").append(r.relative()).append('\n'));
      sha = PinnedDatasets.sha256(listing.toString().getBytes(StandardCharsets.UTF_8));
    }
    long bytes = reads.stream().mapToLong(Read::bytes).sum();
    Features all = merged.features(Integer.MAX_VALUE);
    Path out = featuresDir != null ? featuresDir : dataDir.resolve("af2-features").resolve(sha.substring(0, 16));
    Af2Features.write(out, query, merged, templates);
    Map<String, Object> found = new LinkedHashMap<>();
    found.put("residues", query.length());
    found.put("rows", rows);
    found.put("alignments", all.nSeq());
    found.put("deletions", java.util.Arrays.stream(all.deletions()).asLongStream().sum());
    found.put("templates", templates.size());
    if (!templates.isEmpty()) {
      HhrReader.Hit top = templates.getFirst();
      found.put("topTemplate", top.id() + " (probability " + top.probability() + ", query " + top.queryStart() + "-"
          + top.queryEnd() + ")");
    }
    found.put("features", out.toString());
    String format = Files.isDirectory(p) ? "AlphaFold target (" + String.join(", ", reads.stream()
        .map(Read::relative).toList()) + ")" : name(p).endsWith(".sto") ? "Stockholm alignment"
        : name(p).endsWith(".a3m") ? "A3M alignment" : "FASTA query (single sequence)";
    List<InputFingerprint.File> files = reads.stream().map(r -> new InputFingerprint.File(r.relative(),
        root.resolve(r.relative()).toString(), r.sha256(), r.bytes())).toList();
    return new Scanned(merged, List.copyOf(templates), sha, bytes, format, out, found, files);
  }

  /** Every row of {@code parts} in order, the query first (a FASTA query alone is an alignment of itself). */
  private static Msa merge(List<Msa> parts, String query, String description, String source) {
    List<String> descriptions = new ArrayList<>();
    List<String> rows = new ArrayList<>();
    List<int[]> deletions = new ArrayList<>();
    if (parts.isEmpty()) {
      return new Msa(source, List.of(description), List.of(query), List.of(new int[query.length()]));
    }
    for (Msa m : parts) {
      descriptions.addAll(m.descriptions());
      rows.addAll(m.rows());
      deletions.addAll(m.deletions());
    }
    return new Msa(source, descriptions, rows, deletions);
  }

  private static String firstDifference(String a, String b) {
    for (int i = 0; i < Math.min(a.length(), b.length()); i++) {
      if (a.charAt(i) != b.charAt(i)) {
        return "; first differing at column " + (i + 1) + ": '" + a.charAt(i) + "' and '" + b.charAt(i) + "'";
      }
    }
    return "";
  }

  private static List<Path> list(Path dir) {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(Files::isRegularFile).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("af2: " + dir + ": " + e.getMessage(), e);
    }
  }

  private static String name(Path f) {
    return f.getFileName().toString().toLowerCase(Locale.ROOT);
  }

  /** A file's text, its sha256 and size recorded; a binary or compressed file is named as what it is. */
  private static String text(Path f, Path root, List<Read> reads, String expected) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(f);
    } catch (IOException e) {
      throw new UncheckedIOException("af2: " + f + ": " + e.getMessage(), e);
    }
    reads.add(new Read(root.relativize(f.toAbsolutePath()).toString().replace('\\', '/'), PinnedDatasets.sha256(
        bytes), bytes.length));
    String kind = FileKinds.sniff(bytes);
    if (kind != null) {
      throw new MsaFormatException(f.toString(), 1, "the file is " + kind + ", not text (" + expected + ")");
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new MsaFormatException(f.toString(), 1, "not UTF-8 text (" + expected + ")");
    }
  }

  @Override
  public String toString() {
    return "Af2Input[" + in + "]";
  }
}
