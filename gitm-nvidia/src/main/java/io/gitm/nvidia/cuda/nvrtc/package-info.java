/** The NVRTC binding: CUDA C compiled to PTX at run time, where the build had no {@code nvcc}. */
@NullMarked
package io.gitm.nvidia.cuda.nvrtc;

import org.jspecify.annotations.NullMarked;
