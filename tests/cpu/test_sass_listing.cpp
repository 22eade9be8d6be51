// The GPU worker's nvdisasm runs (engine/src/gpu_worker/sass_listing.h), with stand-ins for
// nvdisasm (TILELAB_NVDISASM): a listing read by offset, a failing one that says so, and one still
// running when the listings go, stopped and reaped, its temporary files removed. No GPU needed.
#include <gtest/gtest.h>
#include <cstdlib>
#include <filesystem>
#include <signal.h>
#include "gpu_worker/sass_listing.h"
#include "helpers.h"

namespace tilelab {
namespace {

// For the test's length: TILELAB_NVDISASM names the stand-in, TMPDIR the scratch folder (where
// the temporary files go, so that they can be counted).
struct Disassembler {
    Disassembler(const std::string& path, const test::Scratch& s) {
        ::setenv("TILELAB_NVDISASM", path.c_str(), 1);
        ::setenv("TMPDIR", s.dir.c_str(), 1);
    }
    ~Disassembler() {
        ::unsetenv("TILELAB_NVDISASM");
        ::unsetenv("TMPDIR");
    }
};

std::string script(const test::Scratch& s, const std::string& name, const std::string& body) {
    const std::string path = s.file(name, "#!/bin/sh\n" + body);
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return path;
}

size_t temporary_files(const test::Scratch& s) {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(s.dir))
        n += e.path().filename().string().rfind("tilelab-sass-", 0) == 0;
    return n;
}

TEST(SassListings, ReadsTheFunctionsInstructionsFromTheDisassemblersListing) {
    const test::Scratch s("sass-listing");
    const Disassembler d(script(s, "nvdisasm", "printf '\\t.section\\t.text.k,\"ax\",@progbits\\nk:\\n.text.k:\\n"
                                               "        /*0000*/                   LDC R1, c[0x0][0x28] ;\\n"
                                               "        /*0010*/                   S2R R0, SR_TID.X ;\\n'\n"), s);
    const size_t files_before = temporary_files(s);
    SassListings listings;
    const std::vector<char> cubin{'a', 'b'};
    listings.start(cubin, "k");
    std::string why;
    const auto& code = listings.of(cubin, "k", why);
    EXPECT_EQ(why, "");
    ASSERT_EQ(code.size(), 2u);
    EXPECT_EQ(code.at(0x10), "S2R R0, SR_TID.X");
    EXPECT_EQ(temporary_files(s), files_before) << "the cubin and the listing are removed once read";
}

TEST(SassListings, AFailingDisassemblerLeavesTheOffsetsAndSaysWhy) {
    const test::Scratch s("sass-listing-fails");
    const Disassembler d(script(s, "nvdisasm", "exit 3\n"), s);
    SassListings listings;
    std::string why;
    EXPECT_TRUE(listings.of({'x'}, "k", why).empty());
    EXPECT_EQ(why, "nvdisasm failed");
}

TEST(SassListings, OneStillRunningWhenTheListingsGoIsStoppedAndItsFilesRemoved) {
    const test::Scratch s("sass-listing-slow");
    const std::string marker = s.path("started");
    const Disassembler d(script(s, "nvdisasm", "echo $$ > " + marker + "\nexec sleep 30\n"), s);
    const size_t files_before = temporary_files(s);
    {
        SassListings listings;
        listings.start({'y'}, "k");
        for (int i = 0; i < 500 && !std::filesystem::exists(marker); ++i) ::usleep(10000);
        ASSERT_TRUE(std::filesystem::exists(marker)) << "the stand-in did not start";
    }
    std::ifstream in(marker);
    pid_t pid = 0;
    in >> pid;
    ASSERT_GT(pid, 0);
    EXPECT_NE(::kill(pid, 0), 0) << "the disassembler is still running after its listings went";
    EXPECT_EQ(temporary_files(s), files_before);
}

}  // namespace
}  // namespace tilelab
