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

// The stages a kernel compiles with: a backend without its own gets the
// target-neutral ones; the options change what they hold.
TEST_F(Compile, KernelStagesFollowTheOptions) {
  std::string error;
  KernelOptions o;
  std::vector<Stage> stages = kernelStages("fake:1", o, error);
  ASSERT_EQ(stages.size(), 2u) << error;
  EXPECT_EQ(stages[0].name, "ttgir");
  EXPECT_NE(stages[0].pipeline.find("convert-tt-to-ttg{num-warps=4 threads-per-warp=32 num-ctas=1 target=fake:1}"),
            std::string::npos);
  EXPECT_NE(stages[0].pipeline.find("ttg-coalesce"), std::string::npos);
  EXPECT_NE(stages[1].pipeline.find("prof-lower-records{max-shared=49152}"), std::string::npos);
  EXPECT_EQ(stages[1].pipeline.find("vectorize=false"), std::string::npos);

  o.numWarps = 8;
  o.coalesce = false;
  o.vectorize = false;
  o.profileScopes = true;
  o.profileMetric = "time";
  o.profileBufferBytes = 4096;
  stages = kernelStages("fake:1", o, error);
  ASSERT_EQ(stages.size(), 2u) << error;
  EXPECT_NE(stages[0].pipeline.find("num-warps=8"), std::string::npos);
  EXPECT_EQ(stages[0].pipeline.find("ttg-coalesce"), std::string::npos);
  EXPECT_NE(stages[1].pipeline.find("convert-ttg-to-llvm{vectorize=false}"), std::string::npos);
  EXPECT_NE(stages[1].pipeline.find("metric=time buffer-bytes=4096"), std::string::npos);

  EXPECT_TRUE(kernelStages("nope:1", KernelOptions{}, error).empty());
  EXPECT_NE(error.find("no backend named 'nope'"), std::string::npos) << error;
  KernelOptions bad;
  bad.profileMetric = "instructions";
  EXPECT_TRUE(kernelStages("fake:1", bad, error).empty());
  EXPECT_NE(error.find("'cycle' or 'time'"), std::string::npos) << error;
  bad = KernelOptions{};
  bad.numWarps = 0;
  EXPECT_TRUE(kernelStages("fake:1", bad, error).empty());
}

// A vendor backend's own stages, where it is part of this build.
TEST_F(Compile, NvidiaStagesPipelineAndUseTma) {
  std::vector<std::string> names = registeredBackends();
  if (std::find(names.begin(), names.end(), "cuda") == names.end())
    GTEST_SKIP() << "no cuda backend in this build";
  std::string error;
  KernelOptions o;
  std::vector<Stage> hopper = kernelStages("cuda:90", o, error);
  ASSERT_EQ(hopper.size(), 2u) << error;
  EXPECT_NE(hopper[0].pipeline.find("ttng-tma-lowering{num-stages=3 all-copies=false}"), std::string::npos);
  EXPECT_NE(hopper[0].pipeline.find("ttg-pipeline{num-stages=3}"), std::string::npos);
  EXPECT_NE(hopper[1].pipeline.find("max-shared=232448"), std::string::npos);
  std::vector<std::string> volta;
  for (const Stage &s : kernelStages("cuda:70", o, error))
    volta.push_back(s.pipeline);
  ASSERT_EQ(volta.size(), 2u) << error;
  EXPECT_EQ(volta[0].find("ttg-pipeline"), std::string::npos);
  EXPECT_EQ(volta[0].find("ttng-tma"), std::string::npos);
}

// compileKernel: TTIR to PTX with the effects, no Python.
TEST_F(Compile, CompileKernelGivesCodeMetadataAndEffects) {
  std::vector<std::string> names = registeredBackends();
  if (std::find(names.begin(), names.end(), "cuda") == names.end())
    GTEST_SKIP() << "no cuda backend in this build";
  const char *ttir = R"(
    module {
      tt.func public @add(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) {
        %pid = tt.get_program_id x : i32
        %c = arith.constant 128 : i32
        %base = arith.muli %pid, %c : i32
        %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
        %b = tt.splat %base : i32 -> tensor<128xi32>
        %offs = arith.addi %b, %r : tensor<128xi32>
        %ns = tt.splat %n : i32 -> tensor<128xi32>
        %m = arith.cmpi slt, %offs, %ns : tensor<128xi32>
        %xs = tt.splat %x : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
        %xp = tt.addptr %xs, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
        %v = tt.load %xp, %m : tensor<128x!tt.ptr<f32>>
        %ys = tt.splat %y : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
        %yp = tt.addptr %ys, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
        tt.store %yp, %v, %m : tensor<128x!tt.ptr<f32>>
        tt.return
      }
    })";
  KernelOptions o;
  KernelResult r = compileKernel(ttir, "cuda:90", o, "add.ttir");
  ASSERT_TRUE(r.ok) << messages(r);
  EXPECT_NE(r.artifacts.at("ptx").find(".entry add"), std::string::npos);
  EXPECT_NE(r.artifacts.at("ttgir").find("#ttg.blocked"), std::string::npos);
  EXPECT_NE(r.artifacts.at("llir").find("define"), std::string::npos);
  EXPECT_NE(r.effects.find("\"written\""), std::string::npos) << r.effects;
  EXPECT_NE(r.effects.find("\"read\""), std::string::npos) << r.effects;

  KernelResult bad = compileKernel(ttir, "cuda:9", o);
  EXPECT_FALSE(bad.ok);
  ASSERT_FALSE(bad.diagnostics.empty());
  EXPECT_NE(bad.diagnostics[0].message.find("capability of 70 or more"), std::string::npos)
      << bad.diagnostics[0].message;
}
