//===- Dialect.h - the ttng dialect -----------------------------*- C++ -*-===//
//
// NVIDIA-specific operations on ttg layouts: Hopper warpgroup MMA and the
// async-proxy fence.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_NVIDIA_DIALECT_TTNG_IR_DIALECT_H
#define TESSERA_NVIDIA_DIALECT_TTNG_IR_DIALECT_H

#include "tessera/Dialect/TTG/IR/Dialect.h"

#include "tessera/NVIDIA/Dialect/TTNG/IR/TTNGDialect.h.inc"

#define GET_OP_CLASSES
#include "tessera/NVIDIA/Dialect/TTNG/IR/TTNGOps.h.inc"

#endif // TESSERA_NVIDIA_DIALECT_TTNG_IR_DIALECT_H
