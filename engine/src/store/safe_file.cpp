// Careful file reading and atomic writing (safe_file.h).
#include "tilelab/safe_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "tilelab/input_policy.h"

namespace tilelab {
namespace {

const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISLNK(mode)) return "a symbolic link";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

// Closes on every path out.
struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

bool write_all(int fd, const std::string& bytes, int& err) {
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            err = n < 0 ? errno : EIO;
            return false;
        }
        done += size_t(n);
    }
    return true;
}

std::atomic<unsigned> g_temp_counter{0};

}  // namespace

std::string os_error(const std::string& what, const std::string& path, int err) {
    return what + " " + shortened_path(path) + ": " + std::strerror(err);
}

ReadOutcome read_regular_file(const std::string& path, size_t max_bytes, std::string& out, std::string& error) {
    out.clear();
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR) return ReadOutcome::missing;
        error = os_error("cannot look at", path, errno);
        return ReadOutcome::failed;
    }
    if (!S_ISREG(st.st_mode)) {
        error = shortened_path(path) + " is " + kind_of(st.st_mode) + ", not a regular file";
        return ReadOutcome::refused;
    }
    if (uint64_t(st.st_size) > max_bytes) {
        error = shortened_path(path) + " is " + std::to_string(st.st_size) + " bytes, more than the " + std::to_string(max_bytes) +
                " expected";
        return ReadOutcome::refused;
    }
    // O_NOFOLLOW and O_NONBLOCK: if the path was swapped for a link or a FIFO since lstat, the
    // open fails or returns at once instead of following it or waiting for a writer.
    Fd f;
    f.fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (f.fd < 0) {
        error = os_error("cannot open", path, errno);
        return errno == ELOOP ? ReadOutcome::refused : ReadOutcome::failed;
    }
    struct stat opened {};
    if (::fstat(f.fd, &opened) != 0 || !S_ISREG(opened.st_mode) || uint64_t(opened.st_size) > max_bytes) {
        error = shortened_path(path) + " changed while it was being opened";
        return ReadOutcome::refused;
    }
    out.resize(size_t(opened.st_size));
    size_t done = 0;
    while (done < out.size()) {
        const ssize_t n = ::read(f.fd, out.data() + done, out.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            error = os_error("cannot read", path, errno);
            out.clear();
            return ReadOutcome::failed;
        }
        if (n == 0) break;   // shrank while being read: what is there is all there is
        done += size_t(n);
    }
    out.resize(done);
    return ReadOutcome::ok;
}

bool write_file_atomic(const std::string& path, const std::string& bytes, std::string& error) {
    if (path.empty()) {
        error = "no file name was given";
        return false;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        error = os_error("cannot write", path, EISDIR);
        return false;
    }
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        // A device or FIFO the user named on purpose (/dev/stdout): write into it, checking every
        // byte. O_NONBLOCK keeps a FIFO nobody reads from hanging the program.
        Fd f;
        f.fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        int err = 0;
        if (f.fd < 0) {
            error = os_error("cannot open", path, errno);
            return false;
        }
        if (!write_all(f.fd, bytes, err)) {
            error = os_error("cannot write", path, err);
            return false;
        }
        const int fd = f.fd;
        f.fd = -1;
        if (::close(fd) != 0) {
            error = os_error("cannot write", path, errno);
            return false;
        }
        return true;
    }
    const std::string temp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(g_temp_counter++);
    Fd f;
    f.fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (f.fd < 0) {
        error = os_error("cannot create", temp, errno);
        return false;
    }
    int err = 0;
    bool ok = write_all(f.fd, bytes, err);
    if (ok && ::fsync(f.fd) != 0) ok = false, err = errno;
    const int fd = f.fd;
    f.fd = -1;
    if (::close(fd) != 0 && ok) ok = false, err = errno;
    if (ok && ::rename(temp.c_str(), path.c_str()) != 0) ok = false, err = errno;
    if (!ok) {
        ::unlink(temp.c_str());
        error = os_error("cannot write", path, err);
        return false;
    }
    return true;
}

}  // namespace tilelab
