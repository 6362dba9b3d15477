// ttir-to-ptx: compiles a TTIR file to PTX through an installed libtessera
// (find_package(Tessera)), without Python, with the pipelines and options
// Tessera's own compile uses; prints the PTX, and to stderr the kernel's
// shared memory and its effects (which arguments it writes).
//   ttir-to-ptx kernel.ttir [target (default cuda:90)] [num-warps (default 4)]
// Prints the PTX; diagnostics go to stderr with a non-zero exit status.

#include "tessera/API/Tessera.h"
#include "tessera/Version.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::cerr << "usage: ttir-to-ptx kernel.ttir [target] [num-warps]\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "cannot read " << argv[1] << "\n";
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string target = argc > 2 ? argv[2] : "cuda:90";

  // The stages and options Tessera's own compile uses (tessera::api::kernelStages).
  tessera::api::KernelOptions options;
  options.numWarps = argc > 3 ? std::atoi(argv[3]) : 4;
  tessera::api::KernelResult result = tessera::api::compileKernel(text.str(), target, options, argv[1]);
  for (const auto &d : result.diagnostics)
    std::cerr << d.str() << "\n";
  if (!result.ok) {
    std::cerr << "tessera " << TESSERA_VERSION_STRING << ": compiling " << argv[1] << " failed in stage '"
              << result.failedStage << "'\n";
    return 1;
  }
  // What the framework needs besides the code: shared memory and which arguments are written.
  std::cerr << "shared memory: " << result.metadata["ttg.shared"] << " bytes\n"
            << "effects: " << result.effects << "\n";
  std::cout << result.artifacts["ptx"];
  return 0;
}
