// PLACEHOLDER: the loong64 Lowerer is being written.
#include "platforms/loong64/lower.h"
namespace safepoint {
std::unique_ptr<Lowerer> NewLoong64Lowerer() { return nullptr; }
}  // namespace safepoint
