//===- TestPasses.h - registration of the test-print passes --------*- C++ -*-===//
#ifndef TESSERA_TEST_LIB_ANALYSIS_TESTPASSES_H
#define TESSERA_TEST_LIB_ANALYSIS_TESTPASSES_H

namespace mlir::tessera::test {
void registerTestAllocationPass();
void registerTestMembarPass();
void registerTestAxisInfoPass();
void registerTestEffectsPass();
} // namespace mlir::tessera::test

#endif
