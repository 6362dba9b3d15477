//===- tessera-opt.cpp - run Tessera passes over .mlir files ----------------===//
//
// Reads TTIR/TTGIR (or any IR of the registered dialects), runs the passes
// named on the command line and prints the result, like mlir-opt.
//
//===----------------------------------------------------------------------===//

#include "tessera/Tools/OptMain.h"

int main(int argc, char **argv) { return tessera::optMain(argc, argv); }
