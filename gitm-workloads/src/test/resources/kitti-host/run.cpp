// Runs launches of kitti.cu's kernels on the host (see shim.h). Usage: run IN OUT, in the format of
// af2-host/run.cpp: IN (little-endian) int32 buffer count, each buffer as int64 bytes and its bytes; int32 launch
// count, each launch as int32 name length, the name, int32 grid x y z, block x y z, dynamic shared bytes, int32
// argument count, each argument as int32 type (0 buffer index, 1 int, 2 float) and int32 value. OUT: the buffers.
#include "shim.h"
#include "kitti.cu"
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
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
  t["kitti_assign"] = [](const std::vector<Arg>& a) {
    kitti_assign(F(a[0]), I(a[1]), I(a[2]), N(a[3]), R(a[4]), R(a[5]), R(a[6]), R(a[7]), R(a[8]), R(a[9]), R(a[10]),
                 N(a[11]), N(a[12]));
  };
  t["kitti_compact"] = [](const std::vector<Arg>& a) {
    kitti_compact(I(a[0]), I(a[1]), I(a[2]), I(a[3]), I(a[4]), N(a[5]), N(a[6]));
  };
  t["kitti_gather"] = [](const std::vector<Arg>& a) {
    kitti_gather(I(a[0]), I(a[1]), I(a[2]), I(a[3]), I(a[4]), N(a[5]));
  };
  t["kitti_pillar_sort"] = [](const std::vector<Arg>& a) {
    kitti_pillar_sort(I(a[0]), I(a[1]), I(a[2]), N(a[3]), N(a[4]), N(a[5]));
  };
  t["kitti_pointnet"] = [](const std::vector<Arg>& a) {
    kitti_pointnet(F(a[0]), I(a[1]), I(a[2]), I(a[3]), I(a[4]), F(a[5]), F(a[6]), F(a[7]), F(a[8]), N(a[9]), N(a[10]),
                   N(a[11]), R(a[12]), R(a[13]), R(a[14]), N(a[15]));
  };
  t["kitti_scatter_bev"] = [](const std::vector<Arg>& a) {
    kitti_scatter_bev(F(a[0]), I(a[1]), F(a[2]), N(a[3]), N(a[4]), N(a[5]));
  };
  t["kitti_im2col"] = [](const std::vector<Arg>& a) {
    kitti_im2col(F(a[0]), F(a[1]), N(a[2]), N(a[3]), N(a[4]), N(a[5]), N(a[6]), N(a[7]));
  };
  t["kitti_bias_act"] = [](const std::vector<Arg>& a) { kitti_bias_act(F(a[0]), F(a[1]), N(a[2]), N(a[3]), N(a[4])); };
  t["kitti_upsample"] = [](const std::vector<Arg>& a) {
    kitti_upsample(F(a[0]), F(a[1]), N(a[2]), N(a[3]), N(a[4]), N(a[5]), N(a[6]), N(a[7]));
  };
  t["kitti_decode"] = [](const std::vector<Arg>& a) {
    kitti_decode(F(a[0]), F(a[1]), N(a[2]), N(a[3]), R(a[4]), R(a[5]), R(a[6]));
  };
  t["kitti_nms"] = [](const std::vector<Arg>& a) {
    kitti_nms(F(a[0]), N(a[1]), R(a[2]), R(a[3]), N(a[4]), N(a[5]), I(a[6]));
  };
  return t;
}

static void launch(const Call& call, const std::vector<Arg>& args, Dim grid, Dim block) {
  gridDim = grid;
  blockDim = block;
  int n = (int)(block.x * block.y * block.z);
  for (unsigned bx = 0; bx < grid.x; bx++) {
    std::barrier<> block_barrier(n);
    g_block_barrier = &block_barrier;
    std::vector<std::thread> threads;
    for (int t = 0; t < n; t++) {
      threads.emplace_back([&, t, bx] {
        blockIdx = {bx, 0, 0};
        threadIdx = {(unsigned)t, 0, 0};
        call(args);
      });
    }
    for (auto& th : threads) th.join();
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
    get<int32_t>(in);
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
    launch(k->second, args, grid, block);
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
