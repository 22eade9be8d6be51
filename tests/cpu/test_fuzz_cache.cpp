// The compile cache against whatever may sit in the cache folder: random bytes and mutated real
// entries are passed over (never a crash, never a result that is not the entry's), and odd file
// types at an entry's path (a FIFO, a directory, a symlink to /dev/zero, a huge file) are never
// waited on or read: the kernel is compiled again. Seeded, so a failure reproduces.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>

#include "fuzz_seed.h"
#include "compile/compile_cache_testing.h"
#include "tilelab/compile.h"
#include "tilelab/safe_file.h"
#include "test_folder.h"

namespace {

namespace fs = std::filesystem;
using namespace tilelab;

const uint32_t kSeed = tilelab::test::fuzz_seed(0xcac4e'12);
constexpr int kRandomCases = 300;
constexpr int kMutatedCases = 300;

struct TempDir {
    fs::path path;
    TempDir() {
        path = test::folder_of_this_test("fuzz_cache");
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

CompileResult sample_result() {
    CompileResult r;
    r.ok = true;
    r.lowered_name = "_Z18tilelab_test_scaleILi128EEvPfi";
    r.log = "ptxas info    : Used 8 registers, 360 bytes cmem[0]\n";
    r.options = "--gpu-architecture=sm_90 -Xptxas=-v";
    r.cubin.assign(4096, char(0x7f));
    return r;
}

TEST(CacheFuzz, RandomBytesAreNeverAnEntry) {
    std::mt19937 rng(kSeed);
    const std::string key = "nvrtc 13.0\nfile x\n";
    const std::string entry_start = compile_cache_testing::encode_entry(key, sample_result()).substr(0, 24);
    for (int i = 0; i < kRandomCases; ++i) {
        std::string bytes(std::uniform_int_distribution<size_t>(0, 2000)(rng), '\0');
        for (char& c : bytes) c = char(rng());
        // Half of them start like an entry (its first CBOR bytes), so the decoder gets further in.
        if (i % 2) bytes.insert(0, entry_start);
        EXPECT_EQ(compile_cache_testing::decode_entry(bytes, key), nullptr) << "seed case " << i;
    }
}

TEST(CacheFuzz, MutatedEntriesAreRejectedOrExact) {
    std::mt19937 rng(kSeed + 1);
    const std::string key = "nvrtc 13.0\nfile x\n";
    const CompileResult original = sample_result();
    const std::string good = compile_cache_testing::encode_entry(key, original);
    ASSERT_NE(compile_cache_testing::decode_entry(good, key), nullptr);   // the round trip works
    EXPECT_EQ(compile_cache_testing::decode_entry(good, key + "other"), nullptr);
    for (int i = 0; i < kMutatedCases; ++i) {
        std::string bytes = good;
        switch (i % 4) {
        case 0: bytes[std::uniform_int_distribution<size_t>(0, bytes.size() - 1)(rng)] ^= char(1 + rng() % 255); break;
        case 1: bytes.resize(std::uniform_int_distribution<size_t>(0, bytes.size() - 1)(rng)); break;
        case 2: bytes.insert(std::uniform_int_distribution<size_t>(0, bytes.size())(rng), 1, char(rng())); break;
        default: {   // a huge length field: must not be allocated
            const size_t at = std::uniform_int_distribution<size_t>(16, 64)(rng);
            for (size_t k = 0; k < 8 && at + k < bytes.size(); ++k) bytes[at + k] = char(0xff);
        }
        }
        const auto decoded = compile_cache_testing::decode_entry(bytes, key);
        // The checksum catches every change of this kind; a decoded entry could only be the original.
        if (decoded) {
            EXPECT_EQ(decoded->lowered_name, original.lowered_name) << "seed case " << i;
            EXPECT_EQ(decoded->cubin, original.cubin) << "seed case " << i;
        }
    }
}

TEST(CacheFuzz, OddFileTypesAreRefusedWithoutWaiting) {
    TempDir dir;
    const std::string fifo = (dir.path / "fifo").string(), folder = (dir.path / "folder").string();
    const std::string zero_link = (dir.path / "zero").string(), huge = (dir.path / "huge").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    fs::create_directories(folder);
    fs::create_symlink("/dev/zero", zero_link);
    { std::ofstream(huge, std::ios::binary) << 'x'; }
    fs::resize_file(huge, compile_cache_testing::max_entry_bytes() + 1);   // sparse: costs no disk
    const auto start = std::chrono::steady_clock::now();
    for (const std::string& path : {fifo, folder, zero_link, huge}) {
        std::string bytes, error;
        EXPECT_EQ(read_regular_file(path, compile_cache_testing::max_entry_bytes(), bytes, error), ReadOutcome::refused)
            << path;
        EXPECT_TRUE(bytes.empty()) << path;
        EXPECT_NE(error.find(path), std::string::npos) << error;
    }
    std::string bytes, error;
    EXPECT_EQ(read_regular_file((dir.path / "absent").string(), 100, bytes, error), ReadOutcome::missing);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

// End to end: the service's entry for a kernel replaced by each odd thing in turn. The compile
// must finish (no hang on the FIFO), succeed by compiling again, and leave the odd thing alone.
TEST(CacheFuzz, AnOddThingAtAnEntrysPathIsPassedOverAndRebuilt) {
    TempDir dir;
    const CompileRequest req{.source_file = "test/scale.cuh", .name_expression = "tilelab_test_scale<128>", .arch = 90};
    fs::path entry;
    {
        CompileService first(dir.path.string());
        const auto r = first.compile(req);
        ASSERT_TRUE(r->ok) << r->error;
        for (const auto& e : fs::directory_iterator(dir.path))
            if (e.path().extension() == ".tlcubin") entry = e.path();
    }
    ASSERT_FALSE(entry.empty()) << "the first compile wrote no cache entry";
    const std::vector<std::pair<std::string, std::function<void()>>> odd_things = {
        {"a FIFO", [&] { ASSERT_EQ(::mkfifo(entry.c_str(), 0644), 0); }},
        {"a directory", [&] { fs::create_directories(entry); }},
        {"a symlink to /dev/zero", [&] { fs::create_symlink("/dev/zero", entry); }},
    };
    for (const auto& [what, make] : odd_things) {
        fs::remove_all(entry);
        make();
        CompileService service(dir.path.string());
        const auto start = std::chrono::steady_clock::now();
        const auto r = service.compile(req);
        EXPECT_TRUE(r->ok) << what << ": " << r->error;
        EXPECT_EQ(r->cache_level, "") << what << ": should have been compiled again";
        EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60)) << what;
        std::error_code ec;
        EXPECT_FALSE(fs::is_regular_file(fs::symlink_status(entry, ec))) << what << " was replaced";
    }
}

}  // namespace
