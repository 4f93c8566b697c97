// Whole sessions against the fake module: the ioctl sequence, the file's
// contents (header + every block served, byte for byte), the stop
// conditions (duration, SIGTERM, command exit), SIGIO-driven draining, the
// lost-events report, crash consistency under SIGKILL, and the failures.
#include "fake_device.hpp"
#include "flight_recorder.hpp"
#include "trace_session.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <iterator>
#include <libltt/block_codec.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/trace_files.hpp>
#include <libltt/trace_reader.hpp>
#include <libltt/trace_writer.hpp>
#include <libltt/user_events.hpp>
#include <ltt/module_events.h>
#include <proc_snapshot.hpp>
#include <signal.h>
#include <sstream>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace ltt;
using namespace ltt::daemon;
using namespace ltt::daemon::testing;
using namespace std::chrono_literals;

namespace {

struct Files {
    std::string dir = ::testing::TempDir();
    std::string trace, proc;
    explicit Files(const std::string& name)
        : trace(dir + "/" + name + ".trace"), proc(dir + "/" + name + ".proc") {
        std::remove(trace.c_str());
        std::remove(proc.c_str());
    }
    ~Files() {
        std::remove(trace.c_str());
        std::remove(proc.c_str());
    }
};

Bytes readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> v((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Bytes b(v.size());
    std::memcpy(b.data(), v.data(), v.size());
    return b;
}

Options opts(const Files& f, std::initializer_list<std::string_view> extra,
             std::initializer_list<std::string_view> command = {}) {
    std::vector<std::string_view> v(extra);
    v.push_back(f.trace);
    v.push_back(f.proc);
    if (command.size()) {
        v.push_back("--");
        v.insert(v.end(), command);
    }
    auto r = parseCommandLine(v);
    EXPECT_TRUE(r.options) << r.error;
    return r.options.value_or(Options{});
}

// A two-task /proc, so the snapshot takes no time even on a loaded machine
// (the session tests are about timing; the snapshot has its own tests).
const std::string& smallProc() {
    static const std::string root = [] {
        std::string r = ::testing::TempDir() + "/daemon-small-proc";
        std::string cmd = "rm -rf " + r + " && mkdir -p " + r + "/1/task/1 " + r + "/7/task/7";
        if (std::system(cmd.c_str()) != 0)
            return std::string("/proc");
        auto write = [](const std::string& path, const char* text) {
            if (FILE* f = std::fopen(path.c_str(), "w")) {
                std::fputs(text, f);
                std::fclose(f);
            }
        };
        write(r + "/1/task/1/stat", "1 (init) S 0 1 1 0 -1 0 0 0");
        write(r + "/7/task/7/stat", "7 (worker) R 1 7 7 0 -1 0 0 0");
        write(r + "/interrupts", "     CPU0\n  4:   5   IO-APIC   4-edge   ttyS0\n");
        return r;
    }();
    return root;
}

SessionEnv fakeEnv(std::shared_ptr<FakeState> s, bool hostProc = false) {
    SessionEnv env;
    env.procRoot = hostProc ? "/proc" : smallProc();
    env.openDevice = fakeOpener(std::move(s));
    env.endTimeout = 300ms;
    return env;
}

// Signals the fake's producer thread raises must be blocked in every thread,
// as the daemon blocks them in its own.
class BlockedSignals {
public:
    BlockedSignals() {
        sigemptyset(&set_m);
        for (int s : {SIGIO, SIGINT, SIGTERM, SIGHUP, SIGCHLD})
            sigaddset(&set_m, s);
        pthread_sigmask(SIG_BLOCK, &set_m, &old_m);
    }
    ~BlockedSignals() {
        timespec zero{0, 0};
        while (sigtimedwait(&set_m, nullptr, &zero) > 0) {
        }
        pthread_sigmask(SIG_SETMASK, &old_m, nullptr);
    }

private:
    sigset_t set_m, old_m;
};

void expectHeaderThenServed(const Files& f, FakeState& s) {
    Bytes file = readAll(f.trace);
    ASSERT_GE(file.size(), sizeof(ltt_file_header));
    ltt_file_header h;
    std::memcpy(&h, file.data(), sizeof h);
    EXPECT_EQ(std::memcmp(h.magic, LTT_FILE_MAGIC, 8), 0);
    EXPECT_EQ(h.endian, LTT_ENDIAN_MARK);
    EXPECT_EQ(h.header_size, sizeof(ltt_file_header));
    EXPECT_EQ(h.ncpus, s.ncpus);
    EXPECT_EQ(h.tsc_khz, 2000000u);
    EXPECT_EQ(h.max_block, s.maxBlock);
    EXPECT_EQ(std::string(h.producer).rfind("tracedaemon ", 0), 0u) << h.producer;
    std::lock_guard lock(s.mutex);
    ASSERT_EQ(file.size() - sizeof h, s.served.size());
    EXPECT_EQ(std::memcmp(file.data() + sizeof h, s.served.data(), s.served.size()), 0);
}

// The whole blocks after the file header, checked with libltt's block codec
// (every frame valid): how many there are and the file offset where they end
// (a cut last block is left out).
std::pair<std::size_t, std::size_t> wholeBlocks(const Bytes& file) {
    const auto blocks = std::span(file).subspan(sizeof(ltt_file_header));
    const std::size_t whole = wholeBlockBytes(blocks);
    std::size_t off = 0, n = 0;
    while (off < whole) {
        BlockInfo b;
        FrameRules rules;
        rules.version = LTT_FILE_VERSION;
        const FrameFault f = parseFrame(blocks.subspan(off, whole - off), rules, b);
        if (f.kind != FrameFault::None) {
            ADD_FAILURE() << f.message() << " at offset " << sizeof(ltt_file_header) + off;
            break;
        }
        off += b.length;
        ++n;
    }
    return {n, sizeof(ltt_file_header) + off};
}

} // namespace

TEST(TraceSession, DurationIsHonouredAndEveryBlockIsWritten) {
    Files f("duration");
    auto s = std::make_shared<FakeState>();
    for (unsigned i = 0; i < 40; ++i)
        s->add(makeBlock(i % 2, i / 2, 50));
    s->onStop = {makeBlock(0, 20, 3, 0, 5000, true), makeBlock(1, 20, 1, 0, 5000, true)};
    std::ostringstream msg;
    auto t0 = std::chrono::steady_clock::now();
    SessionSummary r = runTraceSession(opts(f, {"-tu300000", "-e", "sched"}), msg, fakeEnv(s));
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.exitCode, 0) << msg.str();
    EXPECT_EQ(r.reason, StopReason::Duration);
    EXPECT_NEAR(r.tracedSeconds, 0.3, 0.1);
    EXPECT_LT(took, 1.0);
    EXPECT_EQ(r.blocks, 42u);
    expectHeaderThenServed(f, *s);

