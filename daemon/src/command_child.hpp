// `tracedaemon ... -- COMMAND ARGS`: the command is forked first and held
// before exec, so the daemon knows its PID (and process group) when it
// configures the module; once tracing has started and the .proc snapshot is
// written, release() lets it exec. The trace therefore holds the command's
// whole life: its exec, every system call, its exit.
#pragma once

#include <libltt/unique_fd.hpp>
#include <optional>
#include <signal.h>
#include <string>
#include <sys/types.h>
#include <vector>

namespace ltt::daemon {

class CommandChild {
public:
    // Forks; the child restores `childMask`, optionally becomes the leader of
    // its own process group, and waits for release(). Throws
    // std::system_error when fork or pipe fails.
    CommandChild(const std::vector<std::string>& argv, bool ownGroup, const sigset_t& childMask);
    // Not released: the child exits without running the command and is
    // reaped. Released and still running: left alone.
    ~CommandChild();
    CommandChild(const CommandChild&) = delete;
    CommandChild& operator=(const CommandChild&) = delete;

    pid_t pid() const { return pid_m; }
    bool ownGroup() const { return ownGroup_m; }
    // Lets the child exec; returns 0, or the errno of a failed exec (the
    // child has then exited with status 127).
    int release();
    bool released() const { return released_m; }
    // Non-blocking: the wait status once the child has ended.
    std::optional<int> reap();
    bool ended() const { return status_m.has_value(); }
    std::optional<int> status() const { return status_m; }

    // Shell convention: exit code, or 128 + signal number.
    static int exitCode(int waitStatus);

private:
    pid_t pid_m = -1;
    bool ownGroup_m = false;
    bool released_m = false;
    UniqueFd go_m;  // write end: one byte releases the child
    UniqueFd err_m; // read end: errno of a failed exec, EOF on success
    std::optional<int> status_m;
};

} // namespace ltt::daemon
