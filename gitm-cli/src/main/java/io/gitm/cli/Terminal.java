package io.gitm.cli;

/**
 * Text from outside gitm (kernel and marker names of an imported trace, a job's output) made safe to print on a
 * terminal: every control character is written as an escape, so that no name can move the cursor, recolour, retitle
 * or clear the terminal, or start a line of its own. C0 controls and DEL become {@code \n}, {@code \r}, {@code \t} or
 * {@code \xNN} (ESC is {@code \x1b}), C1 controls and the bidirectional overrides {@code \\uNNNN}.
 */
final class Terminal {
  private Terminal() {}

  /** {@code value}'s text with its control characters escaped; {@code null} prints as {@code null}. */
  static String safe(Object value) {
    String s = String.valueOf(value);
    StringBuilder sb = null;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      String esc = escape(c);
      if (esc != null && sb == null) {
        sb = new StringBuilder(s.length() + 16).append(s, 0, i);
      }
      if (sb != null) {
        if (esc != null) {
          sb.append(esc);
        } else {
          sb.append(c);
        }
      }
    }
    return sb == null ? s : sb.toString();
  }

  private static String escape(char c) {
    return switch (c) {
      case '\n' -> "\\n";
      case '\r' -> "\\r";
      case '\t' -> "\\t";
      default -> {
        if (c < 0x20 || c == 0x7f) {
          yield String.format("\\x%02x", (int) c);
        }
        if ((c >= 0x80 && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) {
          yield String.format("\\u%04x", (int) c);
        }
        yield null;
      }
    };
  }
}
