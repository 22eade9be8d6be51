// The SASS text of the instructions PC sampling caught: nvdisasm's listing of the kernel's cubin,
// read by the GPU worker when the toolkit's nvdisasm is there (TILELAB_NVDISASM, the CUDA
// toolkit's bin/ beside the libraries this worker was built against, /usr/local/cuda/bin, PATH).
// nvdisasm runs as a process of its own, started before the sampled launches and read after the
// counter pass, so its time hides behind theirs. Without it the samples keep their offsets only;
// a run never fails for it.
#pragma once
#include <sys/types.h>
#include <chrono>
#include <cstdint>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tilelab {

class SassListings {
public:
    SassListings() = default;
    SassListings(const SassListings&) = delete;
    SassListings& operator=(const SassListings&) = delete;
    ~SassListings();   // stops an nvdisasm still running

    // Starts disassembling `cubin` in the background, unless its listing is kept already.
    void start(const std::vector<char>& cubin, const std::string& function);
    // The instructions of `function` (its mangled name) in `cubin`, by offset: waits for the
    // listing start() began (started now if it did not), at most 10 s from its start. Empty, with
    // `why`, when nvdisasm is missing, fails or takes longer. The last few listings are kept.
    const std::map<uint64_t, std::string>& of(const std::vector<char>& cubin, const std::string& function, std::string& why);

private:
    struct Entry {
        std::vector<char> cubin;
        std::string function;
        std::map<uint64_t, std::string> listing;
        std::string why;   // why `listing` is empty
    };
    struct Running {
        std::vector<char> cubin;
        std::string function;
        pid_t pid = -1;
        std::string input, output;   // temporary files: the cubin, nvdisasm's listing
        std::chrono::steady_clock::time_point started;
        std::string why;             // it could not start
    };
    const Entry* kept(const std::vector<char>& cubin, const std::string& function);
    Entry finish(Running& r);   // waits for r (moving its cubin out), removes its files
    void abandon();

    std::list<Entry> recent_;   // newest first, at most kKept
    std::optional<Running> running_;
    static constexpr size_t kKept = 8;
};

}  // namespace tilelab
