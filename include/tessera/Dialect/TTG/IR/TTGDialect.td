//===- TTGDialect.td - the ttg dialect definition ----------*- tablegen -*-===//
//
// Layouts and shared memory. Its textual form matches the TTGIR that Triton
// 3.x prints, so dumps taken from Triton parse unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TTG_IR_TTGDIALECT_TD
#define TESSERA_DIALECT_TTG_IR_TTGDIALECT_TD

include "mlir/IR/OpBase.td"

def TTG_Dialect : Dialect {
  let name = "ttg";
  let cppNamespace = "::mlir::tessera::ttg";
  let summary = "Tessera's layouts and shared-memory operations";
  let description = [{
    `ttg` decides how each tile of a `tt` kernel is spread over the threads
    of a CTA. Every tensor carries a layout (an encoding attribute): a
    distributed layout (`#ttg.blocked`, `#ttg.slice`, `#ttg.dot_op`,
    a vendor's tensor-core layout) says which thread, warp and register holds each
    element; a shared layout (`#ttg.swizzled_shared`, `#ttg.nvmma_shared`)
    says how a buffer in shared memory is laid out. Shared-memory buffers are
    values of type `!ttg.memdesc<...>`; asynchronous copies return
    `!ttg.async.token`s.

    The module carries the launch shape as discardable attributes:
    `"ttg.num-warps"`, `"ttg.num-ctas"` and `"ttg.threads-per-warp"` (i32)
    and `ttg.target` (a string `"<backend>:<architecture>"`, checked by the
    backend registered under that name when there is one).
  }];
  let dependentDialects = ["::mlir::tessera::tt::TTDialect"];
  // Custom: layouts a vendor adds (addVendorAttributes) parse and print too.
  let useDefaultAttributePrinterParser = 0;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();

    ::mlir::Attribute parseAttribute(::mlir::DialectAsmParser &parser,
                                     ::mlir::Type type) const override;
    void printAttribute(::mlir::Attribute attr,
                        ::mlir::DialectAsmPrinter &printer) const override;

    /// Adds layouts defined outside the core (a vendor's tensor-core
    /// layouts, each with a mnemonic and custom parse/print). Called from the
    /// dialect extension a backend registers (Backend::registerDialects).
    template <typename... Attrs> void addVendorAttributes() {
      (addVendorAttribute<Attrs>(), ...);
    }

  private:
    template <typename Attr> void addVendorAttribute() {
      addAttributes<Attr>();
      vendorParsers[Attr::getMnemonic()] = [](::mlir::AsmParser &parser, ::mlir::Type type) {
        return Attr::parse(parser, type);
      };
      vendorPrinters[::mlir::TypeID::get<Attr>()] = [](::mlir::Attribute attr,
                                                      ::mlir::AsmPrinter &printer) {
        printer << Attr::getMnemonic();
        ::llvm::cast<Attr>(attr).print(printer);
      };
    }
    ::llvm::StringMap<::mlir::Attribute (*)(::mlir::AsmParser &, ::mlir::Type)> vendorParsers;
    ::llvm::DenseMap<::mlir::TypeID, void (*)(::mlir::Attribute, ::mlir::AsmPrinter &)>
        vendorPrinters;

  public:

    static constexpr ::llvm::StringLiteral kNumWarpsAttrName = "ttg.num-warps";
    static constexpr ::llvm::StringLiteral kNumCTAsAttrName = "ttg.num-ctas";
    static constexpr ::llvm::StringLiteral kThreadsPerWarpAttrName = "ttg.threads-per-warp";
    static constexpr ::llvm::StringLiteral kTargetAttrName = "ttg.target";
  }];
}

#endif // TESSERA_DIALECT_TTG_IR_TTGDIALECT_TD
