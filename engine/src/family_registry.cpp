// Problem families by name. A variant names its family ("matmul", "stencil"); the engine asks
// here for an instance. Adding a family is one line in the table below.
#include <functional>
#include <map>
#include "family.h"

namespace tilelab {

std::unique_ptr<Family> make_matmul_family();    // family_matmul.cpp
std::unique_ptr<Family> make_stencil_family();   // family_stencil.cpp

std::unique_ptr<Family> make_family(const std::string& name) {
    static const std::map<std::string, std::function<std::unique_ptr<Family>()>> factories = {
        {"matmul", make_matmul_family},
        {"stencil", make_stencil_family},
    };
    const auto it = factories.find(name);
    return it == factories.end() ? nullptr : it->second();
}

}  // namespace tilelab
