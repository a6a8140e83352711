package io.gitm.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTML report in a real browser: headless Chromium loads the page with hostile names on a simulated device,
 * and the test reads back the DOM Chromium built, its console log, and a screenshot
 * ({@code target/browser-report/*.png}, worth a look after a change to the page).
 *
 * <p>When Chromium is missing, the set-up runs {@code scripts/install-chromium.sh} (apt-get as root); set
 * {@code -Dgitm.installChromium=false} to skip that. When Chromium can be neither found nor installed the tests are
 * skipped with the reason, except in CI ({@code CI=true}, as {@code .ci/run} is started) or with
 * {@code -Dgitm.requireChromium=true}, where they fail: CI never passes without having looked at the page.
 */
@Tag("browser")
class ReportInBrowserTest {
  private static final long TIMEOUT_S = 90;
  private static final Path OUT = Path.of("target", "browser-report").toAbsolutePath();

  private static Path chromium;
  private static String missing;

  @TempDir
  Path profile;

  @BeforeAll
  static void findOrInstallChromium() throws Exception {
    chromium = find();
    if (chromium != null) {
      return;
    }
    if ("false".equals(System.getProperty("gitm.installChromium"))) {
      missing = "Chromium is not installed and -Dgitm.installChromium=false: run scripts/install-chromium.sh";
      return;
    }
    Path script = repoRoot().resolve("scripts/install-chromium.sh");
    Files.createDirectories(OUT);
    Path log = OUT.resolve("install-chromium.log");
    Process p = new ProcessBuilder("bash", script.toString()).redirectErrorStream(true).redirectOutput(log.toFile())
        .start();
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    chromium = find();
    if (chromium == null) {
      List<String> lines = Files.readAllLines(log);
      missing = "Chromium is not installed and scripts/install-chromium.sh could not install it: "
          + (lines.isEmpty() ? "no output" : lines.getLast());
    }
  }

  /** Skips the test when Chromium is missing, or fails it where Chromium is required (CI). */
  private static void needChromium() {
    if (chromium == null && (Boolean.getBoolean("gitm.requireChromium") || "true".equals(System.getenv("CI")))) {
      throw new AssertionError(missing + " (required: CI=true or -Dgitm.requireChromium=true)");
    }
    Assumptions.assumeTrue(chromium != null, () -> missing);
  }

  /** {@code $GITM_CHROMIUM}, then {@code /usr/bin/chromium}, then {@code chromium} on the PATH. */
  private static Path find() {
    List<Path> candidates = new ArrayList<>();
    String env = System.getenv("GITM_CHROMIUM");
    if (env != null && !env.isBlank()) {
      candidates.add(Path.of(env));
    }
    candidates.add(Path.of("/usr/bin/chromium"));
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      if (!dir.isBlank()) {
        candidates.add(Path.of(dir, "chromium"));
      }
    }
    return candidates.stream().filter(Files::isExecutable).findFirst().orElse(null);
  }

  private static Path repoRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("scripts/install-chromium.sh"))) {
        return p;
      }
    }
    throw new IllegalStateException("no scripts/install-chromium.sh above " + Path.of("").toAbsolutePath());
  }

  /** What one Chromium run printed. */
  private record Output(int exit, String stdout, String stderr) {
    /** The lines of the log that come from the page's console, and uncaught errors. */
    List<String> consoleLines() {
      return stderr.lines().filter(l -> l.contains(":CONSOLE") || l.contains("Uncaught")).toList();
    }
  }

  private Output chromium(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0"));
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile(profile.getParent(), "chromium", ".out");
    Path err = Files.createTempFile(profile.getParent(), "chromium", ".err");
    Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw new AssertionError("chromium did not finish within " + TIMEOUT_S + " s: " + String.join(" ", cmd));
    }
    return new Output(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err,
        StandardCharsets.UTF_8));
  }

  private static Path write(String name, String html) throws IOException {
    Files.createDirectories(OUT);
    return Files.writeString(OUT.resolve(name), html);
  }

  private static int count(Pattern p, String s) {
    return (int) p.matcher(s).results().count();
  }

  @Test
  void theConsoleCheckSeesAnErrorOnAPageThatHasOne() throws Exception {
    needChromium();
    Path page = write("console-control.html", "<!DOCTYPE html><html><body><p>control</p>"
        + "<script>console.error('control error'); notDefinedAnywhere();</script></body></html>");
    Output o = chromium("--dump-dom", page.toUri().toString());
    assertThat(o.stdout()).contains("<p>control</p>");
    assertThat(o.consoleLines()).anySatisfy(l -> assertThat(l).contains("control error"))
        .anySatisfy(l -> assertThat(l).contains("Uncaught ReferenceError"));
  }

  @Test
  void hostileNamesShowAsTextOnASimulatedDevicesPageWithChartsAndNoConsoleError() throws Exception {
    needChromium();
    Path page = write("report-hostile.html", Reports.html(SampleReports.hostile()));
    Output o = chromium("--dump-dom", page.toUri().toString());
    String dom = o.stdout();
    assertThat(o.exit()).as(o.stderr()).isZero();
    assertThat(dom).contains("</html>");

    // No element or event handler came from the data.
    assertThat(count(Pattern.compile("<(script|img|iframe|object|embed|foreignObject)[\\s>/]",
        Pattern.CASE_INSENSITIVE), dom)).isZero();
    Matcher tags = Pattern.compile("<[a-zA-Z][^>]*>").matcher(dom);
    while (tags.find()) {
      assertThat(tags.group()).doesNotContainPattern("(?i)\\son[a-z]+\\s*=");
    }
    // The names are there, as text.
    assertThat(dom).contains("&lt;script&gt;alert(1)&lt;/script&gt;")
        .contains("\"&gt;&lt;img src=x onerror=alert(1)&gt;")
        .contains("&lt;/title&gt;&lt;script&gt;alert(2)&lt;/script&gt;")
        .contains("]]&gt;&lt;!-- &lt;svg onload=alert(4)&gt;");

    // The charts: two timelines, residuals, four telemetry series, the trial history, breakdowns, queue length.
    assertThat(count(Pattern.compile("<svg[\\s>]"), dom)).isEqualTo(10);
    for (String chart : List.of("chart trials", "chart timeline", "chart residuals", "chart telemetry",
        "chart breakdown", "chart queues")) {
      assertThat(dom).contains("class=\"" + chart + "\"");
    }

    // Every section header says the device was simulated.
    Matcher h2 = Pattern.compile("<h2>(.*?)</h2>", Pattern.DOTALL).matcher(dom);
    int headers = 0;
    while (h2.find()) {
      headers++;
      assertThat(h2.group(1).toLowerCase(Locale.ROOT)).contains("simulated device");
    }
    assertThat(headers).isGreaterThanOrEqualTo(10);
    assertThat(dom).contains("SIMULATED device: every figure on this page");

    assertThat(o.consoleLines()).as("console output of the page").isEmpty();
  }

  @Test
  void screenshotsOfTheSampleAndHostilePagesAreWholeReadablePages() throws Exception {
    needChromium();
    for (var entry : List.of(java.util.Map.entry("report-sample", SampleReports.sample()),
        java.util.Map.entry("report-hostile", SampleReports.hostile()))) {
      Path page = write(entry.getKey() + ".html", Reports.html(entry.getValue()));
      Path png = OUT.resolve(entry.getKey() + ".png");
      Files.deleteIfExists(png);
      Output o = chromium("--hide-scrollbars", "--screenshot=" + png, "--window-size=1400,3000",
          page.toUri().toString());
      assertThat(png).as(o.stderr()).isRegularFile();
      assertThat(o.consoleLines()).isEmpty();
      BufferedImage img = ImageIO.read(png.toFile());
      assertThat(img.getWidth()).isEqualTo(1400);
      assertThat(img.getHeight()).isEqualTo(3000);
      Set<Integer> colours = new HashSet<>();
      long inked = 0;
      for (int y = 0; y < img.getHeight(); y += 2) {
        for (int x = 0; x < img.getWidth(); x += 2) {
          int rgb = img.getRGB(x, y) & 0xffffff;
          colours.add(rgb);
          inked += rgb == 0xffffff ? 0 : 1;
        }
      }
      // Text, tables, banners and charts: many colours, and a fair share of the page not blank.
      assertThat(colours.size()).as(entry.getKey() + " colours").isGreaterThan(200);
      assertThat(inked / (double) (img.getWidth() / 2 * img.getHeight() / 2)).as(entry.getKey() + " inked share")
          .isGreaterThan(0.05);
    }
  }
}
