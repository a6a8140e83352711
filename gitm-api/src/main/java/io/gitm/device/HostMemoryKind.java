package io.gitm.device;

/** Host memory as the device sees it: pageable copies are staged by the driver and synchronous with the host. */
public enum HostMemoryKind {
  PAGEABLE, PINNED
}
