/**
 * Bindings to the host operating system through {@code java.lang.foreign} (with {@code io.gitm.nvidia.*}, the only
 * packages that import it): the CPUs a host thread may run on ({@link io.gitm.os.CpuAffinity}), the process
 * groups of the jobs gitm starts ({@link io.gitm.os.ProcessGroups}) and their descendants wherever they went
 * ({@link io.gitm.os.ProcessTree}), on Linux.
 */
package io.gitm.os;
