/* A fake cuBLAS (libcublas.so.13) for the marshalling check: cublasGemmEx on host memory, FP32 data, inputs rounded to
 * TF32 or BF16 for the fast compute types. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static float round_bits(float x, int keep) {
  uint32_t u; memcpy(&u, &x, 4);
  uint32_t drop = 23 - keep, half = 1u << (drop - 1);
  u = (u + half) & ~((1u << drop) - 1);
  memcpy(&x, &u, 4);
  return x;
}
int cublasCreate_v2(void **h) { *h = malloc(16); return 0; }
int cublasDestroy_v2(void *h) { free(h); return 0; }
int cublasSetStream_v2(void *h, void *s) { return 0; }
int cublasGetVersion_v2(void *h, int *v) { *v = 130000; return 0; }
int cublasGemmEx(void *h, int ta, int tb, int m, int n, int k, const void *alpha, const void *A, int at, int lda,
    const void *B, int bt, int ldb, const void *beta, void *C, int ct, int ldc, int compute, int algo) {
  if (at != 0 || bt != 0 || ct != 0 || algo != -1) return 7;
  int keep = compute == 68 ? 23 : compute == 77 ? 10 : compute == 75 ? 7 : -1;
  if (keep < 0) return 15;
  const float *a = A, *b = B; float *c = C;
  float al = *(const float *)alpha, be = *(const float *)beta;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      double acc = 0;
      for (int p = 0; p < k; p++) {
        float x = ta ? a[p + (size_t)i * lda] : a[i + (size_t)p * lda];
        float y = tb ? b[j + (size_t)p * ldb] : b[p + (size_t)j * ldb];
        if (keep < 23) { x = round_bits(x, keep); y = round_bits(y, keep); }
        acc += (double)x * y;
      }
      c[i + (size_t)j * ldc] = (float)(al * acc + (be != 0 ? be * c[i + (size_t)j * ldc] : 0));
    }
  return 0;
}