    // The call sequence of include/ltt/abi.h.
    auto& q = s->requests;
    ASSERT_FALSE(q.empty());
    EXPECT_EQ(q.front(), LTT_IOC_GET_ABI_VERSION);
    auto pos = [&](unsigned long req) { return std::find(q.begin(), q.end(), req) - q.begin(); };
    EXPECT_LT(pos(LTT_IOC_SET_EVENT_MASK), pos(LTT_IOC_START));
    EXPECT_LT(pos(LTT_IOC_SET_BUFFER_SIZE), pos(LTT_IOC_START));
    EXPECT_LT(pos(LTT_IOC_START), pos(LTT_IOC_GET_TRACE_INFO));
    EXPECT_LT(pos(LTT_IOC_GET_TRACE_INFO), pos(LTT_IOC_STOP));
    EXPECT_LT(pos(LTT_IOC_STOP), pos(LTT_IOC_GET_LOST));
    EXPECT_TRUE(s->sigio);
    EXPECT_EQ(s->arg<__u64>(LTT_IOC_SET_EVENT_MASK), LTT_EV_BIT(LTT_EV_SCHEDCHANGE));

    // The .proc snapshot was written from the (small, fake) /proc.
    ProcParseError err;
    auto snap = readProcFile(f.proc, &err);
    ASSERT_TRUE(snap) << err.str();
    ASSERT_EQ(snap->tasks.size(), 2u);
    EXPECT_EQ(snap->tasks[1].name, "worker");
    ASSERT_EQ(snap->irqs.size(), 1u);
    EXPECT_EQ(snap->irqs[0].name, "ttyS0");

    std::string m = msg.str();
    EXPECT_NE(m.find("tracedaemon: traced 0."), std::string::npos) << m;
    EXPECT_NE(m.find("(duration reached)"), std::string::npos) << m;
    EXPECT_NE(m.find("in 42 blocks"), std::string::npos) << m;
    EXPECT_NE(m.find("no events lost"), std::string::npos) << m;
    EXPECT_NE(m.find("ms per MiB written"), std::string::npos) << m;
}

TEST(TraceSession, SigioDrainsAndSigtermStopsCleanly) {
    Files f("sigio");
    auto s = std::make_shared<FakeState>();
    BlockedSignals blocked;
    std::atomic<bool> done{false};
    std::atomic<unsigned> produced{0};
    // Flush and tick every 60 s: only SIGIO can wake the drain.
    std::thread module([&] {
        while (!s->started)
            std::this_thread::sleep_for(1ms);
        for (unsigned i = 0; i < 200; ++i) {
            s->add(makeBlock(i % 2, i / 2, 20));
            ++produced;
            if (i % 10 == 9) {
                ::kill(::getpid(), SIGIO);
                std::this_thread::sleep_for(5ms);
            }
        }
        // Wait until the daemon drained everything, then ask it to stop.
        for (int k = 0; k < 2000; ++k) {
            {
                std::lock_guard lock(s->mutex);
                if (s->ready.empty())
                    break;
            }
            std::this_thread::sleep_for(1ms);
        }
        ::kill(::getpid(), SIGTERM);
        done = true;
    });
    std::ostringstream msg;
    auto t0 = std::chrono::steady_clock::now();
    SessionSummary r = runTraceSession(opts(f, {"--flush-interval", "60s"}), msg, fakeEnv(s));
    module.join();
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.exitCode, 0) << msg.str();
    EXPECT_EQ(r.reason, StopReason::Signal);
    EXPECT_LT(took, 5.0);
    EXPECT_EQ(r.blocks, 200u);
    expectHeaderThenServed(f, *s);
    EXPECT_NE(msg.str().find("got SIGTERM, stopping"), std::string::npos) << msg.str();
    EXPECT_EQ(s->count(LTT_IOC_STOP), 1u);
}

