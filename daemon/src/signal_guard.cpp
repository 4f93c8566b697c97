#include "signal_guard.hpp"

#include <cerrno>
#include <ctime>
#include <pthread.h>
#include <sys/signalfd.h>
#include <system_error>

namespace ltt::daemon {

SignalGuard::SignalGuard(std::initializer_list<int> signals) {
    sigemptyset(&set_m);
    for (int s : signals)
        sigaddset(&set_m, s);
    if (::pthread_sigmask(SIG_BLOCK, &set_m, &old_m) != 0)
        throw std::system_error(errno, std::generic_category(), "sigprocmask");
    fd_m.reset(::signalfd(-1, &set_m, SFD_CLOEXEC | SFD_NONBLOCK));
    if (!fd_m) {
        int e = errno;
        ::pthread_sigmask(SIG_SETMASK, &old_m, nullptr);
        throw std::system_error(e, std::generic_category(), "signalfd");
    }
}

SignalGuard::~SignalGuard() {
    fd_m.reset();
    timespec zero{0, 0};
    while (::sigtimedwait(&set_m, nullptr, &zero) > 0) {
    }
    ::pthread_sigmask(SIG_SETMASK, &old_m, nullptr);
}

} // namespace ltt::daemon
