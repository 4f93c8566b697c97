// Private output files: see private_file.hpp for the rules and why.
#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <libltt/private_file.hpp>
#include <stdexcept>
#include <string_view>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace ltt {

namespace {

std::string named(const std::string& what, const std::string& path) {
    return what.empty() ? path : what + " " + path;
}

[[noreturn]] void throwErrno(int err, const std::string& message) {
    throw std::system_error(err, std::generic_category(), message);
}

// Throws unless `st` (from lstat or fstat) is a regular file of ours with
// one link.
void refuseUnlessOurs(const struct stat& st, const std::string& path, const std::string& what) {
    if (S_ISLNK(st.st_mode))
        throw std::runtime_error("refusing to write " + named(what, path) +
                                 ": it is a symbolic link (output files are never written "
                                 "through one; remove it or choose another name)");
    if (!S_ISREG(st.st_mode))
        throw std::runtime_error("refusing to write " + named(what, path) + ": not a regular file");
    if (st.st_uid != ::geteuid())
        throw std::runtime_error("refusing to overwrite " + named(what, path) + ": owned by uid " +
                                 std::to_string(st.st_uid) + ", not by uid " +
                                 std::to_string(::geteuid()));
    if (st.st_nlink > 1)
        throw std::runtime_error("refusing to overwrite " + named(what, path) + ": it has " +
                                 std::to_string(st.st_nlink) + " hard links");
}

} // namespace

UniqueFd openPrivateFile(const std::string& path, const std::string& what) {
    UniqueFd fd(
        ::open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600));
    if (!fd) {
        // ELOOP (a symbolic link), ENXIO (a FIFO), EISDIR...: say what is there.
        int err = errno;
        struct stat st;
        if (::lstat(path.c_str(), &st) == 0)
            refuseUnlessOurs(st, path, what);
        throwErrno(err, "cannot create " + named(what, path));
    }
    struct stat st;
    if (::fstat(fd.get(), &st) != 0)
        throwErrno(errno, "cannot create " + named(what, path));
    refuseUnlessOurs(st, path, what);
    int flags = ::fcntl(fd.get(), F_GETFL);
    if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0)
        throwErrno(errno, "cannot create " + named(what, path));
    if ((st.st_mode & 07777) != 0600 && ::fchmod(fd.get(), 0600) != 0)
        throwErrno(errno, "cannot make " + named(what, path) + " private (mode 0600)");
    return fd;
}

void checkReplaceable(const std::string& path, const std::string& what) {
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0)
        refuseUnlessOurs(st, path, what);
    else if (errno != ENOENT)
        throwErrno(errno, "cannot create " + named(what, path));
}

ReplacementFile::ReplacementFile(std::string path, std::string what)
    : path_m(std::move(path)), what_m(std::move(what)) {
    checkReplaceable(path_m, what_m);
    std::vector<char> name(path_m.begin(), path_m.end());
    for (char c : std::string_view(".XXXXXX"))
        name.push_back(c);
    name.push_back('\0');
    fd_m.reset(::mkostemp(name.data(), O_CLOEXEC));
    if (!fd_m)
        throwErrno(errno, "cannot create " + named(what_m, path_m));
    temp_m = name.data();
}

namespace {

bool sameFile(int fd, const std::string& path) {
    struct stat a, b;
    return ::fstat(fd, &a) == 0 && ::lstat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

} // namespace

ReplacementFile::~ReplacementFile() {
    // Only our own temporary file: never a name someone put in its place.
    if (!committed_m && fd_m && sameFile(fd_m.get(), temp_m))
        ::unlink(temp_m.c_str());
}

void ReplacementFile::commit() {
    if (committed_m)
        return;
    if (!sameFile(fd_m.get(), temp_m))
        throw std::runtime_error("refusing to write " + named(what_m, path_m) +
                                 ": the temporary file " + temp_m +
                                 " was replaced while being written");
    if (::fsync(fd_m.get()) != 0)
        throwErrno(errno, "cannot sync " + temp_m);
    checkReplaceable(path_m, what_m);
    if (::rename(temp_m.c_str(), path_m.c_str()) != 0)
        throwErrno(errno, "cannot rename " + temp_m + " to " + path_m);
    committed_m = true;
    fd_m.reset();
    // The rename is durable once the directory is on disk too.
    std::string dir = std::filesystem::path(path_m).parent_path().string();
    UniqueFd d(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!d)
        throwErrno(errno, "cannot open the directory of " + path_m + " to sync it");
    if (::fsync(d.get()) != 0 && errno != EINVAL)
        throwErrno(errno, "cannot sync the directory of " + path_m);
}

} // namespace ltt