TEST(TraceSession, LostEventsAreReportedWithABufferSize) {
    Files f("lost");
    auto s = std::make_shared<FakeState>();
    s->add(makeBlock(0, 0, 100));
    s->add(makeBlock(1, 0, 100));
    s->add(makeBlock(1, 1, 100, 3000));
    s->lost.ncpus = 2;
    s->lost.per_cpu[1] = 3000;
    s->lost.recorded[0] = 102;
    s->lost.recorded[1] = 205;
    s->lost.total = 3000;
    std::ostringstream msg;
    SessionSummary r = runTraceSession(opts(f, {"-tu100000", "-b", "16K", "-q"}), msg, fakeEnv(s));
    EXPECT_EQ(r.exitCode, 0) << msg.str();
    EXPECT_EQ(r.lostEvents, 3000u);
    // ~23.6 bytes per record * 3000 + 16 KiB -> 128 KiB.
    EXPECT_EQ(r.suggestedBuffer, 128u << 10);
    std::string m = msg.str();
    EXPECT_NE(m.find("tracedaemon: 3000 events lost"), std::string::npos) << m;
    EXPECT_NE(m.find("tracedaemon:   cpu 1: 3000 lost, 205 recorded, largest loss 3000 events"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("trace with -b 128K"), std::string::npos) << m;
    EXPECT_EQ(m.find("no events lost"), std::string::npos);
    EXPECT_EQ(m.find("traced "), std::string::npos) << "quiet mode prints only warnings";
}

TEST(TraceSession, CommandIsTracedFromItsStartAndItsStatusReturned) {
    Files f("command");
    auto s = std::make_shared<FakeState>();
    s->add(makeBlock(0, 0, 10));
    std::string marker = ::testing::TempDir() + "/command.pid";
    std::remove(marker.c_str());
    std::string script = "echo $$ > " + marker + "; exit 3";
    std::ostringstream msg;
    SessionSummary r =
        runTraceSession(opts(f, {"-T"}, {"/bin/sh", "-c", script}), msg, fakeEnv(s, true));
    EXPECT_EQ(r.exitCode, 3) << msg.str();
    EXPECT_EQ(r.reason, StopReason::CommandExited);
    EXPECT_NE(msg.str().find("(command exited)"), std::string::npos) << msg.str();

    int pid = 0;
    std::ifstream(marker) >> pid;
    ASSERT_GT(pid, 0);
    // The module was configured for the command's process group before the
    // command ran, and the command is in the snapshot (held before exec).
    EXPECT_EQ(s->arg<__s32>(LTT_IOC_TRACK_PGRP), pid);
    ProcParseError err;
    auto snap = readProcFile(f.proc, &err);
    ASSERT_TRUE(snap) << err.str();
    auto it = std::find_if(snap->tasks.begin(), snap->tasks.end(),
                           [&](const ProcTask& t) { return t.pid == pid; });
    ASSERT_NE(it, snap->tasks.end());
    EXPECT_EQ(it->pgrp, pid);
    expectHeaderThenServed(f, *s);
    std::remove(marker.c_str());
}

TEST(TraceSession, CommandThatCannotRun) {
    Files f("noexec");
    auto s = std::make_shared<FakeState>();
    std::ostringstream msg;
    SessionSummary r = runTraceSession(opts(f, {}, {"/nonexistent/program", "x"}), msg, fakeEnv(s));
    EXPECT_EQ(r.exitCode, 127);
    EXPECT_NE(msg.str().find("cannot execute /nonexistent/program: No such file or directory"),
              std::string::npos)
        << msg.str();
    EXPECT_EQ(s->count(LTT_IOC_STOP), 1u);
}

TEST(TraceSession, DeviceBusyOrMissingFailsBeforeAnyFile) {
    Files f("busy");
    SessionEnv env;
    env.openDevice = [](const std::string& path) -> std::unique_ptr<TraceDevice> {
        throw DeviceError("cannot open " + path +
                              ": Device or resource busy. The trace device "
                              "is in use",
                          EBUSY);
    };
    std::ostringstream msg;
    SessionSummary r = runTraceSession(opts(f, {"-ts1"}), msg, env);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(msg.str().find("tracedaemon: cannot open /dev/tracer: Device or resource busy"),
              std::string::npos)
        << msg.str();
    EXPECT_FALSE(std::ifstream(f.trace).good());
    EXPECT_FALSE(std::ifstream(f.proc).good());
}

TEST(TraceSession, AbiMismatchStopsBeforeConfiguring) {
    Files f("abi");
    auto s = std::make_shared<FakeState>();
    s->abi = (LTT_ABI_MAJOR + 1u) << 16;
    std::ostringstream msg;
    SessionSummary r = runTraceSession(opts(f, {"-ts1"}), msg, fakeEnv(s));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(msg.str().find("speaks ltt ABI " + std::to_string(LTT_ABI_MAJOR + 1) +
                             ".0 but this tracedaemon speaks " + std::to_string(LTT_ABI_MAJOR) +
                             "." + std::to_string(LTT_ABI_MINOR)),
              std::string::npos)
        << msg.str();
    EXPECT_EQ(s->requests.size(), 1u);
    EXPECT_FALSE(std::ifstream(f.trace).good());
}

TEST(TraceSession, UnwritableTraceFileFailsBeforeStart) {
    auto s = std::make_shared<FakeState>();
    Options o;
    o.traceFile = "/nonexistent-dir/x.trace";
    o.procFile = "/nonexistent-dir/x.proc";
    o.duration = 1s;
    std::ostringstream msg;
    SessionSummary r = runTraceSession(o, msg, fakeEnv(s));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(msg.str().find("cannot create trace file /nonexistent-dir/x.trace: No such file or "
                             "directory"),
              std::string::npos)
        << msg.str();
    EXPECT_EQ(s->count(LTT_IOC_START), 0u);
}

TEST(TraceSession, ReadErrorStopsTheModuleAndSaysTheFileIsValid) {
    Files f("readerr");
    auto s = std::make_shared<FakeState>();
    s->readError = -EIO;
    std::ostringstream msg;
    SessionSummary r = runTraceSession(opts(f, {"-ts5"}), msg, fakeEnv(s));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(msg.str().find("/dev/tracer: read failed: Input/output error"), std::string::npos)
        << msg.str();
    EXPECT_NE(msg.str().find("is valid up to its last whole block"), std::string::npos);
    EXPECT_EQ(s->count(LTT_IOC_STOP), 1u);
}

TEST(TraceSession, ModuleThatNeverEndsTheTraceIsNotWaitedForever) {
    Files f("noend");
    auto s = std::make_shared<FakeState>();
    s->endAfterStop = false;
    s->add(makeBlock(0, 0, 5));
    std::ostringstream msg;
    auto t0 = std::chrono::steady_clock::now();
    SessionSummary r = runTraceSession(opts(f, {"-tu50000"}), msg, fakeEnv(s));
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_LT(took, 2.0);
    EXPECT_NE(msg.str().find("did not signal the end of the trace within 300 ms"),
              std::string::npos)
        << msg.str();
    expectHeaderThenServed(f, *s);
}

TEST(TraceSession, SigkillLeavesWholeBlocksOnFile) {
    // In a child: a module that produces blocks without end, flushed every
    // 50 ms. Killed with SIGKILL, the file must be the header followed by
    // whole blocks (a cut last block is the only allowed defect).
    Files f("sigkill");
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        auto s = std::make_shared<FakeState>();
        std::thread module([s] {
            for (unsigned i = 0;; ++i) {
                s->add(makeBlock(i % 2, i / 2, 100));
                std::this_thread::sleep_for(1ms);
            }
        });
        module.detach();
        std::ostringstream msg;
        runTraceSession(opts(f, {"--flush-interval", "50ms"}), msg, fakeEnv(s));
        ::_exit(0);
    }
    std::this_thread::sleep_for(600ms);
    ::kill(pid, SIGKILL);
    int st;
    ::waitpid(pid, &st, 0);
    ASSERT_TRUE(WIFSIGNALED(st));
    Bytes file = readAll(f.trace);
    ASSERT_GT(file.size(), sizeof(ltt_file_header)) << "nothing was committed in 600 ms";
    EXPECT_GT(wholeBlocks(file).first, 10u);
}

