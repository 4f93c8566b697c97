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
#include <libltt/block_codec.hpp>
#include <libltt/private_file.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/trace_writer.hpp>
#include <libltt/unique_fd.hpp>
#include <ltt/module_events.h>
#include <mutex>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
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

// requestSnapshot()'s side: the reasons asked for and the eventfd of the
// flight recorder that runs (-1: none).
struct Requests {
    std::mutex lock;
    int fd = -1;
    std::vector<std::string> reasons;
};

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
        requests().reasons.clear();
    }
    ~RequestChannel() {
        std::lock_guard g(requests().lock);
        requests().fd = -1;
    }
    RequestChannel(const RequestChannel&) = delete;
    RequestChannel& operator=(const RequestChannel&) = delete;

    int fd() const { return fd_m.get(); }
    // The reasons asked since the last call, the eventfd reset.
    std::vector<std::string> take() {
        std::uint64_t n;
        ssize_t r = ::read(fd_m.get(), &n, sizeof n);
        (void)r; // EAGAIN: nothing new
        std::lock_guard g(requests().lock);
        return std::exchange(requests().reasons, {});
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
    unsigned snapshots_m = 0;
    std::chrono::steady_clock::time_point start_m;
    std::unique_ptr<UserBlockStore> userBlocks_m; // before user_m: its sink
    std::unique_ptr<UserServer> user_m;
    std::chrono::milliseconds userDrainEvery_m{0};
};

// Serves libltt-user processes as a session does; their blocks go to a
// store bounded by the kernel's buffers: ncpus x 2 x the buffer size.
void FlightRecorder::startUserEvents() {
    std::string note;
    auto config = userServerConfig(o_m, userEventsClock(info_m), std::nullopt, note);
    if (!note.empty())
        say(note);
    if (!config)
        return;
    config->maxBlock = info_m.max_block;
    userDrainEvery_m = config->drainEvery;
    userBlocks_m = std::make_unique<UserBlockStore>(
        std::size_t{info_m.ncpus} * 2 * info_m.config.buffer_size, o_m.triggerEvents);
    try {
        user_m = std::make_unique<UserServer>(
            *config,
            [store = userBlocks_m.get()](std::span<const std::byte> b) {
                if (std::string name = store->push(b); !name.empty())
                    requestSnapshot("application event " + name);
            },
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
void FlightRecorder::snapshot(const std::string& why) {
    const unsigned n = snapshots_m + 1;
    const std::string trace = snapshotPath(o_m.traceFile, n);
    const std::string proc = snapshotPath(o_m.procFile, n);
    UniqueFd fd = openPrivateFile(trace, "trace file");
    ReplacementFile procFile(proc, "proc file");
    if (int e = dev_m->control(LTT_IOC_SNAPSHOT, nullptr))
        throw DeviceError(dev_m->path() + ": snapshot failed: " + std::strerror(-e), -e);
    ltt_file_header header =
        makeFileHeader(info_m, "tracedaemon " LTT_DAEMON_VERSION, LTT_FILE_VERSION);
    header.flags |= LTT_TRACE_F_SNAPSHOT;
    TraceWriter writer(std::move(fd), trace, header);
    BlockStats stats;
    std::uint64_t finals = 0;
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
        writer.append(chunk);
    }
    // The user blocks follow the kernel's, after one more pass of the
    // server's drain so that an event logged before the request is in.
    std::size_t userBytes = 0;
    if (user_m) {
        std::this_thread::sleep_for(userDrainEvery_m + std::chrono::milliseconds(20));
        std::vector<std::byte> user = userBlocks_m->copy();
        userBytes = user.size();
        if (!user.empty())
            writer.append(user);
    }
    env_m.syncTrace(writer);
    writer.close();
    if (std::string w; !saveKallsyms(env_m.procRoot + "/kallsyms", trace, w))
        say("no kernel symbols saved: " + w);
    std::optional<long long> onlyUid;
    if (info_m.flags & LTT_TRACE_F_RESTRICTED)
        onlyUid = static_cast<long long>(::getuid());
    ProcSnapshot snap = env_m.takeSnapshot(env_m.procRoot, onlyUid);
    writeProcFile(procFile.fd(), procFile.tempPath(), snap);
    procFile.commit();
    snapshots_m = n;

    ltt_lost_counts over{}, lost{};
    bool haveOver = dev_m->control(LTT_IOC_GET_OVERWRITTEN, &over) == 0;
    bool haveLost = lostCounts(*dev_m, lost);
    char line[512];
    std::snprintf(line, sizeof line,
                  "snapshot %u (%s): %s in %llu blocks (%llu CPUs closed) to %s, %zu tasks to %s; "
                  "%llu events overwritten, %llu lost so far; %s of user blocks",
                  n, why.c_str(), formatBytes(writer.bytesWritten()).c_str(),
                  static_cast<unsigned long long>(stats.totalBlocks()),
                  static_cast<unsigned long long>(finals), trace.c_str(), snap.tasks.size(),
                  proc.c_str(), static_cast<unsigned long long>(haveOver ? over.total : 0),
                  static_cast<unsigned long long>(haveLost ? lost.total : 0),
                  formatBytes(userBytes).c_str());
    say(line);
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
    while (true) {
        pollfd fds[4] = {{signals.fd(), POLLIN, 0},
                         {dev_m->pollFd(), POLLPRI, 0},
                         {channel.fd(), POLLIN, 0},
                         {deadline.get(), POLLIN, 0}};
        if (::poll(fds, 4, -1) < 0) {
            if (errno == EINTR)
                continue;
            throw std::system_error(errno, std::generic_category(), "poll");
        }
        if (fds[0].revents & POLLIN) {
            signalfd_siginfo si;
            while (::read(signals.fd(), &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
                int sig = static_cast<int>(si.ssi_signo);
                if (sig == SIGUSR1) {
                    snapshot("SIGUSR1");
                } else if (sig != SIGIO) {
                    say(std::string("got ") + ::sigabbrev_np(sig) + ", stopping");
                    sum_m.reason = StopReason::Signal;
                    return;
                }
            }
        }
        if (fds[1].revents & POLLPRI)
            snapshot("a traced task died of a trigger signal");
        if (fds[2].revents & POLLIN)
            for (const auto& why : channel.take())
                snapshot(why);
        if (fds[3].revents & POLLIN) {
            sum_m.reason = StopReason::Duration;
            return;
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
                      "flight recorder stopped after %.3f s: %u snapshots written; the buffers "
                      "since the last one are dropped",
                      sum_m.tracedSeconds, snapshots_m);
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
    std::lock_guard g(requests().lock);
    if (requests().fd < 0)
        return;
    requests().reasons.emplace_back(why);
    std::uint64_t one = 1;
    ssize_t r = ::write(requests().fd, &one, sizeof one);
    (void)r; // an eventfd write of 1 cannot fail short of overflow
}

SessionSummary runFlightRecorder(const Options& options, std::ostream& messages,
                                 const SessionEnv& env) {
    return FlightRecorder(options, messages, env).run();
}

} // namespace ltt::daemon
