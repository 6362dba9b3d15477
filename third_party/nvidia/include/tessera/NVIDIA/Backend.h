//===- Backend.h - the NVIDIA backend ----------------------------*- C++ -*-===//

#ifndef TESSERA_NVIDIA_BACKEND_H
#define TESSERA_NVIDIA_BACKEND_H

namespace tessera::nvidia {

/// Registers the "cuda" backend (targets "cuda:<compute capability>", e.g.
/// "cuda:90"): the ttng and nvvm dialects, NVIDIA's TargetInfo and tensor-core
/// patterns, and LLVM IR -> PTX. Called from registerAllBackends().
void registerBackend();

} // namespace tessera::nvidia

#endif // TESSERA_NVIDIA_BACKEND_H
