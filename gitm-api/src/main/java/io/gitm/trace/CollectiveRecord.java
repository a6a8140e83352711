package io.gitm.trace;

/**
 * The metadata of one collective communication (NCCL and the like), as the framework records it: on the host
 * operation that issued it (PyTorch's {@code record_param_comms}), or on the device kernel that ran it.
 *
 * @param collective the collective's name as the framework gives it ({@code allreduce}, {@code _allgather_base})
 * @param dtype the element type's name ({@code Float}, {@code BFloat16}), empty when unknown
 * @param inElements elements sent by this rank, -1 when unknown
 * @param outElements elements received by this rank, -1 when unknown
 * @param groupSize ranks in the process group, -1 when unknown
 * @param groupName the process group's name, empty when unknown
 * @param groupDescription the process group's description ({@code default_pg}), empty when unknown
 * @param groupRanks the process group's global ranks as the framework lists them ({@code [0, 1]}), empty when unknown
 * @param device the device of the kernel that carried the metadata, -1 when a host operation carried it
 * @param threadId the host thread of the operation that carried it, -1 when a kernel carried it
 * @param externalId the host operation's id (the same on the kernel it launched), 0 when unknown
 * @param correlationId the kernel's correlation id, 0 when a host operation carried the metadata
 */
public record CollectiveRecord(String collective, String dtype, long inElements, long outElements, int groupSize,
    String groupName, String groupDescription, String groupRanks, int device, long threadId, long externalId,
    long correlationId, long startNs, long endNs) implements TraceRecord {
  public CollectiveRecord {
    TraceRecord.checkInterval(startNs, endNs);
    collective = collective == null ? "" : collective;
    dtype = dtype == null ? "" : dtype;
    groupName = groupName == null ? "" : groupName;
    groupDescription = groupDescription == null ? "" : groupDescription;
    groupRanks = groupRanks == null ? "" : groupRanks;
  }

  /** Whether a device kernel carried the metadata (else a host operation did). */
  public boolean onDevice() {
    return device >= 0;
  }
}
