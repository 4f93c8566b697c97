// The daemon's side of libltt-user against real processes: the server
// writes to a TraceWriter on a temporary file while ltt-user-load and
// ltt-mark (built with the library) register over the socket; the file is
// then read back with libltt's block codec (tests/user/user_trace.hpp).
// Hostile clients (no memfd, an unsealed one, rings and records out of
// bounds) are dropped with a warning and never reach the file.
#include "../user/user_trace.hpp"
#include "options.hpp"
#include "user_server.hpp"
#include "user_shm.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <libltt/block_codec.hpp>
#include <libltt/trace_reader.hpp>
#include <libltt/trace_writer.hpp>
#include <ltt/user.hpp>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <spawn.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <x86intrin.h>

extern char** environ;

using namespace ltt;
using namespace ltt::daemon;
using namespace std::chrono_literals;

namespace {

// Every session of this test program (trace_session_test.cpp's too) serves
// user events at a socket of its own, never at the host's /run/ltt.
class PrivateUserSocket : public ::testing::Environment {
public:
    void SetUp() override {
        const std::string path =
            ::testing::TempDir() + "/ltt-user-" + std::to_string(::getpid()) + ".sock";
        ::setenv("LTT_USER_SOCKET", path.c_str(), 1);
    }
};
[[maybe_unused]] const auto* const privateUserSocket =
    ::testing::AddGlobalTestEnvironment(new PrivateUserSocket);

struct Ran {
    int status = -1;
    std::string output; // stdout and stderr
};

// Runs `argv` with LTT_USER_SOCKET=`socket` (and `env`), capturing its
// output.
Ran runWith(const std::string& socket, std::vector<std::string> argv,
            std::vector<std::string> env = {}) {
    std::string out = ::testing::TempDir() + "/user_run.out";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    env.push_back("LTT_USER_SOCKET=" + socket);
    std::vector<char*> envp, args;
    for (auto& e : env)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    for (auto& a : argv)
        args.push_back(a.data());
    args.push_back(nullptr);
    pid_t pid;
    Ran r;
    if (posix_spawn(&pid, args[0], &fa, nullptr, args.data(), envp.data()) != 0)
        return r;
    posix_spawn_file_actions_destroy(&fa);
    ::waitpid(pid, &r.status, 0);
    std::ifstream in(out);
    r.output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return r;
}

int exitCode(const Ran& r) {
    return WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
}

// A server writing to a temporary trace.
struct Fixture {
    std::string dir;
    std::string socket, trace;
    std::unique_ptr<TraceWriter> writer;
    std::unique_ptr<UserServer> server;
    std::mutex snapMutex;
    std::vector<std::string> snapshots;

