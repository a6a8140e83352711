// Runs the hft-lob pipeline of lob.cu on the host, batch by batch, as LobSession launches it on a device.
// Input file: int n, k, logOC, LV, block, batches, variant (0 thread, 1 warp); float weights[161]; per device batch: int m, inputs, rawBytes,
// offsetsAt, subAt, inBytes, then inBytes of staged input. Output file: per device batch, top, feat, sig.
#include "shim.h"
#include "lob.cu"
#include <cstdio>

static void seq(unsigned grid, unsigned block, const std::function<void()>& f) {
  blockDim = {block, 1, 1};
  gridDim = {grid, 1, 1};
  for (unsigned b = 0; b < grid; b++) {
    for (unsigned t = 0; t < block; t++) {
      blockIdx = {b, 1, 1};
      threadIdx = {t, 1, 1};
      f();
    }
  }
}

static void par(unsigned grid, unsigned block, const std::function<void()>& f) {
  blockDim = {block, 1, 1};
  gridDim = {grid, 1, 1};
  for (unsigned b = 0; b < grid; b++) {
    std::barrier<> bar(block);
    g_bar = &bar;
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < block; t++) {
      ts.emplace_back([&, b, t] {
        blockIdx = {b, 1, 1};
        threadIdx = {t, 1, 1};
        f();
      });
    }
    for (auto& th : ts) th.join();
  }
}

// Real threads, each warp with its own barrier for the warp collectives.
static void warps(unsigned grid, unsigned block, const std::function<void()>& f) {
  blockDim = {block, 1, 1};
  gridDim = {grid, 1, 1};
  for (unsigned b = 0; b < grid; b++) {
    std::vector<Warp> ws(block / 32);
    for (auto& w : ws) {
      w.bar = new std::barrier<>(32);
    }
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < block; t++) {
      ts.emplace_back([&, b, t] {
        blockIdx = {b, 1, 1};
        threadIdx = {t, 1, 1};
        g_warp = &ws[t / 32];
        f();
      });
    }
    for (auto& th : ts) th.join();
    for (auto& w : ws) delete w.bar;
  }
}

static unsigned cover(long n, unsigned b) { return (unsigned)std::max(1L, (n + b - 1) / b); }

static void readAll(FILE* in, void* p, size_t size, size_t count) {
  if (fread(p, size, count, in) != count) {
    fprintf(stderr, "short input\n");
    exit(2);
  }
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: run IN OUT\n");
    return 2;
  }
  FILE* in = fopen(argv[1], "rb");
  FILE* out = fopen(argv[2], "wb");
  if (!in || !out) {
    fprintf(stderr, "cannot open files\n");
    return 2;
  }
  int hdr[7];
  readAll(in, hdr, 4, 7);
  bool warp = hdr[6] == 1;
  int n = hdr[0], logOC = hdr[2], LV = hdr[3], block = hdr[4], batches = hdr[5];
  int oc = 1 << logOC;
  std::vector<long long> ord((size_t)n * oc * 2, 0);
  std::vector<int> lv((size_t)n * 2 * LV * 2, 0), nlv(2 * n, 0), live(n, 0), err(n, 0);
  std::vector<long long> fst((size_t)n * STATE, 0);
  std::vector<float> w(HID * IN + HID + HID + 1);
  readAll(in, w.data(), 4, w.size());
  for (int bi = 0; bi < batches; bi++) {
    int bh[6];
    readAll(in, bh, 4, 6);
    int m = bh[0], inputs = bh[1], rawBytes = bh[2], offsetsAt = bh[3], subAt = bh[4], inBytes = bh[5];
    std::vector<unsigned char> buf(inBytes + 16);
    readAll(in, buf.data(), 1, inBytes);
    int chunks = (m + block - 1) / block;
    std::vector<int> dec((size_t)m * DEC), hist((size_t)chunks * n, 0), totals(n), starts(n), perm(m);
    std::vector<int> top((size_t)inputs * n * TOP);
    std::vector<long long> feat((size_t)inputs * n * FEAT);
    std::vector<float> sig((size_t)inputs * n);
    seq(cover(m, block), block, [&] { lob_decode(buf.data(), offsetsAt, subAt, m, inputs, n, rawBytes, dec.data()); });
    seq(chunks, block, [&] { lob_route_hist(dec.data(), m, n, hist.data()); });
    seq(cover(n, block), block, [&] { lob_route_chunks(hist.data(), chunks, n, totals.data()); });
    par(1, std::min(1024, block), [&] { lob_route_scan(totals.data(), n, starts.data()); });
    par(chunks, block, [&] { lob_route_scatter(dec.data(), hist.data(), starts.data(), m, n, perm.data()); });
    if (warp) {
      warps(cover(32L * n, block), block, [&] {
        lob_book_warp(dec.data(), perm.data(), starts.data(), totals.data(), ord.data(), lv.data(), nlv.data(),
            live.data(), err.data(), top.data(), feat.data(), n, inputs, logOC, LV, m);
      });
    } else {
      seq(cover(n, block), block, [&] {
        lob_book(dec.data(), perm.data(), starts.data(), totals.data(), ord.data(), lv.data(), nlv.data(), live.data(),
            err.data(), top.data(), feat.data(), n, inputs, logOC, LV, m);
      });
    }
    seq(cover(n, block), block, [&] { lob_features(top.data(), feat.data(), fst.data(), n, inputs); });
    seq(cover((long)inputs * n, block), block, [&] { lob_mlp(feat.data(), w.data(), sig.data(), inputs * n); });
    fwrite(top.data(), 4, top.size(), out);
    fwrite(feat.data(), 8, feat.size(), out);
    fwrite(sig.data(), 4, sig.size(), out);
  }
  return fclose(out) == 0 ? 0 : 1;
}
