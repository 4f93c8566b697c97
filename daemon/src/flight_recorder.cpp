#include "flight_recorder.hpp"

#include "block_stats.hpp"
#include "device_config.hpp"
#include "kallsyms_copy.hpp"
#include "signal_guard.hpp"
#include "user_server.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <libltt/block_codec.hpp>
#include <libltt/private_file.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/trace_files.hpp>
#include <libltt/trace_writer.hpp>
#include <libltt/unique_fd.hpp>
#include <ltt/module_events.h>
#include <mutex>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <system_error>
#include <thread>
#include <unistd.h>
#include <vector>

#ifndef LTT_DAEMON_VERSION
#define LTT_DAEMON_VERSION "0.0.0"
#endif

namespace ltt::daemon {

namespace {

// Requests not yet served, coalesced into one snapshot: the first few
// reasons and a count of the others, so that a flood of requests costs a
// bounded string.
class Pending {
public:
    void add(std::string_view why) {
        if (reasons_m.size() < kKept)
            reasons_m.emplace_back(why.substr(0, kMaxReason));
        else
            ++more_m;
    }
    void add(Pending&& o) {
        for (auto& r : o.reasons_m)
            add(r);
        more_m += o.more_m;
        o = Pending{};
    }
    bool empty() const { return reasons_m.empty(); }
    // "a; b; c (and 7 more requests)"
    std::string text() const {
        std::string t;
        for (const auto& r : reasons_m)
            t += (t.empty() ? "" : "; ") + r;
        if (more_m)
            t += " (and " + std::to_string(more_m) + " more requests)";
        return t;
    }

private:
    static constexpr std::size_t kKept = 4, kMaxReason = 200;
    std::vector<std::string> reasons_m;
    std::uint64_t more_m = 0;
};

// requestSnapshot()'s side: the requests not yet taken and the eventfd of
// the flight recorder that runs (-1: none).
struct Requests {
    std::mutex lock;
    int fd = -1;
    Pending pending;
};

// The shortest time between two snapshots that requests (applications,
// trigger events and signals) ask for; requests meanwhile are coalesced
// into the next one. SIGUSR1 (root's) is served at once.
constexpr std::chrono::milliseconds kMinSnapshotInterval{1000};

Requests& requests() {
    static Requests r;
    return r;
}

// Publishes the eventfd while the flight recorder runs.
class RequestChannel {
public:
    RequestChannel() : fd_m(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
        if (!fd_m)
            throw std::system_error(errno, std::generic_category(), "eventfd");
        std::lock_guard g(requests().lock);
        requests().fd = fd_m.get();
        requests().pending = Pending{};
    }
    ~RequestChannel() {
        std::lock_guard g(requests().lock);
        requests().fd = -1;
    }
    RequestChannel(const RequestChannel&) = delete;
    RequestChannel& operator=(const RequestChannel&) = delete;

    int fd() const { return fd_m.get(); }
    // The requests since the last call, the eventfd reset.
    Pending take() {
        std::uint64_t n;
        ssize_t r = ::read(fd_m.get(), &n, sizeof n);
        (void)r; // EAGAIN: nothing new
        std::lock_guard g(requests().lock);
        return std::exchange(requests().pending, Pending{});
    }

private:
    UniqueFd fd_m;
};

// The flight recorder's signals, read from a signalfd (signal_guard.hpp).
constexpr std::initializer_list<int> kSignals = {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGIO};

class FlightRecorder {
public:
    FlightRecorder(const Options& o, std::ostream& out, const SessionEnv& env)
        : o_m(o), out_m(out), env_m(env) {}
    SessionSummary run();

private:
    void say(const std::string& line) {
        if (!o_m.quiet)
            out_m << "tracedaemon: " << line << '\n';
    }
    void warn(const std::string& line) { out_m << "tracedaemon: " << line << '\n'; }
    void loop();
    void snapshot(const std::string& why);
    // snapshot(), its failure reported: the recorder goes on.
    void trySnapshot(const std::string& why);
    // The snapshot sets beyond --max-snapshots or the byte budget removed,
    // oldest first (the newest kept).
    void trimSnapshots();
    void linkKallsyms(const std::string& trace);
    void setup(TraceDevice& dev);
    void startUserEvents();
    void stopUserEvents();

