// A variant's title and one-line summary in the current language (tilelab/i18n.h): the string
// table's "variant.<id>.title" / "variant.<id>.summary", else the English the variant declares
// (v.title, v.summary). A new variant adds its two keys to strings/*.json; tests/cpu/test_i18n.cpp
// checks that every variant has them and that the English matches its declaration.
#pragma once
#include <string>
#include "tilelab/variant.h"

namespace tilelab {

const std::string& variant_title(const Variant& v);
const std::string& variant_summary(const Variant& v);

}  // namespace tilelab
