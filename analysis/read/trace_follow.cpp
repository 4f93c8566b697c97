// TraceFollower: see trace_follow.hpp for the design.
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <libltt/trace_follow.hpp>
#include <sys/inotify.h>
#include <sys/stat.h>

namespace ltt {

namespace {

// After the last CPU's FINAL block, how long to wait for more blocks when
// the producer has not been seen closing the file: a CPU that wrote no block
// before the end may still be writing its FINAL one (the producer commits
// the last blocks in more than one write when they do not fit one buffer).
constexpr std::chrono::milliseconds kFinalGrace{1000};

} // namespace

TraceFollower::TraceFollower(std::string tracePath, std::string procPath, FollowOptions options)
    : trace_m(std::move(tracePath)), proc_m(std::move(procPath)), options_m(options),
      grew_m(Clock::now()) {
    // Without inotify (an old kernel, a file system that has none) the end
    // comes from the FINAL blocks or the idle timeout alone.
    inotify_m.reset(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
}

TraceFollower::~TraceFollower() = default;

std::string TraceFollower::endReason() const {
    switch (end_m) {
    case End::Following:
        return "following";
    case End::Final:
        return "every CPU wrote its final block";
    case End::Closed:
        return "the producer closed the file";
    case End::Idle: {
        char buf[64];
        std::snprintf(buf, sizeof buf, "the file has not grown for %g s",
                      static_cast<double>(options_m.idleTimeout.count()) / 1000.0);
        return buf;
    }
    case End::Error:
        return error_m ? error_m->str() : "error";
    }
    return {};
}

// Watches the trace for its producer's close, once the file exists.
void TraceFollower::watch() {
    if (watching_m || !inotify_m)
        return;
    if (::inotify_add_watch(inotify_m.get(), trace_m.c_str(), IN_CLOSE_WRITE) >= 0)
        watching_m = true;
}

// Drains the inotify queue: true when a writer closed the file since.
bool TraceFollower::writerClosed() {
    if (!watching_m)
        return false;
    alignas(inotify_event) char buf[sizeof(inotify_event) + NAME_MAX + 1];
    bool closed = false;
    for (;;) {
        const ssize_t n = ::read(inotify_m.get(), buf, sizeof buf);
        if (n <= 0)
            break;
        for (ssize_t at = 0; at < n;) {
            const auto* ev = reinterpret_cast<const inotify_event*>(buf + at);
            closed = closed || (ev->mask & IN_CLOSE_WRITE);
            at += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
        }
    }
    return closed;
}

// Reads the .proc once it exists (it is renamed into place whole).
bool TraceFollower::pollProc() {
    if (proc_m.empty() || snapshot_m || procError_m)
        return false;
    struct stat st;
    if (::stat(proc_m.c_str(), &st) != 0)
        return false;
    ProcParseError perr;
    std::optional<ProcParseError> cut;
    auto snap = readProcFile(proc_m, &perr, &cut);
    if (!snap) {
        procError_m = perr;
        return true;
    }
    procCut_m = std::move(cut);
    snapshot_m = std::make_shared<const ProcSnapshot>(std::move(*snap));
    return true;
}

// Following ended: the last look at the files, as a plain open sees them.
void TraceFollower::finish(End why) {
    end_m = why;
    pollProc();
    if (why == End::Error)
        return;
    TraceError err;
    auto r = TraceReader::open(trace_m, &err);
    if (!r) {
        end_m = End::Error;
        error_m = err;
        return;
    }
    reader_m = std::move(r);
    blocks_m = reader_m->blocks().size();
}

bool TraceFollower::poll() {
    if (finished())
        return false;
    bool changed = pollProc();
    watch();
    closed_m = writerClosed() || closed_m;
    const Clock::time_point now = Clock::now();
    struct stat st;
    if (::stat(trace_m.c_str(), &st) != 0) {
        if (errno != ENOENT) {
            error_m = TraceError{trace_m, 0, std::string("cannot open: ") + std::strerror(errno)};
            end_m = End::Error;
            ++updates_m;
            return true;
        }
        // Not there yet: the producer creates it when it starts.
    } else {
        const auto size = static_cast<std::uint64_t>(st.st_size);
        Clock::time_point grew = now;
        if (!reader_m && size_m == 0) {
            // First look: the file's age counts toward the idle timeout and
            // the grace after the FINAL blocks, so a file nobody writes any
            // more ends at once.
            timespec rt;
            ::clock_gettime(CLOCK_REALTIME, &rt);
            const auto age = std::chrono::seconds(rt.tv_sec - st.st_mtim.tv_sec) +
                             std::chrono::nanoseconds(rt.tv_nsec - st.st_mtim.tv_nsec);
            if (age > Clock::duration::zero())
                grew = now - std::chrono::duration_cast<Clock::duration>(age);
        }
        if (size < size_m) {
            // Shrank: the producer truncated an older trace of the same name
            // when it started. Follow the new one from its start.
            reader_m.reset();
            blocks_m = 0;
            changed = true;
        }
        if (size != size_m) {
            size_m = size;
            grew_m = grew;
            TraceError err;
            auto r = TraceReader::open(trace_m, &err);
            if (r) {
                if (!reader_m || r->blocks().size() != blocks_m) {
                    blocks_m = r->blocks().size();
                    reader_m = std::move(r);
                    changed = true;
                }
            } else if (size >= sizeof(ltt_file_header)) {
                // A header that is whole but wrong, or damage with a whole
                // block after it: no amount of waiting makes it a trace.
                // (A file shorter than its header is still being written.)
                error_m = err;
                end_m = End::Error;
                ++updates_m;
                return true;
            }
        }
    }
    const bool allFinal = reader_m && !reader_m->blocks().empty() && !reader_m->unfinished();
    if (allFinal && (closed_m || !watching_m || now - grew_m >= kFinalGrace))
        finish(End::Final);
    else if (closed_m)
        finish(End::Closed);
    else if (options_m.idleTimeout.count() > 0 && now - grew_m >= options_m.idleTimeout)
        finish(End::Idle);
    changed = changed || finished();
    updates_m += changed;
    return changed;
}

} // namespace ltt
