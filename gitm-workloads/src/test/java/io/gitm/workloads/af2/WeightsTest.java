package io.gitm.workloads.af2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.device.Device;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * AlphaFold2 parameter files are read by their published names: the fixtures are written by numpy
 * ({@code src/test/resources/af2/make_params_fixture.py}) in the published layout, with a text listing of every value.
 */
class WeightsTest {
  @TempDir
  static Path tmp;

  static Path params;
  static Path compressed;
  static Path variants;
  /** The listing: name to shape and values, as numpy wrote them. */
  static Map<String, Listed> listing;

  record Listed(int[] shape, float[] values) {
  }

  static Path resource(String name) throws URISyntaxException {
    return Path.of(WeightsTest.class.getResource("/af2/" + name).toURI());
  }

  @BeforeAll
  static void fixtures() throws Exception {
    params = resource("af2-tiny-params.npz");
    compressed = resource("af2-tiny-params-compressed.npz");
    variants = resource("af2-npy-variants.npz");
    listing = new LinkedHashMap<>();
    for (String line : Files.readAllLines(resource("af2-tiny-params.txt"))) {
      if (line.startsWith("#")) {
        continue;
      }
      String[] parts = line.split(" ");
      int[] shape = parts[1].isEmpty() ? new int[0] : Arrays.stream(parts[1].split(",")).mapToInt(Integer::parseInt)
          .toArray();
      float[] values = new float[parts.length - 2];
      for (int i = 0; i < values.length; i++) {
        values[i] = (float) Double.parseDouble(parts[i + 2]);
      }
      listing.put(parts[0], new Listed(shape, values));
    }
  }

  @Test
  void everyTrunkParameterIsReadUnderItsPublishedNameWithNumpysValues() {
    Weights w = Weights.load(params);
    Dims d = w.dims();
    // the architecture is read from the shapes numpy wrote
    assertThat(d.msaChannels()).isEqualTo(listing.get(Weights.EVOFORMER + "preprocess_msa//weights").shape()[1]);
    assertThat(d.blocks()).isEqualTo(listing.get(Weights.BLOCK + Weights.ROW + "/query_norm//scale").shape()[0]);
    List<Weights.Spec> specs = Weights.specs(d);
    for (Weights.Spec s : specs) {
      Listed l = listing.get(s.name());
      assertThat(l).as("numpy wrote a parameter named %s", s.name()).isNotNull();
      assertThat(s.shape()).as(s.name()).containsExactly(l.shape());
      if (s.stacked()) {
        for (int b = 0; b < d.blocks(); b++) {
          int n = s.blockSize();
          assertThat(w.block(s.name(), b)).as(s.name() + " block " + b)
              .containsExactly(Arrays.copyOfRange(l.values(), b * n, (b + 1) * n));
        }
      } else {
        assertThat(w.get(s.name())).as(s.name()).containsExactly(l.values());
      }
    }
    // everything numpy wrote under the trunk's names is read; the rest of the model is not
    long trunk = listing.keySet().stream().filter(n -> specs.stream().anyMatch(s -> s.name().equals(n))).count();
    assertThat(trunk).isEqualTo(specs.size()).isLessThan(listing.size());
  }

  @Test
  void aDeflatedArchiveReadsTheSameAsAStoredOne() {
    Weights a = Weights.load(params);
    Weights b = Weights.load(compressed);
    assertThat(b.dims()).isEqualTo(a.dims());
    for (Weights.Spec s : Weights.specs(a.dims())) {
      assertThat(b.get(s.name())).as(s.name()).containsExactly(a.get(s.name()));
    }
  }

  @Test
  void float16Float64AndBigEndianArraysAreReadAsFloat32() {
    try (Npz npz = Npz.open(variants)) {
      Npz.Array f8 = npz.read("f8");
      float[] want = f8.data();
      assertThat(npz.read("f4_little").data()).containsExactly(want);
      assertThat(npz.read("f4_big").data()).containsExactly(want);
      assertThat(npz.read("f4_big").shape()).containsExactly(f8.shape());
      float[] half = npz.read("f2").data();
      for (int i = 0; i < want.length; i++) {
        assertThat(half[i]).isCloseTo(want[i], org.assertj.core.data.Offset.offset(Math.abs(want[i]) * 1e-3f));
      }
      assertThat(npz.read("scalar").shape()).isEmpty();
      assertThat(npz.read("scalar").data()).hasSize(1);
    }
  }

  @Test
  void integerAndFortranOrderArraysAreRefusedNamingTheArray() {
    try (Npz npz = Npz.open(variants)) {
      assertThatThrownBy(() -> npz.read("ints")).hasMessageContaining("array 'ints'").hasMessageContaining("'<i4'");
      assertThatThrownBy(() -> npz.read("fortran")).hasMessageContaining("array 'fortran'")
          .hasMessageContaining("Fortran order");
      assertThatThrownBy(() -> npz.read("absent")).hasMessageContaining("no array 'absent'");
    }
  }

