// ttir-to-ptx: compiles a TTIR file to PTX through an installed libtessera
// (find_package(Tessera)), without Python.
//   ttir-to-ptx kernel.ttir [target (default cuda:90)] [num-warps (default 4)]
// Prints the PTX; diagnostics go to stderr with a non-zero exit status.

#include "tessera/API/Tessera.h"
#include "tessera/Version.h"

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
  std::string warps = argc > 3 ? argv[3] : "4";

  tessera::api::CompileRequest request;
  request.text = text.str();
  request.bufferName = argv[1];
  request.target = target;
  request.stages = {
      {"ttgir", "builtin.module(convert-tt-to-ttg{num-warps=" + warps + " threads-per-warp=32 num-ctas=1 target=" +
                    target + "}, ttg-coalesce, ttg-remove-layout-conversions, ttg-accelerate-matmul, "
                    "canonicalize, ttg-remove-layout-conversions, canonicalize, cse)"},
      {"llvm", "builtin.module(ttg-allocate-shared-memory, ttg-membar, ttg-allocate-global-scratch, "
               "convert-scf-to-cf, convert-ttg-to-llvm, canonicalize, cse)"}};
  request.keep = {"ptx"};
  tessera::api::CompileResult result = tessera::api::compile(request);
  for (const auto &d : result.diagnostics)
    std::cerr << d.str() << "\n";
  if (!result.ok) {
    std::cerr << "tessera " << TESSERA_VERSION_STRING << ": compiling " << argv[1] << " failed in stage '"
              << result.failedStage << "'\n";
    return 1;
  }
  std::cout << result.artifacts["ptx"];
  return 0;
}