TEST(TraceSession, TestEmitLoadKeepsItsRate) {
    Files f("emit");
    auto s = std::make_shared<FakeState>();
    std::ostringstream msg;
    SessionSummary r = runTraceSession(opts(f, {"--test-emit", "100k", "-ts1"}), msg, fakeEnv(s));
    EXPECT_EQ(r.exitCode, 0) << msg.str();
    EXPECT_GE(s->count(LTT_IOC_TEST_EMIT), 2u);
    // Never ahead of the rate while tracing (it starts after START and
    // stops before STOP); on a loaded machine it may lag a lot, so only a
    // loose lower bound.
    EXPECT_GT(r.testEmitted, 5000u);
    EXPECT_LE(static_cast<double>(r.testEmitted), 100000 * r.tracedSeconds);
    unsigned cpus = static_cast<unsigned>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
    EXPECT_EQ(r.testEmitted % cpus, 0u);
    auto last = s->arg<ltt_test_emit>(LTT_IOC_TEST_EMIT);
    EXPECT_EQ(last.cpu_mask, 0u);
    EXPECT_EQ(last.payload, sizeof(ltt_test_payload));
    EXPECT_NE(msg.str().find("test mode: " + std::to_string(r.testEmitted) + " events emitted"),
              std::string::npos)
        << msg.str();
}

TEST(TraceSession, TestEmitFailureIsReported) {
    Files f("emitfail");
    auto s = std::make_shared<FakeState>();
    s->failWith[LTT_IOC_TEST_EMIT] = EINVAL;
    std::ostringstream msg;
    SessionSummary r =
        runTraceSession(opts(f, {"--test-emit", "1000", "-tu500000"}), msg, fakeEnv(s));
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_EQ(r.testEmitted, 0u);
    EXPECT_NE(msg.str().find("warning: test mode emit failed: Invalid argument"), std::string::npos)
        << msg.str();
}

TEST(TraceSession, CommandGetsDefaultSigpipeAndUnblockedSignals) {
    // tracedaemon ignores SIGPIPE and blocks its signals; the command must
    // not inherit either: here it dies of SIGPIPE, and SIGTERM reaches it.
    Files f("sigpipe");
    auto s = std::make_shared<FakeState>();
    auto old = ::signal(SIGPIPE, SIG_IGN);
    std::ostringstream msg;
    SessionSummary r =
        runTraceSession(opts(f, {}, {"/bin/sh", "-c", "kill -PIPE $$; exit 0"}), msg, fakeEnv(s));
    EXPECT_EQ(r.exitCode, 128 + SIGPIPE) << msg.str();
    SessionSummary t = runTraceSession(opts(f, {}, {"/bin/sh", "-c", "kill -TERM $$; exit 0"}), msg,
                                       fakeEnv(std::make_shared<FakeState>()));
    EXPECT_EQ(t.exitCode, 128 + SIGTERM) << msg.str();
    ::signal(SIGPIPE, old);
}

// Output files: private, never through a planted link, never another user's.
namespace {

mode_t modeOf(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Names in `dir` that start with `prefix` (temporary files left behind).
std::vector<std::string> namesStartingWith(const std::string& dir, const std::string& prefix) {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().filename().string().rfind(prefix, 0) == 0)
            out.push_back(e.path().filename().string());
    return out;
}

} // namespace

TEST(TraceSession, OutputFilesAreMode0600AndNoTemporaryFileStays) {
    Files f("private");
    std::ofstream(f.proc) << "an old .proc";
    ::chmod(f.proc.c_str(), 0644);
    auto s = std::make_shared<FakeState>();
    s->add(makeBlock(0, 0, 10));
    mode_t mask = ::umask(022);
    std::ostringstream msg;
    SessionSummary r = runTraceSession(opts(f, {"-tu100000"}), msg, fakeEnv(s));
    ::umask(mask);
    EXPECT_EQ(r.exitCode, 0) << msg.str();
    EXPECT_EQ(modeOf(f.trace), 0600u);
    EXPECT_EQ(modeOf(f.proc), 0600u);
    EXPECT_NE(slurp(f.proc).find("NAME: worker"), std::string::npos);
    EXPECT_EQ(namesStartingWith(f.dir, "private.proc."), std::vector<std::string>{});
}

TEST(TraceSession, PlantedSymbolicLinksAreRefusedBeforeStart) {
    for (bool proc : {false, true}) {
        Files f("planted");
        std::string victim = f.dir + "/planted-victim";
        std::ofstream(victim) << "root:x:0:0\n";
        const std::string& link = proc ? f.proc : f.trace;
        ASSERT_EQ(::symlink(victim.c_str(), link.c_str()), 0);
        auto s = std::make_shared<FakeState>();
        std::ostringstream msg;
        SessionSummary r = runTraceSession(opts(f, {"-ts1"}), msg, fakeEnv(s));
        EXPECT_EQ(r.exitCode, 1);
        std::string want = std::string("tracedaemon: refusing to write ") +
                           (proc ? "proc file " : "trace file ") + link + ": it is a symbolic link";
        EXPECT_NE(msg.str().find(want), std::string::npos) << msg.str();
        EXPECT_EQ(s->count(LTT_IOC_START), 0u);
        EXPECT_EQ(slurp(victim), "root:x:0:0\n");
        std::remove(victim.c_str());
    }
}

