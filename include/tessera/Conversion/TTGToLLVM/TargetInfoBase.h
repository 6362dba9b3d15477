//===- TargetInfoBase.h - what lowering asks of a GPU vendor ----*- C++ -*-===//
//
// Target-independent lowering (lib/Conversion/TTGToLLVM) never names a vendor:
// everything that differs between NVIDIA and AMD goes through this interface,
// implemented in third_party/<vendor>.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_CONVERSION_TTGTOLLVM_TARGETINFOBASE_H
#define TESSERA_CONVERSION_TTGTOLLVM_TARGETINFOBASE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <memory>
#include <string>

namespace mlir::tessera {

class TargetInfoBase {
public:
  virtual ~TargetInfoBase() = default;

  /// Threads per warp (32 on NVIDIA).
  virtual int getWarpSize() const = 0;
  /// The LLVM address space of global and of shared memory.
  virtual unsigned getGlobalAddressSpace() const = 0;
  virtual unsigned getSharedAddressSpace() const = 0;

  /// i32 values of the program id / the number of programs along `axis`.
  virtual Value programId(OpBuilder &b, Location loc, int axis) const = 0;
  virtual Value numPrograms(OpBuilder &b, Location loc, int axis) const = 0;
  /// i32 thread index within the block (x dimension only: Tessera launches
  /// 1-D blocks).
  virtual Value threadId(OpBuilder &b, Location loc) const = 0;

  /// Loads `type` (an integer of 8, 16, 32 or 64 bits) from `ptr` where
  /// `pred` (i1) holds; `other` (same type) where it does not. No memory is
  /// touched for a false predicate.
  virtual Value loadPredicated(OpBuilder &b, Location loc, Value ptr,
                               Type type, Value pred, Value other,
                               bool isVolatile) const = 0;
  /// Stores `value` (an integer of 8, 16, 32 or 64 bits) to `ptr` where
  /// `pred` holds.
  virtual void storePredicated(OpBuilder &b, Location loc, Value ptr,
                               Value value, Value pred) const = 0;

  /// The value of `value` (i32 or f32-sized) held by lane `lane ^ mask`.
  virtual Value shuffleXor(OpBuilder &b, Location loc, Value value,
                           int mask) const = 0;
  /// The value held by lane `lane - delta` (own value for lanes < delta).
  virtual Value shuffleUp(OpBuilder &b, Location loc, Value value,
                          int delta) const = 0;
  /// The value held by lane `srcLane` (an i32 value).
  virtual Value shuffleIdx(OpBuilder &b, Location loc, Value value,
                           Value srcLane) const = 0;
  /// A barrier of all threads of the block (and shared-memory fence).
  virtual void barrier(OpBuilder &b, Location loc) const = 0;

  /// The name of the device math library function for `mathOp` (e.g.
  /// "exp") on `type` (f32/f64), or "" if it has none.
  virtual std::string mathLibraryFunction(StringRef op, Type type) const = 0;

  /// Device printf of a format string with the given arguments.
  virtual void printf(OpBuilder &b, Location loc, StringRef format,
                      ValueRange args) const = 0;
  /// Abort the kernel with a message (file, line, function for context).
  virtual void assertFail(OpBuilder &b, Location loc, StringRef message,
                          StringRef file, StringRef func, int line) const = 0;

  /// Marks `func` as a kernel launched with `numThreads` threads per block.
  virtual void markAsKernel(Operation *func, int numThreads) const = 0;
};

/// Creates the target info for a "ttg.target" string such as "cuda:90";
/// nullptr when the target is unknown.
std::unique_ptr<TargetInfoBase> createTargetInfo(StringRef target);

} // namespace mlir::tessera

#endif // TESSERA_CONVERSION_TTGTOLLVM_TARGETINFOBASE_H