    const Options& o_m;
    std::ostream& out_m;
    const SessionEnv& env_m;
    SessionSummary sum_m;
    std::unique_ptr<TraceDevice> dev_m;
    ltt_trace_info info_m{};
    std::vector<std::byte> buf_m;
    unsigned snapshots_m = 0; // the last number used
    unsigned written_m = 0;   // snapshots written whole
    unsigned failed_m = 0;
    // The files of each snapshot kept, oldest first: removed by path only
    // while the path still names the file written.
    struct File {
        std::string path;
        dev_t dev = 0;
        ino_t ino = 0;
    };
    struct Set {
        unsigned n = 0;
        std::uint64_t bytes = 0;
        std::vector<File> files;
    };
    std::deque<Set> sets_m;
    std::uint64_t setBytes_m = 0;
    // The kallsyms copy, saved once per run; each later snapshot's
    // NAME-N.kallsyms is a hard link to it.
    UniqueFd kallsyms_m;
    bool kallsymsTried_m = false;
    std::chrono::steady_clock::time_point start_m;
    std::unique_ptr<UserBlockStore> userBlocks_m; // before user_m: its sink
    std::unique_ptr<UserServer> user_m;
    std::chrono::milliseconds userDrainEvery_m{0};
};

// Serves libltt-user processes as a session does; their blocks go to a
// store bounded by the kernel's buffers: ncpus x 2 x the buffer size.
void FlightRecorder::startUserEvents() {
    std::string note;
    auto config = userServerConfig(o_m, info_m, std::nullopt, note);
    if (!note.empty())
        say(note);
    if (!config)
        return;
    config->maxBlock = info_m.max_block;
    config->ncpus = info_m.ncpus;
    // The server reads the module's clock pairs from its own thread; it
    // stops (user_m) before the device closes (dev_m, declared first).
    config->clockPair = [dev = dev_m.get()] { return readClockPair(*dev); };
    userDrainEvery_m = config->drainEvery;
    // The trigger events are found by the server, which knows who logged
    // them and whether that process may ask for a snapshot.
    userBlocks_m =
        std::make_unique<UserBlockStore>(std::size_t{info_m.ncpus} * 2 * info_m.config.buffer_size);
    try {
        user_m = std::make_unique<UserServer>(
            *config, [store = userBlocks_m.get()](std::span<const std::byte> b) { store->push(b); },
            [](std::string_view why) { requestSnapshot(why); });
    } catch (const std::exception& e) {
        warn(std::string("warning: no user events: ") + e.what());
        userBlocks_m.reset();
    }
}

void FlightRecorder::stopUserEvents() {
    if (!user_m)
        return;
    user_m->stop();
    for (const auto& w : user_m->warnings())
        warn("warning: " + w);
    const UserServerStats st = user_m->stats();
    if (st.processes)
        say(describe(st) + ", " + std::to_string(userBlocks_m->droppedBlocks()) +
            " blocks dropped from memory");
    user_m.reset();
}

void FlightRecorder::setup(TraceDevice& dev) {
    ltt_config config = moduleConfig(o_m);
    if (o_m.triggerSignals && !(config.event_mask & (std::uint64_t{1} << LTT_EV_PROCESS)))
        throw DeviceError("--trigger-signal needs the PROCESS events (-e ...,process)", EINVAL);
    configureDevice(dev, config);
    configureVars(dev, o_m);
    std::uint32_t on = 1;
    if (int e = dev.control(LTT_IOC_SET_OVERWRITE, &on))
        throw DeviceError(dev.path() + ": cannot set overwrite mode: " + std::strerror(-e) +
                              (e == -ENOTTY ? " (the module predates ABI 2.4)" : ""),
                          -e);
    std::uint64_t mask = o_m.triggerSignals;
    if (int e = dev.control(LTT_IOC_SET_TRIGGER_SIGNALS, &mask))
        throw DeviceError(dev.path() + ": cannot set the trigger signals: " + std::strerror(-e),
                          -e);
}

// Writes snapshot N+1: the blocks first (they are held by the module until
// read, and the CPUs lose events meanwhile), then kallsyms and the .proc.
// The number is used up even when the snapshot fails (a name taken), so
// the next one does not meet the same file.
void FlightRecorder::snapshot(const std::string& why) {
    const unsigned n = ++snapshots_m;
    const std::string trace = snapshotPath(o_m.traceFile, n);
    const std::string proc = snapshotPath(o_m.procFile, n);
    UniqueFd fd = openPrivateFile(trace, "trace file");
    Set set;
    set.n = n;
    struct stat st {};
    if (::fstat(fd.get(), &st) == 0)
        set.files.push_back({trace, st.st_dev, st.st_ino});
    ReplacementFile procFile(proc, "proc file");
    if (int e = dev_m->control(LTT_IOC_SNAPSHOT, nullptr))
        throw DeviceError(dev_m->path() + ": snapshot failed: " + std::strerror(-e), -e);
    ltt_file_header header =
        makeFileHeader(info_m, "tracedaemon " LTT_DAEMON_VERSION, LTT_FILE_VERSION);
    header.flags |= LTT_TRACE_F_SNAPSHOT;
    std::optional<TraceWriter> writer;
    writer.emplace(std::move(fd), trace, header);
    BlockStats stats;
    std::uint64_t finals = 0;
    // Every block is read even when the file cannot take them (a full
    // disk): the module holds each CPU's ring until its blocks are read.
    std::exception_ptr writeError;
    while (true) {
        long got = dev_m->readBlocks(buf_m);
        if (got == -EAGAIN || got == 0)
            break;
        if (got < 0)
            throw DeviceError(dev_m->path() +
                                  ": read failed: " + std::strerror(static_cast<int>(-got)),
                              static_cast<int>(-got));
        auto chunk = std::span(buf_m).first(static_cast<std::size_t>(got));
        stats.scan(chunk);
        for (std::size_t off = 0; off + kBlockStartRecord <= chunk.size();) {
            ltt_block_start bs;
            std::memcpy(&bs, chunk.data() + off + sizeof(ltt_record_header), sizeof bs);
            finals += (bs.flags & LTT_BLOCK_F_FINAL) != 0;
            if (bs.length == 0)
                break;
            off += bs.length;
        }
        if (!writeError) {
            try {
                writer->append(chunk);
            } catch (...) {
                writeError = std::current_exception();
            }
        }
    }
    if (writeError)
        std::rethrow_exception(writeError);
    // The user blocks follow the kernel's, after one more pass of the
    // server's drain so that an event logged before the request is in.
    std::size_t userBytes = 0;
    if (user_m) {
        std::this_thread::sleep_for(userDrainEvery_m + std::chrono::milliseconds(20));
        std::vector<std::byte> user = userBlocks_m->copy();
        userBytes = user.size();
        if (!user.empty())
            writer->append(user);
    }
    env_m.syncTrace(*writer);
    writer->close();
    set.bytes += writer->bytesWritten();
    linkKallsyms(trace);
    if (kallsyms_m) {
        const std::string k = kallsymsPathFor(trace);
        struct stat ks {};
        if (::fstat(kallsyms_m.get(), &ks) == 0) {
            // Counted once, with the set that saved it.
            if (ks.st_nlink == 1)
                set.bytes += static_cast<std::uint64_t>(ks.st_size);
            set.files.push_back({k, ks.st_dev, ks.st_ino});
        }
    }
    std::optional<long long> onlyUid;
    if (info_m.flags & LTT_TRACE_F_RESTRICTED)
        onlyUid = static_cast<long long>(::getuid());
    ProcSnapshot snap = env_m.takeSnapshot(env_m.procRoot, onlyUid);
    writeProcFile(procFile.fd(), procFile.tempPath(), snap);
    if (::fstat(procFile.fd(), &st) == 0) {
        set.bytes += static_cast<std::uint64_t>(st.st_size);
        set.files.push_back({proc, st.st_dev, st.st_ino});
    }
    procFile.commit();
    ++written_m;
    setBytes_m += set.bytes;
    sets_m.push_back(std::move(set));

    ltt_lost_counts over{}, lost{};
    bool haveOver = dev_m->control(LTT_IOC_GET_OVERWRITTEN, &over) == 0;
    bool haveLost = lostCounts(*dev_m, lost);
    char line[1024];
    std::snprintf(line, sizeof line,
                  "snapshot %u (%s): %s in %llu blocks (%llu CPUs closed) to %s, %zu tasks to %s; "
                  "%llu events overwritten, %llu lost so far; %s of user blocks",
                  n, why.c_str(), formatBytes(writer->bytesWritten()).c_str(),
                  static_cast<unsigned long long>(stats.totalBlocks()),
                  static_cast<unsigned long long>(finals), trace.c_str(), snap.tasks.size(),
                  proc.c_str(), static_cast<unsigned long long>(haveOver ? over.total : 0),
                  static_cast<unsigned long long>(haveLost ? lost.total : 0),
                  formatBytes(userBytes).c_str());
    say(line);
    trimSnapshots();
}

// The kernel symbols of snapshot `trace`: saved (once per run) at the first
// snapshot, a hard link to that copy for the others (through the copy's
// descriptor, so that the link is to the file written, whatever its path
// names by then).
void FlightRecorder::linkKallsyms(const std::string& trace) {
    const std::string path = kallsymsPathFor(trace);
    if (!kallsymsTried_m) {
        kallsymsTried_m = true;
        std::string w;
        if (!saveKallsyms(env_m.procRoot + "/kallsyms", trace, w)) {
            say("no kernel symbols saved: " + w);
            return;
        }
        kallsyms_m.reset(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
        struct stat st {};
        if (kallsyms_m && (::fstat(kallsyms_m.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
                           st.st_uid != ::geteuid()))
            kallsyms_m.reset();
        return;
    }
    if (!kallsyms_m)
        return;
    const std::string self = "/proc/self/fd/" + std::to_string(kallsyms_m.get());
    if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) != 0)
        say("no kernel symbols for snapshot " + std::to_string(snapshots_m) + ": cannot link " +
            path + ": " + std::strerror(errno));
}

void FlightRecorder::trySnapshot(const std::string& why) {
    try {
        snapshot(why);
    } catch (const std::exception& e) {
        ++failed_m;
        warn("snapshot " + std::to_string(snapshots_m) + " (" + why + ") failed: " + e.what() +
             "; still recording");
    }
}

void FlightRecorder::trimSnapshots() {
    auto over = [&] {
        return (o_m.maxSnapshots && sets_m.size() > o_m.maxSnapshots) ||
               (setBytes_m > o_m.snapshotBudget && sets_m.size() > 1);
    };
    while (!sets_m.empty() && over()) {
        const Set& old = sets_m.front();
        for (const File& f : old.files) {
            struct stat st {};
            if (::lstat(f.path.c_str(), &st) == 0 && st.st_dev == f.dev && st.st_ino == f.ino)
                ::unlink(f.path.c_str());
        }
        say("snapshot " + std::to_string(old.n) + " removed (" +
            (o_m.maxSnapshots && sets_m.size() > o_m.maxSnapshots
                 ? "--max-snapshots " + std::to_string(o_m.maxSnapshots)
                 : "--snapshot-budget " + formatBytes(o_m.snapshotBudget)) +
            ")");
        setBytes_m -= std::min(setBytes_m, old.bytes);
        sets_m.pop_front();
    }
}

void FlightRecorder::loop() {
    SignalGuard signals(kSignals);
    RequestChannel channel;
    UniqueFd deadline;
    if (o_m.duration) {
        deadline.reset(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
        if (!deadline)
            throw std::system_error(errno, std::generic_category(), "timerfd_create");
        itimerspec its{};
        auto us = o_m.duration->count();
        its.it_value.tv_sec = static_cast<time_t>(us / 1000000);
        its.it_value.tv_nsec = static_cast<long>(us % 1000000) * 1000;
        if (::timerfd_settime(deadline.get(), 0, &its, nullptr) != 0)
            throw std::system_error(errno, std::generic_category(), "timerfd_settime");
    }
    startTracing(*dev_m);
    start_m = std::chrono::steady_clock::now();
    info_m = traceInfo(*dev_m);
    buf_m.resize(std::max<std::size_t>(info_m.max_block, o_m.bufferSize.value_or(0)) * 2);
    startUserEvents();
    say("flight recorder: recording; SIGUSR1 writes a snapshot, SIGINT or SIGTERM stops");
    // Requests (applications, trigger events, trigger signals) wait for
    // kMinSnapshotInterval after the last snapshot, coalesced into one.
    Pending pending;
    bool triggerPending = false; // the device's EPOLLPRI, served by the next snapshot
    std::chrono::steady_clock::time_point last{};
    bool any = false;
    auto serve = [&](const std::string& why) {
        trySnapshot(why);
        last = std::chrono::steady_clock::now();
        any = true;
    };
    while (true) {
        int timeout = -1;
        if (!pending.empty()) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                last + kMinSnapshotInterval - std::chrono::steady_clock::now());
            timeout = any ? static_cast<int>(std::max<long long>(0, left.count() + 1)) : 0;
        }
        // The device stays readable for POLLPRI until the next SNAPSHOT.
        pollfd fds[4] = {{signals.fd(), POLLIN, 0},
                         {dev_m->pollFd(), static_cast<short>(triggerPending ? 0 : POLLPRI), 0},
                         {channel.fd(), POLLIN, 0},
                         {deadline.get(), POLLIN, 0}};
        if (::poll(fds, 4, timeout) < 0) {
            if (errno == EINTR)
                continue;
            throw std::system_error(errno, std::generic_category(), "poll");
        }
        if (fds[0].revents & POLLIN) {
            signalfd_siginfo si;
            while (::read(signals.fd(), &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
                int sig = static_cast<int>(si.ssi_signo);
                if (sig == SIGUSR1) {
                    serve("SIGUSR1");
                    triggerPending = false;
                } else if (sig != SIGIO) {
                    say(std::string("got ") + ::sigabbrev_np(sig) + ", stopping");
                    sum_m.reason = StopReason::Signal;
                    return;
                }
            }
        }
        if (fds[1].revents & POLLPRI) {
            triggerPending = true;
            pending.add("a traced task died of a trigger signal");
        }
        if (fds[2].revents & POLLIN)
            pending.add(channel.take());
        if (fds[3].revents & POLLIN) {
            sum_m.reason = StopReason::Duration;
            return;
        }
        if (!pending.empty() &&
            (!any || std::chrono::steady_clock::now() >= last + kMinSnapshotInterval)) {
            const std::string why = pending.text();
            pending = Pending{};
            triggerPending = false;
            serve(why);
        }
    }
}

SessionSummary FlightRecorder::run() {
    try {
        dev_m = env_m.openDevice(o_m.device);
        checkAbi(*dev_m);
        setup(*dev_m);
        try {
            loop();
        } catch (...) {
            user_m.reset();
            dev_m->control(LTT_IOC_STOP, nullptr);
            throw;
        }
        stopUserEvents();
        stopTracing(*dev_m);
        // In overwrite mode read() has nothing after STOP but the end.
        while (dev_m->readBlocks(buf_m) > 0) {
        }
        sum_m.tracedSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_m).count();
        char line[256];
        std::snprintf(line, sizeof line,
                      "flight recorder stopped after %.3f s: %u snapshots written%s; the "
                      "buffers since the last one are dropped",
                      sum_m.tracedSeconds, written_m,
                      failed_m ? (", " + std::to_string(failed_m) + " failed").c_str() : "");
        say(line);
        sum_m.exitCode = 0;
    } catch (const std::exception& e) {
        warn(e.what());
        sum_m.exitCode = 1;
        sum_m.reason = StopReason::Error;
    }
    dev_m.reset();
    return sum_m;
}

} // namespace

