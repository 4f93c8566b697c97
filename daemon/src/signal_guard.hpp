// SignalGuard: blocks a set of signals in the calling thread (before any
// other thread or child exists, so that all inherit the mask) and reads
// them from a signalfd. On destruction it consumes what is still pending,
// so that a late signal (a SIGIO after the device closed) cannot kill the
// process, and restores the old mask.
#pragma once
#include <csignal>
#include <initializer_list>
#include <libltt/unique_fd.hpp>

namespace ltt::daemon {

class SignalGuard {
public:
    // Throws std::system_error ("sigprocmask", "signalfd") on failure,
    // with the old mask restored.
    explicit SignalGuard(std::initializer_list<int> signals);
    ~SignalGuard();
    SignalGuard(const SignalGuard&) = delete;
    SignalGuard& operator=(const SignalGuard&) = delete;

    int fd() const { return fd_m.get(); }
    const sigset_t& oldMask() const { return old_m; }

private:
    sigset_t set_m, old_m;
    UniqueFd fd_m;
};

} // namespace ltt::daemon
