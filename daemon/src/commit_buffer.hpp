// The daemon's double buffer (paper §3.4). The drain loop reads the module's
// blocks into the filling half; when it cannot hold another largest block,
// the half goes to a writer thread that commits it with one large write via
// TraceWriter, while the loop keeps reading into the other half. Only when
// both halves are full does the loop wait for the disk (counted as a stall):
// the module's own buffers absorb the pause.
//
// Both halves only ever hold whole blocks, so every commit appends whole
// blocks and the file is valid up to its last whole block at every moment.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <libltt/trace_writer.hpp>
#include <memory>
#include <mutex>
#include <span>
#include <thread>

namespace ltt::daemon {

class CommitBuffer {
public:
    // `capacity`: bytes of each half. Starts the writer thread, which
    // inherits the caller's signal mask (block signals first).
    CommitBuffer(TraceWriter& writer, std::size_t capacity);
    ~CommitBuffer(); // stops the writer; data not yet handed over is dropped
    CommitBuffer(const CommitBuffer&) = delete;
    CommitBuffer& operator=(const CommitBuffer&) = delete;

    // Free space in the filling half; read() blocks straight into it.
    std::span<std::byte> space() {
        return {halves_m[filling_m].get() + fill_m, capacity_m - fill_m};
    }
    // `n` bytes of whole blocks were just placed at space().data().
    void commit(std::size_t n) { fill_m += n; }
    std::size_t pending() const { return fill_m; }
    std::size_t capacity() const { return capacity_m; }

    // Hands the filling half (if not empty) to the writer and switches to the
    // other half, first waiting until the writer is done with it. Rethrows a
    // write error from the writer thread.
    void rotate();
    // rotate(), then waits until everything handed over is on file; rethrows
    // a write error. The writer thread stays up.
    void flush();

    // CPU time the writer thread has used so far (seconds).
    double writerCpuSeconds() const;

    std::uint64_t commits() const {
        std::lock_guard lock(mutex_m);
        return commits_m;
    }
    std::uint64_t stalls() const {
        std::lock_guard lock(mutex_m);
        return stalls_m;
    }

private:
    void writerLoop();
    void rethrowLocked();

    TraceWriter& writer_m;
    std::size_t capacity_m;
    std::unique_ptr<std::byte[]> halves_m[2];
    int filling_m = 0;
    std::size_t fill_m = 0;

    mutable std::mutex mutex_m;
    std::condition_variable cv_m;
    bool busy_m = false; // the other half is being written
    std::size_t busyLen_m = 0;
    bool stop_m = false;
    std::exception_ptr error_m;
    std::uint64_t commits_m = 0;
    std::uint64_t stalls_m = 0;
    std::thread thread_m;
};

} // namespace ltt::daemon
