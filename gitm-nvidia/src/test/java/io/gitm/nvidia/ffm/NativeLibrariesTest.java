package io.gitm.nvidia.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gitm.device.UnsupportedFeatureException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeLibrariesTest {
  @TempDir
  Path root;

  private Path dir(String p) throws IOException {
    return Files.createDirectories(root.resolve(p));
  }

  private Path file(String p) throws IOException {
    Path f = root.resolve(p);
    Files.createDirectories(f.getParent());
    return Files.writeString(f, "not a real library");
  }

  @Test
  void searchOrderIsOverrideThenCudaHomeThenUsrLocalCudaThenVersionedNewestFirstThenPythonWheels()
      throws IOException {
    Path override = dir("opt/override");
    Path home = dir("opt/cuda/lib64");
    Path local = dir("usr/local/cuda/lib64");
    Path v129 = dir("usr/local/cuda-12.9/lib64");
    Path v130 = dir("usr/local/cuda-13.0/lib64");
    Path wheel = dir("usr/local/lib/python3.12/dist-packages/nvidia/cu13/lib");
    Path cu12wheel = dir("usr/local/lib/python3.12/dist-packages/nvidia/cublas/lib");
    Map<String, String> env = Map.of("GITM_CUDA_LIB", "/opt/override", "CUDA_HOME", "/opt/cuda");

    List<Path> dirs = NativeLibraries.searchDirs("cublas", env, root);

    assertThat(dirs).containsExactly(override, home, local, v130, v129, wheel, cu12wheel);
  }

  @Test
  void cuptiIsLookedForInEachToolkitsExtrasFolderRightAfterItsLibraryFolders() throws IOException {
    Path home = dir("opt/cuda/lib64");
    Path homeExtras = dir("opt/cuda/extras/CUPTI/lib64");
    Path local = dir("usr/local/cuda/lib64");
    Path localExtras = dir("usr/local/cuda/extras/CUPTI/lib64");
    Path v130Extras = dir("usr/local/cuda-13.0/extras/CUPTI/lib64");
    Path lib = file("usr/local/cuda-13.0/extras/CUPTI/lib64/libcupti.so.13");

    List<Path> dirs = NativeLibraries.searchDirs("cupti", Map.of("CUDA_HOME", "/opt/cuda"), root);

    assertThat(dirs).containsExactly(home, homeExtras, local, localExtras, v130Extras);
    assertThat(NativeLibraries.locate(NativeLibraries.sonames("cupti"), dirs)).contains(lib);
    assertThat(NativeLibraries.searchDirs("cublas", Map.of("CUDA_HOME", "/opt/cuda"), root))
        .doesNotContain(homeExtras, localExtras);
  }

  @Test
  void onlyCupti13IsLoadedForItIsTheRecordLayoutTheTracerDecodes() {
    assertThat(NativeLibraries.sonames("cupti")).containsExactly("libcupti.so.13");
  }

  @Test
  void missingFoldersAreLeftOut() {
    assertThat(NativeLibraries.searchDirs("cupti", Map.of("CUDA_HOME", "/nowhere"), root)).isEmpty();
  }

  @Test
  void locatePrefersTheFirstFolderAndWithinItTheNewestSoname() throws IOException {
    file("a/libcublas.so.12");
    file("a/libcublas.so.13");
    file("b/libcublas.so.13");
    List<String> sonames = NativeLibraries.sonames("cublas");

    assertThat(NativeLibraries.locate(sonames, List.of(root.resolve("a"), root.resolve("b"))))
        .contains(root.resolve("a/libcublas.so.13"));
    assertThat(NativeLibraries.locate(sonames, List.of(root.resolve("b"), root.resolve("a"))))
        .contains(root.resolve("b/libcublas.so.13"));
  }

  @Test
  void pytorchBundledLibrariesAreFoundWhenNoToolkitHasThem() throws IOException {
    Path lib = file("home/u/.local/lib/python3.11/site-packages/nvidia/cu13/lib/libnvrtc.so.13");
    List<Path> dirs = NativeLibraries.searchDirs("nvrtc", Map.of("HOME", "/home/u"), root);

    assertThat(NativeLibraries.locate(NativeLibraries.sonames("nvrtc"), dirs)).contains(lib);
  }

  @Test
  void aLibraryFoundNowhereIsUnsupportedAndTheMessageSaysWhereGitmLooked() throws IOException {
    assumeTrue(NativeLibraries.tryFind("nvidia-ml").isEmpty(), "libnvidia-ml is installed here");
    dir("usr/local/cuda/lib64");

    assertThatThrownBy(() -> NativeLibraries.open("nvidia-ml", Map.of(), root))
        .isInstanceOf(UnsupportedFeatureException.class)
        .hasMessageContaining("libnvidia-ml.so.1")
        .hasMessageContaining(root.resolve("usr/local/cuda/lib64").toString())
        .hasMessageContaining("LD_LIBRARY_PATH");
  }

  @Test
  void aFileThatIsNotALibraryIsReportedNotCrashed() throws IOException {
    assumeTrue(NativeLibraries.tryFind("nvidia-ml").isEmpty(), "libnvidia-ml is installed here");
    file("usr/local/cuda/lib64/libnvidia-ml.so.1");

    assertThatThrownBy(() -> NativeLibraries.open("nvidia-ml", Map.of(), root))
        .isInstanceOf(UnsupportedFeatureException.class)
        .hasMessageContaining("cannot load");
  }

  @Test
  void unknownLibraryNamesAreRejectedWithTheKnownOnes() {
    assertThatThrownBy(() -> NativeLibraries.sonames("cudnn"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cudnn")
        .hasMessageContaining("cupti");
  }

  @Test
  void aMissingSymbolIsUnsupportedOnEveryCallNotACrash() {
    NativeFunction f = new NativeFunction(() -> {
      throw new UnsupportedFeatureException("dlopen", "libnothing not found");
    }, java.lang.foreign.FunctionDescriptor.ofVoid(), "nothing_v2", "nothing");

    assertThat(f.available()).isFalse();
    assertThatThrownBy(f::handle).isInstanceOf(UnsupportedFeatureException.class).hasMessageContaining("nothing_v2");
    assertThatThrownBy(f::handle).isInstanceOf(UnsupportedFeatureException.class);
  }

  @Test
  void versionKeysSortNumerically() {
    assertThat(NativeLibraries.versionKey("cuda-12.10")).isGreaterThan(NativeLibraries.versionKey("cuda-12.9"));
    assertThat(NativeLibraries.versionKey("python3.12")).isGreaterThan(NativeLibraries.versionKey("python3.9"));
  }
}
