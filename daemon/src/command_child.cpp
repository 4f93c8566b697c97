#include "command_child.hpp"

#include <cerrno>
#include <fcntl.h>
#include <sys/wait.h>
#include <system_error>
#include <unistd.h>

namespace ltt::daemon {

CommandChild::CommandChild(const std::vector<std::string>& argv, bool ownGroup,
                           const sigset_t& childMask)
    : ownGroup_m(ownGroup) {
    // Everything the child needs is prepared before fork: after it, the
    // child only makes async-signal-safe calls.
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);

    int go[2], err[2];
    if (::pipe2(go, O_CLOEXEC) != 0)
        throw std::system_error(errno, std::generic_category(), "pipe");
    UniqueFd goR(go[0]), goW(go[1]);
    if (::pipe2(err, O_CLOEXEC) != 0)
        throw std::system_error(errno, std::generic_category(), "pipe");
    UniqueFd errR(err[0]), errW(err[1]);

    pid_t pid = ::fork();
    if (pid < 0)
        throw std::system_error(errno, std::generic_category(), "cannot fork the command");
    if (pid == 0) {
        // The command starts with the signal state the daemon was given,
        // except SIGPIPE, which tracedaemon ignores for itself.
        ::signal(SIGPIPE, SIG_DFL);
        ::sigprocmask(SIG_SETMASK, &childMask, nullptr);
        if (ownGroup)
            ::setpgid(0, 0);
        // The child's copies of the daemon's ends: with the release pipe's
        // write end open here, a daemon that gives up (closes its end)
        // would never be seen, and both would wait for ever.
        ::close(go[1]);
        ::close(err[0]);
        char c;
        ssize_t n;
        do
            n = ::read(goR.get(), &c, 1);
        while (n < 0 && errno == EINTR);
        if (n != 1)
            ::_exit(127); // the daemon gave up before starting the trace
        ::execvp(args[0], args.data());
        int e = errno;
        ssize_t w = ::write(errW.get(), &e, sizeof e);
        (void)w;
        ::_exit(127);
    }
    pid_m = pid;
    if (ownGroup)
        ::setpgid(pid, pid); // also in the parent, so it holds before we configure
    go_m = std::move(goW);
    err_m = std::move(errR);
}

CommandChild::~CommandChild() {
    if (pid_m < 0 || released_m)
        return;
    go_m.reset(); // EOF: the child exits 127 without running the command
    int st;
    while (::waitpid(pid_m, &st, 0) < 0 && errno == EINTR) {
    }
}

int CommandChild::release() {
    released_m = true;
    char c = 'g';
    ssize_t n;
    do
        n = ::write(go_m.get(), &c, 1);
    while (n < 0 && errno == EINTR);
    go_m.reset();
    // exec closes the CLOEXEC write end (EOF); a failed exec sends errno.
    int e = 0;
    ssize_t r;
    do
        r = ::read(err_m.get(), &e, sizeof e);
    while (r < 0 && errno == EINTR);
    err_m.reset();
    if (r != static_cast<ssize_t>(sizeof e))
        return 0;
    // The exec failed and the child is on its way to _exit(127): wait for
    // it, so that its status is known now (a WNOHANG reap could come first).
    int st;
    pid_t w;
    do
        w = ::waitpid(pid_m, &st, 0);
    while (w < 0 && errno == EINTR);
    if (w == pid_m)
        status_m = st;
    return e;
}

std::optional<int> CommandChild::reap() {
    if (status_m || pid_m < 0)
        return status_m;
    int st;
    pid_t r;
    do
        r = ::waitpid(pid_m, &st, WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == pid_m)
        status_m = st;
    return status_m;
}

int CommandChild::exitCode(int st) {
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return 1;
}

} // namespace ltt::daemon
