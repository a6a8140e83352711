/* Prints the size and field offsets of the CUPTI activity records gitm decodes, one "Struct.field=N" per line.
   Compiled by CuptiLayoutTest against the installed CUDA headers and compared with CuptiLayout. */
#include <stddef.h>
#include <stdio.h>
#include <cupti.h>

#define F(T, f) printf(#T "." #f "=%zu\n", offsetof(T, f))
#define S(T) printf(#T ".sizeof=%zu\n", sizeof(T))

int main(void) {
  printf("CUPTI_API_VERSION=%d\n", CUPTI_API_VERSION);
  S(CUpti_ActivityKernel10);
  F(CUpti_ActivityKernel10, kind); F(CUpti_ActivityKernel10, registersPerThread);
  F(CUpti_ActivityKernel10, start); F(CUpti_ActivityKernel10, end); F(CUpti_ActivityKernel10, deviceId);
  F(CUpti_ActivityKernel10, contextId); F(CUpti_ActivityKernel10, streamId);
  F(CUpti_ActivityKernel10, gridX); F(CUpti_ActivityKernel10, gridY); F(CUpti_ActivityKernel10, gridZ);
  F(CUpti_ActivityKernel10, blockX); F(CUpti_ActivityKernel10, blockY); F(CUpti_ActivityKernel10, blockZ);
  F(CUpti_ActivityKernel10, staticSharedMemory); F(CUpti_ActivityKernel10, dynamicSharedMemory);
  F(CUpti_ActivityKernel10, correlationId); F(CUpti_ActivityKernel10, name);
  S(CUpti_ActivityMemcpy6);
  F(CUpti_ActivityMemcpy6, copyKind); F(CUpti_ActivityMemcpy6, srcKind); F(CUpti_ActivityMemcpy6, dstKind);
  F(CUpti_ActivityMemcpy6, bytes); F(CUpti_ActivityMemcpy6, start); F(CUpti_ActivityMemcpy6, end);
  F(CUpti_ActivityMemcpy6, deviceId); F(CUpti_ActivityMemcpy6, contextId); F(CUpti_ActivityMemcpy6, streamId); F(CUpti_ActivityMemcpy6, correlationId);
  S(CUpti_ActivityMemset4);
  F(CUpti_ActivityMemset4, value); F(CUpti_ActivityMemset4, bytes); F(CUpti_ActivityMemset4, start);
  F(CUpti_ActivityMemset4, end); F(CUpti_ActivityMemset4, deviceId); F(CUpti_ActivityMemset4, contextId); F(CUpti_ActivityMemset4, streamId);
  F(CUpti_ActivityMemset4, correlationId); F(CUpti_ActivityMemset4, memoryKind);
  S(CUpti_ActivitySynchronization2);
  F(CUpti_ActivitySynchronization2, type); F(CUpti_ActivitySynchronization2, start);
  F(CUpti_ActivitySynchronization2, end); F(CUpti_ActivitySynchronization2, correlationId);
  F(CUpti_ActivitySynchronization2, contextId); F(CUpti_ActivitySynchronization2, streamId);
  S(CUpti_ActivityAPI);
  F(CUpti_ActivityAPI, cbid); F(CUpti_ActivityAPI, start); F(CUpti_ActivityAPI, end);
  F(CUpti_ActivityAPI, threadId); F(CUpti_ActivityAPI, correlationId);
  S(CUpti_ActivityOverhead3);
  F(CUpti_ActivityOverhead3, overheadKind); F(CUpti_ActivityOverhead3, objectKind);
  F(CUpti_ActivityOverhead3, objectId); F(CUpti_ActivityOverhead3, start); F(CUpti_ActivityOverhead3, end);
  printf("CUpti_ActivityObjectKindId.pt.threadId=%zu\n", offsetof(CUpti_ActivityObjectKindId, pt.threadId));
  return 0;
}
