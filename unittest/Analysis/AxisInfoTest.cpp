//===- AxisInfoTest.cpp - the AxisInfo lattice --------------------------------===//

#include "tessera/Analysis/AxisInfo.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tessera;

namespace {

std::string str(const AxisInfo &info) {
  std::string s;
  llvm::raw_string_ostream os(s);
  info.print(os);
  return s;
}

TEST(AxisInfo, DivisorOf) {
  EXPECT_EQ(AxisInfo::divisorOf(1), 1);
  EXPECT_EQ(AxisInfo::divisorOf(12), 4);
  EXPECT_EQ(AxisInfo::divisorOf(-48), 16);
  EXPECT_EQ(AxisInfo::divisorOf(0), AxisInfo::kMaxDivisibility);
  EXPECT_EQ(AxisInfo::divisorOf(int64_t(1) << 40), AxisInfo::kMaxDivisibility);
  EXPECT_EQ(AxisInfo::divisorOf(INT64_MIN), AxisInfo::kMaxDivisibility);
}

TEST(AxisInfo, Constants) {
  AxisInfo scalar = AxisInfo::constant(24, {});
  EXPECT_EQ(str(scalar), "contiguity = [1], divisibility = [8], constancy = [1], constant_value = 24");
  AxisInfo splat = AxisInfo::constant(3, {4, 64});
  EXPECT_EQ(str(splat), "contiguity = [1, 1], divisibility = [1, 1], constancy = [4, 64], constant_value = 3");
}

TEST(AxisInfo, PessimisticHasRankOneForScalars) {
  MLIRContext ctx;
  Builder b(&ctx);
  EXPECT_EQ(AxisInfo::pessimistic(b.getI32Type()).getRank(), 1u);
  EXPECT_EQ(AxisInfo::pessimistic(RankedTensorType::get({8, 16}, b.getI32Type())).getRank(), 2u);
  EXPECT_EQ(AxisInfo::pessimistic(0u).getRank(), 1u);
}

TEST(AxisInfo, JoinTakesTheSmallerRunsAndAgreeingConstant) {
  AxisInfo a({128, 1}, {16, 4}, {1, 8}, std::nullopt);
  AxisInfo b({64, 2}, {32, 2}, {2, 4}, std::nullopt);
  EXPECT_EQ(str(AxisInfo::join(a, b)),
            "contiguity = [64, 1], divisibility = [16, 2], constancy = [1, 4], constant_value = <none>");
  AxisInfo c5 = AxisInfo::constant(5, {}), c5b = AxisInfo::constant(5, {}), c6 = AxisInfo::constant(6, {});
  EXPECT_EQ(AxisInfo::join(c5, c5b).getConstant(), 5);
  EXPECT_EQ(AxisInfo::join(c5, c6).getConstant(), std::nullopt);
  EXPECT_EQ(AxisInfo::join(c5, c6).getDivisibility(0), 1); // 5 and 6 share no factor 2
}

TEST(AxisInfo, JoinIsCommutativeIdempotentAndBottomIsIdentity) {
  AxisInfo a({16}, {8}, {1}, std::nullopt), b({4}, {32}, {2}, std::nullopt), bottom;
  EXPECT_FALSE(bottom.isInitialized());
  EXPECT_EQ(AxisInfo::join(a, b), AxisInfo::join(b, a));
  EXPECT_EQ(AxisInfo::join(a, a), a);
  EXPECT_EQ(AxisInfo::join(a, bottom), a);
  EXPECT_EQ(AxisInfo::join(bottom, a), a);
  EXPECT_EQ(str(bottom), "<uninitialized>");
}

TEST(AxisInfo, JoinOfDifferentRanksIsPessimistic) {
  AxisInfo a({16}, {8}, {1}, std::nullopt), b({4, 4}, {4, 4}, {1, 1}, std::nullopt);
  EXPECT_EQ(AxisInfo::join(a, b), AxisInfo::pessimistic(2u));
}

} // namespace
