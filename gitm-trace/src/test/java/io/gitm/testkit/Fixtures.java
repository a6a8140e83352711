package io.gitm.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The recorded fixtures of the test kit ({@code src/test/resources} of gitm-trace: real traces, ncu CSV, Kineto JSON)
 * as files, whichever module's test reads them: from gitm-trace's own tests they are files already; from another
 * module they sit in gitm-trace's test jar and are copied out once to a temporary file.
 */
public final class Fixtures {
  private Fixtures() {
  }

  /** The fixture at class-path {@code resource} (e.g. {@code /tracer/real/hft-lob-h200-cupti.gtrace}) as a file. */
  public static Path file(String resource) {
    URL url = Fixtures.class.getResource(resource);
    if (url == null) {
      throw new IllegalArgumentException("no test fixture " + resource + " on the class path");
    }
    try {
      if (url.getProtocol().equals("file")) {
        return Path.of(url.toURI());
      }
      String name = resource.substring(resource.lastIndexOf('/') + 1);
      Path copy = Files.createTempFile("gitm-fixture-", "-" + name);
      copy.toFile().deleteOnExit();
      try (InputStream in = url.openStream()) {
        Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
      }
      return copy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
