//===- APITest.cpp - the plain C++ API of libtessera ------------------------===//

#include "tessera/API/Tessera.h"

#include <gtest/gtest.h>

using namespace tessera::api;

TEST(API, Version) {
  EXPECT_FALSE(version().empty());
  EXPECT_EQ(llvmVersion().substr(0, 3), "22.");
}

TEST(API, ParsesAndPrintsAValidModule) {
  ParseResult r = parseAndVerify(R"(
    tt.func public @k(%p: !tt.ptr<f32>) {
      %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
      %s = tt.splat %p : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
      %q = tt.addptr %s, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
      %v = tt.load %q : tensor<16x!tt.ptr<f32>>
      tt.store %q, %v : tensor<16x!tt.ptr<f32>>
      tt.return
    })");
  ASSERT_TRUE(r.ok);
  EXPECT_TRUE(r.diagnostics.empty());
  EXPECT_NE(r.module.find("tt.load"), std::string::npos);
  // What was printed parses again to the same text.
  ParseResult again = parseAndVerify(r.module);
  ASSERT_TRUE(again.ok);
  EXPECT_EQ(again.module, r.module);
}

TEST(API, LocatesAVerifierErrorAtTheUsersLine) {
  ParseResult r = parseAndVerify(R"(
    tt.func @k(%a: tensor<16x32xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
      %d = tt.dot %a, %b, %c : tensor<16x32xf16> * tensor<16x16xf16> -> tensor<16x16xf32> loc("kern.py":7:12)
      tt.return
    })",
                                 "input.mlir");
  EXPECT_FALSE(r.ok);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  const Diagnostic &d = r.diagnostics[0];
  EXPECT_EQ(d.severity, "error");
  EXPECT_EQ(d.file, "kern.py");
  EXPECT_EQ(d.line, 7u);
  EXPECT_EQ(d.column, 12u);
  EXPECT_NE(d.message.find("K dimensions to match"), std::string::npos) << d.message;
  EXPECT_TRUE(r.module.empty());
}

TEST(API, SyntaxErrorsPointIntoTheBuffer) {
  ParseResult r = parseAndVerify("tt.func @k() {\n  %0 = tt.splat\n", "bad.mlir");
  EXPECT_FALSE(r.ok);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics[0].file, "bad.mlir");
  EXPECT_GE(r.diagnostics[0].line, 2u);
}

TEST(API, GarbageNeverCrashes) {
  std::string junk;
  for (int i = 0; i < 4096; ++i)
    junk.push_back(static_cast<char>((i * 131 + 7) % 256));
  ParseResult r = parseAndVerify(junk, "junk");
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.diagnostics.empty());
  ParseResult empty = parseAndVerify("", "empty");
  EXPECT_TRUE(empty.ok); // an empty buffer is an empty module
}
