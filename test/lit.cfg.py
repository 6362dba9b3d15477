# lit configuration for Tessera's IR tests.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "Tessera"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "corpus"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tessera_obj_root, "test")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.tessera_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(["tessera-opt"], [config.tessera_tools_dir])

config.substitutions.append(("%conformance", config.conformance_dir))
if os.path.isdir(os.path.join(config.conformance_dir, "triton-3.6")):
    config.available_features.add("conformance")
# Triton 3.6's stage-by-stage output for the reference kernels, beside the conformance suite.
reference_dir = os.path.join(os.path.dirname(config.conformance_dir), "reference", "triton-3.6-sm90")
config.substitutions.append(("%reference", reference_dir))
if os.path.isdir(reference_dir):
    config.available_features.add("reference")
config.substitutions.append(("%tessera_src_root", config.tessera_src_root))
config.substitutions.append(("%tessera_obj_root", config.tessera_obj_root))
