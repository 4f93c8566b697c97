// The .proc snapshot, taken in a thread of its own. Reading /proc costs
// milliseconds per task (tens of thousands of files on a large machine);
// done in the drain loop's thread it would leave the module's buffers
// undrained meanwhile and events would be lost at the trace's start. So the
// session starts this thread right after START and keeps draining; the
// thread reads /proc, writes the .proc through its ReplacementFile
// (temporary file, fsync, rename) and signals an eventfd the loop polls.
//
// The snapshot is as close to START as before: it begins at once after it,
// and what changes while /proc is read (forks, execs, exits) is in the trace
// too; the analysis's rules for a task both listed and forked apply
// (docs/analysis.md, "State").
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <libltt/private_file.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/unique_fd.hpp>
#include <thread>

namespace ltt::daemon {

class SnapshotThread {
public:
    // Starts the thread: `take()`, then writeProcFile() into `file` and
    // file.commit(). `file` must outlive this object. The thread inherits
    // the caller's signal mask. Throws std::system_error if no eventfd.
    SnapshotThread(std::function<ProcSnapshot()> take, ReplacementFile& file);
    ~SnapshotThread(); // joins (the snapshot is not interrupted)
    SnapshotThread(const SnapshotThread&) = delete;
    SnapshotThread& operator=(const SnapshotThread&) = delete;

    // Readable (POLLIN) once the thread has finished.
    int doneFd() const { return done_m.get(); }
    // Joins the thread; rethrows its error; returns the tasks written.
    std::size_t wait();
    // CPU time the thread used (seconds), once it has finished.
    double cpuSeconds() const { return cpu_m.load(); }

private:
    void run(const std::function<ProcSnapshot()>& take, ReplacementFile& file);

    UniqueFd done_m;
    std::exception_ptr error_m;
    std::size_t tasks_m = 0;
    std::atomic<double> cpu_m{0};
    std::jthread thread_m; // last: starts once the members above exist
};

} // namespace ltt::daemon