std::string UserBlockStore::push(std::span<const std::byte> block) {
    FrameRules rules;
    rules.userStreams = true;
    BlockInfo b;
    std::lock_guard g(mutex_m);
    if (parseFrame(block, rules, b).kind != FrameFault::None || !(b.flags & LTT_BLOCK_F_USER) ||
        b.length != block.size()) {
        ++dropped_m;
        return {};
    }
    std::string trigger = triggers_m.empty() ? std::string() : triggerOf(block, b);
    Stream& s = streams_m[b.cpu];
    s.tid = b.pid;
    s.lastSequence = b.sequence;
    s.lastTsc = b.endTsc;
    s.final = (b.flags & LTT_BLOCK_F_FINAL) != 0;
    blocks_m.push_back({b.cpu, {block.begin(), block.end()}});
    bytes_m += block.size();
    while (bytes_m > budget_m && !blocks_m.empty())
        dropOldest();
    return trigger;
}

std::string UserBlockStore::triggerOf(std::span<const std::byte> block, const BlockInfo& b) {
    std::string found;
    walkBlock(block, b, [&](const BlockRecord& r) {
        auto d = r.details();
        if (r.header.event != LTT_EV_USER || d.size() < LTT_EV_USER_FIXED)
            return;
        std::uint32_t id, tgid;
        std::memcpy(&id, d.data(), sizeof id);
        std::memcpy(&tgid, d.data() + sizeof id, sizeof tgid);
        if (r.header.subtype == LTT_USER_DECLARE && d.size() > LTT_EV_USER_DECL_FIXED) {
            auto names = d.subspan(LTT_EV_USER_DECL_FIXED);
            std::string_view name(reinterpret_cast<const char*>(names.data()), names.size());
            name = name.substr(0, name.find('\0'));
            if (std::find(triggers_m.begin(), triggers_m.end(), name) != triggers_m.end())
                triggerTypes_m[{tgid, id}] = name;
            else
                triggerTypes_m.erase({tgid, id});
        } else if (r.header.subtype == LTT_USER_EVENT && found.empty()) {
            if (auto t = triggerTypes_m.find({tgid, id}); t != triggerTypes_m.end())
                found = t->second;
        }
    });
    return found;
}

