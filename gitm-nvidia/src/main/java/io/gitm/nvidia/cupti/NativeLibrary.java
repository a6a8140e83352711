package io.gitm.nvidia.cupti;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A shared library opened once for the life of the process, and where it was found. Functions are resolved into
 * typed handles; a missing symbol resolves to empty (the caller reports it as unsupported).
 */
record NativeLibrary(String soname, String location, SymbolLookup lookup) {
  private static final Linker LINKER = Linker.nativeLinker();

  /** Opens {@code soname} from the loader path (e.g. {@code libcuda.so.1}), or empty with no exception. */
  static Optional<NativeLibrary> bySoname(String soname) {
    try {
      return Optional.of(new NativeLibrary(soname, soname + " (loader path)",
          SymbolLookup.libraryLookup(soname, Arena.global())));
    } catch (IllegalArgumentException | UnsatisfiedLinkError e) {
      return Optional.empty();
    }
  }

  /**
   * Opens {@code soname} from the first of {@code folders} that has it, then from the loader path; empty when
   * none has it.
   */
  static Optional<NativeLibrary> find(String soname, List<Path> folders) {
    for (Path dir : folders) {
      Path p = dir.resolve(soname);
      if (Files.isRegularFile(p)) {
        try {
          return Optional.of(new NativeLibrary(soname, p.toString(), SymbolLookup.libraryLookup(p, Arena.global())));
        } catch (IllegalArgumentException | UnsatisfiedLinkError e) {
          // a file that does not load (wrong architecture, missing dependency): try the next folder
        }
      }
    }
    return bySoname(soname);
  }

  /**
   * The CUDA toolkit library folders to look in, in order: {@code $CUDA_HOME} (and {@code $CUDA_PATH}), the
   * {@code LD_LIBRARY_PATH} entries, {@code /usr/local/cuda}, then {@code /usr/local/cuda-*} newest first.
   */
  static List<Path> toolkitFolders(Map<String, String> env) {
    LinkedHashSet<Path> out = new LinkedHashSet<>();
    for (String var : List.of("CUDA_HOME", "CUDA_PATH")) {
      String home = env.get(var);
      if (home != null && !home.isBlank()) {
        out.add(Path.of(home, "lib64"));
        out.add(Path.of(home, "lib"));
        out.add(Path.of(home, "extras", "CUPTI", "lib64"));
      }
    }
    String ld = env.get("LD_LIBRARY_PATH");
    if (ld != null) {
      for (String e : ld.split(":")) {
        if (!e.isBlank()) {
          out.add(Path.of(e));
        }
      }
    }
    out.add(Path.of("/usr/local/cuda/lib64"));
    out.add(Path.of("/usr/local/cuda/lib"));
    out.add(Path.of("/usr/local/cuda/extras/CUPTI/lib64"));
    Path local = Path.of("/usr/local");
    if (Files.isDirectory(local)) {
      try (Stream<Path> s = Files.list(local)) {
        List<Path> versions = new ArrayList<>(s.filter(p -> p.getFileName().toString().startsWith("cuda-")).toList());
        versions.sort(Comparator.comparing((Path p) -> p.getFileName().toString()).reversed());
        for (Path v : versions) {
          out.add(v.resolve("lib64"));
          out.add(v.resolve("extras/CUPTI/lib64"));
        }
      } catch (java.io.IOException e) {
        // an unreadable /usr/local only removes candidates
      }
    }
    return List.copyOf(out);
  }

  /** A downcall handle for {@code name}, or empty when the library does not export it. */
  Optional<MethodHandle> function(String name, FunctionDescriptor fd) {
    return lookup.find(name).map(addr -> LINKER.downcallHandle(addr, fd));
  }

  /** A downcall handle for {@code name}; a missing symbol is an error naming the library. */
  MethodHandle require(String name, FunctionDescriptor fd) {
    return function(name, fd).orElseThrow(() -> new io.gitm.device.UnsupportedFeatureException(name,
        "not exported by " + location));
  }

  static MemorySegment upcall(MethodHandle target, FunctionDescriptor fd) {
    return LINKER.upcallStub(target, fd, Arena.global());
  }
}
