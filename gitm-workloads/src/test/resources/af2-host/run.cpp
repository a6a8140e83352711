// Runs launches of af2.cu's kernels on the host (see shim.h). Usage: run IN OUT. IN (little-endian): int32 buffer
// count, then each buffer as int64 bytes and its bytes; int32 launch count, then each launch as int32 name length,
// the name, int32 grid x y z, block x y z, dynamic shared bytes, int32 argument count, and each argument as int32
// type (0 buffer index, 1 int, 2 float) and int32 value (a float's bits for 2). OUT: the buffers after all launches,
// in IN's buffer format.
#include "shim.h"
#include "af2.cu"
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <string>

struct Arg {
  int type;
  int32_t value;
};
static std::vector<std::vector<char>> g_bufs;

static float* F(const Arg& a) { return reinterpret_cast<float*>(g_bufs.at(a.value).data()); }
static int* I(const Arg& a) { return reinterpret_cast<int*>(g_bufs.at(a.value).data()); }
static int N(const Arg& a) { return a.value; }
static float R(const Arg& a) {
  float f;
  std::memcpy(&f, &a.value, 4);
  return f;
}

using Call = std::function<void(const std::vector<Arg>&)>;

static std::map<std::string, Call> kernels() {
  std::map<std::string, Call> t;
  t["af2_msa_feat"] = [](const std::vector<Arg>& a) { af2_msa_feat(I(a[0]), I(a[1]), F(a[2]), N(a[3])); };
  t["af2_target_feat"] = [](const std::vector<Arg>& a) { af2_target_feat(I(a[0]), F(a[1]), N(a[2])); };
  t["af2_relpos"] = [](const std::vector<Arg>& a) { af2_relpos(F(a[0]), N(a[1]), N(a[2])); };
  t["af2_msa_init"] = [](const std::vector<Arg>& a) {
    af2_msa_init(F(a[0]), F(a[1]), F(a[2]), F(a[3]), F(a[4]), N(a[5]), N(a[6]), N(a[7]));
  };
  t["af2_pair_init"] = [](const std::vector<Arg>& a) {
    af2_pair_init(F(a[0]), F(a[1]), F(a[2]), F(a[3]), F(a[4]), F(a[5]), F(a[6]), N(a[7]), N(a[8]));
  };
  t["af2_layer_norm"] = [](const std::vector<Arg>& a) {
    af2_layer_norm(F(a[0]), F(a[1]), F(a[2]), F(a[3]), N(a[4]), N(a[5]));
  };
  t["af2_bias_act"] = [](const std::vector<Arg>& a) { af2_bias_act(F(a[0]), F(a[1]), N(a[2]), N(a[3]), N(a[4])); };
  t["af2_gate_mul"] = [](const std::vector<Arg>& a) {
    af2_gate_mul(F(a[0]), F(a[1]), F(a[2]), F(a[3]), F(a[4]), N(a[5]), N(a[6]));
  };
  t["af2_residual"] = [](const std::vector<Arg>& a) {
    af2_residual(F(a[0]), F(a[1]), F(a[2]), N(a[3]), N(a[4]), R(a[5]));
  };
  t["af2_gated_residual"] = [](const std::vector<Arg>& a) {
    af2_gated_residual(F(a[0]), F(a[1]), F(a[2]), F(a[3]), F(a[4]), N(a[5]), N(a[6]));
  };
  t["af2_attn_logits"] = [](const std::vector<Arg>& a) {
    af2_attn_logits(F(a[0]), F(a[1]), F(a[2]), F(a[3]), N(a[4]), N(a[5]), N(a[6]), N(a[7]), N(a[8]), N(a[9]),
                    N(a[10]), N(a[11]), N(a[12]), R(a[13]), N(a[14]));
  };
  t["af2_softmax"] = [](const std::vector<Arg>& a) { af2_softmax(F(a[0]), N(a[1]), N(a[2])); };
  t["af2_attn_out"] = [](const std::vector<Arg>& a) {
    af2_attn_out(F(a[0]), F(a[1]), F(a[2]), F(a[3]), F(a[4]), N(a[5]), N(a[6]), N(a[7]), N(a[8]), N(a[9]), N(a[10]),
                 N(a[11]));
  };
  t["af2_tri_mult"] = [](const std::vector<Arg>& a) {
    af2_tri_mult(F(a[0]), F(a[1]), F(a[2]), N(a[3]), N(a[4]), N(a[5]), N(a[6]), N(a[7]), N(a[8]));
  };
  t["af2_opm_rearrange"] = [](const std::vector<Arg>& a) { af2_opm_rearrange(F(a[0]), F(a[1]), N(a[2]), N(a[3])); };
  return t;
}

