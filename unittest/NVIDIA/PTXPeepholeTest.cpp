//===- PTXPeepholeTest.cpp - fuseWideMultiplyAdds --------------------------------===//
//
// The fusion of an address's wide multiply and add into mad.wide: where it
// applies (either operand order, signed and unsigned, a register factor) and
// every case where it must leave the text alone.
//
//===----------------------------------------------------------------------===//

#include "tessera/NVIDIA/Target/PTX.h"

#include <gtest/gtest.h>

using tessera::nvidia::fuseWideMultiplyAdds;

namespace {

std::string kernel(const std::string &body) {
  return ".version 8.4\n.target sm_90a\n.address_size 64\n\n.visible .entry k(\n"
         "\t.param .u64 k_param_0\n)\n{\n" +
         body + "\tret;\n\n}\n";
}

TEST(PTXPeephole, FusesAdjacentPair) {
  std::string in = kernel("\tmul.wide.s32 \t%rd7, %r42, 4;\n\tadd.s64 \t%rd8, %rd6, %rd7;\n"
                          "\tld.global.b32 \t%r1, [%rd8];\n");
  EXPECT_EQ(fuseWideMultiplyAdds(in), kernel("\tmad.wide.s32 \t%rd8, %r42, 4, %rd6;\n"
                                             "\tld.global.b32 \t%r1, [%rd8];\n"));
}

TEST(PTXPeephole, ProductFirstUnsignedRegisterFactor) {
  std::string in = kernel("\tmul.wide.u32 \t%rd3, %r1, %r2;\n\tadd.s64 \t%rd4, %rd3, %rd1;\n"
                          "\tst.global.b32 \t[%rd4], %r1;\n");
  EXPECT_EQ(fuseWideMultiplyAdds(in), kernel("\tmad.wide.u32 \t%rd4, %r1, %r2, %rd1;\n"
                                             "\tst.global.b32 \t[%rd4], %r1;\n"));
}

TEST(PTXPeephole, ProductReadElsewhereStays) {
  // %rd7 also feeds a second address: fusing would lose it.
  std::string in = kernel("\tmul.wide.s32 \t%rd7, %r42, 4;\n\tadd.s64 \t%rd8, %rd6, %rd7;\n"
                          "\tadd.s64 \t%rd9, %rd5, %rd7;\n");
  EXPECT_EQ(fuseWideMultiplyAdds(in), in);
}

TEST(PTXPeephole, NotAdjacentStays) {
  // Something between the two: the operands could change in between.
  std::string in = kernel("\tmul.wide.s32 \t%rd7, %r42, 4;\n\tadd.s32 \t%r42, %r42, 1;\n"
                          "\tadd.s64 \t%rd8, %rd6, %rd7;\n");
  EXPECT_EQ(fuseWideMultiplyAdds(in), in);
}

TEST(PTXPeephole, OtherShapesStay) {
  // An immediate addend, the product added to itself, a predicated multiply,
  // a 64-bit multiply, a subtraction.
  for (const char *body : {"\tmul.wide.s32 \t%rd7, %r42, 4;\n\tadd.s64 \t%rd8, %rd7, 16;\n",
                           "\tmul.wide.s32 \t%rd7, %r42, 4;\n\tadd.s64 \t%rd8, %rd7, %rd7;\n",
                           "\t@%p1 mul.wide.s32 \t%rd7, %r42, 4;\n\tadd.s64 \t%rd8, %rd6, %rd7;\n",
                           "\tmul.lo.s64 \t%rd7, %rd2, 4;\n\tadd.s64 \t%rd8, %rd6, %rd7;\n",
                           "\tmul.wide.s32 \t%rd7, %r42, 4;\n\tsub.s64 \t%rd8, %rd6, %rd7;\n"}) {
    std::string in = kernel(body);
    EXPECT_EQ(fuseWideMultiplyAdds(in), in) << body;
  }
}

TEST(PTXPeephole, ParameterAndProgramIdAddressFuses) {
  // A row's base: a parameter times the program id, plus a parameter.
  std::string head = "\tld.param.b64 \t%rd6, [k_param_0];\n\tld.param.b32 \t%r1, [k_param_1];\n"
                     "\tmov.u32 \t%r2, %ctaid.x;\n\tmul.lo.s32 \t%r42, %r1, %r2;\n";
  EXPECT_EQ(fuseWideMultiplyAdds(kernel(head + "\tmul.wide.s32 \t%rd7, %r42, 4;\n\tadd.s64 \t%rd8, %rd6, %rd7;\n")),
            kernel(head + "\tmad.wide.s32 \t%rd8, %r42, 4, %rd6;\n"));
}

TEST(PTXPeephole, PerThreadAddressStays) {
  // The index comes from %tid (through a shift), from a load, from inline asm,
  // from a loop's later assignment of a thread's value, or from a definition
  // under a guard that depends on %tid; or the base was loaded: each a
  // per-thread address.
  for (const char *body :
       {"\tmov.u32 \t%r9, %tid.x;\n\tshl.b32 \t%r42, %r9, 2;\n",
        "\tld.global.b32 \t%r42, [%rd1];\n",
        "\t// begin inline asm\n\tmov.b32 %r42, %r5;\n\t// end inline asm\n",
        "\tmov.u32 \t%r42, 0;\n$L__BB0_1:\n\tadd.s32 \t%r42, %r42, %r9;\n\tmov.u32 \t%r9, %laneid;\n",
        "\tld.global.b64 \t%rd6, [%rd1];\n",
        "\tmov.u32 \t%r9, %tid.x;\n\tsetp.lt.u32 \t%p1, %r9, 16;\n\tmov.u32 \t%r42, 1;\n\t@%p1 mov.u32 \t%r42, 2;\n"}) {
    std::string in = kernel(std::string(body) + "\tmul.wide.s32 \t%rd7, %r42, 4;\n\tadd.s64 \t%rd8, %rd6, %rd7;\n");
    EXPECT_EQ(fuseWideMultiplyAdds(in), in) << body;
  }
}

TEST(PTXPeephole, BaseReadAcrossALabelStays) {
  // A uniform base read in a loop's body: kept a pair.
  std::string in = kernel("\tmul.wide.s32 \t%rd7, %r42, 4;\n\tadd.s64 \t%rd8, %rd6, %rd7;\n$L__BB0_1:\n"
                          "\tld.global.b32 \t%r1, [%rd8];\n\t@%p1 bra \t$L__BB0_1;\n");
  EXPECT_EQ(fuseWideMultiplyAdds(in), in);
}

TEST(PTXPeephole, AddressAfterALabelStays) {
  // Computed after a loop (a label before the pair): kept a pair.
  std::string in = kernel("$L__BB0_2:\n\tmul.wide.s32 \t%rd7, %r42, 4;\n\tadd.s64 \t%rd8, %rd6, %rd7;\n"
                          "\tld.global.b32 \t%r1, [%rd8];\n");
  EXPECT_EQ(fuseWideMultiplyAdds(in), in);
}

TEST(PTXPeephole, UsesCountedPerFunction) {
  // %rd7 is read again in another function only: this one's pair fuses; the
  // other function's text is untouched.
  std::string first = kernel("\tmul.wide.s32 \t%rd7, %r42, 4;\n\tadd.s64 \t%rd8, %rd6, %rd7;\n");
  std::string second = ".visible .func g()\n{\n\tadd.s64 \t%rd9, %rd7, %rd7;\n\tret;\n}\n";
  EXPECT_EQ(fuseWideMultiplyAdds(first + second),
            kernel("\tmad.wide.s32 \t%rd8, %r42, 4, %rd6;\n") + second);
}

TEST(PTXPeephole, EmptyAndTrailingText) {
  EXPECT_EQ(fuseWideMultiplyAdds(""), "");
  std::string noNewline = "\tmul.wide.s32 \t%rd7, %r42, 4;";
  EXPECT_EQ(fuseWideMultiplyAdds(noNewline), noNewline);
}

} // namespace
