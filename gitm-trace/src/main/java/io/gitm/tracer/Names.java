package io.gitm.tracer;

import io.gitm.trace.CopyKind;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.SyncKind;
import java.util.Locale;

/**
 * The display names CUPTI and Kineto use for copy directions, memory kinds and synchronizations
 * ({@code "Memcpy HtoD (Pageable -> Device)"}, {@code "Memset (Device)"}, {@code "Stream Sync"}), in both directions.
 */
final class Names {
  private Names() {}

  static String copyKind(CopyKind k) {
    return switch (k) {
      case HTOD -> "HtoD";
      case DTOH -> "DtoH";
      case DTOD -> "DtoD";
      case HTOH -> "HtoH";
      case PTOP -> "PtoP";
      case UNKNOWN -> "Unknown";
    };
  }

  static String memoryKind(MemoryKind k) {
    return switch (k) {
      case DEVICE -> "Device";
      case PINNED -> "Pinned";
      case PAGEABLE -> "Pageable";
      case MANAGED -> "Managed";
      case ARRAY -> "Array";
      case UNKNOWN -> "Unknown";
    };
  }

  static String syncKind(SyncKind k) {
    return switch (k) {
      case EVENT -> "Event Sync";
      case STREAM_WAIT_EVENT -> "Stream Wait Event";
      case STREAM -> "Stream Sync";
      case CONTEXT -> "Context Sync";
      case UNKNOWN -> "Sync";
    };
  }

  /** "Memcpy HtoD (Pageable -> Device)". */
  static String copy(CopyKind kind, MemoryKind src, MemoryKind dst) {
    return "Memcpy " + copyKind(kind) + " (" + memoryKind(src) + " -> " + memoryKind(dst) + ")";
  }

  /** "Memset (Device)". */
  static String memset(MemoryKind kind) {
    return "Memset (" + memoryKind(kind) + ")";
  }

  /**
   * The direction of a CUPTI copy-kind name; arrays count as device memory ({@code AtoH} is a device-to-host copy).
   * Null when the name is not one CUPTI uses.
   */
  static CopyKind parseCopyKind(String s) {
    return switch (s.toLowerCase(Locale.ROOT)) {
      case "htod", "htoa" -> CopyKind.HTOD;
      case "dtoh", "atoh" -> CopyKind.DTOH;
      case "dtod", "dtoa", "atod", "atoa" -> CopyKind.DTOD;
      case "htoh" -> CopyKind.HTOH;
      case "ptop" -> CopyKind.PTOP;
      case "unknown" -> CopyKind.UNKNOWN;
      default -> null;
    };
  }

  /** A CUPTI memory-kind name ("Pageable", "Device Static", …); null when the name is not one CUPTI uses. */
  static MemoryKind parseMemoryKind(String s) {
    return switch (s.strip().toLowerCase(Locale.ROOT)) {
      case "device", "device static" -> MemoryKind.DEVICE;
      case "pinned" -> MemoryKind.PINNED;
      case "pageable" -> MemoryKind.PAGEABLE;
      case "managed", "managed static" -> MemoryKind.MANAGED;
      case "array" -> MemoryKind.ARRAY;
      case "unknown" -> MemoryKind.UNKNOWN;
      default -> null;
    };
  }

  /** A CUPTI/Kineto synchronization name ("Stream Sync", …); null when unknown. */
  static SyncKind parseSyncKind(String s) {
    return switch (s.strip().toLowerCase(Locale.ROOT)) {
      case "event sync", "event_synchronize" -> SyncKind.EVENT;
      case "stream wait event", "stream_wait_event" -> SyncKind.STREAM_WAIT_EVENT;
      case "stream sync", "stream_synchronize" -> SyncKind.STREAM;
      case "context sync", "context_synchronize" -> SyncKind.CONTEXT;
      default -> null;
    };
  }
}