static void launch(const Call& call, const std::vector<Arg>& args, Dim grid, Dim block, int shared) {
  gridDim = grid;
  blockDim = block;
  g_dynamic_shared.assign(shared / 4 + 1, 0.0f);
  int n = (int)(block.x * block.y * block.z);
  for (unsigned bz = 0; bz < grid.z; bz++) {
    for (unsigned by = 0; by < grid.y; by++) {
      for (unsigned bx = 0; bx < grid.x; bx++) {
        std::barrier<> block_barrier(n);
        g_block_barrier = &block_barrier;
        std::vector<std::unique_ptr<std::barrier<>>> warp_barriers;
        std::vector<WarpSlots> warps((n + 31) / 32);
        for (size_t w = 0; w < warps.size(); w++) {
          warp_barriers.emplace_back(new std::barrier<>(min(32, n - 32 * (int)w)));
          warps[w].bar = warp_barriers.back().get();
        }
        g_warps = &warps;
        std::vector<std::thread> threads;
        for (int t = 0; t < n; t++) {
          threads.emplace_back([&, t, bx, by, bz] {
            blockIdx = {bx, by, bz};
            threadIdx = {t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
            g_thread = t;
            call(args);
          });
        }
        for (auto& th : threads) {
          th.join();
        }
      }
    }
  }
}

template <typename T>
static T get(std::ifstream& in) {
  T v;
  in.read(reinterpret_cast<char*>(&v), sizeof v);
  if (!in) {
    std::fprintf(stderr, "truncated input\n");
    std::exit(2);
  }
  return v;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: run IN OUT\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  int nb = get<int32_t>(in);
  for (int b = 0; b < nb; b++) {
    int64_t bytes = get<int64_t>(in);
    std::vector<char> data(bytes);
    in.read(data.data(), bytes);
    g_bufs.push_back(std::move(data));
  }
  auto table = kernels();
  int nl = get<int32_t>(in);
  for (int l = 0; l < nl; l++) {
    int len = get<int32_t>(in);
    std::string name(len, ' ');
    in.read(name.data(), len);
    Dim grid{(unsigned)get<int32_t>(in), (unsigned)get<int32_t>(in), (unsigned)get<int32_t>(in)};
    Dim block{(unsigned)get<int32_t>(in), (unsigned)get<int32_t>(in), (unsigned)get<int32_t>(in)};
    int shared = get<int32_t>(in);
    int na = get<int32_t>(in);
    std::vector<Arg> args;
    for (int a = 0; a < na; a++) {
      int type = get<int32_t>(in);
      args.push_back({type, get<int32_t>(in)});
    }
    auto k = table.find(name);
    if (k == table.end()) {
      std::fprintf(stderr, "unknown kernel %s\n", name.c_str());
      return 2;
    }
    launch(k->second, args, grid, block, shared);
  }
  std::ofstream out(argv[2], std::ios::binary);
  int32_t count = (int32_t)g_bufs.size();
  out.write(reinterpret_cast<char*>(&count), 4);
  for (auto& b : g_bufs) {
    int64_t bytes = (int64_t)b.size();
    out.write(reinterpret_cast<char*>(&bytes), 8);
    out.write(b.data(), bytes);
  }
  return 0;
}
