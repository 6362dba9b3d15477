//===- Backend.h - the "hip" backend ---------------------------*- C++ -*-===//

#ifndef TESSERA_AMD_BACKEND_H
#define TESSERA_AMD_BACKEND_H

namespace tessera::amd {
/// Registers the backend of targets "hip:gfx<version>".
void registerBackend();
} // namespace tessera::amd

#endif // TESSERA_AMD_BACKEND_H
