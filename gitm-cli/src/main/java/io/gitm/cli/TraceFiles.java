package io.gitm.cli;

import io.gitm.tracer.KinetoFormatException;
import io.gitm.tracer.NsysFormatException;
import io.gitm.tracer.TraceFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine;

/** Argument checks and error messages shared by the trace commands. */
final class TraceFiles {
  private TraceFiles() {}

  /** An input file that must exist and be readable; otherwise a usage error (exit 2). */
  static void requireInput(CommandLine cl, Path file) {
    if (!Files.exists(file)) {
      throw new CommandLine.ParameterException(cl, "no such file: " + file);
    }
    if (!Files.isRegularFile(file)) {
      throw new CommandLine.ParameterException(cl, "not a regular file: " + file);
    }
    if (!Files.isReadable(file)) {
      throw new CommandLine.ParameterException(cl, "cannot read " + file + " (permission denied)");
    }
  }

  /** An output file whose folder exists and which is not the input; otherwise a usage error (exit 2). */
  static void requireOutput(CommandLine cl, Path input, Path output) {
    Path parent = output.toAbsolutePath().getParent();
    if (parent != null && !Files.isDirectory(parent)) {
      throw new CommandLine.ParameterException(cl, "the output folder does not exist: " + parent);
    }
    if (Files.isDirectory(output)) {
      throw new CommandLine.ParameterException(cl, "the output is a folder: " + output);
    }
    if (input.toAbsolutePath().normalize().equals(output.toAbsolutePath().normalize())) {
      throw new CommandLine.ParameterException(cl, "the output would overwrite the input: " + output);
    }
  }

  /** {@code name} without any of the given extensions (case-insensitive), repeatedly: a.pt.trace.json.gz → a. */
  static String stripExtensions(String name, String... extensions) {
    String n = name;
    for (boolean changed = true; changed; ) {
      changed = false;
      for (String ext : extensions) {
        if (n.length() > ext.length() && n.toLowerCase(Locale.ROOT).endsWith(ext)) {
          n = n.substring(0, n.length() - ext.length());
          changed = true;
        }
      }
    }
    return n;
  }

  /** A one-line failure (exit 1) for an error reading {@code input} or writing {@code output}. */
  static CliFailure failure(Path input, Path output, IOException e) {
    return switch (e) {
      case TraceFormatException f -> new CliFailure(input + ": " + f.getMessage() + hintForJson(input, f));
      case KinetoFormatException k -> new CliFailure(input + ": " + k.getMessage());
      case NsysFormatException n -> new CliFailure(input + ": " + n.getMessage());
      case NoSuchFileException n -> new CliFailure("no such file or folder: " + n.getFile());
      case AccessDeniedException a -> new CliFailure("permission denied: " + a.getFile());
      default -> new CliFailure((output == null ? "cannot read " + input : "cannot convert " + input + " to " + output)
          + ": " + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()), e);
    };
  }

  private static String hintForJson(Path input, TraceFormatException e) {
    if (e.offset() != 0 || !looksLikeJson(input)) {
      return "";
    }
    return "; it looks like JSON: to import a PyTorch profiler (Kineto) trace run 'gitm trace import " + input + "'";
  }

  private static boolean looksLikeJson(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      int b;
      while ((b = in.read()) >= 0) {
        if (b == '{' || b == '[' || b == 0x1f) {
          return true;
        }
        if (!Character.isWhitespace(b)) {
          return false;
        }
      }
    } catch (IOException ignored) {
      // no hint then
    }
    return false;
  }
}