// Drops the oldest block, keeping its stream's declarations.
void UserBlockStore::dropOldest() {
    Kept& k = blocks_m.front();
    Stream& s = streams_m[k.stream];
    FrameRules rules;
    rules.userStreams = true;
    BlockInfo b;
    if (parseFrame(k.bytes, rules, b).kind == FrameFault::None)
        walkBlock(k.bytes, b, [&](const BlockRecord& r) {
            auto d = r.details();
            if (r.header.event != LTT_EV_USER || r.header.subtype != LTT_USER_DECLARE ||
                d.size() < 2 * sizeof(std::uint32_t))
                return;
            std::uint32_t id, tgid;
            std::memcpy(&id, d.data(), sizeof id);
            std::memcpy(&tgid, d.data() + sizeof id, sizeof tgid);
            s.declared.try_emplace({tgid, id}, d.begin(), d.end());
        });
    bytes_m -= k.bytes.size();
    ++dropped_m;
    const std::uint16_t stream = k.stream;
    blocks_m.pop_front();
    // A stream that ended and has no block left is forgotten; one that goes
    // on keeps its declarations for the blocks to come.
    if (s.final && std::none_of(blocks_m.begin(), blocks_m.end(),
                                [&](const Kept& x) { return x.stream == stream; }))
        streams_m.erase(stream);
}

