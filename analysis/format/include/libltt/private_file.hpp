// How ltt creates the files it writes (.trace, .proc). They hold kernel
// addresses, every user's file names and memory maps, and tracedaemon runs
// as root, often with its output in a shared directory such as /tmp. So an
// output path is opened with O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC and created
// mode 0600, then checked on the open descriptor (fstat: no window between
// check and use): it must be a regular file, owned by the effective user,
// with a single link. Only then is it made 0600 (if it was not) and
// truncated, through the descriptor. What is refused, never written through:
//   - a symbolic link (/tmp/x.trace -> /etc/passwd),
//   - a FIFO, device or directory (O_NONBLOCK: a FIFO cannot hang the open),
//   - another user's file,
//   - a file with a second hard link (a link planted to a file of ours
//     elsewhere, which protected_hardlinks does not forbid to its owner).
//
// A file that must appear whole (the .proc) is written as a ReplacementFile:
// a temporary file in the same directory, created exclusively (mkostemp:
// 0600, never an existing name), fsynced, renamed over the target, then the
// directory fsynced. Readers see the old file or the new one, never half.
#pragma once

#include <libltt/unique_fd.hpp>
#include <string>

namespace ltt {

// Opens (creating if needed) `path` for writing, by the rules above, without
// truncating it. `what` ("trace file") prefixes the path in messages. Throws
// std::runtime_error "refusing to write|overwrite [WHAT ]PATH: why" for a
// path the rules refuse, std::system_error "cannot create [WHAT ]PATH" when
// the open fails.
UniqueFd openPrivateFile(const std::string& path, const std::string& what = {});

// Throws as openPrivateFile() if `path` exists and is not a regular file of
// ours with one link; nothing when it does not exist.
void checkReplaceable(const std::string& path, const std::string& what = {});

class ReplacementFile {
public:
    // Checks the target (checkReplaceable) and creates the temporary file
    // "PATH.XXXXXX". Throws as openPrivateFile().
    explicit ReplacementFile(std::string path, std::string what = {});
    // Removes the temporary file unless commit() succeeded.
    ~ReplacementFile();
    ReplacementFile(const ReplacementFile&) = delete;
    ReplacementFile& operator=(const ReplacementFile&) = delete;

    // Where to write the content: a caller may reopen it by name (the check
    // in commit() catches a file swapped for it) or write to fd().
    const std::string& tempPath() const { return temp_m; }
    int fd() const { return fd_m.get(); }

    // Checks that tempPath() is still the file created here, fsyncs it,
    // checks the target again and renames the temporary file over it, then
    // fsyncs the directory. Throws std::system_error / std::runtime_error
    // naming the path.
    void commit();

private:
    std::string path_m, what_m, temp_m;
    UniqueFd fd_m;
    bool committed_m = false;
};

} // namespace ltt
