package io.gitm.report;

import io.gitm.store.AtomicFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Renders a {@link Report}: Markdown for a pull request, one self-contained HTML page with charts, and JSON that
 * {@link #fromJson(String)} reads back. Rendering is a pure function of the report.
 */
public final class Reports {
  private Reports() {}

  /** The file names {@link #write(Path, Report)} writes, in that order. */
  public static final List<String> FILES = List.of("report.md", "report.html", "report.json");

  /** GitHub-flavoured Markdown: summary, qualification, claims, trials, hypotheses, violations, phases. */
  public static String markdown(Report report) {
    return Markdown.render(report);
  }

  /** One HTML page with no script and no external resource; charts are inline SVG. */
  public static String html(Report report) {
    return Html.render(report);
  }

  /** JSON of schema version {@link Report#SCHEMA_VERSION}, as {@code docs/report-schema.md} documents it. */
  public static String json(Report report) {
    return Json.write(report);
  }

  /**
   * Reads a report written by {@link #json(Report)}.
   *
   * @throws IllegalArgumentException with a one-line reason when the text is not a valid report of this schema version
   */
  public static Report fromJson(String json) {
    return Json.read(json);
  }

  /**
   * Writes {@code report.md}, {@code report.html} and {@code report.json} into {@code dir}, each atomically: a
   * run interrupted while writing leaves the previous version of a file whole. Every format is rendered before the
   * first file is written, so a rendering failure writes nothing.
   *
   * @return the files written, in the order of {@link #FILES}
   */
  public static List<Path> write(Path dir, Report report) throws IOException {
    List<String> texts = List.of(markdown(report), html(report), json(report));
    List<Path> out = FILES.stream().map(dir::resolve).toList();
    for (int i = 0; i < out.size(); i++) {
      AtomicFiles.writeString(out.get(i), texts.get(i));
    }
    return out;
  }
}
