package io.gitm.nvidia.ffm;

import io.gitm.device.DeviceException;
import io.gitm.device.UnsupportedFeatureException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.function.Supplier;

/**
 * One C function of a library, resolved once on first use into a typed downcall handle. When the library or the
 * symbol is missing, every call raises the same {@link UnsupportedFeatureException}. Several names may be given:
 * the first one exported wins (e.g. a {@code _v2} name, then the older one).
 */
public final class NativeFunction {
  private final Supplier<NativeLibrary> library;
  private final List<String> names;
  private final FunctionDescriptor descriptor;
  private volatile MethodHandle handle;
  private volatile DeviceException failure;
  private volatile String resolvedName;

  public NativeFunction(Supplier<NativeLibrary> library, FunctionDescriptor descriptor, String... names) {
    if (names.length == 0) {
      throw new IllegalArgumentException("a native function needs a name");
    }
    this.library = library;
    this.names = List.of(names);
    this.descriptor = descriptor;
  }

  /** The C name this function is known by (the first candidate). */
  public String name() {
    String r = resolvedName;
    return r != null ? r : names.getFirst();
  }

  /** True when the library is loaded and exports one of the names. */
  public boolean available() {
    try {
      handle();
      return true;
    } catch (DeviceException e) {
      return false;
    }
  }

  /** The resolved handle; raises {@link UnsupportedFeatureException} when it cannot be resolved. */
  public MethodHandle handle() {
    MethodHandle h = handle;
    if (h != null) {
      return h;
    }
    if (failure != null) {
      throw failure;
    }
    synchronized (this) {
      if (handle != null) {
        return handle;
      }
      if (failure != null) {
        throw failure;
      }
      NativeLibrary lib;
      try {
        lib = library.get();
      } catch (DeviceException e) {
        failure = new UnsupportedFeatureException(names.getFirst(),
            e instanceof NativeLibraries.Missing m ? m.reason() : e.getMessage());
        throw failure;
      }
      for (String n : names) {
        if (lib.symbol(n).isPresent()) {
          resolvedName = n;
          handle = lib.downcall(n, descriptor);
          return handle;
        }
      }
      failure = new UnsupportedFeatureException(names.getFirst(), "not exported by " + lib.origin());
      throw failure;
    }
  }

  @Override
  public String toString() {
    return name();
  }
}
