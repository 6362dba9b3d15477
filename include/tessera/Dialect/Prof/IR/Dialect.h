//===- Dialect.h - the prof dialect -----------------------------*- C++ -*-===//

#ifndef TESSERA_DIALECT_PROF_IR_DIALECT_H
#define TESSERA_DIALECT_PROF_IR_DIALECT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tessera/Dialect/Prof/IR/ProfDialect.h.inc"

namespace mlir::tessera::prof {

/// The shared-memory ring buffers and header of a profiled program.
struct ProfileBuffer : public SideEffects::Resource::Base<ProfileBuffer> {
  StringRef getName() final { return "<ProfileBuffer>"; }
};

/// The layout of one program's profile (docs/profiler.md): a 32-byte header,
/// one u32 count per warp (padded to 8 bytes), then one ring of
/// `recordsPerWarp` 8-byte records per warp.
struct ProfileLayout {
  static constexpr int64_t kHeaderBytes = 32;
  static constexpr int64_t kRecordBytes = 8;
  int64_t numWarps = 0;
  int64_t recordsPerWarp = 0;
  int64_t countsOffset() const { return kHeaderBytes; }
  /// The counts padded to 32 bytes: rings start on a 32-byte sector (with C
  /// a multiple of 4, so does every warp's ring).
  int64_t ringsOffset() const { return kHeaderBytes + (numWarps * 4 + 31) / 32 * 32; }
  int64_t bytes() const { return ringsOffset() + numWarps * recordsPerWarp * kRecordBytes; }
  /// The most records per warp that fit `bytes`, a multiple of 4 from 4 up
  /// (whole 32-byte sectors per ring; 0: not even one).
  static int64_t recordsThatFit(int64_t bytes, int64_t numWarps);
};

} // namespace mlir::tessera::prof

#define GET_OP_CLASSES
#include "tessera/Dialect/Prof/IR/ProfOps.h.inc"

#endif // TESSERA_DIALECT_PROF_IR_DIALECT_H
