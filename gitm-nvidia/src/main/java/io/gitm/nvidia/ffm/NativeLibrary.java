package io.gitm.nvidia.ffm;

import io.gitm.device.UnsupportedFeatureException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * An opened shared library: its short name ({@code cuda}, {@code nvidia-ml}, ...), where it was loaded from, and
 * its symbols. Libraries stay loaded for the life of the process.
 *
 * @param name the short name asked for
 * @param soname the file name that was opened
 * @param origin the absolute path of the loaded file, or {@code soname} when the loader's path could not be read
 * @param viaLoaderPath true when the dynamic loader found it by soname, false when gitm found it in a folder
 */
public record NativeLibrary(String name, String soname, String origin, boolean viaLoaderPath, SymbolLookup lookup) {

  public Optional<MemorySegment> symbol(String function) {
    return lookup.find(function);
  }

  /** A downcall handle for {@code function}; a missing symbol is an {@link UnsupportedFeatureException}. */
  public MethodHandle downcall(String function, FunctionDescriptor descriptor) {
    MemorySegment address = lookup.find(function).orElseThrow(
        () -> new UnsupportedFeatureException(function, "not exported by " + origin));
    return Linker.nativeLinker().downcallHandle(address, descriptor);
  }

  @Override
  public String toString() {
    return name + " (" + origin + ")";
  }
}
