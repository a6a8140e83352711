package io.gitm.cli;

import io.gitm.device.DeviceProvider;
import io.gitm.device.Devices;
import io.gitm.device.DiagnosticCheck;
import io.gitm.device.DiagnosticCheck.Status;
import io.gitm.store.RunStore;
import io.gitm.store.S3Root;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code gitm doctor}: a table of checks, each ok / missing / unsupported / failed with what was found and the fix.
 * Exits 0 when gitm can run here (the simulated device counts), 1 otherwise.
 */
@Command(name = "doctor", mixinStandardHelpOptions = true, description = "Check this machine for what gitm needs.")
final class DoctorCommand implements Callable<Integer> {
  static final long MIN_FREE_BYTES = 1L << 30;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @CommandLine.Option(names = "--json", description = "Print the checks as JSON.")
  boolean json;

  @CommandLine.Mixin
  StoreOptions storeOptions = new StoreOptions();

  @Override
  public Integer call() {
    Map<String, String> env = System.getenv();
    List<DiagnosticCheck> checks = new ArrayList<>();
    boolean blocking = false;

    DiagnosticCheck java = javaCheck();
    checks.add(java);
    blocking |= java.status() != Status.OK;

    DiagnosticCheck scratch = scratchCheck(storeOptions.root(spec.commandLine()), storeOptions.explicit());
    checks.add(scratch);
    blocking |= scratch.status() == Status.FAILED;

    if (scratch.status() == Status.OK) {
      checks.add(storeContentsCheck(storeOptions.root(spec.commandLine())));
    }
    checks.add(blackBoxCheck());

    DiagnosticCheck s3 = s3Check(env.get("GITM_S3_ROOT"), env.get("GITM_S3_ENDPOINT"));
    checks.add(s3);
    blocking |= s3.status() == Status.FAILED;

    List<DeviceProvider> providers = DeviceProvider.all();
    for (DeviceProvider p : providers) {
      try {
        checks.addAll(p.diagnostics());
      } catch (RuntimeException e) {
        checks.add(new DiagnosticCheck(p.kind() + " backend", Status.FAILED, Main.oneLine(e.toString()), ""));
      }
    }
    String auto;
    try {
      Devices.Choice c = Devices.choose("auto", providers);
      auto = c.provider().kind();
      checks.add(DiagnosticCheck.ok("device (auto)", c.reason()));
    } catch (IllegalArgumentException e) {
      auto = "none";
      blocking = true;
      checks.add(new DiagnosticCheck("device (auto)", Status.MISSING, e.getMessage(),
          "install the NVIDIA driver, or keep gitm-sim on the class path"));
    }

    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("ok", !blocking);
      doc.put("autoDevice", auto);
      doc.put("checks", checks);
      out.println(Json.write(doc));
    } else {
      printTable(out, checks);
      out.println();
      out.println(blocking ? "gitm cannot run here: fix the checks marked above."
          : "gitm can run here (device: " + auto + ").");
    }
    return blocking ? Main.FAILURE : Main.OK;
  }

  /** What {@code gitm run --cmd} needs: process groups, {@code setsid}, {@code taskset}, the injection library. */
  static DiagnosticCheck blackBoxCheck() {
    if (!io.gitm.os.ProcessGroups.supported()) {
      return new DiagnosticCheck(
          "black-box jobs", Status.UNSUPPORTED, io.gitm.os.ProcessGroups.unsupportedReason(), "");
    }
    boolean setsid = onPath("setsid");
    boolean taskset = onPath("taskset");
    boolean inject = io.gitm.nvidia.cupti.Injection.class.getResource(
        "/native/linux-" + (System.getProperty("os.arch").equals("amd64") ? "x86_64" : System.getProperty("os.arch"))
            + "/libgitm_inject.so") != null;
    String detail = "setsid " + (setsid ? "found" : "MISSING") + ", taskset " + (taskset ? "found" : "missing (no CPU"
        + " pinning lever)") + ", CUPTI injection library " + (inject ? "in this build" : "not in this build (no kernel"
        + " traces of black-box jobs)");
    return new DiagnosticCheck("black-box jobs", !setsid ? Status.MISSING : taskset && inject ? Status.OK
        : Status.WARNING, detail, setsid ? "" : "install util-linux (setsid, taskset)");
  }

  private static boolean onPath(String tool) {
    for (String d : (System.getenv().getOrDefault("PATH", "") + ":/usr/bin:/bin").split(":")) {
      if (!d.isEmpty() && java.nio.file.Files.isExecutable(java.nio.file.Path.of(d, tool))) {
        return true;
      }
    }
    return false;
  }

  static DiagnosticCheck javaCheck() {
    int feature = Runtime.version().feature();
    String detail = Runtime.version() + " (" + System.getProperty("java.vendor", "?") + ", "
        + System.getProperty("java.home") + ")";
    return feature >= 25 ? DiagnosticCheck.ok("java", detail)
        : new DiagnosticCheck("java", Status.MISSING, detail,
            "install a Java 25 JDK (e.g. Temurin 25) and set JAVA_HOME");
  }

  static DiagnosticCheck scratchCheck(Path root, boolean fromEnv) {
    String where = root + (fromEnv ? "" : " (default; set GITM_SCRATCH or --scratch to move it)");
    try {
      RunStore store = RunStore.open(root);
      Path probe = Files.createTempFile(store.root(), ".doctor", ".probe");
      Files.delete(probe);
      long free = Files.getFileStore(store.root()).getUsableSpace();
      String detail = where + ", writable, " + human(free) + " free";
      if (free < MIN_FREE_BYTES) {
        return new DiagnosticCheck("scratch folder", Status.MISSING, detail,
            "free at least 1 GiB there, or point GITM_SCRATCH elsewhere");
      }
      return DiagnosticCheck.ok("scratch folder", detail);
    } catch (IOException | RuntimeException e) {
      return new DiagnosticCheck("scratch folder", Status.FAILED, where + ": " + StoreOptions.describe(e),
          "point --scratch or GITM_SCRATCH at a folder gitm can create and write");
    }
  }

  /** What in the store is not gitm's, cannot be read, or was left by an interrupted write; reported, never deleted. */
  static DiagnosticCheck storeContentsCheck(Path root) {
    try {
      var findings = io.gitm.store.StoreScan.scan(RunStore.open(root));
      if (findings.isEmpty()) {
        return DiagnosticCheck.ok("store contents", "every file is part of gitm's layout and readable");
      }
      String list = findings.stream().limit(5)
          .map(f -> f.kind().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + ": " + f.path()
              + " (" + f.detail() + ")")
          .collect(java.util.stream.Collectors.joining("; "));
      return new DiagnosticCheck("store contents", Status.WARNING, findings.size() + " finding(s): " + list
          + (findings.size() > 5 ? "; …" : ""),
          "gitm leaves these alone; move or delete them yourself if they are not needed");
    } catch (IOException e) {
      return new DiagnosticCheck("store contents", Status.FAILED, Main.oneLine(e.toString()), "");
    }
  }

  static DiagnosticCheck s3Check(String value, String endpoint) {
    if (value == null) {
      return DiagnosticCheck.ok("GITM_S3_ROOT", "not set (optional: runs stay local)");
    }
    try {
      S3Root.parse(value);
    } catch (IllegalArgumentException e) {
      return new DiagnosticCheck("GITM_S3_ROOT", Status.FAILED, e.getMessage(),
          "set it to s3://bucket/prefix or unset it");
    }
    Map<String, String> env = new LinkedHashMap<>();
    env.put("GITM_S3_ROOT", value);
    if (endpoint != null) {
      env.put("GITM_S3_ENDPOINT", endpoint);
    }
    try {
      return DiagnosticCheck.ok("GITM_S3_ROOT", io.gitm.store.s3.S3Settings.fromEnvironment(env).describe()
          + " (well-formed; not contacted; synced when a run ends and by 'gitm sync')");
    } catch (IllegalArgumentException e) {
      return new DiagnosticCheck("GITM_S3_ROOT", Status.FAILED, e.getMessage(),
          "set GITM_S3_ENDPOINT to an S3-compatible server's http(s)://host:port, or unset it for AWS");
    }
  }

  static String human(long bytes) {
    double g = bytes / (double) (1L << 30);
    return g >= 1 ? String.format("%.1f GiB", g) : String.format("%.0f MiB", bytes / (double) (1L << 20));
  }

  static void printTable(PrintWriter out, List<DiagnosticCheck> checks) {
    int w = checks.stream().mapToInt(c -> c.name().length()).max().orElse(10);
    for (DiagnosticCheck c : checks) {
      String status = switch (c.status()) {
        case OK -> "ok";
        case WARNING -> "warning";
        case MISSING -> "missing";
        case UNSUPPORTED -> "unsupported";
        case FAILED -> "FAILED";
      };
      out.printf("%-" + w + "s  %-11s  %s%n", c.name(), status, c.detail());
      if (c.status() != Status.OK && !c.fix().isEmpty()) {
        out.printf("%-" + w + "s  %-11s  fix: %s%n", "", "", c.fix());
      }
    }
  }
}
