// The compile service's on-disk entry format, exposed for the fuzz tests of the cache reader
// (tests/cpu/test_fuzz_cache.cpp); nothing but tests calls these.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include "tilelab/compile.h"

namespace tilelab::compile_cache_testing {

// An entry's bytes for `key_text`: CBOR of the entry and its checksum.
std::string encode_entry(const std::string& key_text, const CompileResult& r);
// The entry, or nullptr unless `bytes` is a whole, uncorrupted entry for exactly `key_text`.
std::shared_ptr<CompileResult> decode_entry(const std::string& bytes, const std::string& key_text);
// Files larger than this are never read.
size_t max_entry_bytes();

}  // namespace tilelab::compile_cache_testing
