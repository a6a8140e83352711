/** The cuBLAS binding: GEMMs on the device's streams, with the compute type of the math mode in force. */
@NullMarked
package io.gitm.nvidia.cublas;

import org.jspecify.annotations.NullMarked;