std::vector<std::byte> UserBlockStore::copy() const {
    std::lock_guard g(mutex_m);
    std::vector<std::byte> out;
    BlockBuilder builder;
    FrameRules rules;
    rules.userStreams = true;
    for (const auto& [number, s] : streams_m) {
        bool first = true;
        for (const Kept& k : blocks_m) {
            if (k.stream != number)
                continue;
            BlockInfo b;
            if (first && !s.declared.empty() &&
                parseFrame(k.bytes, rules, b).kind == FrameFault::None && b.sequence > 0) {
                builder.start(number, b.sequence - 1, b.startTsc, s.tid);
                for (const auto& [key, details] : s.declared)
                    builder.extRecord(b.startTsc, LTT_EV_USER, LTT_USER_DECLARE, details.data(),
                                      details.size());
                auto d = builder.finish(b.startTsc, LTT_BLOCK_F_USER);
                out.insert(out.end(), d.begin(), d.end());
            }
            first = false;
            out.insert(out.end(), k.bytes.begin(), k.bytes.end());
        }
        if (!first && !s.final) {
            builder.start(number, s.lastSequence + 1, s.lastTsc, s.tid);
            auto d = builder.finish(s.lastTsc, LTT_BLOCK_F_USER | LTT_BLOCK_F_FINAL);
            out.insert(out.end(), d.begin(), d.end());
        }
    }
    return out;
}

