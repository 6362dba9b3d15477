//===- RegisterBackends.cpp - the backends this build contains ----------------===//
//
// The one list of vendor backends. The core reaches them only through the
// registry (tessera/Target/Backend.h); a new backend adds its folder under
// third_party/ and one line here (and in third_party/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "tessera/AMD/Backend.h"
#include "tessera/NVIDIA/Backend.h"
#include "tessera/Target/Backend.h"

#include <mutex>

void tessera::registerAllBackends() {
  static std::once_flag once;
  std::call_once(once, [] {
    tessera::nvidia::registerBackend();
    tessera::amd::registerBackend();
  });
}