TEST(TraceSession, AnotherUsersFileIsNotOverwritten) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root to give a file to another user";
    Files f("theirs");
    std::ofstream(f.trace) << "their trace";
    ASSERT_EQ(::chown(f.trace.c_str(), 65534, 65534), 0);
    auto s = std::make_shared<FakeState>();
    std::ostringstream msg;
    SessionSummary r = runTraceSession(opts(f, {"-ts1"}), msg, fakeEnv(s));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(msg.str().find("tracedaemon: refusing to overwrite trace file " + f.trace +
                             ": owned by uid 65534, not by uid 0"),
              std::string::npos)
        << msg.str();
    EXPECT_EQ(s->count(LTT_IOC_START), 0u);
    EXPECT_EQ(slurp(f.trace), "their trace");
}

// Success is reported only once the trace is on disk and the .proc in place.
TEST(TraceSession, TraceIsSyncedBeforeSuccessIsReported) {
    Files f("sync");
    auto s = std::make_shared<FakeState>();
    s->add(makeBlock(0, 0, 10));
    std::ostringstream msg;
    SessionEnv env = fakeEnv(s);
    bool synced = false;
    env.syncTrace = [&](TraceWriter& w) {
        EXPECT_EQ(msg.str().find("traced "), std::string::npos) << "reported before the sync";
        w.sync();
        synced = true;
    };
    SessionSummary r = runTraceSession(opts(f, {"-tu100000"}), msg, env);
    EXPECT_EQ(r.exitCode, 0) << msg.str();
    EXPECT_TRUE(synced);
    EXPECT_NE(msg.str().find("traced "), std::string::npos) << msg.str();
}

TEST(TraceSession, FailedSyncIsAnError) {
    Files f("syncfail");
    auto s = std::make_shared<FakeState>();
    s->add(makeBlock(0, 0, 10));
    std::ostringstream msg;
    SessionEnv env = fakeEnv(s);
    env.syncTrace = [](TraceWriter& w) {
        throw std::system_error(EIO, std::generic_category(), "cannot sync " + w.path());
    };
    SessionSummary r = runTraceSession(opts(f, {"-tu100000"}), msg, env);
    EXPECT_EQ(r.exitCode, 1) << msg.str();
    EXPECT_NE(msg.str().find("tracedaemon: cannot sync " + f.trace + ": Input/output error"),
              std::string::npos)
        << msg.str();
    EXPECT_EQ(msg.str().find("traced "), std::string::npos) << msg.str();
}

TEST(TraceSession, FailedSnapshotLeavesNoProcFile) {
    Files f("snapfail");
    auto s = std::make_shared<FakeState>();
    std::ostringstream msg;
    SessionEnv env = fakeEnv(s);
    env.takeSnapshot = [](const std::string&, std::optional<long long>) -> ProcSnapshot {
        throw std::runtime_error("cannot read /proc: out of memory");
    };
    SessionSummary r = runTraceSession(opts(f, {"-tu100000"}), msg, env);
    EXPECT_EQ(r.exitCode, 1) << msg.str();
    EXPECT_NE(msg.str().find("tracedaemon: cannot read /proc: out of memory"), std::string::npos)
        << msg.str();
    EXPECT_EQ(s->count(LTT_IOC_STOP), 1u);
    EXPECT_FALSE(std::filesystem::exists(f.proc));
    EXPECT_EQ(namesStartingWith(f.dir, "snapfail.proc."), std::vector<std::string>{});
}

// The trace's file system fills up: a clear error, the module stopped, exit
// status 1, and a file of whole blocks that the reader can take.
TEST(TraceSession, FullDiskStopsWithAClearErrorAndWholeBlocks) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root to mount a small tmpfs";
    std::string dir = ::testing::TempDir() + "/daemon-full-" + std::to_string(::getpid());
    std::filesystem::create_directories(dir);
    if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=64k") != 0)
        GTEST_SKIP() << "cannot mount a tmpfs here: " << std::strerror(errno);
    struct Unmount {
        std::string dir;
        ~Unmount() {
            ::umount2(dir.c_str(), MNT_DETACH);
            std::filesystem::remove_all(dir);
        }
    } unmount{dir};
    Files f("full");
    f.trace = dir + "/full.trace";
    auto s = std::make_shared<FakeState>();
    for (unsigned i = 0; i < 200; ++i)
        s->add(makeBlock(i % 2, i / 2, 100)); // 2.5 KiB each, 500 KiB in all
    std::ostringstream msg;
    // Small daemon halves, so that several commits reach the file first.
    SessionSummary r = runTraceSession(opts(f, {"-ts5", "-B", "16K"}), msg, fakeEnv(s));
    EXPECT_EQ(r.exitCode, 1);
    std::string m = msg.str();
    EXPECT_NE(m.find("tracedaemon: cannot write " + f.trace + ": No space left on device"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("is valid up to its last whole block"), std::string::npos) << m;
    EXPECT_EQ(s->count(LTT_IOC_STOP), 1u);
    Bytes file = readAll(f.trace);
    ASSERT_GT(file.size(), sizeof(ltt_file_header) + 10000);
    EXPECT_EQ(wholeBlocks(file).second, file.size()) << "the file must end with a whole block";
    // And libltt's reader takes all of it: 102 records in each whole block.
    TraceError err;
    auto reader = TraceReader::open(f.trace, &err);
    ASSERT_TRUE(reader) << err.str();
    EXPECT_EQ(reader->eventCount() % 102, 0u);
    EXPECT_GT(reader->eventCount(), 0u);
}