std::size_t UserBlockStore::bytes() const {
    std::lock_guard g(mutex_m);
    return bytes_m;
}

std::uint64_t UserBlockStore::droppedBlocks() const {
    std::lock_guard g(mutex_m);
    return dropped_m;
}

std::string snapshotPath(const std::string& path, unsigned n) {
    auto slash = path.rfind('/');
    auto dot = path.rfind('.');
    std::size_t base = slash == std::string::npos ? 0 : slash + 1;
    if (dot == std::string::npos || dot <= base)
        return path + "-" + std::to_string(n);
    return path.substr(0, dot) + "-" + std::to_string(n) + path.substr(dot);
}

void requestSnapshot(std::string_view why) {
    // Only printable text reaches the messages.
    std::string text(why.substr(0, 200));
    for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
            c = '?';
    std::lock_guard g(requests().lock);
    if (requests().fd < 0)
        return;
    requests().pending.add(text);
    std::uint64_t one = 1;
    ssize_t r = ::write(requests().fd, &one, sizeof one);
    (void)r; // an eventfd write of 1 cannot fail short of overflow
}
SessionSummary runFlightRecorder(const Options& options, std::ostream& messages,
                                 const SessionEnv& env) {
    return FlightRecorder(options, messages, env).run();
}

} // namespace ltt::daemon
