//===- CompileTest.cpp - the compile API and the backend registry ------------===//
//
// A backend registered from this test (no change to the core) is reached by
// compile() through its target prefix: its options, its artifact, and the
// errors of a malformed request.
//
//===----------------------------------------------------------------------===//

#include "tessera/API/Tessera.h"
#include "tessera/Conversion/TTGToLLVM/TargetInfoBase.h"
#include "tessera/Target/Backend.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/IR/Module.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace tessera::api;

namespace {

class FakeBackend : public tessera::Backend {
public:
  llvm::StringRef getName() const override { return "fake"; }
  bool verifyArch(llvm::StringRef arch, std::string &why) const override {
    if (arch == "1")
      return true;
    why = "the fake backend has one architecture, 1";
    return false;
  }
  void registerDialects(mlir::DialectRegistry &) const override {}
  std::unique_ptr<mlir::tessera::TargetInfoBase> createTargetInfo(llvm::StringRef) const override {
    return nullptr;
  }
  std::vector<std::string> getArtifactNames() const override { return {"fakebin"}; }
  bool compile(llvm::Module &module, llvm::StringRef arch, const tessera::BackendOptions &options,
               std::map<std::string, std::string> &artifacts, std::string &error) const override {
    std::string level = "0";
    for (auto &[name, value] : options) {
      if (name != "level") {
        error = "unknown option " + name;
        return false;
      }
      level = value;
    }
    std::string functions;
    for (llvm::Function &f : module)
      functions += f.getName().str() + ";";
    artifacts["fakebin"] = "FAKE:" + arch.str() + ":" + level + ":" + functions;
    return true;
  }
};

const char *kLLVMModule = R"(
  module attributes {ttg.shared = 128 : i32} {
    llvm.func @k(%x: i32) -> i32 {
      %c = llvm.mlir.constant(2 : i32) : i32
      %y = llvm.mul %x, %c : i32
      llvm.return %y : i32
    }
  })";

class Compile : public ::testing::Test {
protected:
  static void SetUpTestSuite() { tessera::registerBackend(std::make_unique<FakeBackend>()); }
};

std::string messages(const CompileResult &r) {
  std::string s;
  for (const Diagnostic &d : r.diagnostics)
    s += d.str() + "\n";
  return s;
}

TEST_F(Compile, TheRegisteredBackendMakesItsArtifact) {
  std::vector<std::string> names = registeredBackends();
  EXPECT_NE(std::find(names.begin(), names.end(), "fake"), names.end());
  EXPECT_EQ(backendArtifacts("fake"), std::vector<std::string>{"fakebin"});

  CompileRequest request;
  request.text = kLLVMModule;
  request.target = "fake:1";
  request.stages = {{"canon", "builtin.module(canonicalize)"}};
  request.keep = {"canon", "llir", "fakebin"};
  request.options = {{"level", "3"}};
  CompileResult r = compile(request);
  ASSERT_TRUE(r.ok) << messages(r);
  EXPECT_EQ(r.artifacts.at("fakebin"), "FAKE:1:3:k;");
  EXPECT_NE(r.artifacts.at("llir").find("define i32 @k"), std::string::npos);
  EXPECT_NE(r.artifacts.at("canon").find("llvm.func @k"), std::string::npos);
  EXPECT_EQ(r.metadata.at("ttg.shared"), 128);
}

TEST_F(Compile, OnlyWhatIsKeptIsPrinted) {
  CompileRequest request;
  request.text = kLLVMModule;
  request.target = "fake:1";
  request.stages = {{"canon", "builtin.module(canonicalize)"}};
  request.keep = {};
  CompileResult r = compile(request);
  ASSERT_TRUE(r.ok) << messages(r);
  EXPECT_TRUE(r.artifacts.empty());
  EXPECT_EQ(r.metadata.at("ttg.shared"), 128);
}

TEST_F(Compile, ErrorsNameWhatFailed) {
  CompileRequest request;
  request.text = kLLVMModule;
  request.target = "fake:2";
  CompileResult r = compile(request);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.failedStage, "target");
  EXPECT_NE(messages(r).find("one architecture"), std::string::npos);

  request.target = "nobody:1";
  r = compile(request);
  EXPECT_EQ(r.failedStage, "target");
  EXPECT_NE(messages(r).find("no backend named 'nobody'"), std::string::npos);

  request.target = "fake:1";
  request.keep = {"ptx"};
  r = compile(request);
  EXPECT_EQ(r.failedStage, "request");
  EXPECT_NE(messages(r).find("cannot keep 'ptx'"), std::string::npos);

  request.keep = {"fakebin"};
  request.options = {{"speed", "11"}};
  r = compile(request);
  EXPECT_EQ(r.failedStage, "backend");
  EXPECT_NE(messages(r).find("unknown option speed"), std::string::npos);

  request.options = {};
  request.stages = {{"broken", "builtin.module(no-such-pass)"}};
  r = compile(request);
  EXPECT_EQ(r.failedStage, "broken");

  request.stages = {};
  request.text = "module { llvm.func @k( }";
  r = compile(request);
  EXPECT_EQ(r.failedStage, "parse");
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_GT(r.diagnostics[0].line, 0u);
}

} // namespace
