package io.gitm.workloads.af2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gitm.workload.WorkloadInput;
import io.gitm.workloads.kit.PinnedDatasets;
import io.gitm.workloads.kit.PythonWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * af2 on a user's AlphaFold target folder, written by {@code af2_gen.py} with Python's standard library, which also
 * computes the MSA features as AlphaFold's parsers and {@code make_msa_features} do: the merged, de-duplicated
 * alignment, its deletion counts and the template hits against the writer's, the {@code .npy} files against its
 * digests (and against NumPy's reading of them where NumPy is installed).
 */
class Af2InputTest {
  @TempDir
  Path dir;

  static Map<String, String> python(Path out, String... args) throws IOException, InterruptedException {
    return PythonWriter.write(Af2InputTest.class, "af2_gen.py", out, args);
  }

  private static Af2Input input(Path p, String... options) {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i < options.length; i += 2) {
      o.put(options[i], options[i + 1]);
    }
    return Af2Input.of(new WorkloadInput(p, o));
  }

  /** The data of a .npy file written by {@link Npy}: its header checked, the rest returned. */
  private static byte[] npyData(Path f, String descr, String shape) throws IOException {
    byte[] b = Files.readAllBytes(f);
    int len = ByteBuffer.wrap(b, 8, 2).order(ByteOrder.LITTLE_ENDIAN).getShort() & 0xffff;
    String header = new String(b, 10, len, StandardCharsets.US_ASCII);
    assertThat(header).contains("'descr': '" + descr + "'").contains("'shape': (" + shape + ")").endsWith("\n");
    assertThat((10 + len) % 64).isZero();
    return Arrays.copyOfRange(b, 10 + len, b.length);
  }

  @Test
  void aTargetFolderIsMergedAndDeduplicatedAsAlphaFoldsPipelineDoesAndItsFeaturesWrittenAsNpy() throws Exception {
    Path target = dir.resolve("T1000");
    Map<String, String> want = python(target);
    Af2Input in = input(target);
    Af2Input.Scanned s = in.scanned(dir.resolve("data"));
    assertThat(s.sha256()).isEqualTo(want.get("sha256"));
    assertThat(s.bytes()).isEqualTo(Long.parseLong(want.get("bytes")));
    assertThat(s.format()).isEqualTo("AlphaFold target (msas/bfd_uniref_hits.a3m, msas/mgnify_hits.sto,"
        + " msas/pdb_hits.hhr, msas/uniref90_hits.sto, query.fasta)");
    assertThat(s.msa().query()).isEqualTo(want.get("query"));
    @SuppressWarnings("unchecked")
    Map<String, Object> rows = (Map<String, Object>) s.found().get("rows");
    assertThat(rows).containsExactly(Map.entry("uniref90_hits.sto", Integer.parseInt(want.get(
        "rows.uniref90_hits.sto"))), Map.entry("bfd_uniref_hits.a3m", Integer.parseInt(want.get(
        "rows.bfd_uniref_hits.a3m"))), Map.entry("mgnify_hits.sto", 501));
    int n = Integer.parseInt(want.get("residues"));
    int alignments = Integer.parseInt(want.get("alignments"));
    assertThat(s.found()).containsEntry("alignments", alignments).containsEntry("residues", n)
        .containsEntry("deletions", Long.parseLong(want.get("deletions"))).containsEntry("templates", 3);
    Path f = s.features();
    assertThat(PinnedDatasets.sha256(npyData(f.resolve("msa.npy"), "<i4", alignments + ", " + n)))
        .isEqualTo(want.get("sha256.msa"));
    assertThat(PinnedDatasets.sha256(npyData(f.resolve("deletion_matrix_int.npy"), "<i4", alignments + ", " + n)))
        .isEqualTo(want.get("sha256.deletion_matrix_int"));
    assertThat(PinnedDatasets.sha256(npyData(f.resolve("aatype.npy"), "<i4", n + ", 21")))
        .isEqualTo(want.get("sha256.aatype"));
    assertThat(ByteBuffer.wrap(npyData(f.resolve("num_alignments.npy"), "<i4", n + ",")).order(
        ByteOrder.LITTLE_ENDIAN).getInt(4 * (n - 1))).isEqualTo(alignments);
    for (HhrReader.Hit h : s.templates()) {
      String[] w = want.get("template." + h.index()).split(" ");
      assertThat(h.id()).isEqualTo(w[0]);
      assertThat(h.queryStart() + "-" + h.queryEnd()).isEqualTo(w[1]);
      assertThat(h.hitStart() + "-" + h.hitEnd()).isEqualTo(w[2]);
      assertThat(h.probability()).isEqualTo(Double.parseDouble(w[3]));
      assertThat(h.sumProbs()).isEqualTo(Double.parseDouble(w[4]));
      assertThat(h.query().replace("-", "")).isEqualTo(want.get("query").substring(h.queryStart() - 1,
          h.queryEnd()));
    }
    assertThat(new String(npyData(f.resolve("template_domain_names.npy"), "|S6", "3,"), StandardCharsets.US_ASCII))
        .startsWith(Af2Features.domain(s.templates().getFirst().id()));
    // the model takes the first max-msa distinct rows
    assertThat(s.msa().features(in.maxMsa(16)).nSeq()).isEqualTo(16);
    assertThat(input(target, "max-msa", "600").maxMsa(16)).isEqualTo(600);
    assertThat(s.msa().features(600).nSeq()).isEqualTo(alignments);
    assertThat(in.fingerprint()).hasValueSatisfying(fp -> assertThat(fp.found().get("features")).isEqualTo(
        f.toString()));
  }

  @Test
  void numpyReadsTheFeaturesAsTheWritersOwnArrays() throws Exception {
    Path target = dir.resolve("T1000");
    python(target, "--residues", "45", "--mgnify", "40");
    Af2Input.Scanned s = input(target, "features", dir.resolve("feat").toString()).scanned(dir.resolve("data"));
    assertThat(s.features()).isEqualTo(dir.resolve("feat"));
    Process p = new ProcessBuilder("python3", Path.of(Af2InputTest.class.getResource("af2_gen.py").toURI())
        .toString(), dir.resolve("again").toString(), "--residues", "45", "--mgnify", "40", "--check",
        s.features().toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int rc = p.waitFor();
    assumeTrue(rc != 3, "NumPy is not installed for python3: " + out.strip());
    assertThat(rc).as(out).isZero();
    assertThat(out).contains("checked 4");
  }

  @Test
  void oneAlignmentFileIsReadAloneAndHashedAsItself() throws Exception {
    Path target = dir.resolve("T1000");
    Map<String, String> want = python(target, "--no-hhr");
    Af2Input.Scanned a3m = input(target.resolve("msas/bfd_uniref_hits.a3m")).scanned(dir.resolve("data"));
    assertThat(a3m.sha256()).isEqualTo(want.get("sha256.msas/bfd_uniref_hits.a3m"));
    assertThat(a3m.format()).isEqualTo("A3M alignment");
    assertThat(a3m.msa().depth()).isEqualTo(Integer.parseInt(want.get("rows.bfd_uniref_hits.a3m")));
    Af2Input.Scanned sto = input(target.resolve("msas/mgnify_hits.sto")).scanned(dir.resolve("data"));
    assertThat(sto.format()).isEqualTo("Stockholm alignment");
    assertThat(sto.msa().depth()).as("a lone file has no per-database cap").isEqualTo(520);
    Af2Input.Scanned fasta = input(target.resolve("query.fasta")).scanned(dir.resolve("data"));
    assertThat(fasta.msa().depth()).isEqualTo(1);
    assertThat(fasta.msa().query()).isEqualTo(want.get("query"));
  }

  @Test
  void anAlignmentWhoseQueryIsNotTheTargetsIsRefusedNamingBoth() throws Exception {
    Path target = dir.resolve("T1000");
    python(target);
    Files.writeString(target.resolve("query.fasta"), ">other\nMKVLAAGIVG\n");
    assertThatThrownBy(() -> input(target).scanned(dir)).hasMessageContaining("uniref90_hits.sto: its first row"
        + " (the query) is not the query of " + target.resolve("query.fasta"));
  }

  @Test
  void malformedAndWrongKindsOfFilesAreRefusedNamingFileAndLine() throws Exception {
    Path target = dir.resolve("T1000");
    python(target);
    Path sto = target.resolve("msas/mgnify_hits.sto");
    String text = Files.readString(sto);
    List<String> lines = text.lines().toList();
    int row = lines.indexOf(lines.stream().filter(l -> l.startsWith("UniRef90_MG00002")).findFirst().orElseThrow());
    String[] broken = lines.toArray(String[]::new);
    broken[row] = broken[row] + " extra";
    Files.writeString(sto, String.join("\n", broken));
    assertThatThrownBy(() -> input(target).scanned(dir)).isInstanceOf(MsaFormatException.class)
        .hasMessage(sto + " line " + (row + 1) + ": an alignment line is a name and its residues, got 3 fields");
    broken[row] = broken[row].substring(0, broken[row].length() - " extra".length() - 2);
    Files.writeString(sto, String.join("\n", broken));
    assertThatThrownBy(() -> input(target).scanned(dir)).hasMessageContaining("row 'UniRef90_MG00002/1-60' has");
    try (GZIPOutputStream gz = new GZIPOutputStream(Files.newOutputStream(sto))) {
      gz.write(text.getBytes(StandardCharsets.UTF_8));
    }
    assertThatThrownBy(() -> input(target).scanned(dir)).hasMessage(sto + " line 1: the file is gzip-compressed"
        + " (decompress it first), not text (a Stockholm alignment)");
    Files.writeString(sto, ">query\nMKV\n");
    assertThatThrownBy(() -> input(target).scanned(dir)).hasMessage(sto + " line 1: not a Stockholm alignment: it"
        + " starts '>query', not '# STOCKHOLM 1.0'");
    Files.writeString(sto, text);
    Path hhr = target.resolve("msas/pdb_hits.hhr");
    Files.writeString(hhr, Files.readString(hhr).replaceFirst("Probab=", "Prob="));
    assertThatThrownBy(() -> input(target).scanned(dir)).isInstanceOf(MsaFormatException.class)
        .hasMessageContaining(hhr + " line ").hasMessageContaining("hit 1: no summary 'Probab=");
    assertThatThrownBy(() -> input(target, "max-msa", "0")).hasMessageContaining("max-msa must be a number of rows");
    assertThatThrownBy(() -> input(target, "depth", "3")).hasMessageContaining("unknown input option 'depth'");
    Files.createDirectories(dir.resolve("empty"));
    assertThatThrownBy(() -> input(dir.resolve("empty")).scanned(dir)).hasMessageContaining("holds no alignment");
  }
}
