package io.gitm.cli;

import io.gitm.device.Device;
import io.gitm.device.Devices;
import io.gitm.planner.Calibrator;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gitm calibrate}: measures this device's ceilings and writes its hardware spec. */
@Command(name = "calibrate", mixinStandardHelpOptions = true,
    description = "Measure this device's ceilings (memory bandwidth, GEMM rates, host links, launch latency, event"
        + " resolution) and write its hardware spec, which the planner and the simulated device use.")
final class CalibrateCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin
  DeviceOptions device = new DeviceOptions();

  @CommandLine.Mixin
  StoreOptions storeOptions = new StoreOptions();

  @Option(names = {"-o", "--output"}, paramLabel = "FILE",
      description = "Where to write the spec (default: the store's hardware/ folder, keyed by device name, UUID and"
          + " driver).")
  Path output;

  @Option(names = "--quick",
      description = "Mid sizes and fewer repeats: a few seconds instead of about ten, within a few percent of the"
          + " full figures on a datacenter GPU.")
  boolean quick;

  @Option(names = "--json", description = "Print the calibration as JSON.")
  boolean json;

  @Override
  public Integer call() throws IOException {
    CommandLine cl = spec.commandLine();
    if (output != null) {
      Path abs = output.toAbsolutePath();
      if (!abs.getParent().toFile().isDirectory()) {
        throw new CommandLine.ParameterException(cl, "output folder " + abs.getParent() + " does not exist");
      }
      if (abs.toFile().isDirectory()) {
        throw new CommandLine.ParameterException(cl, "output " + abs + " is a folder: give a file name");
      }
    }
    Devices.Choice c = device.choose(cl);
    PrintWriter out = cl.getOut();
    try (Device d = device.open(cl, c)) {
      var info = d.info();
      Path target = output != null ? output
          : storeOptions.open(cl).hardwareSpec(info.name(), info.uuid(), info.driverVersion());
      if (!json) {
        out.println("Calibrating " + info.name() + " [" + info.kind().label() + "] (" + c.reason() + ") …");
        out.flush();
      }
      boolean simulated = info.kind() == io.gitm.trace.DeviceKind.SIMULATED;
      Calibrator.Options opts = simulated ? (quick ? Calibrator.Options.quick() : Calibrator.Options.simulated())
          : quick ? Calibrator.Options.brief() : Calibrator.Options.defaults();
      Calibrator.Calibration cal = Calibrator.calibrate(d, opts, target);
      if (json) {
        out.println(Calibrator.toJson(cal));
      } else {
        var s = cal.spec();
        out.printf("device          %s [%s]%n", s.deviceName(), info.kind().label());
        out.printf("memory copy     %.0f GB/s%n", s.memoryBandwidth() / 1e9);
        s.flops().forEach((p, f) -> out.printf("GEMM %-10s %.1f TFLOP/s%n", p, f / 1e12));
        out.printf("H2D pinned      %.1f GB/s   pageable %.1f GB/s%n", s.hostToDevicePinned() / 1e9,
            s.hostToDevicePageable() / 1e9);
        out.printf("D2H pinned      %.1f GB/s   pageable %.1f GB/s%n", s.deviceToHostPinned() / 1e9,
            s.deviceToHostPageable() / 1e9);
        out.printf("launch latency  %.2f µs%n", s.launchLatencyNs() / 1e3);
        out.printf("event resolution %.2f µs%n", s.eventResolutionNs() / 1e3);
        if (info.kind() == io.gitm.trace.DeviceKind.SIMULATED) {
          out.println("note: simulated device, measured through its model at small GEMM sizes (n=512 fills few"
              + " multiprocessors); its preset's peak figures are listed in docs/sim.md");
        }
        out.println("written to " + target);
      }
    }
    return Main.OK;
  }
}
