//===- TTDialectTest.cpp - building tt IR from C++ --------------------------===//

#include "tessera/Dialect/TT/IR/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tessera::tt;

namespace {

class TTDialectTest : public ::testing::Test {
protected:
  TTDialectTest() {
    context.loadDialect<TTDialect, arith::ArithDialect>();
    // Keep verifier failures out of the test log; record them instead.
    context.getDiagEngine().registerHandler([this](Diagnostic &d) {
      lastError = d.str();
      return success();
    });
  }
  MLIRContext context;
  std::string lastError;
};

TEST_F(TTDialectTest, PointerTypes) {
  Type f32 = Float32Type::get(&context);
  auto ptr = PointerType::get(f32, 1);
  EXPECT_EQ(ptr.getPointeeType(), f32);
  EXPECT_FALSE(ptr.isBlockPointer());
  auto block = PointerType::get(RankedTensorType::get({32, 64}, f32), 1);
  EXPECT_TRUE(block.isBlockPointer());
  EXPECT_EQ(getBlockPointerBase(block), ptr);
  auto ptrs = RankedTensorType::get({128}, ptr);
  EXPECT_EQ(getPointeeType(ptrs), RankedTensorType::get({128}, f32));
  EXPECT_EQ(getPointeeType(block), RankedTensorType::get({32, 64}, f32));
  EXPECT_EQ(getI1SameShape(ptrs),
            RankedTensorType::get({128}, IntegerType::get(&context, 1)));
  EXPECT_EQ(getI1SameShape(f32), IntegerType::get(&context, 1));
}

TEST_F(TTDialectTest, BuildVerifiedLoadStore) {
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  auto module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module.getBody());
  Type f32 = b.getF32Type();
  auto ptrTy = PointerType::get(f32, 1);
  auto fn = FuncOp::create(b, loc, "k", b.getFunctionType({ptrTy}, {}));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  auto range = MakeRangeOp::create(b, loc, RankedTensorType::get({64}, b.getI32Type()), 0, 64);
  auto splat = SplatOp::create(b, loc, RankedTensorType::get({64}, ptrTy), entry->getArgument(0));
  auto ptrs = AddPtrOp::create(b, loc, splat.getType(), splat, range);
  auto load = LoadOp::create(b, loc, ptrs, Value(), Value());
  EXPECT_EQ(load.getType(), RankedTensorType::get({64}, f32));
  StoreOp::create(b, loc, ptrs, load, Value());
  ReturnOp::create(b, loc);
  EXPECT_TRUE(succeeded(verify(module))) << lastError;
  module->erase();
}

TEST_F(TTDialectTest, MakeRangeVerifierNamesExpectedAndActual) {
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  auto range = MakeRangeOp::create(b, loc, RankedTensorType::get({32}, b.getI32Type()), 0, 64);
  EXPECT_TRUE(failed(verify(range)));
  EXPECT_NE(lastError.find("end - start = 64"), std::string::npos) << lastError;
  EXPECT_NE(lastError.find("it has 32"), std::string::npos) << lastError;
  range->erase();
}

TEST_F(TTDialectTest, HugeTensorsAreRejectedWithoutOverflow) {
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  Type i32 = b.getI32Type();
  auto zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  int64_t big = int64_t(1) << 40;
  auto splat = SplatOp::create(b, loc, RankedTensorType::get({big, big}, i32), zero);
  EXPECT_TRUE(failed(verify(splat)));
  EXPECT_NE(lastError.find("more than the 1048576 elements"), std::string::npos) << lastError;
  splat->erase();
  zero->erase();
}

} // namespace
