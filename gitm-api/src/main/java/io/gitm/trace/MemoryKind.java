package io.gitm.trace;

/** Where the memory on one side of a copy or memset lives. */
public enum MemoryKind {
  DEVICE, PINNED, PAGEABLE, MANAGED, ARRAY, UNKNOWN
}
