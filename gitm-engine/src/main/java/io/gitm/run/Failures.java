package io.gitm.run;

import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.regex.Pattern;

/**
 * A failure as a person reads it: one plain sentence, never a Java exception's class name. A file system error says
 * what happened to which file; a wrapper (an {@link UncheckedIOException}, a message that only repeats its cause) is
 * read through to its cause.
 */
public final class Failures {
  /** A Java class name heading a message, as {@link Throwable#toString()} writes it: {@code java.io.Foo: }. */
  private static final Pattern CLASS_PREFIX =
      Pattern.compile("^(?:[a-z_][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9_$]*(?:Exception|Error)(?::\\s*|$)");

  private Failures() {}

  /** {@code t} in one plain line. */
  public static String describe(Throwable t) {
    Throwable e = t;
    while (e.getCause() != null && (e instanceof UncheckedIOException || e.getMessage() == null
        || e.getMessage().equals(e.getCause().toString()))) {
      e = e.getCause();
    }
    String text = switch (e) {
      case NoSuchFileException x -> "no such file or folder: " + x.getFile();
      case AccessDeniedException x -> "permission denied: " + x.getFile();
      case FileAlreadyExistsException x -> "a file already stands at " + x.getFile();
      case NotDirectoryException x -> "not a folder: " + x.getFile();
      case DirectoryNotEmptyException x -> "the folder is not empty: " + x.getFile();
      case FileSystemException x when x.getReason() != null ->
          (x.getFile() == null ? "" : x.getFile() + ": ") + x.getReason();
      default -> plain(e.getMessage());
    };
    return text.isBlank() ? "an internal error of gitm (GITM_DEBUG=1 prints where)" : RunLoop.oneLine(text);
  }

  /** A message without the Java class names that head it. */
  static String plain(String message) {
    String m = message == null ? "" : message.strip();
    String before;
    do {
      before = m;
      m = CLASS_PREFIX.matcher(m).replaceFirst("").strip();
    } while (!m.equals(before));
    return m;
  }
}