// Reading /proc takes long on a machine with many tasks; the module's
// buffers must be drained meanwhile, or events are lost at the trace's start.
TEST(TraceSession, SlowSnapshotDoesNotDelayDraining) {
    Files f("slowsnap");
    auto s = std::make_shared<FakeState>();
    // 200 ms of blocks at one per 5 ms: room for a loaded machine's
    // scheduling delays, not for a 600 ms snapshot.
    s->capacity = 40;
    BlockedSignals blocked;
    std::atomic<unsigned> offered{0}, dropped{0};
    std::thread module([&] {
        while (!s->started)
            std::this_thread::sleep_for(1ms);
        for (unsigned i = 0; i < 100; ++i) {
            if (!s->offer(makeBlock(i % 2, i / 2, 20), i % 2, 20))
                ++dropped;
            ++offered;
            ::kill(::getpid(), SIGIO);
            std::this_thread::sleep_for(5ms);
        }
    });
    SessionEnv env = fakeEnv(s);
    env.takeSnapshot = [](const std::string& root, std::optional<long long> onlyUid) {
        std::this_thread::sleep_for(600ms);
        return takeProcSnapshot(root, onlyUid);
    };
    std::ostringstream msg;
    SessionSummary r = runTraceSession(opts(f, {"-tu1000000"}), msg, env);
    module.join();
    EXPECT_EQ(r.exitCode, 0) << msg.str();
    EXPECT_EQ(dropped.load(), 0u) << "blocks the module had to drop while /proc was read";
    EXPECT_EQ(r.lostEvents, 0u) << msg.str();
    EXPECT_EQ(r.blocks, offered.load());
    expectHeaderThenServed(f, *s);
    // The snapshot is complete all the same.
    ProcParseError err;
    auto snap = readProcFile(f.proc, &err);
    ASSERT_TRUE(snap) << err.str();
    EXPECT_EQ(snap->tasks.size(), 2u);
}

