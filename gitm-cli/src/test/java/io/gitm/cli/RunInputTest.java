package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gitm run --workload W --input PATH}: a built-in workload on the user's own file, here an ITCH 5.0 file
 * written by Python's struct and gzip from the specification's layouts (gitm-workloads' itch_gen.py).
 */
class RunInputTest {
  @TempDir
  Path dir;

  /** Runs gitm-workloads' Python writer {@code workload/name} on {@code out}; returns what it says it wrote. */
  private static Map<String, String> python(String workload, String name, Path out, String... args)
      throws IOException, InterruptedException {
    Path script = Path.of("..", "gitm-workloads", "src", "test", "resources", "io", "gitm", "workloads", workload,
        name).toAbsolutePath().normalize();
    List<String> cmd = new java.util.ArrayList<>(List.of("python3", script.toString(), out.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as("%s (needs python3)", name).isZero();
    Map<String, String> m = new HashMap<>();
    text.lines().map(l -> l.split(" ", 2)).forEach(kv -> m.put(kv[0], kv[1]));
    return m;
  }

  /** Writes an ITCH file with the Python writer; returns what it says it wrote. */
  static Map<String, String> itch(Path out, String... args) throws IOException, InterruptedException {
    return python("hft", "itch_gen.py", out, args);
  }

  /** {@code gitm run} on the simulated device, four iterations of one lever, {@code --json}; it must succeed. */
  private CliResult run(String... workloadAndInput) {
    List<String> args = new java.util.ArrayList<>(List.of("run"));
    args.addAll(List.of(workloadAndInput));
    args.addAll(List.of("--budget", "30s", "--target", "15%", "--device", "sim", "--max-iterations", "4", "--levers",
        "pinned-host-memory", "--scratch", dir.resolve("s").toString(), "--json"));
    CliResult r = SteppedRuns.run(args.toArray(String[]::new));
    assertThat(r.code()).as(r.err()).isZero();
    return r;
  }

  @Test
  void aRunOnTheUsersGzippedItchFileFingerprintsItInTheRunFolderAndTheReport() throws Exception {
    Path f = dir.resolve("day.itch.gz");
    Map<String, String> want = itch(f, "--gzip", "--pick", "AAPL,SPY");
    CliResult r = run("--workload", "hft-lob", "--input", f.toString(), "--symbols", "AAPL,SPY");
    Path run = Path.of(Json.MAPPER.readTree(r.out()).get("folder").asString());
    var input = Json.MAPPER.readTree(run.resolve("input.json").toFile());
    assertThat(input.get("sha256").asString()).isEqualTo(want.get("sha256"));
    assertThat(input.get("bytes").asLong()).isEqualTo(Long.parseLong(want.get("bytes")));
    assertThat(input.get("format").asString()).isEqualTo("ITCH 5.0, gzip, 2-byte length prefixes");
    assertThat(input.get("found").get("messages").asLong()).isEqualTo(Long.parseLong(want.get("picked.messages")));
    assertThat(input.get("found").get("instruments").asInt()).isEqualTo(2);
    var report = Json.MAPPER.readTree(run.resolve("report.json").toFile());
    assertThat(report.get("run").get("input").get("sha256").asString()).isEqualTo(want.get("sha256"));
    assertThat(Files.readString(run.resolve("report.md"))).contains("| input | `" + f.toAbsolutePath() + "` (ITCH"
        + " 5.0, gzip");
    assertThat(Files.readString(run.resolve("report.html"))).contains(want.get("sha256"));
  }

  /** Writes a KITTI folder with gitm-workloads' kitti_gen.py (Python's struct, zlib and hashlib alone). */
  static Map<String, String> kitti(Path out, String... args) throws IOException, InterruptedException {
    return python("kitti", "kitti_gen.py", out, args);
  }

  @Test
  void aKittiRunOnTheUsersLabelledFolderScoresItsDetectionsAndSaysWhatWeightsMadeThem() throws Exception {
    Path root = dir.resolve("training");
    Map<String, String> want = kitti(root, "--frames", "3", "--points", "3000");
    CliResult r = run("--workload", "kitti", "--input", root.toString());
    var out = Json.MAPPER.readTree(r.out());
    Path run = Path.of(out.get("folder").asString());
    var input = Json.MAPPER.readTree(run.resolve("input.json").toFile());
    assertThat(input.get("sha256").asString()).isEqualTo(want.get("sha256"));
    assertThat(input.get("found").get("frames").asInt()).isEqualTo(3);
    assertThat(input.get("found").get("points").asLong()).isEqualTo(Long.parseLong(want.get("points")));
    var score = Json.MAPPER.readTree(run.resolve("score.json").toFile());
    assertThat(score.get("model").asString()).startsWith("seeded, untrained weights");
    assertThat(score.get("rows").get(1).get("name").asString()).isEqualTo("Car moderate");
    assertThat(score.get("rows").get(1).get("values").get(0).asLong())
        .isEqualTo(Long.parseLong(want.get("gt.Car.moderate")));
    assertThat(out.get("score").get("method").asString()).contains("over 3 of 3 labelled frames");
    var report = Json.MAPPER.readTree(run.resolve("report.json").toFile());
    assertThat(report.get("run").get("score")).isEqualTo(score);
    assertThat(Files.readString(run.resolve("report.md"))).contains("## Output score")
        .contains("**What produced the output:** seeded, untrained weights");
  }

  @Test
  void aResumeOnAnInputThatChangedSinceTheRunReadItIsRefusedAndOnTheSameInputContinues() throws Exception {
    Path f = dir.resolve("day.itch");
    itch(f);
    byte[] original = Files.readAllBytes(f);
    CliResult first = run("--workload", "hft-lob", "--input", f.toString());
    Path folder = Path.of(Json.MAPPER.readTree(first.out()).get("folder").asString());
    RunResumeEndToEndTest.cutAfterTheProfile(folder);
    itch(f, "--framing", "zero");
    CliResult changed = CliResult.run("run", "--resume", folder.toString(), "--scratch", dir.resolve("s").toString());
    assertThat(changed.code()).isEqualTo(1);
    assertThat(changed.err().strip().lines().count()).as(changed.err()).isEqualTo(1);
    assertThat(changed.errorLine()).contains("the input " + f.toAbsolutePath() + " is not the one run "
        + folder.getFileName() + " read").contains("a resume continues on the same data");
    Files.write(f, original);
    CliResult same = SteppedRuns.run("run", "--resume", folder.toString(), "--scratch", dir.resolve("s").toString(),
        "--json");
    assertThat(same.code()).as(same.err()).isZero();
  }

  @Test
  void optionsWithoutAnInputAMissingInputAndAnUnknownOptionAreUsageErrors() throws Exception {
    Path f = dir.resolve("day.itch");
    itch(f);
    CliResult symbols = CliResult.run("run", "--workload", "hft-lob", "--symbols", "AAPL", "--budget", "30s",
        "--target", "15%", "--scratch", dir.toString());
    assertThat(symbols.code()).isEqualTo(Main.USAGE);
    assertThat(symbols.errorLine()).contains("need --input PATH");
    CliResult missing = CliResult.run("run", "--workload", "hft-lob", "--input", dir.resolve("none.itch").toString(),
        "--budget", "30s", "--target", "15%", "--scratch", dir.toString());
    assertThat(missing.code()).isEqualTo(Main.USAGE);
    assertThat(missing.errorLine()).contains("none.itch does not exist");
    CliResult option = CliResult.run("run", "--workload", "hft-lob", "--input", f.toString(), "--input-option",
        "depth=3", "--budget", "30s", "--target", "15%", "--scratch", dir.toString());
    assertThat(option.code()).isEqualTo(Main.USAGE);
    assertThat(option.errorLine()).contains("unknown input option 'depth'");
  }

  @Test
  void aSymbolTheFileDoesNotListFailsTheRunInOneLineAndWritesNoRunFolder() throws Exception {
    Path f = dir.resolve("day.itch");
    itch(f);
    Path scratch = dir.resolve("s");
    CliResult r = CliResult.run("run", "--workload", "hft-lob", "--input", f.toString(), "--symbols", "NOPE",
        "--budget", "30s", "--target", "15%", "--device", "sim", "--scratch", scratch.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().strip().lines().count()).as(r.err()).isEqualTo(1);
    assertThat(r.errorLine()).contains("--symbols NOPE is not in " + f + "'s stock directory");
    assertThat(scratch.resolve("runs")).satisfiesAnyOf(p -> assertThat(p).doesNotExist(), p -> assertThat(p)
        .isEmptyDirectory());
  }

  @Test
  void anAf2RunOnTheUsersAlphaFoldTargetWritesItsFeaturesAndGivesTheModelMaxMsaRows() throws Exception {
    Path target = dir.resolve("T1000");
    Map<String, String> want = python("af2", "af2_gen.py", target, "--residues", "40", "--mgnify", "30");
    CliResult r = run("--workload", "af2", "--input", target.toString(), "--max-msa", "8");
    Path run = Path.of(Json.MAPPER.readTree(r.out()).get("folder").asString());
    var input = Json.MAPPER.readTree(run.resolve("input.json").toFile());
    assertThat(input.get("sha256").asString()).isEqualTo(want.get("sha256"));
    assertThat(input.get("found").get("alignments").asInt()).isEqualTo(Integer.parseInt(want.get("alignments")));
    assertThat(input.get("found").get("templates").asInt()).isEqualTo(3);
    assertThat(input.get("found").get("rowsToModel").asInt()).isEqualTo(8);
    Path features = Path.of(input.get("found").get("features").asString());
    assertThat(features.resolve("msa.npy")).isRegularFile();
    assertThat(features.resolve("deletion_matrix_int.npy")).isRegularFile();
    assertThat(Files.readString(run.resolve("report.md"))).contains("| input | `" + target.toAbsolutePath()
        + "` (AlphaFold target (msas/bfd\\_uniref\\_hits.a3m");
    CliResult wrong = CliResult.run("run", "--workload", "af2", "--input", target.resolve("msas/pdb_hits.hhr")
        .toString(), "--budget", "30s", "--target", "15%", "--device", "sim", "--scratch", dir.resolve("w")
        .toString());
    assertThat(wrong.code()).isEqualTo(1);
    assertThat(wrong.errorLine()).contains("holds template hits, not an alignment");
  }

  @Test
  void runHelpListsEveryWorkloadWithTheInputsItReads() {
    CliResult r = CliResult.run("run", "--help");
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("Workloads and their inputs (--input PATH):")
        .contains("  hft-lob: an ITCH 5.0 file").contains("  af2: an AlphaFold target folder (msas/")
        .contains("  kitti: a KITTI object-detection folder (velodyne/*.bin");
  }
}
