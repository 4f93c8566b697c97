#include "snapshot_thread.hpp"

#include <cerrno>
#include <cstdint>
#include <sys/eventfd.h>
#include <system_error>
#include <time.h>
#include <unistd.h>

namespace ltt::daemon {

SnapshotThread::SnapshotThread(std::function<ProcSnapshot()> take, ReplacementFile& file)
    : done_m(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (!done_m)
        throw std::system_error(errno, std::generic_category(), "eventfd");
    thread_m = std::jthread([this, take = std::move(take), &file] { run(take, file); });
}

SnapshotThread::~SnapshotThread() = default;

void SnapshotThread::run(const std::function<ProcSnapshot()>& take, ReplacementFile& file) {
    try {
        ProcSnapshot snap = take();
        writeProcFile(file.fd(), file.tempPath(), snap);
        file.commit();
        tasks_m = snap.tasks.size();
    } catch (...) {
        error_m = std::current_exception();
    }
    timespec ts;
    if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
        cpu_m = static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
    std::uint64_t one = 1;
    ssize_t n = ::write(done_m.get(), &one, sizeof one);
    (void)n; // an eventfd write of 1 cannot fail short of overflow
}

std::size_t SnapshotThread::wait() {
    if (thread_m.joinable())
        thread_m.join();
    if (error_m)
        std::rethrow_exception(std::exchange(error_m, nullptr));
    return tasks_m;
}

} // namespace ltt::daemon
