package io.gitm.nvidia.ffm;

import io.gitm.device.UnsupportedFeatureException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds and opens NVIDIA's shared libraries, for every binding of gitm-nvidia alike (the driver API, NVML, cuBLAS,
 * NVRTC and the CUPTI tracer), so that {@code gitm doctor} reports a library where its user finds it. Order: by
 * soname through the dynamic loader (so {@code LD_LIBRARY_PATH} and the system's cache win), then each folder of
 * {@link #searchDirs}: {@code GITM_CUDA_LIB} (colon-separated), {@code $CUDA_HOME}/{@code $CUDA_PATH} lib64 and lib,
 * {@code /usr/local/cuda}, every {@code /usr/local/cuda-*} (newest first), then PyTorch's bundled
 * {@code nvidia/cu13/lib} (and the per-library {@code nvidia/<lib>/lib} of CUDA 12 wheels) under Python's
 * site-packages. For CUPTI each toolkit folder is followed by its {@code extras/CUPTI/lib64}, where toolkits that
 * keep CUPTI apart install it. Results are cached per name; a library that cannot be found is an
 * {@link UnsupportedFeatureException} naming every place looked at.
 */
public final class NativeLibraries {
  /** Short names gitm knows, with the file names to try, newest ABI first. */
  static final Map<String, List<String>> SONAMES = Map.of(
      "cuda", List.of("libcuda.so.1", "libcuda.so"),
      "nvidia-ml", List.of("libnvidia-ml.so.1", "libnvidia-ml.so"),
      "cublas", List.of("libcublas.so.13", "libcublas.so.12", "libcublas.so"),
      "cublasLt", List.of("libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"),
      "nvrtc", List.of("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"),
      // only CUPTI 13: the activity record layouts the tracer decodes are CUDA 13.0's (cupti.CuptiLayout)
      "cupti", List.of("libcupti.so.13"),
      "cudart", List.of("libcudart.so.13", "libcudart.so.12", "libcudart.so"));

  /** The CUDA 12 wheels' per-library folder under {@code site-packages/nvidia}. */
  private static final Map<String, String> WHEEL_DIR = Map.of("cublas", "cublas", "cublasLt", "cublas",
      "nvrtc", "cuda_nvrtc", "cupti", "cuda_cupti", "cudart", "cuda_runtime");

  private static final Map<String, Object> CACHE = new ConcurrentHashMap<>();

  /** A library that could not be opened; {@link #reason()} says where gitm looked. */
  public static final class Missing extends UnsupportedFeatureException {
    private final String reason;

    Missing(String reason) {
      super("dlopen", reason);
      this.reason = reason;
    }

    public String reason() {
      return reason;
    }
  }

  private NativeLibraries() {
  }

  /** Opens the library {@code name} ({@code cuda}, {@code nvidia-ml}, {@code cublas}, {@code nvrtc}, ...) once. */
  public static NativeLibrary find(String name) {
    Object o = CACHE.computeIfAbsent(name, n -> {
      try {
        return open(n, System.getenv(), Path.of("/"));
      } catch (Missing e) {
        return e.reason();
      }
    });
    if (o instanceof String reason) {
      throw new Missing(reason);
    }
    return (NativeLibrary) o;
  }

  /** Like {@link #find}, empty when the library is not there. */
  public static Optional<NativeLibrary> tryFind(String name) {
    try {
      return Optional.of(find(name));
    } catch (UnsupportedFeatureException e) {
      return Optional.empty();
    }
  }

  /** The file names tried for {@code name}. */
  public static List<String> sonames(String name) {
    List<String> s = SONAMES.get(name);
    if (s == null) {
      throw new IllegalArgumentException("unknown native library '" + name + "'; known: " + SONAMES.keySet());
    }
    return s;
  }

  static NativeLibrary open(String name, Map<String, String> env, Path root) {
    List<String> sonames = sonames(name);
    for (String so : sonames) {
      try {
        SymbolLookup lookup = SymbolLookup.libraryLookup(so, Arena.global());
        return new NativeLibrary(name, so, loadedPath(so).orElse(so), true, lookup);
      } catch (IllegalArgumentException notOnLoaderPath) {
        // try the folders below
      }
    }
    List<Path> dirs = searchDirs(name, env, root);
    Optional<Path> file = locate(sonames, dirs);
    if (file.isPresent()) {
      Path p = file.get();
      try {
        SymbolLookup lookup = SymbolLookup.libraryLookup(p, Arena.global());
        return new NativeLibrary(name, p.getFileName().toString(), p.toAbsolutePath().toString(), false, lookup);
      } catch (IllegalArgumentException e) {
        throw new Missing("cannot load " + p + ": " + e.getMessage());
      }
    }
    throw new Missing("lib" + name + " not found: tried " + sonames
        + " on the loader path and in " + dirs.stream().map(Path::toString).toList()
        + " (set LD_LIBRARY_PATH or GITM_CUDA_LIB to the folder holding it)");
  }

  /** The first existing file among {@code sonames} (in order) in the first folder (in order) that holds one. */
  static Optional<Path> locate(List<String> sonames, List<Path> dirs) {
    for (Path d : dirs) {
      for (String so : sonames) {
        Path f = d.resolve(so);
        if (Files.isRegularFile(f)) {
          return Optional.of(f);
        }
      }
    }
    return Optional.empty();
  }

  /** The folders searched after the loader path, in order, existing ones only; {@code root} is "/" except in tests. */
  static List<Path> searchDirs(String name, Map<String, String> env, Path root) {
    LinkedHashSet<Path> out = new LinkedHashSet<>();
    String extra = env.get("GITM_CUDA_LIB");
    if (extra != null) {
      for (String s : extra.split(":")) {
        if (!s.isBlank()) {
          out.add(under(root, s));
        }
      }
    }
    for (String var : List.of("CUDA_HOME", "CUDA_PATH")) {
      String home = env.get(var);
      if (home != null && !home.isBlank()) {
        addToolkit(out, under(root, home), name);
      }
    }
    addToolkit(out, root.resolve("usr/local/cuda"), name);
    List<Path> versioned = children(root.resolve("usr/local"), "cuda-");
    versioned.sort(Comparator.comparing((Path p) -> versionKey(p.getFileName().toString())).reversed());
    for (Path v : versioned) {
      addToolkit(out, v, name);
    }
    for (Path sp : sitePackages(env, root)) {
      out.add(sp.resolve("nvidia/cu13/lib"));
      String wheel = WHEEL_DIR.get(name);
      if (wheel != null) {
        out.add(sp.resolve("nvidia").resolve(wheel).resolve("lib"));
      }
    }
    return out.stream().filter(Files::isDirectory).toList();
  }

  /** A CUDA toolkit's library folders: lib64, lib, and for CUPTI extras/CUPTI/lib64. */
  private static void addToolkit(LinkedHashSet<Path> out, Path home, String name) {
    out.add(home.resolve("lib64"));
    out.add(home.resolve("lib"));
    if (name.equals("cupti")) {
      out.add(home.resolve("extras/CUPTI/lib64"));
    }
  }

  private static List<Path> sitePackages(Map<String, String> env, Path root) {
    List<Path> prefixes = new ArrayList<>();
    for (String var : List.of("VIRTUAL_ENV", "CONDA_PREFIX")) {
      String v = env.get(var);
      if (v != null && !v.isBlank()) {
        prefixes.add(under(root, v).resolve("lib"));
      }
    }
    String home = env.get("HOME");
    if (home != null && !home.isBlank()) {
      prefixes.add(under(root, home).resolve(".local/lib"));
    }
    prefixes.add(root.resolve("usr/local/lib"));
    prefixes.add(root.resolve("usr/lib"));
    prefixes.add(root.resolve("opt/conda/lib"));
    List<Path> out = new ArrayList<>();
    for (Path prefix : prefixes) {
      List<Path> pythons = children(prefix, "python3");
      pythons.sort(Comparator.comparing((Path p) -> versionKey(p.getFileName().toString())).reversed());
      for (Path py : pythons) {
        out.add(py.resolve("site-packages"));
        out.add(py.resolve("dist-packages"));
      }
    }
    return out;
  }

  private static Path under(Path root, String absolute) {
    return root.resolve(absolute.startsWith("/") ? absolute.substring(1) : absolute);
  }

  private static List<Path> children(Path dir, String prefix) {
    List<Path> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, prefix + "*")) {
      ds.forEach(out::add);
    } catch (IOException e) {
      return out;
    }
    return out;
  }

  /** A sort key that orders "cuda-12.9" before "cuda-13.0" and "python3.9" before "python3.12". */
  static String versionKey(String s) {
    StringBuilder b = new StringBuilder();
    for (String part : s.replaceAll("[^0-9.]", "").split("\\.")) {
      if (!part.isEmpty()) {
        b.append(String.format("%06d.", Long.parseLong(part.length() > 6 ? part.substring(0, 6) : part)));
      }
    }
    return b.toString();
  }

  /** Where the loader found {@code soname}, read from {@code /proc/self/maps}. */
  static Optional<String> loadedPath(String soname) {
    Path maps = Path.of("/proc/self/maps");
    if (!Files.isReadable(maps)) {
      return Optional.empty();
    }
    try (var lines = Files.lines(maps)) {
      String base = soname.replaceFirst("\\.so.*$", ".so");
      return lines.map(l -> {
        int i = l.indexOf('/');
        return i < 0 ? "" : l.substring(i).trim();
      }).filter(p -> {
        String f = Path.of(p.isEmpty() ? "/" : p).getFileName() == null ? "" : Path.of(p).getFileName().toString();
        return f.equals(soname) || f.startsWith(base + ".");
      }).findFirst();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
