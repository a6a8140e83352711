/**
 * The host side of an imported trace: the critical path of a window (host operations, launches, device work and
 * synchronization as one graph, and its longest path) and the collective communications with their metadata.
 */
@NullMarked
package io.gitm.analysis.critical;

import org.jspecify.annotations.NullMarked;
