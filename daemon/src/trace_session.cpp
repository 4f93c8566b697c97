#include "trace_session.hpp"

#include "block_stats.hpp"
#include "command_child.hpp"
#include "commit_buffer.hpp"
#include "control_fifo.hpp"
#include "device_config.hpp"
#include "flight_recorder.hpp"
#include "kallsyms_copy.hpp"
#include "proc_snapshot.hpp"
#include "signal_guard.hpp"
#include "snapshot_thread.hpp"
#include "test_emitter.hpp"
#include "user_server.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <libltt/private_file.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/trace_writer.hpp>
#include <libltt/unique_fd.hpp>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <system_error>
#include <unistd.h>

#ifndef LTT_DAEMON_VERSION
#define LTT_DAEMON_VERSION "0.0.0"
#endif

namespace ltt::daemon {

namespace {

using Clock = std::chrono::steady_clock;

// The daemon's signals, read from a signalfd (signal_guard.hpp).
constexpr std::initializer_list<int> kSignals = {SIGIO, SIGINT, SIGTERM, SIGHUP, SIGCHLD};

UniqueFd makeTimer() {
    UniqueFd fd(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
    if (!fd)
        throw std::system_error(errno, std::generic_category(), "timerfd_create");
    return fd;
}

timespec toTimespec(std::chrono::nanoseconds ns) {
    timespec ts;
    ts.tv_sec = static_cast<time_t>(ns.count() / 1000000000);
    ts.tv_nsec = static_cast<long>(ns.count() % 1000000000);
    return ts;
}

// CPU time of the calling thread. The daemon's cost is this (the drain
// loop) plus the writer thread's; the --test-emit thread is left out, since
// the module's test mode emits its events in that thread's system time.
double threadCpuSeconds() {
    timespec ts;
    if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// STOPs the module if the session leaves early (an error after START).
class StopOnExit {
public:
    explicit StopOnExit(TraceDevice& dev) : dev_m(&dev) {}
    ~StopOnExit() {
        if (dev_m)
            dev_m->control(LTT_IOC_STOP, nullptr);
    }
    void dismiss() { dev_m = nullptr; }
    StopOnExit(const StopOnExit&) = delete;
    StopOnExit& operator=(const StopOnExit&) = delete;

private:
    TraceDevice* dev_m;
};

const char* signalName(int sig) {
    switch (sig) {
    case SIGINT:
        return "SIGINT";
    case SIGTERM:
        return "SIGTERM";
    case SIGHUP:
        return "SIGHUP";
    default:
        return "a signal";
    }
}

class Session {
public:
    Session(const Options& o, std::ostream& out, const SessionEnv& env)
        : o_m(o), out_m(out), env_m(env) {}

    SessionSummary run();

private:
    enum class Drain { Empty, More, End };

    void say(const std::string& line) {
        if (!o_m.quiet)
            out_m << "tracedaemon: " << line << '\n';
    }
    void warn(const std::string& line) { out_m << "tracedaemon: " << line << '\n'; }

    Drain drain(bool unbounded);
    void joinSnapshot();
    bool snapshotDone();
    void loop();
    void finish();
    void report();
    void startUserEvents();
    void stopUserEvents();
    void control(const std::vector<std::string>& lines);

    const Options& o_m;
    std::ostream& out_m;
    const SessionEnv& env_m;
    SessionSummary sum_m;

    std::unique_ptr<SignalGuard> signals_m;
    std::unique_ptr<TraceDevice> dev_m;
    std::unique_ptr<CommandChild> child_m;
    UniqueFd traceFd_m;                      // opened before START
    std::unique_ptr<ReplacementFile> proc_m; // the .proc, written whole
    std::unique_ptr<SnapshotThread> snapshot_m;
    bool snapshotPending_m = false; // its thread has not been waited for
    std::unique_ptr<TraceWriter> writer_m;
    std::unique_ptr<CommitBuffer> buffer_m;
    std::unique_ptr<TestEmitter> emitter_m;
    std::unique_ptr<UserBlockQueue> userQueue_m; // before user_m: its sink
    std::unique_ptr<UserServer> user_m;
    std::unique_ptr<ControlFifo> control_m; // --control
    ControlState controlState_m;            // what its commands change
    ltt_trace_info info_m{};
    ltt_config config_m{};
    std::size_t maxBlock_m = 0;
    BlockStats stats_m;
    bool warnedMalformed_m = false;
    Clock::time_point start_m, stop_m, lastRotate_m;
    std::size_t tasks_m = 0;
    bool commandForwarded_m = false;
    double writerCpu_m = 0;
    double snapshotCpu_m = 0;
    Clock::duration stopLatency_m{};
};

Session::Drain Session::drain(bool unbounded) {
    // Bounded per wake-up (bytes and time) so a steady flood of blocks
    // cannot starve the signals and the duration timer; the loop polls again
    // at once when this returns More.
    const std::size_t budget = 2 * buffer_m->capacity();
    const auto until = Clock::now() + std::chrono::milliseconds(20);
    std::size_t got = 0;
    if (userQueue_m)
        userQueue_m->moveTo(*buffer_m);
    while (true) {
        auto space = buffer_m->space();
        if (space.size() < maxBlock_m) {
            buffer_m->rotate();
            lastRotate_m = Clock::now();
            space = buffer_m->space();
        }
        long n = dev_m->readBlocks(space);
        if (n > 0) {
            auto chunk = space.first(static_cast<std::size_t>(n));
            if (!stats_m.scan(chunk) && !warnedMalformed_m) {
                warnedMalformed_m = true;
                warn("warning: the module returned a malformed block (" + stats_m.lastProblem() +
                     "); writing it anyway");
            }
            buffer_m->commit(chunk.size());
            got += chunk.size();
            if (!unbounded && (got >= budget || Clock::now() >= until))
                return Drain::More;
            continue;
        }
        if (n == 0)
            return Drain::End;
        if (n == -EAGAIN)
            return Drain::Empty;
        throw DeviceError(dev_m->path() + ": read failed: " + std::strerror(static_cast<int>(-n)),
                          static_cast<int>(-n));
    }
}

// Waits for the snapshot thread (the .proc is then in place, or its error
// is rethrown) and takes its figures.
void Session::joinSnapshot() {
    snapshotPending_m = false;
    tasks_m = snapshot_m->wait();
    snapshotCpu_m = snapshot_m->cpuSeconds();
}

// The .proc is in place: let the command exec. False when it cannot run
// (the session then ends, as with a command that exited).
bool Session::snapshotDone() {
    joinSnapshot();
    if (!child_m)
        return true;
    if (int e = child_m->release()) {
        warn("cannot execute " + o_m.command[0] + ": " + std::strerror(e));
        sum_m.reason = StopReason::CommandExited;
        child_m->reap();
        return false;
    }
    say("tracing command " + o_m.command[0] + " (pid " + std::to_string(child_m->pid()) + ")");
    return true;
}

// Control lines: each applied to the module, a bad one reported and skipped.
void Session::control(const std::vector<std::string>& lines) {
    for (const auto& line : lines)
        if (std::string e = runControlLine(*dev_m, controlState_m, line); !e.empty())
            warn(e);
}

void Session::loop() {
    UniqueFd deadline, tick = makeTimer();
    if (o_m.duration) {
        deadline = makeTimer();
        itimerspec its{};
        its.it_value = toTimespec(start_m.time_since_epoch() + *o_m.duration);
        if (::timerfd_settime(deadline.get(), TFD_TIMER_ABSTIME, &its, nullptr) != 0)
            throw std::system_error(errno, std::generic_category(), "timerfd_settime");
    }
    // The tick drains whatever a lost wake-up left behind and commits a
    // partly filled buffer every flush interval.
    auto tickEvery = o_m.flushInterval.count() ? std::chrono::nanoseconds(o_m.flushInterval)
                                               : std::chrono::nanoseconds(std::chrono::seconds(1));
    itimerspec its{};
    its.it_value = toTimespec(tickEvery);
    its.it_interval = its.it_value;
    if (::timerfd_settime(tick.get(), 0, &its, nullptr) != 0)
        throw std::system_error(errno, std::generic_category(), "timerfd_settime");

    bool more = true; // drain at once: blocks may be ready since START
    while (true) {
        // The snapshot's eventfd last, and only until it was handled; -1 in
        // a pollfd is ignored.
        pollfd fds[5] = {{signals_m->fd(), POLLIN, 0},
                         {tick.get(), POLLIN, 0},
                         {deadline.get(), POLLIN, 0},
                         {snapshotPending_m ? snapshot_m->doneFd() : -1, POLLIN, 0},
                         {control_m ? control_m->fd() : -1, POLLIN, 0}};
        int r = ::poll(fds, 5, more ? 0 : -1);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            throw std::system_error(errno, std::generic_category(), "poll");
        }
        bool wake = more;
        if (fds[0].revents & POLLIN) {
            signalfd_siginfo si;
            while (::read(signals_m->fd(), &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
                int sig = static_cast<int>(si.ssi_signo);
                if (sig == SIGIO) {
                    wake = true;
                } else if (sig == SIGHUP && !o_m.controlFile.empty()) {
                    try {
                        control(readControlFile(o_m.controlFile));
                    } catch (const std::runtime_error& e) {
                        warn(e.what());
                    }
                } else if (sig == SIGCHLD) {
                    if (child_m && child_m->reap()) {
                        sum_m.reason = StopReason::CommandExited;
                        return;
                    }
                } else if (child_m && child_m->released() && !child_m->ended() &&
                           !commandForwarded_m) {
                    // First stop signal while tracing a command: pass it on
                    // (unless the terminal already sent it to the command's
                    // process group) and trace until the command exits.
                    commandForwarded_m = true;
                    bool fromTty = si.ssi_code == SI_KERNEL && !child_m->ownGroup();
                    if (!fromTty)
                        ::kill(child_m->pid(), sig);
                    say(std::string("got ") + signalName(sig) +
                        "; tracing until the command exits (send it again to stop now)");
                } else {
                    say(std::string("got ") + signalName(sig) + ", stopping");
                    sum_m.reason = StopReason::Signal;
                    return;
                }
            }
        }
        if (fds[4].revents & POLLIN)
            control(control_m->readLines());
        if (deadline && (fds[2].revents & POLLIN)) {
            sum_m.reason = StopReason::Duration;
            return;
        }
        if ((fds[3].revents & POLLIN) && !snapshotDone())
            return;
        if (fds[1].revents & POLLIN) {
            std::uint64_t expirations;
            ssize_t n = ::read(tick.get(), &expirations, sizeof expirations);
            (void)n;
            wake = true;
            if (o_m.flushInterval.count() && buffer_m->pending() &&
                Clock::now() - lastRotate_m >= o_m.flushInterval) {
                buffer_m->rotate();
                lastRotate_m = Clock::now();
            }
        }
        more = false;
        if (wake) {
            Drain d = drain(false);
            if (d == Drain::More)
                more = true;
            if (d == Drain::End) {
                warn("warning: the module ended the trace by itself");
                sum_m.reason = StopReason::EndOfTrace;
                return;
            }
        }
    }
}

void Session::finish() {
    if (emitter_m) {
        sum_m.testEmitted = emitter_m->stop();
        if (int e = emitter_m->error())
            warn(std::string("warning: test mode emit failed: ") + std::strerror(e));
    }
    // STOP flushes the partial blocks; read until the module says "end".
    if (sum_m.reason != StopReason::EndOfTrace) {
        stop_m = Clock::now();
        stopTracing(*dev_m);
        stopLatency_m = Clock::now() - stop_m;
        auto giveUp = Clock::now() + env_m.endTimeout;
        while (true) {
            Drain d = drain(true);
            if (d == Drain::End)
                break;
            if (Clock::now() >= giveUp) {
                warn("warning: the module did not signal the end of the trace within " +
                     std::to_string(env_m.endTimeout.count()) +
                     " ms after STOP; the trace may lack its final blocks");
                break;
            }
            dev_m->waitReadable(std::chrono::milliseconds(50));
        }
    } else {
        stop_m = Clock::now();
    }
    // A stop before the snapshot was done (a short trace, a signal): the
    // .proc is still written whole; a held command never runs.
    if (snapshotPending_m)
        joinSnapshot();
    stopUserEvents();
    buffer_m->flush();
    writerCpu_m = buffer_m->writerCpuSeconds();
    sum_m.commits = buffer_m->commits();
    sum_m.stalls = buffer_m->stalls();
    // On disk before success is reported; a failure here is an error.
    env_m.syncTrace(*writer_m);
    writer_m->close();
    sum_m.bytesWritten = writer_m->bytesWritten();
}

void Session::report() {
    ltt_lost_counts lc;
    bool haveModule = lostCounts(*dev_m, lc);
    LossReport loss =
        makeLossReport(stats_m, haveModule ? &lc : nullptr, config_m.buffer_size, info_m.ncpus);
    sum_m.lostEvents = loss.totalLost;
    sum_m.suggestedBuffer = loss.suggestedBuffer;
    sum_m.blocks = stats_m.totalBlocks();
    sum_m.tracedSeconds = std::chrono::duration<double>(stop_m - start_m).count();

    const char* why = sum_m.reason == StopReason::Duration        ? "duration reached"
                      : sum_m.reason == StopReason::Signal        ? "stopped by signal"
                      : sum_m.reason == StopReason::CommandExited ? "command exited"
                                                                  : "module ended the trace";
    char line[512];
    std::snprintf(line, sizeof line, "traced %.3f s (%s): %s in %llu blocks to %s, %zu tasks to %s",
                  sum_m.tracedSeconds, why, formatBytes(sum_m.bytesWritten).c_str(),
                  static_cast<unsigned long long>(sum_m.blocks), o_m.traceFile.c_str(), tasks_m,
                  o_m.procFile.c_str());
    say(line);
    if (stopLatency_m > std::chrono::milliseconds(20)) {
        std::snprintf(line, sizeof line, "the module took %.0f ms to stop",
                      std::chrono::duration<double, std::milli>(stopLatency_m).count());
        say(line);
    }
    if (o_m.testEmitRate) {
        std::snprintf(line, sizeof line, "test mode: %llu events emitted (%.0f/s requested)",
                      static_cast<unsigned long long>(sum_m.testEmitted),
                      static_cast<double>(o_m.testEmitRate));
        say(line);
    }
    std::string text = loss.text();
    if (loss.totalLost) {
        std::size_t pos = 0;
        while (pos < text.size()) {
            auto nl = text.find('\n', pos);
            warn(text.substr(pos, nl - pos));
            pos = nl + 1;
        }
    } else {
        say("no events lost");
    }
    // Per MiB: the drain and commit work, without the one-off /proc snapshot.
    double mib = static_cast<double>(sum_m.bytesWritten) / (1 << 20);
    double streaming = std::max(0.0, sum_m.cpuSeconds - snapshotCpu_m);
    std::snprintf(line, sizeof line,
                  "daemon CPU time %.3f s, %.3f s of it the /proc snapshot (%.1f ms per MiB "
                  "written); %llu commits, %llu stalls",
                  sum_m.cpuSeconds, snapshotCpu_m, mib > 0 ? 1000.0 * streaming / mib : 0.0,
                  static_cast<unsigned long long>(sum_m.commits),
                  static_cast<unsigned long long>(sum_m.stalls));
    say(line);
}

// Application events (libltt-user): a server on its socket, whose blocks
// join the module's in the loop's drain (user_server.hpp). A session that
// cannot serve them still traces the kernel.
void Session::startUserEvents() {
    std::string note;
    auto config = userServerConfig(
        o_m, info_m,
        child_m && o_m.trackCommand ? std::optional<int>(child_m->pid()) : std::nullopt, note);
    if (!note.empty())
        say(note);
    if (!config)
        return;
    config->maxBlock = static_cast<std::uint32_t>(maxBlock_m);
    config->ncpus = info_m.ncpus;
    // The server reads the module's clock pairs from its own thread; it
    // stops (user_m) before the device closes (dev_m, declared first).
    config->clockPair = [dev = dev_m.get()] { return readClockPair(*dev); };
    userQueue_m = std::make_unique<UserBlockQueue>();
    try {
        // A process's snapshot request goes to the flight recorder, which
        // ignores it when none runs.
        user_m = std::make_unique<UserServer>(
            *config, [q = userQueue_m.get()](std::span<const std::byte> b) { q->push(b); },
            [](std::string_view why) { requestSnapshot(why); });
    } catch (const std::exception& e) {
        warn(std::string("warning: no user events: ") + e.what());
    }
}

void Session::stopUserEvents() {
    if (!user_m)
        return;
    user_m->stop();
    userQueue_m->moveTo(*buffer_m);
    for (const auto& w : user_m->warnings())
        warn("warning: " + w);
    const UserServerStats st = user_m->stats();
    if (st.processes)
        say(describe(st));
    if (userQueue_m->dropped())
        warn("warning: " + std::to_string(userQueue_m->dropped()) +
             " user blocks larger than the daemon buffer were dropped");
}

SessionSummary Session::run() {
    double cpuStart = threadCpuSeconds();
    try {
        signals_m = std::make_unique<SignalGuard>(kSignals);
        dev_m = env_m.openDevice(o_m.device);
        checkAbi(*dev_m);
        if (!o_m.command.empty())
            child_m =
                std::make_unique<CommandChild>(o_m.command, o_m.trackCommand, signals_m->oldMask());
        config_m = moduleConfig(o_m, child_m ? std::optional<int>(child_m->pid()) : std::nullopt);
        configureDevice(*dev_m, config_m);
        configureVars(*dev_m, o_m);
        controlState_m = {config_m, o_m.vars.value_or(0)};
        if (!o_m.controlFifo.empty())
            control_m = std::make_unique<ControlFifo>(o_m.controlFifo);
        // Both outputs are checked and opened before START (private files,
        // libltt/private_file.hpp); the trace is truncated only once it starts.
        traceFd_m = openPrivateFile(o_m.traceFile, "trace file");
        proc_m = std::make_unique<ReplacementFile>(o_m.procFile, "proc file");
        if (std::string why; !saveKallsyms(env_m.procRoot + "/kallsyms", o_m.traceFile, why))
            say("no kernel symbols saved: " + why);
        dev_m->enableSigio();

        startTracing(*dev_m);
        start_m = lastRotate_m = Clock::now();
        StopOnExit stopGuard(*dev_m);
        info_m = traceInfo(*dev_m);
        if ((info_m.abi_version >> 16) != LTT_ABI_MAJOR)
            throw DeviceError(dev_m->path() + ": trace info reports ABI " +
                                  abiVersionString(info_m.abi_version),
                              EPROTO);
        maxBlock_m = info_m.max_block ? info_m.max_block : config_m.buffer_size;
        writer_m = std::make_unique<TraceWriter>(
            std::move(traceFd_m), o_m.traceFile,
            makeFileHeader(info_m, "tracedaemon " LTT_DAEMON_VERSION, LTT_FILE_VERSION));
        std::size_t capacity =
            o_m.daemonBuffer ? *o_m.daemonBuffer : std::max<std::size_t>(4u << 20, maxBlock_m);
        if (capacity < maxBlock_m) {
            warn("warning: daemon buffer " + formatBytes(capacity) +
                 " is smaller than the module's largest block; using " + formatBytes(maxBlock_m));
            capacity = maxBlock_m;
        }
        buffer_m = std::make_unique<CommitBuffer>(*writer_m, capacity);
        startUserEvents();

        // /proc is read in a thread of its own while this one drains; the
        // loop lets the command exec once the .proc is in place.
        // A restricted session (no CAP_PERFMON) sees only this user's
        // tasks, and so does its .proc.
        std::optional<long long> onlyUid;
        if (info_m.flags & LTT_TRACE_F_RESTRICTED)
            onlyUid = static_cast<long long>(::getuid());
        // The command's process waits for the .proc before its exec: the
        // .proc names it by the program it is about to run, so that a
        // session that does not record execs still names it.
        const int commandPid = child_m ? child_m->pid() : -1;
        std::string commandName;
        if (child_m) {
            const std::string& c = o_m.command[0];
            commandName = c.substr(c.rfind('/') == std::string::npos ? 0 : c.rfind('/') + 1);
        }
        snapshot_m = std::make_unique<SnapshotThread>(
            [this, onlyUid, commandPid, commandName] {
                ProcSnapshot snap = env_m.takeSnapshot(env_m.procRoot, onlyUid);
                for (ProcTask& t : snap.tasks)
                    if (t.pid == commandPid && !commandName.empty())
                        t.name = commandName;
                return snap;
            },
            *proc_m);
        snapshotPending_m = true;
        if (!o_m.duration && !child_m)
            say("tracing until SIGINT or SIGTERM");
        if (o_m.testEmitRate)
            emitter_m = std::make_unique<TestEmitter>(
                *dev_m, o_m.testEmitRate,
                static_cast<unsigned>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN))));
        loop();
        finish();
        stopGuard.dismiss();
        sum_m.cpuSeconds = threadCpuSeconds() - cpuStart + writerCpu_m + snapshotCpu_m;
        report();
        sum_m.exitCode = 0;
        if (child_m) {
            if (auto st = child_m->reap())
                sum_m.exitCode = CommandChild::exitCode(*st);
            else
                say("the command (pid " + std::to_string(child_m->pid()) +
                    ") is still running; not waiting for it");
        }
    } catch (const std::exception& e) {
        warn(e.what());
        if (writer_m && writer_m->bytesWritten() > 0)
            warn("the trace in " + o_m.traceFile + " is valid up to its last whole block");
        sum_m.exitCode = 1;
        sum_m.reason = StopReason::Error;
    }
    // The snapshot thread writes through proc_m: join it first. Close the
    // device before the signal mask is restored (no late SIGIO).
    user_m.reset();
    snapshot_m.reset();
    proc_m.reset();
    emitter_m.reset();
    buffer_m.reset();
    dev_m.reset();
    return sum_m;
}

} // namespace

SessionSummary runTraceSession(const Options& options, std::ostream& messages,
                               const SessionEnv& env) {
    if (options.flightRecorder)
        return runFlightRecorder(options, messages, env);
    Session s(options, messages, env);
    SessionSummary r = s.run();
    return r;
}

} // namespace ltt::daemon
