// PLACEHOLDER: the arm64 Lowerer is being written.
#include "platforms/arm64/lower.h"
namespace safepoint {
std::unique_ptr<Lowerer> NewArm64Lowerer() { return nullptr; }
}  // namespace safepoint
