package io.gitm.trace;

/** The class of a host API call, as the analysis groups them. */
public enum ApiKind {
  LAUNCH, ALLOC, FREE, COPY, MEMSET, SYNC, OTHER
}
