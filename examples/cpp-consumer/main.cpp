// ttir-to-ptx: compiles a TTIR file to PTX through an installed libtessera
// (find_package(Tessera)), without Python, with the pipelines and options
// Tessera's own compile uses; prints the PTX, and to stderr the kernel's
// shared memory and its effects (which arguments it writes).
//   ttir-to-ptx kernel.ttir [target (default cuda:90)] [num-warps (default 4)]
// Prints the PTX; diagnostics go to stderr with a non-zero exit status.
//   ttir-to-ptx --launch add.ttir [target] [num-warps]
// compiles the shared conformance suite's add kernel the same way, then loads
// it through the CUDA driver API, launches it on real data and checks the
// result (cuda_launch.cpp): prints PASS or FAIL, or SKIP (exit status 0) where
// there is no CUDA driver or GPU.

#include "tessera/API/Tessera.h"
#include "tessera/Version.h"

#include "cuda_launch.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

int main(int argc, char **argv) {
  bool launch = false;
  std::vector<const char *> args;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--launch") == 0)
      launch = true;
    else
      args.push_back(argv[i]);
  }
  if (args.empty()) {
    std::cerr << "usage: ttir-to-ptx [--launch] kernel.ttir [target] [num-warps]\n";
    return 2;
  }
  const char *file = args[0];
  std::ifstream in(file);
  if (!in) {
    std::cerr << "cannot read " << file << "\n";
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string target = args.size() > 1 ? args[1] : "cuda:90";

  // The stages and options Tessera's own compile uses (tessera::api::kernelStages).
  tessera::api::KernelOptions options;
  options.numWarps = args.size() > 2 ? std::atoi(args[2]) : 4;
  auto start = std::chrono::steady_clock::now();
  tessera::api::KernelResult result = tessera::api::compileKernel(text.str(), target, options, file);
  double compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  for (const auto &d : result.diagnostics)
    std::cerr << d.str() << "\n";
  if (!result.ok) {
    std::cerr << "tessera " << TESSERA_VERSION_STRING << ": compiling " << file << " failed in stage '"
              << result.failedStage << "'\n";
    return 1;
  }
  if (launch) {
    if (!result.artifacts.count("ptx")) {
      std::cerr << "--launch needs a cuda: target (PTX), not " << target << "\n";
      return 2;
    }
    std::cout << "tessera " << TESSERA_VERSION_STRING << " (LLVM " << tessera::api::llvmVersion() << "): compiled "
              << file << " for " << target << " in " << compileMs << " ms\n"
              << "effects: " << result.effects << "\n";
    return launchAdd(text.str(), target, result);
  }
  // What the framework needs besides the code: shared memory and which arguments are written.
  std::cerr << "shared memory: " << result.metadata["ttg.shared"] << " bytes\n"
            << "effects: " << result.effects << "\n";
  std::cout << result.artifacts["ptx"];
  return 0;
}
