package io.gitm.job;

import io.gitm.api.Ticker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;

/** Files a live job is started with: its folder, token, socket and environment. */
record LiveStart(ProcessSpec spec, Path folder, Path socket, String token, Map<String, String> env) {
  /** The token's file in the live folder, removed once the hook has read it and gitm has connected. */
  static final String TOKEN_FILE = "token";

  static LiveStart prepare(ProcessSpec spec, Path runDir, TorchHook hook) {
    try {
      Path folder = private0700(runDir.resolve("live"));
      Path hookDir = private0700(folder.resolve("hook"));
      byte[] raw = new byte[24];
      new SecureRandom().nextBytes(raw);
      String token = HexFormat.of().formatHex(raw);
      Path tokenFile = folder.resolve(TOKEN_FILE);
      Files.deleteIfExists(tokenFile);
      Files.createFile(tokenFile, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
          "rw-------")));
      Files.writeString(tokenFile, token, StandardCharsets.US_ASCII);
      Path socket = folder.resolve("hook.sock");
      if (socket.toString().getBytes(StandardCharsets.UTF_8).length > 100) {
        socket = Files.createTempDirectory("gitm-live-", PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rwx------"))).resolve("s");
      }
      Files.deleteIfExists(socket);
      Map<String, String> env = new TreeMap<>(spec.environment());
      env.putAll(hook.environment(hookDir, env.get("PYTHONPATH")));
      env.put("GITM_HOOK_SOCKET", socket.toString());
      env.put("GITM_HOOK_TOKEN_FILE", tokenFile.toString());
      return new LiveStart(spec, folder, socket, token, env);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare the live job's folder in " + runDir, e);
    }
  }

  private static Path private0700(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    return dir;
  }

  Process launch(Path setsid) throws TrialFailure {
    List<String> argv = new ArrayList<>();
    argv.add(setsid.toString());
    argv.addAll(spec.argv());
    ProcessBuilder pb = new ProcessBuilder(argv).directory(spec.workdir().toFile())
        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
        .redirectOutput(folder.resolve("job.stdout").toFile()).redirectError(folder.resolve("job.stderr").toFile());
    pb.environment().clear();
    pb.environment().putAll(env);
    try {
      return pb.start();
    } catch (IOException e) {
      throw new TrialFailure(TrialFailure.Kind.CRASH, "the job could not be started: " + e.getMessage());
    }
  }

  /** Waits for the hook's socket and connects; the job exiting first, or a refusal in live.log, fails. */
  LiveChannel connect(Process p, Ticker ticker, Duration timeout) throws TrialFailure, InterruptedException {
    long until = ticker.nanos() + timeout.toNanos();
    Path log = folder.resolve("hook").resolve("live.log");
    Path error = folder.resolve("hook").resolve("hook-error.txt");
    while (ticker.nanos() < until) {
      if (Files.exists(socket)) {
        try {
          return LiveChannel.connect(socket, ticker);
        } catch (IOException e) {
          // bound but not yet listening: tried again below
        }
      }
      String refused = firstLine(log, "refused to open the channel");
      if (refused == null && Files.isRegularFile(error)) {
        refused = "gitm's Python hook failed and turned itself off: " + TorchHook.read(error.getParent()).error();
      }
      if (refused != null) {
        throw new TrialFailure(TrialFailure.Kind.SETUP_REFUSED, refused);
      }
      if (!p.isAlive()) {
        String err = ProcessJob.tail(folder.resolve("job.stderr"));
        throw new TrialFailure(TrialFailure.Kind.CRASH, "the job exited with status " + p.exitValue()
            + " before gitm's hook opened the channel (it never imported torch?); last line: "
            + ProcessMetric.lastLine(err.isBlank() ? ProcessJob.tail(folder.resolve("job.stdout")) : err));
      }
      Thread.sleep(LiveJob.POLL);
    }
    throw new TrialFailure(TrialFailure.Kind.HANG, "the job opened no live channel within "
        + Watchdog.describe(timeout) + " (it never imported torch?); it is left running, pid " + p.pid());
  }

  /** The hook's state once the job has made its first step (its own settings are known then). */
  JsonNode firstStep(Process p, LiveChannel ch, Ticker ticker, Duration timeout)
      throws LiveChannel.Failure, TrialFailure, InterruptedException {
    long until = ticker.nanos() + timeout.toNanos();
    while (true) {
      JsonNode st = ch.call(Map.of("op", "state"), LiveJob.REPLY);
      if (st.path("steps").asLong(0) > 0) {
        return st;
      }
      if (!p.isAlive()) {
        throw new TrialFailure(TrialFailure.Kind.CRASH, "the job exited with status " + p.exitValue()
            + " before its first step");
      }
      if (ticker.nanos() > until) {
        throw new TrialFailure(TrialFailure.Kind.HANG, "the job made no step within " + Watchdog.describe(timeout)
            + " of importing torch; it is left running, pid " + p.pid());
      }
      Thread.sleep(LiveJob.POLL);
    }
  }

  private static String firstLine(Path f, String containing) {
    try {
      if (Files.isRegularFile(f)) {
        for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
          if (line.contains(containing)) {
            return line.strip();
          }
        }
      }
    } catch (IOException ignored) {
      // not readable yet: looked at again at the next poll
    }
    return null;
  }
}
