#include "commit_buffer.hpp"

#include <pthread.h>
#include <time.h>

namespace ltt::daemon {

CommitBuffer::CommitBuffer(TraceWriter& writer, std::size_t capacity)
    : writer_m(writer), capacity_m(capacity) {
    halves_m[0] = std::make_unique_for_overwrite<std::byte[]>(capacity);
    halves_m[1] = std::make_unique_for_overwrite<std::byte[]>(capacity);
    thread_m = std::thread([this] { writerLoop(); });
}

CommitBuffer::~CommitBuffer() {
    {
        std::lock_guard lock(mutex_m);
        stop_m = true;
    }
    cv_m.notify_all();
    thread_m.join();
}

double CommitBuffer::writerCpuSeconds() const {
    clockid_t id;
    timespec ts;
    if (pthread_getcpuclockid(const_cast<std::thread&>(thread_m).native_handle(), &id) != 0 ||
        clock_gettime(id, &ts) != 0)
        return 0;
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

void CommitBuffer::rethrowLocked() {
    if (error_m)
        std::rethrow_exception(error_m);
}

void CommitBuffer::rotate() {
    std::unique_lock lock(mutex_m);
    rethrowLocked();
    if (fill_m == 0)
        return;
    if (busy_m) {
        ++stalls_m;
        cv_m.wait(lock, [this] { return !busy_m; });
        rethrowLocked();
    }
    busy_m = true;
    busyLen_m = fill_m;
    filling_m ^= 1;
    fill_m = 0;
    lock.unlock();
    cv_m.notify_all();
}

void CommitBuffer::flush() {
    rotate();
    std::unique_lock lock(mutex_m);
    cv_m.wait(lock, [this] { return !busy_m; });
    rethrowLocked();
}

void CommitBuffer::writerLoop() {
    std::unique_lock lock(mutex_m);
    while (true) {
        cv_m.wait(lock, [this] { return busy_m || stop_m; });
        if (!busy_m)
            return; // stop requested and nothing in flight
        // The half being written is the one not filling; the loop thread only
        // touches the filling half until busy_m drops.
        const std::byte* data = halves_m[filling_m ^ 1].get();
        std::size_t len = busyLen_m;
        lock.unlock();
        std::exception_ptr err;
        try {
            writer_m.append({data, len});
        } catch (...) {
            err = std::current_exception();
        }
        lock.lock();
        if (err && !error_m)
            error_m = err;
        ++commits_m;
        busy_m = false;
        cv_m.notify_all();
    }
}

} // namespace ltt::daemon