  /** A copy of the fixture with its entries passed through {@code edit} (null drops the entry). */
  static Path edited(String name, BiFunction<String, byte[], byte[]> edit) throws IOException {
    Path out = tmp.resolve(name);
    try (ZipFile in = new ZipFile(params.toFile()); OutputStream os = Files.newOutputStream(out);
        ZipOutputStream zip = new ZipOutputStream(os)) {
      for (ZipEntry e : in.stream().toList()) {
        byte[] bytes;
        try (InputStream s = in.getInputStream(e)) {
          bytes = s.readAllBytes();
        }
        byte[] kept = edit.apply(e.getName().replaceFirst("\\.npy$", ""), bytes);
        if (kept != null) {
          zip.putNextEntry(new ZipEntry(e.getName()));
          zip.write(kept);
          zip.closeEntry();
        }
      }
    }
    return out;
  }

  @Test
  void aMissingTrunkParameterIsNamed() throws Exception {
    String gone = Weights.BLOCK + Weights.TRI_IN + "/center_layer_norm//offset";
    Path file = edited("missing.npz", (n, b) -> n.equals(gone) ? null : b);
    assertThatThrownBy(() -> Weights.load(file)).hasMessageContaining("has no parameter '" + gone + "'")
        .hasMessageContaining("monomer");
  }

  @Test
  void aParameterOfTheWrongShapeIsNamedWithBothShapes() throws Exception {
    String victim = Weights.BLOCK + Weights.OUTER + "//output_b";
    String donor = Weights.BLOCK + Weights.OUTER + "/left_projection//bias";
    byte[][] donorBytes = new byte[1][];
    edited("probe.npz", (n, b) -> {
      if (n.equals(donor)) {
        donorBytes[0] = b;
      }
      return b;
    });
    Path file = edited("shape.npz", (n, b) -> n.equals(victim) ? donorBytes[0] : b);
    Listed want = listing.get(victim);
    Listed got = listing.get(donor);
    assertThatThrownBy(() -> Weights.load(file)).hasMessageContaining("'" + victim + "'")
        .hasMessageContaining(Arrays.toString(got.shape())).hasMessageContaining(Arrays.toString(want.shape()));
  }

  @Test
  void aFileThatIsNotAnArchiveOrNotNpyIsRefused() throws Exception {
    Path text = tmp.resolve("not.npz");
    Files.writeString(text, "not a zip");
    assertThatThrownBy(() -> Weights.load(text)).hasMessageContaining("not an .npz archive");
    Path junk = edited("junk.npz", (n, b) -> n.equals(Weights.EVOFORMER + "left_single//weights")
        ? "garbage".getBytes() : b);
    assertThatThrownBy(() -> Weights.load(junk)).hasMessageContaining("left_single//weights")
        .hasMessageContaining("not a .npy array");
  }

  @Test
  void seededWeightsAreDeterministicPerSeedAndCoverEverySpec() {
    Dims d = Af2EquivalenceTest.SMALL.dims();
    Weights a = Weights.seeded(d, 5);
    Weights b = Weights.seeded(d, 5);
    Weights c = Weights.seeded(d, 6);
    long total = 0;
    for (Weights.Spec s : Weights.specs(d)) {
      assertThat(a.get(s.name())).hasSize((int) s.size()).containsExactly(b.get(s.name()));
      total += s.size();
    }
    assertThat(a.count()).isEqualTo(total);
    String any = Weights.BLOCK + Weights.ROW + "/attention//query_w";
    assertThat(c.get(any)).isNotEqualTo(a.get(any));
  }

  @Test
  void aSessionWithPublishedFormatWeightsMatchesTheReferenceOnThem() throws Exception {
    Weights w = Weights.load(params);
    Af2Workload.Params p = Af2Workload.Params.simulated().parse("nRes=11,nSeq=6,seed=3,weights=" + params);
    Path data = tmp.resolve("data");
    Msa msa = Af2Dataset.load(data, p.inputName(), () -> new MsaGenerator(p.seed(), p.nRes(), p.nSeq()).generate());
    Features f = msa.features(p.nSeq());
    Af2Reference.Output ref = Af2Reference.run(w, f);
    OutputDigest want = Af2Output.digest(ref.single(), ref.pair(), f.nRes(), w.dims().pairChannels());
    try (Device sim = Af2EquivalenceTest.simulated();
        Workload.Session s = new Af2Workload(p).open(sim, ExecutionConfig.shipped(), data)) {
      s.step();
      OutputDigest got = s.output();
      assertThat(got.values()).hasSize(f.nRes() * w.dims().singleChannels() + f.nRes() * f.nRes());
      assertThat(got.maxRelativeDifference(want)).isLessThanOrEqualTo(Af2EquivalenceTest.REFERENCE_TOLERANCE);
    }
  }
}
