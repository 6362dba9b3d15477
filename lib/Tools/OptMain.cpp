//===- OptMain.cpp - the tessera-opt driver ---------------------------------===//

#include "tessera/Tools/OptMain.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "tessera/Tools/RegisterAll.h"

int tessera::optMain(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Tessera optimizer driver\n", registry));
}
