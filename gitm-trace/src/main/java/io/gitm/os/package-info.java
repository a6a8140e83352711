/**
 * Bindings to the host operating system through {@code java.lang.foreign} (with {@code io.gitm.nvidia.*}, the only
 * packages that import it): the CPUs a host thread may run on ({@link io.gitm.os.CpuAffinity}) and the process
 * groups of the jobs gitm starts ({@link io.gitm.os.ProcessGroups}), on Linux.
 */
package io.gitm.os;