// --flight-recorder: overwrite mode is set, nothing is written until a
// snapshot; requestSnapshot() and SIGUSR1 each write NAME-N.trace (flagged a
// snapshot, the blocks the module handed over) and NAME-N.proc; SIGTERM
// stops without a file of its own.
TEST(FlightRecorder, SnapshotsOnRequestAndSigusr1AndNoFileAtStop) {
    Files f("flight");
    const std::string names[] = {snapshotPath(f.trace, 1), snapshotPath(f.proc, 1),
                                 snapshotPath(f.trace, 2), snapshotPath(f.proc, 2)};
    for (const auto& n : names)
        std::remove(n.c_str());
    auto s = std::make_shared<FakeState>();
    s->add(makeBlock(0, 5, 10));
    s->add(makeBlock(0, 6, 10, 0, 2000, true));
    s->add(makeBlock(1, 3, 10, 0, 1500, true));
    BlockedSignals blocked;
    sigset_t usr1, old;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, &old);
    auto exists = [](const std::string& p) { return std::filesystem::exists(p); };
    auto waitFor = [&](const std::string& p) {
        for (int k = 0; k < 5000 && !exists(p); ++k)
            std::this_thread::sleep_for(1ms);
    };
    std::thread module([&] {
        while (!s->started)
            std::this_thread::sleep_for(1ms);
        std::this_thread::sleep_for(20ms);
        requestSnapshot("test request");
        waitFor(names[1]);
        s->add(makeBlock(0, 9, 10, 0, 5000, true));
        s->add(makeBlock(1, 4, 10, 0, 5000, true));
        ::kill(::getpid(), SIGUSR1);
        waitFor(names[3]);
        ::kill(::getpid(), SIGTERM);
    });
    std::ostringstream msg;
    SessionSummary r =
        runTraceSession(opts(f, {"--flight-recorder", "-b", "16k"}), msg, fakeEnv(s));
    module.join();
    EXPECT_EQ(r.exitCode, 0) << msg.str();
    EXPECT_EQ(r.reason, StopReason::Signal);
    EXPECT_EQ(s->arg<std::uint32_t>(LTT_IOC_SET_OVERWRITE), 1u);
    EXPECT_EQ(s->count(LTT_IOC_SET_OVERWRITE), 1u);
    EXPECT_EQ(s->count(LTT_IOC_SNAPSHOT), 2u);
    EXPECT_EQ(s->count(LTT_IOC_STOP), 1u);
    for (const auto& n : names)
        EXPECT_TRUE(exists(n)) << n;
    EXPECT_FALSE(exists(f.trace));
    std::size_t expectBlocks[] = {3, 2};
    for (int i = 0; i < 2; ++i) {
        Bytes file = readAll(names[2 * i]);
        ASSERT_GE(file.size(), sizeof(ltt_file_header));
        ltt_file_header h;
        std::memcpy(&h, file.data(), sizeof h);
        EXPECT_TRUE(h.flags & LTT_TRACE_F_SNAPSHOT);
        EXPECT_EQ(wholeBlocks(file).first, expectBlocks[i]);
        struct stat st;
        ASSERT_EQ(::stat(names[2 * i].c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 0777, 0600u);
    }
    EXPECT_NE(msg.str().find("snapshot 1 (test request): "), std::string::npos) << msg.str();
    EXPECT_NE(msg.str().find("snapshot 2 (SIGUSR1): "), std::string::npos) << msg.str();
    EXPECT_NE(msg.str().find("2 snapshots written"), std::string::npos) << msg.str();
    for (const auto& n : names)
        std::remove(n.c_str());
    timespec zero{0, 0};
    while (sigtimedwait(&usr1, nullptr, &zero) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

// The flight recorder's user blocks: bounded, oldest dropped first, and a
// copy reads cleanly on its own: the types declared in dropped blocks are
// declared again, each stream ends with a final block.
TEST(UserBlockStore, DropsTheOldestAndKeepsTheCopyReadable) {
    BlockBuilder b;
    const std::uint32_t tgid = 77;
    auto declare = userDeclareDetails(0, tgid, "mark", {{"text", LTT_USER_STR}});
    auto event = [&](const std::string& text) {
        UserValue v;
        v.type = LTT_USER_STR;
        v.s = text;
        return userEventDetails(0, tgid, {v});
    };
    std::vector<Bytes> blocks;
    for (std::uint32_t seq = 0; seq < 3; ++seq) {
        const std::uint64_t t = 1000 + 100 * seq;
        b.start(0, seq, t, 77);
        if (seq == 0)
            b.extRecord(t, LTT_EV_USER, LTT_USER_DECLARE, declare.data(), declare.size());
        auto e = event("event " + std::to_string(seq));
        b.extRecord(t + 10, LTT_EV_USER, LTT_USER_EVENT, e.data(), e.size());
        auto d = b.finish(t + 20, LTT_BLOCK_F_USER);
        blocks.emplace_back(d.begin(), d.end());
    }
    UserBlockStore store(blocks[1].size() + blocks[2].size());
    for (const auto& blk : blocks)
        store.push(blk);
    EXPECT_EQ(store.droppedBlocks(), 1u);
    EXPECT_EQ(store.bytes(), blocks[1].size() + blocks[2].size());
    store.push(Bytes(40)); // not a block: ignored, counted
    EXPECT_EQ(store.droppedBlocks(), 2u);

    ltt_trace_info info{};
    info.abi_version = LTT_ABI_VERSION;
    info.ncpus = 1;
    info.tsc_khz = 1000000;
    info.flags = LTT_TRACE_F_TSC_RELIABLE;
    ltt_file_header h = makeFileHeader(info, "test");
    Bytes file(sizeof h);
    std::memcpy(file.data(), &h, sizeof h);
    auto copy = store.copy();
    file.insert(file.end(), copy.begin(), copy.end());
    TraceError err;
    auto reader = TraceReader::openMemory(file, "copy", &err);
    ASSERT_TRUE(reader) << err.message;
    EXPECT_FALSE(reader->truncation());
    ASSERT_EQ(reader->userStreams().size(), 1u);
    EXPECT_TRUE(reader->userStreams()[0].final);
    EXPECT_EQ(reader->userStreams()[0].blocks.size(), 4u); // declarations, 2 kept, final
    UserEvents user(*reader);
    EXPECT_TRUE(user.problems().empty());
    std::vector<std::string> texts;
    for (auto c = reader->begin(); c.valid(); c.next()) {
        const Event& e = c.event();
        if (!e.isUser())
            continue;
        const UserEvents::Type* type = nullptr;
        std::string why;
        if (user.check(e, &type, &why)) {
            std::string text;
            EXPECT_TRUE(user.appendText(e, text));
            texts.push_back(text);
        } else {
            EXPECT_EQ(why, "");
        }
    }
    EXPECT_EQ(texts, (std::vector<std::string>{"mark text=\"event 1\"", "mark text=\"event 2\""}));
    EXPECT_FALSE(reader->buildIndex());
}

// --trigger-event: push() names the first event of a trigger's name in a
// block, by the type its process declared (in this block or an earlier one).
TEST(UserBlockStore, NamesTheTriggerEvents) {
    BlockBuilder b;
    auto decl = [](std::uint32_t id, std::uint32_t tgid, const char* name) {
        return userDeclareDetails(id, tgid, name, {{"text", LTT_USER_STR}});
    };
    auto event = [](std::uint32_t id, std::uint32_t tgid) {
        UserValue v;
        v.type = LTT_USER_STR;
        v.s = "x";
        return userEventDetails(id, tgid, {v});
    };
    auto block = [&](std::uint16_t stream, std::uint32_t seq,
                     std::vector<std::pair<std::uint8_t, std::vector<std::byte>>> records) {
        b.start(stream, seq, 1000 + seq, 5);
        for (auto& [sub, d] : records)
            b.extRecord(1000 + seq, LTT_EV_USER, sub, d.data(), d.size());
        auto d = b.finish(1000 + seq, LTT_BLOCK_F_USER);
        return Bytes(d.begin(), d.end());
    };
    UserBlockStore store(1 << 20, {"oops", "ltt_mark"});
    EXPECT_EQ(store.push(block(0, 0,
                               {{LTT_USER_DECLARE, decl(0, 7, "load")},
                                {LTT_USER_DECLARE, decl(1, 7, "oops")},
                                {LTT_USER_EVENT, event(0, 7)}})),
              "");
    EXPECT_EQ(
        store.push(block(0, 1, {{LTT_USER_EVENT, event(0, 7)}, {LTT_USER_EVENT, event(1, 7)}})),
        "oops");
    // Type 1 of another process is not "oops".
    EXPECT_EQ(store.push(block(
                  1, 0, {{LTT_USER_DECLARE, decl(1, 8, "load")}, {LTT_USER_EVENT, event(1, 8)}})),
              "");
    EXPECT_EQ(
        store.push(block(
            2, 0, {{LTT_USER_DECLARE, decl(0, 9, "ltt_mark")}, {LTT_USER_EVENT, event(0, 9)}})),
        "ltt_mark");
    UserBlockStore none(1 << 20);
    EXPECT_EQ(
        none.push(block(
            0, 0, {{LTT_USER_DECLARE, decl(0, 9, "ltt_mark")}, {LTT_USER_EVENT, event(0, 9)}})),
        "");
}

// What requests from other users can do to the flight recorder, and what
// they are held to.
namespace {

// smallProc() and a kallsyms of a few symbols.
const std::string& procWithKallsyms() {
    static const std::string root = [] {
        std::string r = ::testing::TempDir() + "/daemon-proc-kallsyms";
        std::string cmd = "rm -rf " + r + " && cp -r " + smallProc() + " " + r;
        if (std::system(cmd.c_str()) != 0)
            return smallProc();
        std::ofstream(r + "/kallsyms") << "ffffffff81000000 T _stext\nffffffff81000100 T start\n";
        return r;
    }();
    return root;
}

// Runs a flight recorder on the fake module while `drive` (its own thread,
// after START) does what the test asks; SIGTERM ends it when drive
// returns. The messages and the result come back.
struct Recorder {
    std::ostringstream msg;
    SessionSummary r;
    std::shared_ptr<FakeState> s = std::make_shared<FakeState>();
    Recorder(const Files& f, std::initializer_list<std::string_view> extra,
             const std::function<void(FakeState&)>& drive) {
        BlockedSignals blocked;
        sigset_t usr1, old;
        sigemptyset(&usr1);
        sigaddset(&usr1, SIGUSR1);
        pthread_sigmask(SIG_BLOCK, &usr1, &old);
        std::vector<std::string_view> args{"--flight-recorder", "-b", "16k"};
        args.insert(args.end(), extra);
        args.push_back(f.trace);
        args.push_back(f.proc);
        auto parsed = parseCommandLine(args);
        EXPECT_TRUE(parsed.options) << parsed.error;
        SessionEnv env = fakeEnv(s);
        env.procRoot = procWithKallsyms();
        std::thread module([&] {
            while (!s->started)
                std::this_thread::sleep_for(1ms);
            std::this_thread::sleep_for(20ms);
            drive(*s);
            ::kill(::getpid(), SIGTERM);
        });
        r = runTraceSession(parsed.options.value_or(Options{}), msg, env);
        module.join();
        timespec zero{0, 0};
        while (sigtimedwait(&usr1, nullptr, &zero) > 0) {
        }
        pthread_sigmask(SIG_SETMASK, &old, nullptr);
    }
};

void removeSnapshots(const Files& f, unsigned upTo) {
    for (unsigned n = 1; n <= upTo; ++n)
        for (const auto& p : {snapshotPath(f.trace, n), snapshotPath(f.proc, n),
                              kallsymsPathFor(snapshotPath(f.trace, n))})
            std::filesystem::remove(p);
}

bool waitForFile(const std::string& p, int ms = 5000) {
    for (int k = 0; k < ms && !std::filesystem::exists(p); ++k)
        std::this_thread::sleep_for(1ms);
    return std::filesystem::exists(p);
}

// 200 requests at once (what 200 `ltt-mark --snapshot` of an admitted
// process would send) make one snapshot and then one more that names the
// others, not 200; the kernel symbols are saved once and linked.
TEST(FlightRecorder, AFloodOfRequestsIsCoalescedAndRateLimited) {
    Files f("flood");
    removeSnapshots(f, 200);
    std::chrono::steady_clock::time_point first, second;
    Recorder rec(f, {}, [&](FakeState&) {
        requestSnapshot("flood 0");
        waitForFile(snapshotPath(f.proc, 1));
        first = std::chrono::steady_clock::now();
        for (int i = 1; i < 200; ++i)
            requestSnapshot("flood " + std::to_string(i));
        waitForFile(snapshotPath(f.proc, 2));
        second = std::chrono::steady_clock::now();
        std::this_thread::sleep_for(1500ms);
    });
    EXPECT_EQ(rec.r.exitCode, 0) << rec.msg.str();
    const std::string out = rec.msg.str();
    EXPECT_TRUE(std::filesystem::exists(snapshotPath(f.trace, 1))) << out;
    EXPECT_TRUE(std::filesystem::exists(snapshotPath(f.trace, 2))) << out;
    EXPECT_FALSE(std::filesystem::exists(snapshotPath(f.trace, 3))) << out;
    EXPECT_EQ(rec.s->count(LTT_IOC_SNAPSHOT), 2u);
    // The second waited for the interval since the first.
    EXPECT_GE(second - first, 800ms) << out;
    EXPECT_NE(out.find("snapshot 2 (flood 1; flood 2; flood 3; flood 4 (and 195 more requests)): "),
              std::string::npos)
        << out;
    struct stat k1 {
    }, k2{};
    ASSERT_EQ(::stat(kallsymsPathFor(snapshotPath(f.trace, 1)).c_str(), &k1), 0) << out;
    ASSERT_EQ(::stat(kallsymsPathFor(snapshotPath(f.trace, 2)).c_str(), &k2), 0) << out;
    EXPECT_EQ(k1.st_ino, k2.st_ino) << "kallsyms copied twice";
    removeSnapshots(f, 200);
}

// A name already taken (planted by another user in a shared directory)
// fails that snapshot, which is reported; the recorder goes on, and the
// next snapshot takes the next number.
TEST(FlightRecorder, AFailedSnapshotIsReportedAndRecordingGoesOn) {
    Files f("taken");
    removeSnapshots(f, 3);
    ASSERT_EQ(::symlink("/dev/null", snapshotPath(f.trace, 1).c_str()), 0);
    Recorder rec(f, {}, [&](FakeState&) {
        requestSnapshot("first");
        std::this_thread::sleep_for(1200ms);
        requestSnapshot("second");
        waitForFile(snapshotPath(f.proc, 2));
    });
    const std::string out = rec.msg.str();
    EXPECT_EQ(rec.r.exitCode, 0) << out;
    EXPECT_NE(out.find("snapshot 1 (first) failed: "), std::string::npos) << out;
    EXPECT_NE(out.find("still recording"), std::string::npos) << out;
    EXPECT_NE(out.find("snapshot 2 (second): "), std::string::npos) << out;
    EXPECT_NE(out.find("1 snapshots written, 1 failed"), std::string::npos) << out;
    struct stat st {};
    ASSERT_EQ(::lstat(snapshotPath(f.trace, 1).c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode));
    removeSnapshots(f, 3);
}

// --max-snapshots N keeps the newest N snapshot sets: the oldest one's
// files are removed when a new one is written.
TEST(FlightRecorder, MaxSnapshotsKeepsARingOfTheNewest) {
    Files f("ring");
    removeSnapshots(f, 5);
    Recorder rec(f, {"--max-snapshots", "2"}, [&](FakeState&) {
        for (unsigned n = 1; n <= 4; ++n) {
            ::kill(::getpid(), SIGUSR1);
            waitForFile(snapshotPath(f.proc, n));
        }
    });
    const std::string out = rec.msg.str();
    EXPECT_EQ(rec.r.exitCode, 0) << out;
    for (unsigned n = 1; n <= 4; ++n) {
        EXPECT_EQ(std::filesystem::exists(snapshotPath(f.trace, n)), n > 2) << n << "\n" << out;
        EXPECT_EQ(std::filesystem::exists(snapshotPath(f.proc, n)), n > 2) << n;
        EXPECT_EQ(std::filesystem::exists(kallsymsPathFor(snapshotPath(f.trace, n))), n > 2) << n;
    }
    EXPECT_NE(out.find("snapshot 2 removed (--max-snapshots 2)"), std::string::npos) << out;
    EXPECT_NE(out.find("4 snapshots written"), std::string::npos) << out;
    removeSnapshots(f, 5);
}

} // namespace