    explicit Fixture(const std::string& name, UserServerConfig c = {},
                     std::uint32_t flags = LTT_TRACE_F_TSC_RELIABLE) {
        dir = ::testing::TempDir() + "/user_" + name + "_" + std::to_string(::getpid());
        std::filesystem::remove_all(dir);
        socket = dir + "/ltt/user.sock";
        trace = dir + "/t.trace";
        std::filesystem::create_directories(dir);
        ltt_trace_info info{};
        info.abi_version = LTT_ABI_VERSION;
        info.ncpus = 1;
        info.tsc_khz = 1000000;
        info.flags = flags;
        info.max_block = c.maxBlock;
        writer = std::make_unique<TraceWriter>(trace, makeFileHeader(info, "test"));
        c.socketPath = socket;
        if (c.drainEvery == UserServerConfig{}.drainEvery)
            c.drainEvery = 20ms; // a test that chose its tick keeps it
        server = std::make_unique<UserServer>(
            c, [this](std::span<const std::byte> b) { writer->append(b); },
            [this](std::string_view why) {
                std::lock_guard lock(snapMutex);
                snapshots.emplace_back(why);
            });
    }
    usertest::UserTrace finish() {
        server->stop();
        writer->close();
        return usertest::readUserTrace(trace);
    }
    ~Fixture() {
        server.reset();
        writer.reset();
        std::filesystem::remove_all(dir);
    }
};

TEST(UserServer, RecordsEveryEventOfAProcessInOrder) {
    Fixture f("load");
    Ran r = runWith(f.socket, {LTT_USER_LOAD_BIN, "5000"});
    ASSERT_EQ(exitCode(r), 0) << r.output;
    Ran m = runWith(f.socket, {LTT_MARK_BIN, "after the load"});
    ASSERT_EQ(exitCode(m), 0) << m.output;
    EXPECT_EQ(m.output, "");
    auto t = f.finish();
    ASSERT_EQ(t.error, "");
    EXPECT_EQ(t.lost, 0u);
    std::size_t loads = 0, marks = 0;
    for (const auto& e : t.events) {
        if (e.type == "load") {
            const auto i = static_cast<std::int64_t>(loads++);
            ASSERT_EQ(e.values.size(), 3u);
            EXPECT_EQ(std::get<std::int64_t>(e.values[0]), i);
            EXPECT_EQ(std::get<std::string>(e.values[1]), "item-" + std::to_string(i % 97));
            EXPECT_EQ(std::get<double>(e.values[2]), static_cast<double>(i) * 0.5);
        } else if (e.type == "ltt_mark") {
            ++marks;
            EXPECT_EQ(std::get<std::string>(e.values.at(0)), "after the load");
        }
    }
    EXPECT_EQ(loads, 5000u);
    EXPECT_EQ(marks, 1u);
    const auto st = f.server->stats();
    EXPECT_EQ(st.processes, 2u);
    EXPECT_EQ(st.events, 5001u);
    EXPECT_TRUE(f.server->warnings().empty());
}

// Checks that `t` holds events 0..count-1 of ltt-user-load, in order of
// time. The file orders blocks within a stream only: when one drain finds
// several exited threads' rings, it copies them in ring order, not in the
// order the threads ran, so the events are compared by their TSC (a
// stable sort keeps each stream's own order).
void expectLoadEvents(const usertest::UserTrace& t, std::size_t count) {
    std::vector<const usertest::UserEvent*> byTime;
    for (const auto& e : t.events)
        if (e.type == "load")
            byTime.push_back(&e);
    std::ranges::stable_sort(byTime, {}, &usertest::UserEvent::tsc);
    std::size_t loads = 0;
    for (const auto* ep : byTime) {
        const auto& e = *ep;
        const auto i = static_cast<std::int64_t>(loads++);
        ASSERT_EQ(e.values.size(), 3u);
        ASSERT_EQ(std::get<std::int64_t>(e.values[0]), i);
        ASSERT_EQ(std::get<std::string>(e.values[1]), "item-" + std::to_string(i % 97));
    }
    EXPECT_EQ(loads, count);
}

// A burst far larger than a ring, between two ticks: the producer's
// wakeups at half a ring make the daemon drain in time. Rings of 512 KiB
// (the default 16 MiB would hold the whole burst) and a producer spinning
// 25 us after each event: half a ring takes some 145 ms to fill, the time
// the daemon has to answer a wakeup. With 2 us an event (22 ms) a daemon
// thread held off the CPU while two suites ran beside it lost events.
TEST(UserServer, ABurstBetweenTwoTicksLosesNothing) {
    UserServerConfig c;
    c.drainEvery = 3s; // the whole burst lies between two ticks
    Fixture f("burst", c);
    // 100 000 events in about 2.5 s: some 4.4 MB, eight rings' worth.
    Ran r = runWith(f.socket, {LTT_USER_LOAD_BIN, "100000", "--burst", "25000"},
                    {"LTT_USER_RING_SIZE=512K"});
    ASSERT_EQ(exitCode(r), 0) << r.output;
    auto t = f.finish();
    ASSERT_EQ(t.error, "");
    EXPECT_EQ(t.lost, 0u);
    const auto st = f.server->stats();
    EXPECT_EQ(st.lost, 0u) << describe(st);
    EXPECT_EQ(st.events, 100000u) << describe(st);
    // 40 to 48 bytes an event: the burst crosses half a ring fifteen times
    // or more, and each crossing woke the daemon.
    EXPECT_GE(st.wakeups, 14u) << describe(st);
    expectLoadEvents(t, 100000);
}

// Short-lived threads give their rings back: 1000 threads, one after
// another, each a stream of its own that ends with a final block. A thread
// whose first event finds all 32 rings still closing waits about 2 ms for
// the daemon, then counts its events lost (lost_no_ring): on a loaded
// machine some threads may (up to 6% at a load of 10 on 2 cores), so the
// test asks that every event be written or counted, that a thread's events
// be all written or all counted, and that most threads got a ring (without
// rings given back, no more than 32 would).
TEST(UserServer, ExitedThreadsGiveTheirRingsBack) {
    constexpr std::uint64_t threads = 1000, perThread = 5;
    Fixture f("threads");
    Ran r = runWith(f.socket, {LTT_USER_LOAD_BIN, std::to_string(perThread), "--threads",
                               std::to_string(threads)});
    ASSERT_EQ(exitCode(r), 0) << r.output;
    auto t = f.finish();
    ASSERT_EQ(t.error, "");
    EXPECT_EQ(t.lost, 0u);
    const auto st = f.server->stats();
    EXPECT_EQ(st.lost, 0u);
    EXPECT_EQ(st.lostNoStream, 0u);
    EXPECT_TRUE(f.server->warnings().empty());
    EXPECT_EQ(st.events + st.lostNoRing, threads * perThread) << describe(st);
    EXPECT_EQ(st.lostNoRing % perThread, 0u) << describe(st);
    EXPECT_GE(st.streams, threads / 2) << describe(st);
    EXPECT_EQ(st.streams * perThread, st.events);
    EXPECT_EQ(t.streams, st.streams);
    // The events written, by time: whole threads, in the order they ran.
    std::vector<const usertest::UserEvent*> byTime;
    for (const auto& e : t.events)
        if (e.type == "load")
            byTime.push_back(&e);
    std::ranges::stable_sort(byTime, {}, &usertest::UserEvent::tsc);
    ASSERT_EQ(byTime.size(), st.events);
    for (std::size_t k = 0; k < byTime.size(); ++k) {
        const auto v = std::get<std::int64_t>(byTime[k]->values.at(0));
        if (k % perThread == 0) {
            ASSERT_EQ(v % static_cast<std::int64_t>(perThread), 0) << "event " << k;
            if (k > 0) {
                ASSERT_GT(v, std::get<std::int64_t>(byTime[k - 1]->values.at(0)));
            }
        } else {
            ASSERT_EQ(v, std::get<std::int64_t>(byTime[k - 1]->values.at(0)) + 1) << "event " << k;
            ASSERT_EQ(byTime[k]->stream, byTime[k - 1]->stream);
        }
    }
}

// A ring size the protocol does not allow is refused with a message, and
// the default used.
TEST(UserServer, ABadRingSizeFallsBackToTheDefault) {
    Fixture f("ringsize");
    Ran m = runWith(f.socket, {LTT_MARK_BIN, "odd ring"}, {"LTT_USER_RING_SIZE=3K"});
    EXPECT_EQ(exitCode(m), 0) << m.output;
    EXPECT_EQ(m.output, "libltt-user: LTT_USER_RING_SIZE=3K is not a power of two from 4K to "
                        "16M; using 16M\n");
    auto t = f.finish();
    ASSERT_EQ(t.error, "");
    ASSERT_EQ(t.events.size(), 1u);
    EXPECT_EQ(std::get<std::string>(t.events[0].values.at(0)), "odd ring");
}

TEST(UserServer, CutsBlocksToTheTracesLargestBlock) {
    UserServerConfig c;
    c.maxBlock = 4096; // the reader refuses longer blocks in this trace
    Fixture f("small", c);
    Ran r = runWith(f.socket, {LTT_USER_LOAD_BIN, "3000"});
    ASSERT_EQ(exitCode(r), 0) << r.output;
    auto t = f.finish();
    ASSERT_EQ(t.error, "");
    EXPECT_EQ(t.events.size(), 3000u);
    EXPECT_GE(t.userBlocks, 3000u * 44 / 4096); // 44 bytes an event
}

// Seconds `f` takes.
template <class F> double secondsOf(F f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Seconds ltt-mark takes to start and exit without a daemon's answer to
// wait for (--help): what a refused ltt-mark may take beside its
// message, under a sanitizer too; waiting for ENABLE would add 1 s.
double lttMarkStartup() {
    return secondsOf([] { runWith("/nonexistent", {LTT_MARK_BIN, "--help"}); });
}
// A TSan build sleeps a second at the exit of a program that started
// threads (atexit_sleep_ms): not in the times measured here.
const std::vector<std::string> kNoExitSleep = {"TSAN_OPTIONS=atexit_sleep_ms=0"};

TEST(UserServer, FiltersDecideWhichProcessesAreEnabled) {
    UserServerConfig c;
    c.pid = 1; // never ltt-mark
    Fixture f("filtered", c);
    Ran m;
    // The daemon says REFUSE at registration: no second's wait for an
    // ENABLE that never comes.
    const double took = secondsOf([&] {
        m = runWith(f.socket, {LTT_MARK_BIN, "filtered out"}, kNoExitSleep);
    });
    EXPECT_EQ(exitCode(m), 1);
    EXPECT_NE(m.output.find("ltt-mark: tracedaemon records no events of this process: the "
                            "session's filters (-P, -u, -g, -G, -T) leave pid "),
              std::string::npos)
        << m.output;
    EXPECT_LT(took, lttMarkStartup() + 0.5) << m.output;
    auto t = f.finish();
    EXPECT_EQ(t.error, "");
    EXPECT_TRUE(t.events.empty());
    EXPECT_EQ(f.server->stats().processes, 1u);
    EXPECT_EQ(f.server->stats().enabled, 0u);
}

TEST(UserServer, NoUserEventsWithoutAReliableTsc) {
    UserServerConfig c;
    c.record = false;
    c.refusal = "no clock to share";
    Fixture f("notsc", c);
    Ran m;
    const double took = secondsOf([&] {
        m = runWith(f.socket, {LTT_MARK_BIN, "x"}, kNoExitSleep);
    });
    EXPECT_EQ(exitCode(m), 1);
    EXPECT_EQ(m.output, "ltt-mark: tracedaemon records no events of this process: no clock to "
                        "share\n");
    EXPECT_LT(took, lttMarkStartup() + 0.5);
    EXPECT_TRUE(f.finish().events.empty());
}

TEST(UserServer, SnapshotRequestReachesTheHook) {
    Fixture f("snapshot");
    Ran m = runWith(f.socket, {LTT_MARK_BIN, "--snapshot"});
    EXPECT_EQ(exitCode(m), 0) << m.output;
    // The request is read by the server's thread after ltt-mark has sent it.
    for (int i = 0; i < 100; ++i) {
        std::lock_guard lock(f.snapMutex);
        if (!f.snapshots.empty())
            break;
        std::this_thread::sleep_for(10ms);
    }
    f.finish();
    ASSERT_EQ(f.snapshots.size(), 1u);
    EXPECT_EQ(f.snapshots[0].rfind("requested by ltt-mark (pid ", 0), 0u) << f.snapshots[0];
}

TEST(LttMark, SaysWhenNoDaemonRuns) {
    const std::string path = ::testing::TempDir() + "/no-such-dir/user.sock";
    Ran m = runWith(path, {LTT_MARK_BIN, "nobody listens"});
    EXPECT_EQ(exitCode(m), 1);
    EXPECT_EQ(m.output, "ltt-mark: no tracedaemon is running (no socket at " + path + ")\n");
    Ran u = runWith(path, {LTT_MARK_BIN});
    EXPECT_EQ(exitCode(u), 2);
    EXPECT_EQ(u.output.rfind("usage: ltt-mark TEXT", 0), 0u);
}

TEST(UserServer, RefusesASecondServerOnALiveSocket) {
    Fixture f("twice");
    UserServerConfig c;
    c.socketPath = f.socket;
    try {
        UserServer second(c, [](std::span<const std::byte>) {});
        FAIL() << "a second server bound a live socket";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "another tracedaemon serves user events at " + f.socket);
    }
}

// A client that speaks the protocol by hand, to send what the library
// never would.
class RawClient {
public:
    explicit RawClient(const std::string& path) {
        fd_m.reset(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        std::strcpy(a.sun_path, path.c_str());
        if (::connect(fd_m.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
            ADD_FAILURE() << "connect: " << std::strerror(errno);
    }
    void send(int memfd, int wakefd = -1) {
        ltt_user_msg m{};
        m.magic = LTT_USER_MSG_MAGIC;
        m.version = LTT_USER_SHM_VERSION;
        m.kind = LTT_USER_MSG_REGISTER;
        alignas(cmsghdr) char cbuf[CMSG_SPACE(2 * sizeof(int))] = {};
        const int fds[2] = {memfd, wakefd};
        const std::size_t nfds = wakefd >= 0 ? 2 : 1;
        iovec iov{&m, sizeof m};
        msghdr mh{};
        mh.msg_iov = &iov;
        mh.msg_iovlen = 1;
        if (memfd >= 0) {
            mh.msg_control = cbuf;
            mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
            cmsghdr* c = CMSG_FIRSTHDR(&mh);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
            std::memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
        }
        ASSERT_EQ(::sendmsg(fd_m.get(), &mh, 0), static_cast<ssize_t>(sizeof m));
    }
    // A SNAPSHOT message with `text`.
    void snapshot(std::string_view text) {
        ltt_user_msg m{};
        m.magic = LTT_USER_MSG_MAGIC;
        m.version = LTT_USER_SHM_VERSION;
        m.kind = LTT_USER_MSG_SNAPSHOT;
        std::memcpy(m.text, text.data(), std::min(text.size(), sizeof m.text - 1));
        ASSERT_EQ(::send(fd_m.get(), &m, sizeof m, 0), static_cast<ssize_t>(sizeof m));
    }
    // Whether the server closed this connection within `ms`.
    bool closedWithin(int ms) {
        pollfd p{fd_m.get(), POLLIN, 0};
        if (::poll(&p, 1, ms) != 1)
            return false;
        char c;
        return ::recv(fd_m.get(), &c, 1, MSG_DONTWAIT) == 0;
    }
    int fd() const { return fd_m.get(); }
    // Waits for ENABLE (or gives up after 2 s).
    bool enabled() {
        pollfd p{fd_m.get(), POLLIN, 0};
        if (::poll(&p, 1, 2000) != 1)
            return false;
        ltt_user_msg m{};
        return ::recv(fd_m.get(), &m, sizeof m, 0) == sizeof m && m.kind == LTT_USER_MSG_ENABLE;
    }

private:
    UniqueFd fd_m;
};

// A protocol-conformant shared memory that the test then damages.
struct Shm {
    static constexpr std::uint32_t kRing = 65536;
    std::uint32_t rb = kRing;
    std::size_t size = LTT_USER_SHM_SIZE(kRing);
    UniqueFd fd;
    std::byte* p = nullptr;
    explicit Shm(bool seal = true, std::uint32_t ringBytes = kRing)
        : rb(ringBytes), size(LTT_USER_SHM_SIZE(ringBytes)) {
        fd.reset(::memfd_create("hostile", MFD_CLOEXEC | MFD_ALLOW_SEALING));
        EXPECT_EQ(::ftruncate(fd.get(), static_cast<off_t>(size)), 0);
        if (seal) {
            EXPECT_EQ(::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
        }
        p = static_cast<std::byte*>(
            ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0));
        auto* h = header();
        h->magic = LTT_USER_SHM_MAGIC;
        h->version = LTT_USER_SHM_VERSION;
        h->size = static_cast<std::uint32_t>(size);
        h->ring_bytes = rb;
        auto* t = reinterpret_cast<ltt_user_shm_type*>(p + LTT_USER_SHM_TYPES_OFF);
        t->nfields = 1;
        t->field[0] = LTT_USER_I64;
        std::strcpy(t->names[0], "ok");
        std::strcpy(t->names[1], "v");
        t->ready = 1;
        h->ntypes = 1;
    }
    ~Shm() { ::munmap(p, size); }
    ltt_user_shm_header* header() { return reinterpret_cast<ltt_user_shm_header*>(p); }
    ltt_user_shm_ring* ring(unsigned i) {
        return reinterpret_cast<ltt_user_shm_ring*>(p + LTT_USER_SHM_RING_OFF(i, rb));
    }
    std::uint8_t* data(unsigned i) { return reinterpret_cast<std::uint8_t*>(ring(i) + 1); }
    // Appends a record of `size` bytes (header included) of `type`.
    // The ring's thread is the calling one (the server checks that a
    // ring's tid is a thread of the process).
    void put(unsigned ring_, std::uint16_t size, std::uint32_t type, std::int64_t v,
             std::uint64_t tsc = 0) {
        auto* r = ring(ring_);
        r->tid = static_cast<std::uint32_t>(::gettid());
        ltt_user_rec h{size, 0, type, tsc ? tsc : 1000 + r->head};
        std::memcpy(data(ring_) + (r->head & (rb - 1)), &h, sizeof h);
        std::memcpy(data(ring_) + (r->head & (rb - 1)) + sizeof h, &v, sizeof v);
        __atomic_store_n(&r->head, r->head + (size < 8 ? 8 : size), __ATOMIC_RELEASE);
    }
};

std::uint64_t monotonicNow() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u +
           static_cast<std::uint64_t>(ts.tv_nsec);
}

// A fallback-clock trace: the fake trace clock runs `offset` ns ahead of
// CLOCK_MONOTONIC, as local_clock() runs a near-constant offset from it.
struct FallbackClock {
    std::atomic<std::int64_t> offset{7'000'000'000};
    std::atomic<int> reads{0};
    UserServerConfig config() {
        UserServerConfig c;
        c.clock = UserClock::Monotonic;
        const std::uint64_t m = monotonicNow();
        c.anchor = {m + static_cast<std::uint64_t>(offset.load()), m};
        c.clockPair = [this]() -> std::optional<ClockPair> {
            ++reads;
            const std::uint64_t now = monotonicNow();
            return ClockPair{now + static_cast<std::uint64_t>(offset.load()), now};
        };
        return c;
    }
};

TEST(UserServerFallbackClock, ApplicationEventsArePlacedOnTheTraceClock) {
    FallbackClock clock;
    Fixture f("fallback", clock.config(), LTT_TRACE_F_CLOCK_FALLBACK);
    const std::uint64_t before = monotonicNow();
    Ran r = runWith(f.socket, {LTT_USER_LOAD_BIN, "2000"});
    const std::uint64_t after = monotonicNow();
    ASSERT_EQ(exitCode(r), 0) << r.output;
    auto t = f.finish();
    ASSERT_EQ(t.error, "");
    ASSERT_EQ(t.events.size(), 2000u);
    // The library stamped CLOCK_MONOTONIC: every time is that plus the
    // offset, within the loader's run (a TSC stamp would be far outside).
    const std::uint64_t off = static_cast<std::uint64_t>(clock.offset.load());
    for (const auto& e : t.events) {
        ASSERT_GE(e.tsc, before + off);
        ASSERT_LE(e.tsc, after + off);
    }
    EXPECT_GT(clock.reads.load(), 0);
    // The file says which clock the stream's times came from.
    TraceError err;
    auto reader = TraceReader::open(f.trace, &err);
    ASSERT_TRUE(reader) << err.str();
    ASSERT_EQ(reader->userStreams().size(), 1u);
    EXPECT_TRUE(reader->userStreams()[0].monotonic);
}

// Whether the server took ring 0 of `shm` to its head within 5 s.
bool drained(Shm& shm) {
    for (int i = 0; i < 5000; ++i) {
        if (__atomic_load_n(&shm.ring(0)->tail, __ATOMIC_ACQUIRE) == shm.ring(0)->head)
            return true;
        std::this_thread::sleep_for(1ms);
    }
    return false;
}

TEST(UserServerFallbackClock, EachDrainTakesAFreshClockPair) {
    FallbackClock clock;
    Fixture f("fallback_pairs", clock.config(), LTT_TRACE_F_CLOCK_FALLBACK);
    Shm shm;
    shm.header()->clocks = LTT_USER_CLOCK_F_TSC | LTT_USER_CLOCK_F_MONOTONIC;
    RawClient client(f.socket);
    client.send(shm.fd.get());
    ASSERT_TRUE(client.enabled());
    EXPECT_EQ(shm.header()->clock, std::uint32_t{LTT_USER_CLOCK_MONOTONIC});
    const std::uint64_t first = monotonicNow();
    shm.put(0, 24, 0, 1, first);
    // Drained at the next tick (20 ms) with the offset of then.
    ASSERT_TRUE(drained(shm));
    clock.offset += 1'000'000; // the kernel's clock gained 1 ms on CLOCK_MONOTONIC
    const std::uint64_t second = monotonicNow();
    shm.put(0, 24, 0, 2, second);
    ASSERT_TRUE(drained(shm));
    auto t = f.finish();
    ASSERT_EQ(t.error, "");
    ASSERT_EQ(t.events.size(), 2u);
    EXPECT_EQ(t.events[0].tsc, first + 7'000'000'000u);
    EXPECT_EQ(t.events[1].tsc, second + 7'001'000'000u);
}

TEST(UserServerFallbackClock, ALibraryThatStampsOnlyTheTscIsRefusedAtOnce) {
    FallbackClock clock;
    Fixture f("fallback_old", clock.config(), LTT_TRACE_F_CLOCK_FALLBACK);
    Shm shm; // clocks 0: a library from before CLOCK_MONOTONIC
    RawClient client(f.socket);
    client.send(shm.fd.get());
    pollfd p{client.fd(), POLLIN, 0};
    ASSERT_EQ(::poll(&p, 1, 2000), 1);
    ltt_user_msg m{};
    ASSERT_EQ(::recv(client.fd(), &m, sizeof m, 0), static_cast<ssize_t>(sizeof m));
    EXPECT_EQ(m.kind, LTT_USER_MSG_REFUSE);
    EXPECT_EQ(std::string(m.text).rfind("its libltt-user stamps events with the TSC only", 0), 0u)
        << m.text;
    EXPECT_EQ(shm.header()->enabled, 0u);
    EXPECT_EQ(f.finish().events.size(), 0u);
}

TEST(UserServerFallbackClock, ATscTraceKeepsTheTsc) {
    Fixture f("tsc_clock");
    Shm shm;
    shm.header()->clocks = LTT_USER_CLOCK_F_TSC | LTT_USER_CLOCK_F_MONOTONIC;
    shm.header()->clock = 77; // the server writes what it wants
    RawClient client(f.socket);
    client.send(shm.fd.get());
    ASSERT_TRUE(client.enabled());
    EXPECT_EQ(shm.header()->clock, std::uint32_t{LTT_USER_CLOCK_TSC});
    const std::uint64_t tsc = __rdtsc();
    shm.put(0, 24, 0, 1, tsc);
    auto t = f.finish();
    ASSERT_EQ(t.error, "");
    ASSERT_EQ(t.events.size(), 1u);
    EXPECT_EQ(t.events[0].tsc, tsc);
    TraceError err;
    auto reader = TraceReader::open(f.trace, &err);
    ASSERT_TRUE(reader) << err.str();
    ASSERT_EQ(reader->userStreams().size(), 1u);
    EXPECT_FALSE(reader->userStreams()[0].monotonic);
}

TEST(UserServer, DropsHostileProcessesAndKeepsTheFileValid) {
    Fixture f("hostile");
    {
        RawClient noFd(f.socket);
        noFd.send(-1);
        Shm unsealed(false);
        RawClient c2(f.socket);
        c2.send(unsealed.fd.get());

        Shm runaway;
        RawClient c3(f.socket);
        c3.send(runaway.fd.get());
        ASSERT_TRUE(c3.enabled());
        runaway.put(0, 24, 0, 7); // a good event first: it is kept
        std::this_thread::sleep_for(100ms);
        runaway.ring(0)->head = 10 * Shm::kRing;

        Shm badSize;
        RawClient c4(f.socket);
        c4.send(badSize.fd.get());
        ASSERT_TRUE(c4.enabled());
        badSize.put(0, 20, 0, 1);

        Shm badType;
        RawClient c5(f.socket);
        c5.send(badType.fd.get());
        ASSERT_TRUE(c5.enabled());
        badType.put(0, 24, 200, 1);

        Shm badValues;
        auto* t = reinterpret_cast<ltt_user_shm_type*>(badValues.p + LTT_USER_SHM_TYPES_OFF);
        t->field[0] = LTT_USER_STR; // a length of 7 in 8 bytes: runs past the record
        RawClient c6(f.socket);
        c6.send(badValues.fd.get());
        ASSERT_TRUE(c6.enabled());
        badValues.put(0, 24, 0, 0x7fff);
        std::this_thread::sleep_for(200ms);
    }
    // The server still serves.
    Ran m = runWith(f.socket, {LTT_MARK_BIN, "still here"});
    EXPECT_EQ(exitCode(m), 0) << m.output;
    auto t = f.finish();
    EXPECT_EQ(t.error, "");
    std::vector<std::string> types;
    for (const auto& e : t.events)
        types.push_back(e.type);
    EXPECT_EQ(types, (std::vector<std::string>{"ok", "ltt_mark"}));
    auto w = f.server->warnings();
    std::string all;
    for (const auto& s : w)
        all += s + "\n";
    for (const char* want : {"REGISTER without a memfd", "is not a memfd sealed against shrinking",
                             "head ran ahead of its tail", "a record of bad size 20", "type 200",
                             "values do not match its type 0"})
        EXPECT_NE(all.find(want), std::string::npos) << want << " not in:\n" << all;
}

// A process that writes its eventfd without pause costs the daemon its own
// (empty) drains; another process is still drained in full, and a
// wakeup descriptor that is no eventfd is refused.
TEST(UserServer, AWakeupStormStarvesNoOtherProcess) {
    Fixture f("storm");
    Shm stormy;
    UniqueFd wake(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    RawClient c(f.socket);
    c.send(stormy.fd.get(), wake.get());
    ASSERT_TRUE(c.enabled());
    std::atomic<bool> done{false};
    std::uint64_t writes = 0;
    std::thread storm([&] {
        const std::uint64_t one = 1;
        while (!done)
            if (::write(wake.get(), &one, sizeof one) == sizeof one)
                ++writes;
    });
    Ran r = runWith(f.socket, {LTT_USER_LOAD_BIN, "20000", "--burst", "1000"});
    done = true;
    storm.join();
    ASSERT_EQ(exitCode(r), 0) << r.output;

    int pipeFds[2];
    ASSERT_EQ(::pipe2(pipeFds, O_CLOEXEC), 0);
    UniqueFd pipeRead(pipeFds[0]), pipeWrite(pipeFds[1]);
    Shm piped;
    RawClient bad(f.socket);
    bad.send(piped.fd.get(), pipeRead.get());
    std::this_thread::sleep_for(100ms);

    auto t = f.finish();
    ASSERT_EQ(t.error, "");
    EXPECT_EQ(t.lost, 0u);
    expectLoadEvents(t, 20000);
    const auto st = f.server->stats();
    EXPECT_GT(writes, 1000u);
    EXPECT_GT(st.wakeups, 100u);
    std::string all;
    for (const auto& w : f.server->warnings())
        all += w + "\n";
    EXPECT_NE(all.find("its wakeup descriptor is not an eventfd"), std::string::npos) << all;
}

TEST(UserServer, OptionsChooseTheSocket) {
    const std::string_view none[] = {"--user-socket", "none", "t.trace", "t.proc"};
    auto p = parseCommandLine(none);
    ASSERT_TRUE(p.options) << p.error;
    std::string note;
    ltt_trace_info tscInfo{};
    tscInfo.ncpus = 1;
    EXPECT_FALSE(userServerConfig(*p.options, tscInfo, std::nullopt, note));
    EXPECT_EQ(note, "no user events (--user-socket none)");
    const std::string_view given[] = {"--user-socket", "/tmp/x.sock", "-P", "42",
                                      "t.trace",       "t.proc"};
    p = parseCommandLine(given);
    ASSERT_TRUE(p.options) << p.error;
    EXPECT_EQ(UserServer::defaultSocketPath(), std::getenv("LTT_USER_SOCKET"));
    note.clear();
    ltt_trace_info info{};
    info.ncpus = 2; // a forced clock=tsc on two CPUs whose TSCs may disagree
    auto c = userServerConfig(*p.options, info, std::nullopt, note);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->socketPath, "/tmp/x.sock");
    EXPECT_EQ(c->pid, 42);
    EXPECT_FALSE(c->record);
    EXPECT_EQ(note, "no user events in this trace: this trace's clock is the TSC of several CPUs "
                    "that may disagree (the module's clock=tsc on a machine without a reliable "
                    "TSC)");
    EXPECT_EQ("no user events in this trace: " + c->refusal, note);
    info.flags = LTT_TRACE_F_TSC_RELIABLE;
    EXPECT_EQ(userEventsClock(info), UserClock::Tsc);
    info.flags = 0;
    EXPECT_EQ(userEventsClock(info), std::nullopt); // two CPUs' TSCs may disagree
    info.ncpus = 1;
    EXPECT_EQ(userEventsClock(info), UserClock::Tsc);
    info.ncpus = 2;
    info.flags = LTT_TRACE_F_CLOCK_FALLBACK;
    EXPECT_EQ(userEventsClock(info), UserClock::Monotonic); // local_clock() ns
    info.anchor_tsc = 5'000'000'123;
    info.anchor_monotonic_ns = 123;
    note.clear();
    c = userServerConfig(*p.options, info, std::nullopt, note);
    ASSERT_TRUE(c);
    EXPECT_TRUE(c->record);
    EXPECT_EQ(c->clock, UserClock::Monotonic);
    EXPECT_EQ(c->anchor.trace - c->anchor.monotonic, 5'000'000'000u);
    EXPECT_EQ(note, "");
    const std::string_view empty[] = {"--user-socket", "", "t.trace", "t.proc"};
    EXPECT_EQ(parseCommandLine(empty).error,
              "option '--user-socket' needs a socket path or 'none'");
}

} // namespace

namespace {

// The C++ wrapper, in this process: typed fields, string_view values, and
// the same events in the trace as the C API writes.
TEST(UserCxxWrapper, LogsTypedEvents) {
    Fixture f("cxx");
    // The library reads the socket path at its first declaration.
    const std::string saved = std::getenv("LTT_USER_SOCKET") ? std::getenv("LTT_USER_SOCKET") : "";
    ::setenv("LTT_USER_SOCKET", f.socket.c_str(), 1);
    ltt::user::EventType<std::int64_t, std::string_view, double, std::uint64_t> t{
        "cxx", {"i", "s", "d", "u"}};
    ASSERT_EQ(ltt_user_wait_enabled(5000), 0);
    std::string text = "a string_view, not NUL-terminated";
    t.log(-5, std::string_view(text).substr(0, 8), 1.25, 7u);
    EXPECT_EQ(ltt::user::mark("from C++"), 0);
    ltt::user::EventType<> tick{"tick", {}}; // no fields
    tick.log();
    ltt_user_log(tick.type());
    ASSERT_EQ(ltt_user_flush(5000), 0);
    auto tr = f.finish();
    ::setenv("LTT_USER_SOCKET", saved.c_str(), 1);
    ASSERT_EQ(tr.error, "");
    ASSERT_EQ(tr.events.size(), 4u);
    const auto& e = tr.events[0];
    EXPECT_EQ(e.type, "cxx");
    EXPECT_EQ(e.tgid, static_cast<std::uint32_t>(::getpid()));
    ASSERT_EQ(e.values.size(), 4u);
    EXPECT_EQ(std::get<std::int64_t>(e.values[0]), -5);
    EXPECT_EQ(std::get<std::string>(e.values[1]), "a string");
    EXPECT_EQ(std::get<double>(e.values[2]), 1.25);
    EXPECT_EQ(std::get<std::uint64_t>(e.values[3]), 7u);
    EXPECT_EQ(std::get<std::string>(tr.events[1].values.at(0)), "from C++");
    EXPECT_EQ(tr.events[3].type, "tick");
    EXPECT_TRUE(tr.events[3].values.empty());
    // The daemon went away: logging is off again, and costs nothing.
    for (int i = 0; i < 100 && ltt::user::active(); ++i)
        std::this_thread::sleep_for(10ms);
    EXPECT_FALSE(ltt::user::active());
    EXPECT_THROW((ltt::user::EventType<double>{"bad name that is far too long for a type, longer "
                                               "than sixty-three bytes",
                                               {"x"}}),
                 std::invalid_argument);
}

} // namespace

// What one local user can do to the root daemon's user-event server, and
// what it is held to.
namespace {

std::string allWarnings(const UserServer& s) {
    std::string all;
    for (const auto& w : s.warnings())
        all += w + "\n";
    return all;
}

// CPU time of this whole process (the server's thread included), in ms.
double processCpuMs() {
    timespec t{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

template <class Pred> bool waitUntil(Pred pred, int ms = 3000) {
    for (int i = 0; i < ms / 10; ++i) {
        if (pred())
            return true;
        std::this_thread::sleep_for(10ms);
    }
    return pred();
}

// Only registered, admitted processes of uid 0, of the daemon's uid or of
// the configured group may ask for a snapshot: another user's ltt-mark
// --snapshot, or a message sent before registering, is refused and counted.
TEST(UserServerLimits, SnapshotRequestsOnlyFromRootOrTheGroup) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root (runs ltt-mark as uid 1000)";
    Fixture f("snapuid");
    ::chmod(f.dir.c_str(), 0755);
    Ran other = runWith(f.socket, {"/usr/bin/setpriv", "--reuid=1000", "--regid=1000",
                                   "--clear-groups", LTT_MARK_BIN, "--snapshot"});
    EXPECT_EQ(exitCode(other), 0) << other.output;
    {
        RawClient early(f.socket); // root, but never registered
        early.snapshot("unregistered");
        std::this_thread::sleep_for(100ms);
    }
    std::this_thread::sleep_for(100ms);
    Ran root = runWith(f.socket, {LTT_MARK_BIN, "--snapshot"});
    EXPECT_EQ(exitCode(root), 0) << root.output;
    waitUntil([&] {
        std::lock_guard lock(f.snapMutex);
        return !f.snapshots.empty();
    });
    f.finish();
    ASSERT_EQ(f.snapshots.size(), 1u);
    EXPECT_EQ(f.snapshots[0].rfind("requested by ltt-mark (pid ", 0), 0u) << f.snapshots[0];
    EXPECT_EQ(f.server->stats().snapshotsRefused, 2u);
    EXPECT_NE(allWarnings(*f.server).find("(uid 1000) may not ask for snapshots"),
              std::string::npos)
        << allWarnings(*f.server);

    UserServerConfig c;
    c.snapshotGid = 1000;
    Fixture g("snapgid", c);
    ::chmod(g.dir.c_str(), 0755);
    Ran member = runWith(g.socket, {"/usr/bin/setpriv", "--reuid=1000", "--regid=1000",
                                    "--clear-groups", LTT_MARK_BIN, "--snapshot"});
    EXPECT_EQ(exitCode(member), 0) << member.output;
    waitUntil([&] {
        std::lock_guard lock(g.snapMutex);
        return !g.snapshots.empty();
    });
    g.finish();
    EXPECT_EQ(g.snapshots.size(), 1u);
}

// A connection speaks for the process that connected: a REGISTER that
// another process sends on it (a child that inherited it) is refused and
// its sender named, whatever the connection's own process may do.
TEST(UserServerLimits, AMessageFromAnotherProcessIsRefused) {
    Fixture f("otherpid");
    Shm shm;
    RawClient c(f.socket);
    const pid_t child = ::fork();
    if (child == 0) {
        c.send(shm.fd.get());
        ::_exit(0);
    }
    int st = -1;
    ASSERT_EQ(::waitpid(child, &st, 0), child);
    EXPECT_FALSE(c.enabled());
    f.finish();
    EXPECT_NE(allWarnings(*f.server).find("(uid " + std::to_string(::geteuid()) +
                                          "), not the process that connected"),
              std::string::npos)
        << allWarnings(*f.server);
}

// A snapshot's reason is a client's text: escaped and bounded before it
// reaches root's terminal or log.
TEST(UserServerLimits, SnapshotReasonsAreEscaped) {
    Fixture f("escape");
    Shm shm;
    RawClient c(f.socket);
    c.send(shm.fd.get());
    ASSERT_TRUE(c.enabled());
    c.snapshot("\x1b[2J\x1b]0;owned\x07 line\nforged \\ end");
    waitUntil([&] {
        std::lock_guard lock(f.snapMutex);
        return !f.snapshots.empty();
    });
    f.finish();
    ASSERT_EQ(f.snapshots.size(), 1u);
    EXPECT_EQ(f.snapshots[0], "\\x1b[2J\\x1b]0;owned\\x07 line\\x0aforged \\x5c end");
    EXPECT_EQ(escapeText(std::string(300, '\x01')).size(), 200u);
}

// An eventfd in semaphore mode stays readable for up to 2^64 reads: it is
// refused, and the server does not spin on it.
TEST(UserServerLimits, ASemaphoreEventfdIsRefused) {
    Fixture f("semaphore");
    Shm shm;
    UniqueFd sem(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE));
    RawClient c(f.socket);
    c.send(shm.fd.get(), sem.get());
    std::this_thread::sleep_for(100ms);
    // Readable for 2^40 reads (the server's probe left its count at 1).
    const std::uint64_t lots = 1ull << 40;
    EXPECT_EQ(::write(sem.get(), &lots, sizeof lots), static_cast<ssize_t>(sizeof lots));
    const double cpu0 = processCpuMs();
    std::this_thread::sleep_for(500ms);
    const double used = processCpuMs() - cpu0;
    f.finish();
    EXPECT_LT(used, 50.0) << "the server spun on a semaphore eventfd";
    EXPECT_NE(allWarnings(*f.server).find("its wakeup eventfd is a semaphore"), std::string::npos)
        << allWarnings(*f.server);
}

// A sparse memfd whose rings all claim to be full: the server reads
// records one header at a time and drops the process at the first bad
// one, so it faults in next to nothing of the client's memory (which would
// be charged to the daemon).
TEST(UserServerLimits, ASparseMemfdIsNotFaultedIn) {
    Fixture f("sparse");
    Shm shm(true, LTT_USER_RING_MAX);
    struct stat before {};
    ASSERT_EQ(::fstat(shm.fd.get(), &before), 0);
    RawClient c(f.socket);
    c.send(shm.fd.get());
    ASSERT_TRUE(c.enabled());
    for (unsigned i = 0; i < LTT_USER_SHM_RINGS; ++i) {
        shm.ring(i)->tid = static_cast<std::uint32_t>(::gettid());
        shm.ring(i)->tail = 0;
        __atomic_store_n(&shm.ring(i)->head, std::uint64_t{LTT_USER_RING_MAX}, __ATOMIC_RELEASE);
    }
    waitUntil([&] { return allWarnings(*f.server).find("dropped") != std::string::npos; });
    struct stat after {};
    ASSERT_EQ(::fstat(shm.fd.get(), &after), 0);
    f.finish();
    const long long faulted = (after.st_blocks - before.st_blocks) * 512;
    EXPECT_LT(faulted, 1 << 20) << "the server faulted in " << faulted << " bytes";
    EXPECT_NE(allWarnings(*f.server).find("a record of bad size 0"), std::string::npos)
        << allWarnings(*f.server);
}

// A ring may claim only a thread of its process (or one gone): not a
// thread of another process, whose timeline it would join.
TEST(UserServerLimits, AForgedThreadIsRefusedAndTimesAreClamped) {
    const std::uint64_t t0 = __rdtsc();
    Fixture f("forged");
    Shm forged;
    RawClient c(f.socket);
    c.send(forged.fd.get());
    ASSERT_TRUE(c.enabled());
    forged.put(0, 24, 0, 1);
    forged.ring(0)->tid = 1; // init's
    Shm future;
    RawClient d(f.socket);
    d.send(future.fd.get());
    ASSERT_TRUE(d.enabled());
    future.put(0, 24, 0, 2, 0x7fffffffffffffffull); // far in the future
    future.put(0, 24, 0, 3, 1);                     // before the trace
    std::this_thread::sleep_for(150ms);
    auto t = f.finish();
    const std::uint64_t t1 = __rdtsc();
    ASSERT_EQ(t.error, "");
    EXPECT_NE(allWarnings(*f.server).find("a ring claims thread 1, which is not one of its"),
              std::string::npos)
        << allWarnings(*f.server);
    ASSERT_EQ(t.events.size(), 2u);
    for (const auto& e : t.events) {
        EXPECT_NE(e.tid, 1);
        EXPECT_GE(e.tsc, t0);
        EXPECT_LE(e.tsc, t1);
    }
}

// One user's connections are capped far below the daemon's descriptors:
// past the cap, a connection is closed at once, and others are served.
TEST(UserServerLimits, ConnectionsPerUserAreCapped) {
    Fixture f("perUid");
    std::vector<std::unique_ptr<RawClient>> clients;
    for (int i = 0; i < 300; ++i)
        clients.push_back(std::make_unique<RawClient>(f.socket));
    std::this_thread::sleep_for(1000ms);
    std::size_t closed = 0;
    for (auto& c : clients)
        closed += c->closedWithin(0);
    EXPECT_GE(closed, 100u);
    EXPECT_LE(closed, 300u - 8u);
    clients.clear();
    std::this_thread::sleep_for(100ms);
    Ran m = runWith(f.socket, {LTT_MARK_BIN, "still served"});
    EXPECT_EQ(exitCode(m), 0) << m.output;
    f.finish();
    EXPECT_GE(f.server->stats().connectionsRefused, closed);
}

// With every descriptor taken, a pending connection is taken with the
// spare descriptor and closed, so accept() does not spin on EMFILE.
TEST(UserServerLimits, NoSpinWhenDescriptorsRunOut) {
    rlimit saved{};
    ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
    Fixture f("emfile");
    rlimit low{512, saved.rlim_max};
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
    std::vector<int> filler;
    for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;)
        filler.push_back(fd);
    // The child's exit status: how many of its connections the server
    // closed (they leave the backlog) within 2 s.
    const pid_t child = ::fork();
    if (child == 0) {
        for (int fd : filler)
            ::close(fd);
        std::vector<int> socks;
        for (int i = 0; i < 20; ++i) {
            int s = ::socket(AF_UNIX, SOCK_SEQPACKET, 0);
            sockaddr_un a{};
            a.sun_family = AF_UNIX;
            std::strcpy(a.sun_path, f.socket.c_str());
            if (::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0)
                socks.push_back(s);
        }
        ::sleep(2);
        int closed = 0;
        for (int s : socks) {
            char c;
            const ssize_t r = ::recv(s, &c, 1, MSG_DONTWAIT);
            closed += r == 0 || (r < 0 && errno != EAGAIN);
        }
        ::_exit(closed);
    }
    std::this_thread::sleep_for(200ms);
    const double cpu0 = processCpuMs();
    std::this_thread::sleep_for(700ms);
    const double used = processCpuMs() - cpu0;
    for (int fd : filler)
        ::close(fd);
    ::setrlimit(RLIMIT_NOFILE, &saved);
    int status = 0;
    ::waitpid(child, &status, 0);
    f.finish();
    EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 20)
        << "connections left in the backlog while descriptors ran out";
    EXPECT_LT(used, 100.0) << "the server spun on EMFILE";
    EXPECT_GT(f.server->stats().connectionsRefused, 0u);
}

// A descriptor whose close waits (here a TCP socket lingering on data its
// peer never reads; a FUSE file whose flush is never answered does the
// same) is closed off the server's thread: others are served meanwhile and
// stop() does not wait for it.
TEST(UserServerLimits, AClosingDescriptorStallsNothing) {
    UniqueFd lst(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(lst.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    ASSERT_EQ(::listen(lst.get(), 1), 0);
    socklen_t al = sizeof a;
    ASSERT_EQ(::getsockname(lst.get(), reinterpret_cast<sockaddr*>(&a), &al), 0);
    UniqueFd out(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    const int small = 4096;
    ::setsockopt(out.get(), SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    ASSERT_EQ(::connect(out.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    UniqueFd in(::accept(lst.get(), nullptr, nullptr)); // never read
    ::fcntl(out.get(), F_SETFL, O_NONBLOCK);
    char junk[4096] = {};
    while (::send(out.get(), junk, sizeof junk, MSG_NOSIGNAL) > 0) {
    }
    linger lg{1, 6};
    ASSERT_EQ(::setsockopt(out.get(), SOL_SOCKET, SO_LINGER, &lg, sizeof lg), 0);

    // The socket travels inside a socket pair's queue: the server's close
    // of that pair's end is then the last reference of both, and the
    // lingering close runs in the server, whoever closed first here.
    int pair[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, pair), 0);
    UniqueFd carrier(pair[0]), inbox(pair[1]);
    {
        const int fd = out.get();
        alignas(cmsghdr) char cbuf[CMSG_SPACE(sizeof(int))] = {};
        char byte = 0;
        iovec iov{&byte, 1};
        msghdr mh{};
        mh.msg_iov = &iov;
        mh.msg_iovlen = 1;
        mh.msg_control = cbuf;
        mh.msg_controllen = sizeof cbuf;
        cmsghdr* c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
        ASSERT_EQ(::sendmsg(carrier.get(), &mh, 0), 1);
    }
    out.reset(); // in flight: not the last reference
    carrier.reset();
    Fixture f("linger");
    {
        RawClient bad(f.socket);
        bad.send(inbox.get()); // as its "memfd"
        inbox.reset();
        std::this_thread::sleep_for(200ms);
    }
    const auto t0 = std::chrono::steady_clock::now();
    Shm shm;
    RawClient good(f.socket);
    good.send(shm.fd.get());
    EXPECT_TRUE(good.enabled());
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 1500ms) << "the server waited for a close";
    const auto s0 = std::chrono::steady_clock::now();
    f.server->stop();
    EXPECT_LT(std::chrono::steady_clock::now() - s0, 2000ms) << "stop() waited for a close";
    EXPECT_NE(allWarnings(*f.server).find("not a memfd"), std::string::npos);
}

// The socket's directory: another user's, or one others may write to (and
// not sticky), is refused; the socket gets its mode from its descriptor,
// whatever the umask.
TEST(UserServerLimits, TheSocketDirectoryIsChecked) {
    const std::string base = ::testing::TempDir() + "/user_dir_" + std::to_string(::getpid());
    std::filesystem::remove_all(base);
    std::filesystem::create_directories(base + "/open");
    ::chmod((base + "/open").c_str(), 0777);
    auto refused = [&](const std::string& dir, const std::string& why) {
        UserServerConfig c;
        c.socketPath = dir + "/user.sock";
        try {
            UserServer s(c, [](std::span<const std::byte>) {});
            ADD_FAILURE() << "served at " << c.socketPath;
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
        }
    };
    refused(base + "/open", "may be written by others");
    if (::geteuid() == 0) {
        std::filesystem::create_directories(base + "/theirs");
        ASSERT_EQ(::chown((base + "/theirs").c_str(), 1000, 1000), 0);
        refused(base + "/theirs", "belongs to uid 1000");
    }
    ::symlink((base + "/open").c_str(), (base + "/link").c_str());
    refused(base + "/link", "cannot open the directory");
    {
        const mode_t old = ::umask(077);
        UserServerConfig c;
        c.socketPath = base + "/mine/user.sock";
        UserServer s(c, [](std::span<const std::byte>) {});
        ::umask(old);
        struct stat st {};
        ASSERT_EQ(::stat(c.socketPath.c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 0777, ::geteuid() == 0 ? 0666u : 0600u);
    }
    std::filesystem::remove_all(base);
}

// The streams the daemon writes are ones a reader takes: threads past the
// trace's (or their user's) cap get no stream, their events are counted,
// and the whole trace still opens.
TEST(UserServerLimits, StreamsStayWithinWhatAReaderTakes) {
    Fixture f("streams");
    constexpr int kClients = 64;
    std::vector<std::unique_ptr<Shm>> shms;
    std::vector<std::unique_ptr<RawClient>> clients;
    for (int i = 0; i < kClients; ++i) {
        shms.push_back(std::make_unique<Shm>(true, LTT_USER_RING_MIN));
        clients.push_back(std::make_unique<RawClient>(f.socket));
        clients.back()->send(shms.back()->fd.get());
        ASSERT_TRUE(clients.back()->enabled());
    }
    // Each ring: a thread logs one event and exits, 65 540 times in all.
    int threads = 0;
    while (threads < 65540) {
        for (auto& s : shms)
            for (unsigned r = 0; r < LTT_USER_SHM_RINGS && threads < 65540; ++r) {
                if (__atomic_load_n(&s->ring(r)->tid, __ATOMIC_ACQUIRE) != 0)
                    continue;
                s->put(r, 24, 0, threads);
                __atomic_store_n(&s->ring(r)->closing, 1u, __ATOMIC_RELEASE);
                ++threads;
            }
        std::this_thread::sleep_for(5ms);
    }
    for (auto& s : shms)
        for (unsigned r = 0; r < LTT_USER_SHM_RINGS; ++r)
            waitUntil([&] { return __atomic_load_n(&s->ring(r)->tid, __ATOMIC_ACQUIRE) == 0; });
    f.server->stop();
    f.writer->close();
    const auto st = f.server->stats();
    EXPECT_EQ(st.events + st.lostNoStream, 65540u);
    EXPECT_GT(st.lostNoStream, 0u);
    TraceError err;
    auto reader = TraceReader::open(f.trace, &err);
    ASSERT_TRUE(reader) << "the trace of " << st.streams
                        << " user streams does not open: " << err.str();
    EXPECT_NE(allWarnings(*f.server).find("no stream for its new threads"), std::string::npos);
}

// The reader takes a trace of more user streams than it can number: the
// streams past its limit are skipped and their records counted lost.
TEST(UserServerLimits, AReaderSkipsUserStreamsPastItsLimit) {
    const std::string path =
        ::testing::TempDir() + "/many_streams_" + std::to_string(::getpid()) + ".trace";
    ltt_trace_info info{};
    info.abi_version = LTT_ABI_VERSION;
    info.ncpus = 1;
    info.tsc_khz = 1000000;
    info.flags = LTT_TRACE_F_TSC_RELIABLE;
    info.max_block = 4096;
    {
        TraceWriter w(path, makeFileHeader(info, "test"));
        BlockBuilder b;
        for (std::uint32_t n = 0; n <= 0xffff; ++n) {
            b.start(static_cast<std::uint16_t>(n), 0, 1000 + n, 100);
            w.append(b.finish(1000 + n, LTT_BLOCK_F_USER | LTT_BLOCK_F_FINAL));
        }
        w.close();
    }
    TraceError err;
    auto reader = TraceReader::open(path, &err);
    ASSERT_TRUE(reader) << "a trace of 65 536 user streams does not open: " << err.str();
    EXPECT_GT(reader->userLostEvents(), 0u);
    std::filesystem::remove(path);
}

} // namespace
