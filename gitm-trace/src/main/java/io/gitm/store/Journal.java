package io.gitm.store;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * A run's append-only journal: one JSON object per line, each forced to disk before {@link #append} returns. After a
 * crash, every entry that {@code append} returned for is there; a last line cut short by the crash is detected and
 * left out on reading (and reported), never taken for a whole entry.
 *
 * <p>Writes go through {@link RandomAccessFile}, not an interruptible channel: interrupting the writing thread (as
 * Ctrl-C does to cut a trial) neither closes the journal nor loses the entry being written.
 */
public final class Journal implements AutoCloseable {
  private static final ObjectMapper JSON = JsonMapper.builder().build();

  /** One journal entry: its sequence number (from 1), when, what kind, and its data. */
  public record Entry(long seq, String time, String type, Map<String, Object> data) {
    public Entry {
      data = data == null ? Map.of() : data;
    }
  }

  /** What reading a journal found: the whole entries, and a note if a torn last line was left out. */
  public record Contents(List<Entry> entries, String tornTail) {
    public Contents {
      entries = List.copyOf(entries);
    }
  }

  private final Path file;
  private final RandomAccessFile out;
  private long seq;

  private Journal(Path file, RandomAccessFile out, long seq) {
    this.file = file;
    this.out = out;
    this.seq = seq;
  }

  static Journal open(Path file) throws IOException {
    Contents existing = Files.exists(file) ? read(file) : new Contents(List.of(), null);
    if (existing.tornTail() != null) {
      truncateTornTail(file);
    }
    if (!Files.exists(file)) {
      Files.createFile(file, AtomicFiles.privateFile(file));
    }
    long last = existing.entries().isEmpty() ? 0 : existing.entries().getLast().seq();
    return new Journal(file, new RandomAccessFile(file.toFile(), "rw"), last);
  }

  /** Appends one entry and forces it to disk; returns it with its sequence number. */
  public synchronized Entry append(String type, String time, Map<String, Object> data) throws IOException {
    Entry e = new Entry(seq + 1, time, type, data);
    byte[] line = (JSON.writeValueAsString(e) + "\n").getBytes(StandardCharsets.UTF_8);
    long before = out.length();
    try {
      out.seek(before);
      out.write(line);
      out.getFD().sync();
    } catch (IOException ex) {
      // a partial line would run into the next entry: cut the file back to the last whole entry
      try {
        out.setLength(before);
      } catch (IOException suppressed) {
        ex.addSuppressed(suppressed);
      }
      throw ex;
    }
    seq = e.seq();
    return e;
  }

  public Path file() {
    return file;
  }

  @Override
  public synchronized void close() throws IOException {
    out.close();
  }

  /**
   * Reads a journal. A last line without its newline, or that does not parse, is a torn write and is left out (with
   * a note); a bad line before the last is corruption and fails with the line number.
   */
  public static Contents read(Path file) throws IOException {
    byte[] all = Files.readAllBytes(file);
    String text = new String(all, StandardCharsets.UTF_8);
    List<Entry> out = new ArrayList<>();
    String torn = null;
    int lineNo = 0;
    int at = 0;
    while (at < text.length()) {
      int nl = text.indexOf('\n', at);
      lineNo++;
      boolean last = nl < 0 || nl == text.length() - 1;
      String line = nl < 0 ? text.substring(at) : text.substring(at, nl);
      if (nl < 0) {
        torn = "journal " + file + " ends with an incomplete entry at line " + lineNo + "; it was left out";
        break;
      }
      try {
        if (!line.isBlank()) {
          Entry e = JSON.readValue(line, Entry.class);
          if (e.seq() != out.size() + 1) {
            throw new IOException("journal " + file + " line " + lineNo + " has sequence " + e.seq() + ", expected "
                + (out.size() + 1));
          }
          out.add(e);
        }
      } catch (tools.jackson.core.JacksonException ex) {
        if (last) {
          torn = "journal " + file + " ends with an unreadable entry at line " + lineNo + "; it was left out";
          break;
        }
        throw new IOException("journal " + file + " is corrupt at line " + lineNo + ": " + ex.getOriginalMessage(), ex);
      }
      at = nl + 1;
    }
    return new Contents(out, torn);
  }

  private static void truncateTornTail(Path file) throws IOException {
    byte[] all = Files.readAllBytes(file);
    int end = all.length;
    if (end > 0 && all[end - 1] == '\n') {
      end--;
    }
    int cut = 0;
    for (int i = end - 1; i >= 0; i--) {
      if (all[i] == '\n') {
        cut = i + 1;
        break;
      }
    }
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.truncate(cut);
      ch.force(true);
    }
  }
}
