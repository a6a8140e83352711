package io.gitm.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Every repository path that {@code README.md} and the Markdown files under {@code docs/} name resolves: a path in
 * an inline code span whose first segment is an entry of the repository root, and every relative Markdown link. A
 * path inside an evidence archive is written {@code docs/evidence/<session>.tar.xz!/<path>} and must be in that
 * archive. A path that does not exist as written is read as a pattern: {@code *} stands for any part of one segment
 * and a word in capitals ({@code NN}, {@code JOB}) for a name; it must then match at least one file. Build outputs
 * ({@code target/}) and paths with a placeholder in angle or curly brackets are not checked.
 */
class DocLinksTest {
  private static final Pattern CODE_SPAN = Pattern.compile("`([^`]+)`");
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern ARCHIVED = Pattern.compile("(.+\\.tar\\.xz)!/(.*)");
  /** Where a path in a code span ends. */
  private static final Pattern SEPARATORS = Pattern.compile("[\\s,;:()\"]+");
  /** What marks a path as a placeholder rather than a file or a pattern. */
  private static final Pattern PLACEHOLDER = Pattern.compile("[<>{}$|\\[\\]?…]|\\.\\.\\.");
  /** What a pattern leaves open: {@code *}, or a word in capitals standing for a name. */
  private static final Pattern OPEN = Pattern.compile("\\*|\\b[A-Z][A-Z0-9_]+\\b");

  private final Map<Path, Optional<List<String>>> archives = new HashMap<>();

  @Test
  void everyPathTheDocsNameIsInTheTree() throws IOException {
    Path root = root();
    List<String> broken = new ArrayList<>();
    List<Path> docs = new ArrayList<>();
    docs.add(root.resolve("README.md"));
    try (Stream<Path> s = Files.walk(root.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    for (Path doc : docs) {
      checkDoc(root, doc, withoutCodeBlocks(Files.readString(doc, StandardCharsets.UTF_8)), broken);
    }
    assertThat(broken).as("paths named in the docs that do not resolve").isEmpty();
    Assumptions.assumeTrue(archives.values().stream().allMatch(Optional::isPresent),
        "the paths inside the evidence archives were not checked: tar -tJf could not list them here");
  }

  private void checkDoc(Path root, Path doc, String text, List<String> broken) {
    String name = root.relativize(doc).toString();
    Matcher span = CODE_SPAN.matcher(text);
    while (span.find()) {
      for (String token : SEPARATORS.split(span.group(1))) {
        String path = trim(token);
        if (isRepositoryPath(root, path)) {
          check(root, root, path)
              .ifPresent(why -> broken.add(where(name, text, span.start()) + path + " (" + why + ")"));
        }
      }
    }
    Matcher link = LINK.matcher(text);
    while (link.find()) {
      String target = link.group(1);
      if (!target.matches("^[a-z]+:.*") && !target.startsWith("#")) {
        String path = target.replaceFirst("#.*", "");
        check(root, doc.getParent(), path)
            .ifPresent(why -> broken.add(where(name, text, link.start()) + target + " (" + why + ")"));
      }
    }
  }

  /** The text with each fenced code block's lines emptied (they hold commands, not references). */
  private static String withoutCodeBlocks(String text) {
    String[] lines = text.split("\n", -1);
    boolean fenced = false;
    for (int i = 0; i < lines.length; i++) {
      boolean fence = lines[i].strip().startsWith("```");
      if (fence || fenced) {
        lines[i] = "";
      }
      fenced ^= fence;
    }
    return String.join("\n", lines);
  }

  private static String where(String doc, String text, int offset) {
    return doc + ":" + (text.substring(0, offset).chars().filter(c -> c == '\n').count() + 1) + ": ";
  }

  private static String trim(String token) {
    return token.replaceAll("^['.]+(?=[^./])", "").replaceAll("['.]+$", "").replaceFirst("#.*", "");
  }

  private static boolean isRepositoryPath(Path root, String path) {
    int slash = path.indexOf('/');
    if (slash <= 0 || PLACEHOLDER.matcher(path).find() || path.matches("(.*/)?target(/.*)?")) {
      return false;
    }
    String first = path.substring(0, slash);
    return !first.startsWith(".") && Files.exists(root.resolve(first));
  }

  /** Why {@code path} (from {@code base}) does not resolve, or empty where it does. */
  private Optional<String> check(Path root, Path base, String path) {
    Matcher archived = ARCHIVED.matcher(path);
    if (!archived.matches()) {
      return Files.exists(base.resolve(path)) || matchesAFile(base, path) ? Optional.empty()
          : Optional.of("no such file or folder");
    }
    Path archive = base.resolve(archived.group(1)).normalize();
    if (!Files.isRegularFile(archive)) {
      return Optional.of("no such archive");
    }
    Optional<List<String>> members = archives.computeIfAbsent(archive, DocLinksTest::list);
    if (members.isEmpty()) {
      return Optional.empty();
    }
    String inner = archived.group(2).replaceAll("/+$", "");
    Pattern exact = Pattern.compile(Pattern.quote(inner) + "(/.*)?");
    Pattern named = Pattern.compile(pattern(inner) + "(/.*)?");
    boolean found = inner.isEmpty() || members.get().stream().anyMatch(m -> exact.matcher(m).matches())
        || members.get().stream().anyMatch(m -> named.matcher(m).matches());
    return found ? Optional.empty() : Optional.of("not in " + root.relativize(archive));
  }

  /** {@code path} as a regular expression: {@code *} and words in capitals match any part of one segment. */
  private static String pattern(String path) {
    StringBuilder out = new StringBuilder();
    Matcher open = OPEN.matcher(path);
    int from = 0;
    while (open.find()) {
      out.append(Pattern.quote(path.substring(from, open.start())));
      out.append(open.group().equals("*") ? "[^/]*" : "[^/]+");
      from = open.end();
    }
    return out.append(Pattern.quote(path.substring(from))).toString();
  }

  /** Whether {@code path}, read as a pattern, matches a file or folder under {@code base}. */
  private static boolean matchesAFile(Path base, String path) {
    if (!OPEN.matcher(path).find()) {
      return false;
    }
    Pattern named = Pattern.compile(pattern(path));
    int depth = path.split("/").length;
    try (Stream<Path> s = Files.walk(base, depth)) {
      return s.anyMatch(p -> named.matcher(base.relativize(p).toString()).matches());
    } catch (IOException e) {
      return false;
    }
  }

  /** The member paths of an xz-compressed tar, or empty where {@code tar} cannot list it here. */
  private static Optional<List<String>> list(Path archive) {
    try {
      Process p = new ProcessBuilder("tar", "-tJf", archive.toString()).redirectErrorStream(true).start();
      List<String> members;
      try (InputStream in = p.getInputStream()) {
        members = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
            .map(m -> m.replaceFirst("^\\./", "")).toList();
      }
      boolean done = p.waitFor(60, TimeUnit.SECONDS);
      return done && p.exitValue() == 0 ? Optional.of(members) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** The repository root: the nearest folder above the working directory with {@code mvnw} and {@code docs/}. */
  private static Path root() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("mvnw")) && Files.isDirectory(p.resolve("docs"))) {
        return p;
      }
    }
    return Assumptions.abort("not run inside gitm's source tree");
  }
}
