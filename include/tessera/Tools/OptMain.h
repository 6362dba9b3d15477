//===- OptMain.h - the tessera-opt driver entry -----------------*- C++ -*-===//
//
// Plain C++ so that the tessera-opt executable needs no MLIR header and links
// only libtessera.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TOOLS_OPTMAIN_H
#define TESSERA_TOOLS_OPTMAIN_H

#include "tessera/API/Tessera.h"

namespace tessera {
/// Runs the mlir-opt style driver with every Tessera dialect and pass.
TESSERA_API int optMain(int argc, char **argv);
} // namespace tessera

#endif // TESSERA_TOOLS_OPTMAIN_H
