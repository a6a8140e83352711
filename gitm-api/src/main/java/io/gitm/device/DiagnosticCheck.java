package io.gitm.device;

/** One line of {@code gitm doctor}: what was checked, its status, what was found, and how to fix it when not ok. */
public record DiagnosticCheck(String name, Status status, String detail, String fix) {
  /** OK works; WARNING works, with something worth a look; MISSING, UNSUPPORTED and FAILED do not work. */
  public enum Status {
    OK, WARNING, MISSING, UNSUPPORTED, FAILED
  }

  public DiagnosticCheck {
    detail = detail == null ? "" : detail;
    fix = fix == null ? "" : fix;
  }

  public static DiagnosticCheck ok(String name, String detail) {
    return new DiagnosticCheck(name, Status.OK, detail, "");
  }
}
