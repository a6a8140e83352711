package io.gitm.nvidia.cuda;

import io.gitm.device.DiagnosticCheck;

/** Prints the nvidia backend's doctor checks, one per line: what the GPU run script shows before the CLI is wired. */
public final class PrintDiagnostics {
  private PrintDiagnostics() {
  }

  public static void main(String[] args) {
    CudaProvider p = new CudaProvider();
    System.out.println("probe: " + p.probe());
    for (DiagnosticCheck c : p.diagnostics()) {
      System.out.printf("%-22s %-11s %s%s%n", c.name(), c.status(), c.detail(), c.fix().isEmpty() ? ""
          : "  [fix: " + c.fix() + "]");
    }
  }
}
