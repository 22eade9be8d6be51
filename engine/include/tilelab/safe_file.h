// Reading and writing the user's files without trusting what is at the path. A reader never
// waits on a FIFO, never follows a symlink into /dev/zero and never allocates more than it was
// told to; a writer either replaces the file whole (temporary file, fsync, rename) or says why
// it could not, naming the path and the OS error.
#pragma once
#include <cstddef>
#include <string>

namespace tilelab {

enum class ReadOutcome {
    ok,        // `out` holds the whole file
    missing,   // nothing at the path: not an error for caches and settings
    refused,   // something is there but it is not a regular file of plausible size
    failed,    // a regular file that could not be read (permissions, I/O error)
};

// Reads a regular file of at most `max_bytes` into `out`. Symlinks are not followed, FIFOs,
// devices, sockets and directories are refused without opening them for reading, and the size
// is checked before anything is allocated. `error` says what was wrong unless the result is ok.
ReadOutcome read_regular_file(const std::string& path, size_t max_bytes, std::string& out, std::string& error);

// Replaces `path` with `bytes`: written to a temporary file beside it, fsynced, then renamed
// over it, so a crash or a full disk leaves the old file intact. When `path` exists and is not a
// regular file (a device such as /dev/null, a FIFO), it is written in place instead, because
// renaming over it would replace the device. Returns false with a one-line `error` naming the
// path and the OS's reason.
bool write_file_atomic(const std::string& path, const std::string& bytes, std::string& error);

// "<what> <path>: <strerror(err)>" in one line, the path shortened if it is very long.
std::string os_error(const std::string& what, const std::string& path, int err);

}  // namespace tilelab
