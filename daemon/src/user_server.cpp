#include "user_server.hpp"

#include "commit_buffer.hpp"
#include "trace_device.hpp"
#include "user_shm.h"

#include <algorithm>
#include <atomic>
#include <bitset>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <libltt/block_codec.hpp>
#include <libltt/unique_fd.hpp>
#include <map>
#include <mutex>
#include <optional>
#include <poll.h>
#include <sched.h>
#include <stdexcept>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

namespace ltt::daemon {

namespace {

constexpr std::size_t kMaxProcesses = 1024;
// Descriptors kept for the rest of the daemon (trace files, /proc reads,
// the device, a snapshot's files) when the process cap is derived from
// RLIMIT_NOFILE.
constexpr std::size_t kReservedFds = 256;

// A process that closes descriptors for this one: it shares this
// process's descriptor table (CLONE_FILES), so its close removes the
// descriptor here too, and the file's flush runs, and waits, in that
// process. A FUSE file's flush waits for its server, uninterruptibly (not
// even SIGKILL ends it): on a thread of this process the wait would hold
// the process's exit, which flushes every descriptor still open. The
// closer holds its copy of the table until it ends, so this process's
// exit closes nothing of it. Made with a raw clone (no CLONE_VM: a copy of
// the memory, as fork makes), it runs only system calls: no lock another
// thread may have held, no allocation. It ends when its socket's other end
// closes, or when the thread that made it ends (PR_SET_PDEATHSIG).
#if defined(__SANITIZE_THREAD__)
#define LTT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LTT_TSAN 1
#endif
#endif
class Closer {
public:
    Closer() {
#ifdef LTT_TSAN
        // TSan follows descriptors through this process's close(): one
        // closed by the Closer would look reused without a close (a false
        // race), so a TSan build closes them on the Reaper's thread.
        return;
#endif
        int sv[2];
        if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
            return;
        const long parent = ::syscall(SYS_getpid);
        // x86-64: flags, stack (none: the copy of this one), parent_tid,
        // child_tid, tls. No exit signal: waited for with __WCLONE.
        const long pid = ::syscall(SYS_clone, CLONE_FILES, 0L, 0L, 0L, 0L);
        if (pid == 0) {
            ::syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0L, 0L, 0L);
            int fd = -1;
            if (::syscall(SYS_getppid) == parent)
                while (::syscall(SYS_recvfrom, sv[1], &fd, sizeof fd, 0, 0L, 0L) ==
                       static_cast<long>(sizeof fd))
                    ::syscall(SYS_close, fd);
            ::syscall(SYS_exit, 0);
        }
        if (pid < 0) {
            ::close(sv[0]);
            ::close(sv[1]);
            return;
        }
        pid_m = static_cast<pid_t>(pid);
        to_m = sv[0];
        from_m = sv[1];
    }
    ~Closer() {
        end(std::chrono::milliseconds(0));
    }
    Closer(const Closer&) = delete;
    Closer& operator=(const Closer&) = delete;

    // Has the closer take `fd` (it is closed here too, at once or later);
    // false when there is no closer or its queue is full.
    bool close(int fd) {
        if (to_m < 0)
            return false;
        // A closer that ended (killed with the thread that made it) reads
        // no more: without this, what is sent would stay open here.
        if (::waitpid(pid_m, nullptr, __WCLONE | WNOHANG) != 0) {
            ::close(to_m);
            ::close(from_m);
            to_m = from_m = -1;
            return false;
        }
        return ::send(to_m, &fd, sizeof fd, MSG_NOSIGNAL | MSG_DONTWAIT) ==
               static_cast<ssize_t>(sizeof fd);
    }
    // Lets the closer end once its queue is done, waiting at most
    // `patience` for it; one still in a close is left to end by itself.
    void end(std::chrono::milliseconds patience) {
        if (to_m < 0)
            return;
        ::close(to_m); // the only writer: the closer reads an end of file
        to_m = -1;
        const auto until = std::chrono::steady_clock::now() + patience;
        while (::waitpid(pid_m, nullptr, __WCLONE | WNOHANG) == 0 &&
               std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        ::close(from_m);
        from_m = -1;
    }

private:
    pid_t pid_m = -1;
    int to_m = -1, from_m = -1;
};

// Closes descriptors that clients passed in, on a thread of its own that
// holds no lock: closing a file can wait for whoever serves it (a FUSE
// file's flush waits for its server, a lingering socket for its peer), and
// that must stall neither the server's thread nor its stop(). The thread
// hands each to the Closer process, whose wait holds neither this process
// nor its exit; without one it closes them itself. The thread shares only
// its own state, so a close that never returns can be left behind when the
// server goes away.
class Reaper {
public:
    Reaper() : state_m(std::make_shared<State>()) {
        std::thread([s = state_m] { s->run(); }).detach();
    }
    ~Reaper() { finish(std::chrono::seconds(1)); }
    Reaper(const Reaper&) = delete;
    Reaper& operator=(const Reaper&) = delete;

    void close(UniqueFd fd) {
        if (fd)
            close(fd.release());
    }
    void close(int fd) {
        std::lock_guard l(state_m->m);
        state_m->fds.push_back(fd);
        state_m->cv.notify_all();
    }
    // Lets the thread end once the queue is empty, waiting at most
    // `patience` for it. Idempotent.
    void finish(std::chrono::milliseconds patience) {
        std::unique_lock l(state_m->m);
        state_m->stop = true;
        state_m->cv.notify_all();
        if (state_m->cv.wait_for(l, patience, [&] { return state_m->done; }))
            state_m->closer.end(patience);
    }

private:
    struct State {
        std::mutex m;
        std::condition_variable cv;
        std::deque<int> fds;
        bool stop = false, done = false;
        Closer closer;
        void run() {
            std::unique_lock l(m);
            while (true) {
                cv.wait(l, [&] { return stop || !fds.empty(); });
                if (fds.empty()) {
                    done = true;
                    cv.notify_all();
                    return;
                }
                const int fd = fds.front();
                fds.pop_front();
                l.unlock();
                if (!closer.close(fd))
                    ::close(fd);
                l.lock();
            }
        }
    };
    std::shared_ptr<State> state_m;
};

// The shared memory of one process, mapped; unmapped once.
class ShmMapping {
public:
    ShmMapping() = default;
    ShmMapping(void* p, std::size_t n) : p_m(p), n_m(n) {}
    ~ShmMapping() {
        if (p_m)
            ::munmap(p_m, n_m);
    }
    ShmMapping(ShmMapping&& o) noexcept : p_m(std::exchange(o.p_m, nullptr)), n_m(o.n_m) {}
    ShmMapping& operator=(ShmMapping&& o) noexcept {
        if (this != &o) {
            if (p_m)
                ::munmap(p_m, n_m);
            p_m = std::exchange(o.p_m, nullptr);
            n_m = o.n_m;
        }
        return *this;
    }
    ShmMapping(const ShmMapping&) = delete;
    std::byte* bytes() const { return static_cast<std::byte*>(p_m); }

private:
    void* p_m = nullptr;
    std::size_t n_m = 0;
};

// What the daemon keeps of one ring: its stream in the trace.
struct Stream {
    bool open = false;    // a stream number was given (or refused)
    bool refused = false; // no stream: the cap was reached; events counted lost
    std::uint32_t tid = 0;
    std::uint16_t number = 0;
    std::uint32_t sequence = 0;
    std::uint64_t lastTsc = 0;
    std::uint64_t tail = 0;
    std::uint64_t lostSeen = 0;
    std::bitset<LTT_USER_SHM_TYPES> declared;
};

// A type entry copied out of shared memory and checked: the DECLARE
// record's details, or nullopt when the entry is not a valid type.
struct Declared {
    ltt_ev_user_decl decl{};
    std::size_t size = 0;
    bool trigger = false; // its name is one of the trigger events
};
std::optional<Declared> checkType(const ltt_user_shm_type& e, std::uint32_t id, std::int32_t tgid) {
    if (e.ready != 1 || e.nfields > LTT_USER_FIELDS_MAX)
        return std::nullopt;
    Declared d;
    d.decl.type = id;
    d.decl.tgid = static_cast<std::uint32_t>(tgid);
    d.decl.nfields = e.nfields;
    std::size_t at = 0;
    for (unsigned i = 0; i <= e.nfields; ++i) {
        if (i > 0) {
            if (e.field[i - 1] < LTT_USER_I64 || e.field[i - 1] > LTT_USER_STR)
                return std::nullopt;
            d.decl.field[i - 1] = e.field[i - 1];
        }
        const std::size_t len = ::strnlen(e.names[i], LTT_USER_NAME_MAX);
        if (len == 0 || len == LTT_USER_NAME_MAX)
            return std::nullopt;
        std::memcpy(d.decl.names + at, e.names[i], len + 1);
        at += len + 1;
    }
    d.size = LTT_EV_USER_DECL_FIXED + at;
    return d;
}

struct Process {
    UniqueFd sock;
    UniqueFd wake; // the process's eventfd, or none
    std::int32_t tgid = 0;
    std::uint32_t uid = 0; // SO_PEERCRED at connect
    bool maySnapshot = false;
    bool snapshotWarned = false;
    bool noStreamWarned = false;
    ShmMapping shm;
    std::uint32_t ringBytes = 0; // checked at registration, never re-read
    bool admitted = false;       // by the session's filters
    bool enabled = false;
    bool monotonic = false; // stamps CLOCK_MONOTONIC, not the TSC
    bool dropped = false;
    std::uint64_t lostNoRingSeen = 0;
    // Each type as first checked: a type is copied out and checked once,
    // not at every event, and a process that rewrites an entry later
    // cannot change what the daemon already took from it.
    std::vector<std::unique_ptr<Declared>> types =
        std::vector<std::unique_ptr<Declared>>(LTT_USER_SHM_TYPES);
    std::vector<Stream> streams = std::vector<Stream>(LTT_USER_SHM_RINGS);

    ltt_user_shm_header* header() const {
        return reinterpret_cast<ltt_user_shm_header*>(shm.bytes());
    }
    ltt_user_shm_type* type(std::uint32_t i) const {
        return reinterpret_cast<ltt_user_shm_type*>(shm.bytes() + LTT_USER_SHM_TYPES_OFF) + i;
    }
    ltt_user_shm_ring* ring(std::uint32_t i) const {
        return reinterpret_cast<ltt_user_shm_ring*>(shm.bytes() +
                                                    LTT_USER_SHM_RING_OFF(i, ringBytes));
    }
    const std::byte* ringData(std::uint32_t i) const {
        return reinterpret_cast<const std::byte*>(ring(i) + 1);
    }
};

template <class T> T loadAcquire(T* p) {
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

bool sendKind(int fd, std::uint16_t kind, std::string_view text = {}) {
    ltt_user_msg m{};
    m.magic = LTT_USER_MSG_MAGIC;
    m.version = LTT_USER_SHM_VERSION;
    m.kind = kind;
    if (!text.empty())
        std::memcpy(m.text, text.data(), std::min(text.size(), sizeof m.text - 1));
    return ::send(fd, &m, sizeof m, MSG_NOSIGNAL | MSG_DONTWAIT) == sizeof m;
}

std::uint64_t monotonicNs() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u +
           static_cast<std::uint64_t>(ts.tv_nsec);
}

// The bytes the values of type `decl` take at the start of `data`, or
// nullopt when they do not fit in it.
std::optional<std::size_t> payloadSize(const ltt_ev_user_decl& decl,
                                       std::span<const std::byte> data) {
    std::size_t n = 0;
    for (unsigned i = 0; i < decl.nfields; ++i) {
        if (decl.field[i] == LTT_USER_STR) {
            if (n + 2 > data.size())
                return std::nullopt;
            std::uint16_t len;
            std::memcpy(&len, data.data() + n, 2);
            n += 2 + len;
        } else {
            n += 8;
        }
        if (n > data.size())
            return std::nullopt;
    }
    return n;
}

} // namespace

class UserServer::Impl {
public:
    Impl(UserServerConfig config, BlockSink sink, SnapshotHook snapshot)
        : config_m(std::move(config)), sink_m(std::move(sink)), snapshot_m(std::move(snapshot)) {
        limits();
        listen();
        stopFd_m.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
        if (!stopFd_m)
            throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
        spare_m.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
        setOffset(config_m.anchor);
        refreshClock();
        anchorTsc_m = nowTrace();
        thread_m = std::thread([this] { run(); });
    }
    ~Impl() { stop(); }

    // Without a socket or a thread: for drainImage().
    struct Offline {};
    Impl(Offline, UserServerConfig config, BlockSink sink)
        : config_m(std::move(config)), sink_m(std::move(sink)), stopped_m(true) {
        limits();
        setOffset(config_m.anchor);
        anchorTsc_m = 0;
    }

    std::vector<std::string> drainImage(std::span<const std::byte> image) {
        ltt_user_shm_header h{};
        if (image.size() < sizeof h)
            return {"an image shorter than its header"};
        std::memcpy(&h, image.data(), sizeof h);
        const std::uint32_t rb = h.ring_bytes;
        if (h.magic != LTT_USER_SHM_MAGIC || h.version != LTT_USER_SHM_VERSION ||
            rb < LTT_USER_RING_MIN || rb > LTT_USER_RING_MAX || (rb & (rb - 1)) ||
            h.size != LTT_USER_SHM_SIZE(rb) || image.size() != LTT_USER_SHM_SIZE(rb))
            return {"a bad header"};
        void* map = ::mmap(nullptr, image.size(), PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map == MAP_FAILED)
            return {"no memory"};
        std::memcpy(map, image.data(), image.size());
        std::lock_guard lock(mutex_m);
        Process p;
        p.shm = ShmMapping(map, image.size());
        p.ringBytes = rb;
        p.tgid = ::getpid();
        p.uid = ::geteuid();
        p.admitted = p.enabled = p.maySnapshot = true;
        p.monotonic = config_m.clock == UserClock::Monotonic;
        drainProcess(p, false);
        if (!p.dropped)
            drainProcess(p, true);
        return warnings_m;
    }

    void stop() {
        if (stopped_m.exchange(true))
            return;
        std::uint64_t one = 1;
        if (::write(stopFd_m.get(), &one, sizeof one) < 0) {
        }
        thread_m.join();
        {
            std::lock_guard lock(mutex_m);
            for (auto& p : processes_m) {
                if (p->dropped)
                    continue;
                if (p->enabled) {
                    __atomic_store_n(&p->header()->enabled, 0u, __ATOMIC_RELEASE);
                    sendKind(p->sock.get(), LTT_USER_MSG_DISABLE);
                }
            }
            // Events logged by a thread that saw the enabled word just
            // before it was cleared are in the rings by now, or stay there
            // for the next daemon.
            for (auto& p : processes_m)
                if (!p->dropped)
                    drainProcess(*p, true);
            processes_m.clear();
        }
        struct stat st;
        if (::stat(config_m.socketPath.c_str(), &st) == 0 && st.st_ino == socketIno_m &&
            st.st_dev == socketDev_m)
            ::unlink(config_m.socketPath.c_str());
        listen_m.reset();
        // Descriptors still being closed (a close that never returns) are
        // left to the reaper's thread.
        reaper_m.finish(std::chrono::milliseconds(500));
    }

    UserServerStats stats() const {
        std::lock_guard lock(mutex_m);
        return stats_m;
    }
    std::vector<std::string> warnings() const {
        std::lock_guard lock(mutex_m);
        return warnings_m;
    }

private:
    void warn(std::string w) {
        if (warnings_m.size() < 100)
            warnings_m.push_back(std::move(w));
    }

    // RLIMIT_NOFILE's soft limit raised to the hard one, and the caps that
    // keep the processes' descriptors (a socket, an eventfd and, while a
    // message is read, up to four passed ones) well within it.
    void limits() {
        rlimit rl{};
        if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
            rl.rlim_cur = rl.rlim_max;
            ::setrlimit(RLIMIT_NOFILE, &rl);
            ::getrlimit(RLIMIT_NOFILE, &rl);
        }
        const std::uint64_t fds = rl.rlim_cur == RLIM_INFINITY ? (1u << 20) : rl.rlim_cur;
        maxProcesses_m = fds > kReservedFds + 48 ? (fds - kReservedFds) / 3 : 16;
        maxProcesses_m = std::min(maxProcesses_m, kMaxProcesses);
        maxPerUid_m = std::max<std::size_t>(8, maxProcesses_m / 8);
        // A reader takes ncpus + streams < 0xffff.
        const std::uint32_t ncpus = std::min<std::uint32_t>(config_m.ncpus, 0x7fff);
        maxStreams_m = 0xfffeu - ncpus;
        maxStreamsPerUid_m = maxStreams_m / 4;
    }

    // The directory of the socket: created (0755 for root, any user's
    // process connects; 0700 for a user's daemon), or when it exists,
    // opened without following a link and checked on the descriptor: this
    // user's or root's, and writable by nobody else unless sticky (where
    // nobody else can rename or remove what the daemon puts there).
    void checkDirectory(const std::string& dir) {
        if (::mkdir(dir.c_str(), ::geteuid() == 0 ? 0755 : 0700) != 0 && errno != EEXIST)
            throw std::runtime_error("cannot create " + dir + ": " + std::strerror(errno));
        UniqueFd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        struct stat st {};
        if (!d || ::fstat(d.get(), &st) != 0)
            throw std::runtime_error("cannot open the directory " + dir + ": " +
                                     std::strerror(errno));
        if (st.st_uid != ::geteuid() && st.st_uid != 0)
            throw std::runtime_error("the directory " + dir + " belongs to uid " +
                                     std::to_string(st.st_uid) +
                                     ": refusing to serve user events there");
        if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
            throw std::runtime_error("the directory " + dir +
                                     " may be written by others: refusing to serve user "
                                     "events there");
    }

    void listen() {
        const std::string& path = config_m.socketPath;
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        const std::string tmp = path + "." + std::to_string(::getpid()) + ".new";
        if (tmp.size() >= sizeof a.sun_path)
            throw std::runtime_error("user event socket path too long: " + path);
        if (auto slash = path.rfind('/'); slash != std::string::npos && slash > 0)
            checkDirectory(path.substr(0, slash));
        // Another daemon answering there keeps its socket.
        {
            UniqueFd probe(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
            std::strcpy(a.sun_path, path.c_str());
            if (probe && ::connect(probe.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) == 0)
                throw std::runtime_error("another tracedaemon serves user events at " + path);
        }
        listen_m.reset(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
        if (!listen_m)
            throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
        std::strcpy(a.sun_path, tmp.c_str());
        ::unlink(tmp.c_str());
        // The socket's mode is set on its descriptor, which bind() gives the
        // file it creates (less the umask, cleared meanwhile): no chmod by a
        // path that could name something else by then.
        int rc = ::fchmod(listen_m.get(), ::geteuid() == 0 ? 0666 : 0600);
        // Every message carries its sender's credentials (SCM_CREDENTIALS;
        // the connections inherit it): readClient() refuses one that
        // another process sends on a connection it inherited or was given.
        const int on = 1;
        if (rc == 0)
            rc = ::setsockopt(listen_m.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
        if (rc == 0) {
            const mode_t old = ::umask(0);
            rc = ::bind(listen_m.get(), reinterpret_cast<sockaddr*>(&a), sizeof a);
            const int e = errno;
            ::umask(old);
            errno = e;
        }
        if (rc != 0 || ::listen(listen_m.get(), 64) != 0 ||
            ::rename(tmp.c_str(), path.c_str()) != 0) {
            const int e = errno;
            ::unlink(tmp.c_str());
            throw std::runtime_error("cannot listen on " + path + ": " + std::strerror(e));
        }
        struct stat st;
        if (::stat(path.c_str(), &st) == 0) {
            socketIno_m = st.st_ino;
            socketDev_m = st.st_dev;
        }
    }

    void run() {
        auto nextDrain = std::chrono::steady_clock::now() + config_m.drainEvery;
        while (true) {
            const auto now = std::chrono::steady_clock::now();
            // While the daemon has no descriptor to take a connection with,
            // the listener is left alone (it would be readable at once).
            const bool listening = now >= listenPausedUntil_m;
            // Two per process: its socket, its wakeup eventfd.
            std::vector<pollfd> fds{{stopFd_m.get(), POLLIN, 0},
                                    {listening ? listen_m.get() : -1, POLLIN, 0}};
            {
                std::lock_guard lock(mutex_m);
                for (auto& p : processes_m) {
                    fds.push_back({p->dropped ? -1 : p->sock.get(), POLLIN, 0});
                    fds.push_back({p->dropped || !p->shm.bytes() ? -1 : p->wake.get(), POLLIN, 0});
                }
            }
            auto until = nextDrain;
            if (!listening)
                until = std::min(until, listenPausedUntil_m);
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - now);
            const int r = ::poll(fds.data(), fds.size(), std::max<int>(0, left.count() + 1));
            if (r < 0 && errno != EINTR)
                return;
            if (fds[0].revents)
                return;
            std::lock_guard lock(mutex_m);
            if (fds[1].revents & POLLIN)
                accept();
            // A process whose eventfd fires gets one drain per pass of this
            // loop however often it writes: a storm of wakeups costs its
            // own drains, and every other process is still served in the
            // same pass and at the tick.
            for (std::size_t i = 2; i + 1 < fds.size() && (i - 2) / 2 < processes_m.size();
                 i += 2) {
                Process& p = *processes_m[(i - 2) / 2];
                if (fds[i].revents)
                    readClient(p);
                if (fds[i + 1].revents && !p.dropped) {
                    std::uint64_t count;
                    if (::read(p.wake.get(), &count, sizeof count) < 0) {
                    }
                    ++stats_m.wakeups;
                    drainProcess(p, false);
                }
            }
            std::erase_if(processes_m, [](const auto& p) { return p->dropped; });
            if (std::chrono::steady_clock::now() >= nextDrain) {
                for (auto& p : processes_m)
                    drainProcess(*p, false);
                nextDrain = std::chrono::steady_clock::now() + config_m.drainEvery;
            }
        }
    }

    bool admits(const ucred& cred) const {
        if (config_m.pid && *config_m.pid != cred.pid)
            return false;
        if (config_m.uid && *config_m.uid != cred.uid)
            return false;
        if (config_m.gid && *config_m.gid != cred.gid)
            return false;
        if (config_m.pgrp && *config_m.pgrp != ::getpgid(cred.pid))
            return false;
        return true;
    }

    // Whether the peer may ask for snapshots: uid 0, the daemon's uid, or
    // a member of the configured group (its supplementary groups from
    // SO_PEERGROUPS).
    bool maySnapshot(int fd, const ucred& cred) const {
        if (cred.uid == 0 || cred.uid == ::geteuid())
            return true;
        if (!config_m.snapshotGid)
            return false;
        if (cred.gid == *config_m.snapshotGid)
            return true;
        std::vector<gid_t> groups(64);
        socklen_t len = static_cast<socklen_t>(groups.size() * sizeof(gid_t));
        if (::getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &len) != 0 &&
            errno == ERANGE) {
            groups.resize(len / sizeof(gid_t) + 1);
            len = static_cast<socklen_t>(groups.size() * sizeof(gid_t));
            if (::getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &len) != 0)
                return false;
        }
        groups.resize(len / sizeof(gid_t));
        return std::find(groups.begin(), groups.end(), *config_m.snapshotGid) != groups.end();
    }

    void refuseConnection(const std::string& why) {
        ++stats_m.connectionsRefused;
        if (stats_m.connectionsRefused <= 10)
            warn("user events: refused a connection: " + why);
    }

    void accept() {
        while (true) {
            UniqueFd fd(::accept4(listen_m.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
            if (!fd) {
                if (errno == EMFILE || errno == ENFILE) {
                    // No descriptor left: the spare one makes room to take
                    // the connection and close it, so it leaves the backlog
                    // and the listener stops being readable.
                    // (accept4 takes the descriptor first: EMFILE comes with
                    // an empty backlog too, and then the spare takes nothing.)
                    if (spare_m) {
                        spare_m.reset();
                        UniqueFd late(::accept4(listen_m.get(), nullptr, nullptr, SOCK_CLOEXEC));
                        const bool took = static_cast<bool>(late);
                        late.reset();
                        spare_m.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
                        if (took) {
                            refuseConnection("the daemon has no file descriptor left");
                            if (spare_m)
                                continue;
                        }
                    }
                    listenPausedUntil_m = std::chrono::steady_clock::now() + config_m.drainEvery;
                } else if (errno == ENOBUFS || errno == ENOMEM) {
                    listenPausedUntil_m = std::chrono::steady_clock::now() + config_m.drainEvery;
                }
                return;
            }
            ucred cred{};
            socklen_t len = sizeof cred;
            if (::getsockopt(fd.get(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
                continue;
            if (config_m.onlyOwnUid && cred.uid != ::getuid()) {
                ++stats_m.refused;
                continue; // another user's process: closed at once
            }
            if (processes_m.size() >= maxProcesses_m) {
                ++stats_m.refused;
                refuseConnection("more than " + std::to_string(maxProcesses_m) +
                                 " processes; refusing pid " + std::to_string(cred.pid));
                continue;
            }
            const auto ofUid = std::count_if(processes_m.begin(), processes_m.end(),
                                             [&](const auto& p) { return p->uid == cred.uid; });
            if (static_cast<std::size_t>(ofUid) >= maxPerUid_m) {
                ++stats_m.refused;
                refuseConnection("uid " + std::to_string(cred.uid) + " has " +
                                 std::to_string(maxPerUid_m) + " processes; refusing pid " +
                                 std::to_string(cred.pid));
                continue;
            }
            auto p = std::make_unique<Process>();
            p->tgid = cred.pid;
            p->uid = cred.uid;
            p->maySnapshot = maySnapshot(fd.get(), cred);
            p->sock = std::move(fd);
            p->admitted = admits(cred);
            processes_m.push_back(std::move(p));
        }
    }

    void drop(Process& p, const std::string& why) {
        if (p.dropped)
            return;
        ++stats_m.refused;
        warn("user events: dropped pid " + std::to_string(p.tgid) + ": " + why);
        if (p.shm.bytes() && p.enabled)
            __atomic_store_n(&p.header()->enabled, 0u, __ATOMIC_RELEASE);
        p.dropped = true;
        // Streams that reached the file end there, with an empty final
        // block (a block being built for this process is discarded).
        for (const Stream& s : p.streams)
            if (s.open && !s.refused && s.sequence > 0) {
                builder_m.start(s.number, s.sequence, s.lastTsc, static_cast<std::int32_t>(s.tid));
                sink_m(builder_m.finish(s.lastTsc, userFlags(p) | LTT_BLOCK_F_FINAL));
                ++stats_m.blocks;
            }
    }

    // A snapshot asked for by `p` (a message, a trigger event): passed on
    // when the process may ask, else counted (and said once per process).
    void askSnapshot(Process& p, const std::string& why) {
        if (!p.maySnapshot || !p.admitted || !p.shm.bytes()) {
            ++stats_m.snapshotsRefused;
            if (!p.snapshotWarned) {
                p.snapshotWarned = true;
                warn("user events: pid " + std::to_string(p.tgid) + " (uid " +
                     std::to_string(p.uid) + ") may not ask for snapshots; ignored");
            }
            return;
        }
        if (snapshot_m)
            snapshot_m(why);
    }

    // The descriptors of one message, handed to the reaper whatever
    // becomes of the message (those kept are moved out first).
    struct Passed {
        Reaper& reaper;
        UniqueFd memfd, wake;
        explicit Passed(Reaper& r) : reaper(r) {}
        ~Passed() {
            reaper.close(std::move(memfd));
            reaper.close(std::move(wake));
        }
        Passed(const Passed&) = delete;
        Passed& operator=(const Passed&) = delete;
    };

    void readClient(Process& p) {
        ltt_user_msg m{};
        alignas(cmsghdr) char cbuf[CMSG_SPACE(sizeof(int) * 4) + CMSG_SPACE(sizeof(ucred))];
        iovec iov{&m, sizeof m};
        msghdr mh{};
        mh.msg_iov = &iov;
        mh.msg_iovlen = 1;
        mh.msg_control = cbuf;
        mh.msg_controllen = sizeof cbuf;
        const ssize_t n = ::recvmsg(p.sock.get(), &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            // The process went away: take what it left in its rings.
            if (p.shm.bytes() && !p.dropped)
                drainProcess(p, true);
            p.dropped = true;
            return;
        }
        if (n < 0)
            return;
        Passed passed(reaper_m);
        std::optional<ucred> sender;
        for (cmsghdr* c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
                c->cmsg_len >= CMSG_LEN(sizeof(ucred))) {
                sender.emplace();
                std::memcpy(&*sender, CMSG_DATA(c), sizeof(ucred));
            }
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (std::size_t i = 0; i < count; ++i) {
                    int fd;
                    std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
                    if (i == 0 && !passed.memfd)
                        passed.memfd.reset(fd);
                    else if (i == 1 && !passed.wake)
                        passed.wake.reset(fd);
                    else
                        reaper_m.close(fd);
                }
            }
        }
        // The connection speaks for the process that connected (its pid
        // names the process's threads, its uid admits it): a message that
        // another process sends on it is refused.
        if (sender && (sender->pid != p.tgid || sender->uid != p.uid)) {
            drop(p, "a message from pid " + std::to_string(sender->pid) + " (uid " +
                        std::to_string(sender->uid) + "), not the process that connected");
            return;
        }
        if (n != sizeof m || m.magic != LTT_USER_MSG_MAGIC || m.version != LTT_USER_SHM_VERSION ||
            (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
            drop(p, "a malformed message");
            return;
        }
        if (m.kind == LTT_USER_MSG_SNAPSHOT) {
            const std::string_view text(m.text, ::strnlen(m.text, sizeof m.text));
            askSnapshot(p, escapeText(text));
            return;
        }
        if (m.kind != LTT_USER_MSG_REGISTER || p.shm.bytes()) {
            drop(p, "an unexpected message");
            return;
        }
        registerShm(p, passed.memfd, passed.wake);
    }

    // Whether `fd` is an eventfd: anything else (a pipe, a socket, a file)
    // could block the daemon's read or never stop being readable.
    static bool isEventFd(int fd) {
        char link[64];
        const std::string path = "/proc/self/fd/" + std::to_string(fd);
        const ssize_t n = ::readlink(path.c_str(), link, sizeof link);
        return n > 0 &&
               std::string_view(link, static_cast<std::size_t>(n)) == "anon_inode:[eventfd]";
    }

    // Whether the (non-blocking) eventfd `fd` counts as a semaphore
    // (EFD_SEMAPHORE): each read takes 1 and it stays readable while its
    // count lasts, up to 2^64 reads, so polling it would never sleep.
    // Written 2 and read back: a semaphore gives 1, a counter all it holds.
    // An eventfd that cannot take the 2 (a count near its maximum) is
    // refused too.
    static bool isSemaphore(int fd) {
        const std::uint64_t two = 2;
        std::uint64_t got = 0;
        if (::write(fd, &two, sizeof two) != sizeof two ||
            ::read(fd, &got, sizeof got) != sizeof got)
            return true;
        return got == 1;
    }

    void registerShm(Process& p, UniqueFd& fd, UniqueFd& wake) {
        if (!fd) {
            drop(p, "REGISTER without a memfd");
            return;
        }
        if (wake && !isEventFd(wake.get())) {
            drop(p, "its wakeup descriptor is not an eventfd");
            return;
        }
        if (wake) {
            ::fcntl(wake.get(), F_SETFL, O_NONBLOCK);
            if (isSemaphore(wake.get())) {
                drop(p, "its wakeup eventfd is a semaphore (it would never stop being readable)");
                return;
            }
        }
        // The ring size comes from the header (read with pread); the whole
        // is mapped only when the memfd (sealed: it cannot shrink under
        // us) has exactly the size that ring size gives. The seals are
        // asked first: only memory files have them, and nothing else is
        // asked of a file that has none (a FUSE file's fstat would wait for
        // its server).
        struct stat st;
        const int seals = ::fcntl(fd.get(), F_GET_SEALS);
        ltt_user_shm_header h{};
        if (seals < 0 || !(seals & F_SEAL_SHRINK) || ::fstat(fd.get(), &st) != 0 ||
            !S_ISREG(st.st_mode) || ::pread(fd.get(), &h, sizeof h, 0) != sizeof h) {
            drop(p, "its shared memory is not a memfd sealed against shrinking");
            return;
        }
        const std::uint32_t rb = h.ring_bytes;
        if (h.magic != LTT_USER_SHM_MAGIC || h.version != LTT_USER_SHM_VERSION ||
            rb < LTT_USER_RING_MIN || rb > LTT_USER_RING_MAX || (rb & (rb - 1)) ||
            h.size != LTT_USER_SHM_SIZE(rb) ||
            static_cast<std::uint64_t>(st.st_size) != LTT_USER_SHM_SIZE(rb)) {
            drop(p, "its shared memory has a bad magic, version, ring size or size");
            return;
        }
        const std::size_t size = LTT_USER_SHM_SIZE(rb);
        void* map = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
        if (map == MAP_FAILED) {
            drop(p, std::string("cannot map its shared memory: ") + std::strerror(errno));
            return;
        }
        p.shm = ShmMapping(map, size);
        p.ringBytes = rb;
        p.wake = std::move(wake);
        ++stats_m.processes;
        p.lostNoRingSeen = loadAcquire(&p.header()->lost_no_ring);
        // A process this daemon will not record learns it now, not by
        // waiting for an ENABLE that never comes.
        const std::uint32_t clocks = loadAcquire(&p.header()->clocks);
        std::string refusal;
        if (!config_m.record)
            refusal = config_m.refusal;
        else if (!p.admitted)
            refusal = "the session's filters (-P, -u, -g, -G, -T) leave pid " +
                      std::to_string(p.tgid) + " out";
        else if (config_m.clock == UserClock::Monotonic && !(clocks & LTT_USER_CLOCK_F_MONOTONIC))
            refusal = "its libltt-user stamps events with the TSC only, and this trace's clock "
                      "is not a TSC (a newer libltt-user uses CLOCK_MONOTONIC)";
        if (!refusal.empty()) {
            sendKind(p.sock.get(), LTT_USER_MSG_REFUSE, refusal);
            return;
        }
        p.monotonic = config_m.clock == UserClock::Monotonic;
        __atomic_store_n(&p.header()->clock,
                         p.monotonic ? std::uint32_t{LTT_USER_CLOCK_MONOTONIC}
                                     : std::uint32_t{LTT_USER_CLOCK_TSC},
                         __ATOMIC_RELEASE);
        // Losses before this daemon are not ours to report.
        for (std::uint32_t i = 0; i < LTT_USER_SHM_RINGS; ++i)
            p.streams[i].lostSeen = loadAcquire(&p.ring(i)->lost);
        p.enabled = true;
        ++stats_m.enabled;
        __atomic_store_n(&p.header()->enabled, 1u, __ATOMIC_RELEASE);
        sendKind(p.sock.get(), LTT_USER_MSG_ENABLE);
    }

    void drainProcess(Process& p, bool final) {
        if (!p.shm.bytes())
            return;
        if (!p.enabled) {
            // Nothing of it is recorded, but its exited threads' rings
            // still go back to it.
            for (std::uint32_t i = 0; i < LTT_USER_SHM_RINGS; ++i)
                if (loadAcquire(&p.ring(i)->closing))
                    freeRing(*p.ring(i));
            return;
        }
        refreshClock();
        const std::uint64_t noRing = loadAcquire(&p.header()->lost_no_ring);
        if (noRing > p.lostNoRingSeen) {
            stats_m.lostNoRing += noRing - p.lostNoRingSeen;
            p.lostNoRingSeen = noRing;
        }
        for (std::uint32_t i = 0; i < LTT_USER_SHM_RINGS && !p.dropped; ++i)
            drainRing(p, i, final);
    }

    static void freeRing(ltt_user_shm_ring& r) {
        r.head = 0;
        r.tail = 0;
        r.lost = 0;
        __atomic_store_n(&r.closing, 0u, __ATOMIC_RELAXED);
        __atomic_store_n(&r.tid, 0u, __ATOMIC_RELEASE);
    }

    // Whether `tid` may be a thread of `tgid`: one of its tasks, or no task
    // at all any more (a thread that exited before its ring was drained).
    // A live task of another process is not (the check is racy against pid
    // reuse, but a client cannot name a thread of another process that
    // runs).
    bool threadOf(std::int32_t tgid, std::uint32_t tid) const {
        if (tid > 0x3fffffffu)
            return false;
        if (static_cast<std::int32_t>(tid) == tgid)
            return true;
        const std::string root = config_m.procRoot + "/";
        struct stat st;
        if (::stat((root + std::to_string(tgid) + "/task/" + std::to_string(tid)).c_str(), &st) ==
            0)
            return true;
        return ::stat((root + std::to_string(tid)).c_str(), &st) != 0 && errno == ENOENT;
    }

    // Copies `len` bytes of ring `i` from byte `at` (a count since the ring
    // was claimed) to `out`, across the ring's end.
    void copyOut(const Process& p, std::uint32_t i, std::uint64_t at, void* out,
                 std::size_t len) const {
        const std::size_t off = at & (p.ringBytes - 1);
        const std::size_t first = std::min<std::size_t>(len, p.ringBytes - off);
        std::memcpy(out, p.ringData(i) + off, first);
        std::memcpy(static_cast<std::byte*>(out) + first, p.ringData(i), len - first);
    }

    // Copies the `n` bytes of records after the stream's tail into bytes_m,
    // one record at a time, each header checked before the bytes it
    // announces are read: the daemon touches no more of the client's memory
    // than the records there are (a hole in a sparse memfd reads as a size
    // of 0 and ends the copy after one page). Returns the records copied,
    // or nullopt with `bad` saying what was wrong.
    std::optional<std::uint64_t> copyRecords(const Process& p, std::uint32_t i, const Stream& s,
                                             std::size_t n, std::string& bad) {
        bytes_m.clear();
        bytes_m.reserve(n); // one allocation per drain, not one per growth
        std::uint64_t records = 0;
        for (std::size_t o = 0; o < n; ++records) {
            ltt_user_rec h;
            if (n - o < sizeof h) {
                bad = "a record cut short";
                return std::nullopt;
            }
            copyOut(p, i, s.tail + o, &h, sizeof h);
            if (h.size < sizeof h || h.size % 8 || h.size > LTT_USER_REC_MAX + 7 ||
                h.size > n - o || h.type >= LTT_USER_SHM_TYPES) {
                bad = "a record of bad size " + std::to_string(h.size) + " or type " +
                      std::to_string(h.type);
                return std::nullopt;
            }
            bytes_m.resize(o + h.size);
            std::memcpy(bytes_m.data() + o, &h, sizeof h);
            copyOut(p, i, s.tail + o + sizeof h, bytes_m.data() + o + sizeof h, h.size - sizeof h);
            o += h.size;
        }
        return records;
    }

    // A new stream for ring `i`'s thread: a number, or refused when the
    // trace's or the user's cap is reached (its events are then counted
    // lost, and said once per process).
    void openStream(Process& p, Stream& s, std::uint32_t i, std::uint32_t tid) {
        s.open = true;
        s.tid = tid;
        s.tail = loadAcquire(&p.ring(i)->tail);
        std::uint32_t& ofUid = streamsOfUid_m[p.uid];
        if (nextStream_m >= maxStreams_m || ofUid >= maxStreamsPerUid_m) {
            s.refused = true;
            if (!p.noStreamWarned) {
                p.noStreamWarned = true;
                warn("user events: pid " + std::to_string(p.tgid) + " (uid " +
                     std::to_string(p.uid) + "): no stream for its new threads (" +
                     (nextStream_m >= maxStreams_m
                          ? std::to_string(maxStreams_m) + " in this trace"
                          : std::to_string(maxStreamsPerUid_m) + " of its user") +
                     "); their events are counted lost");
            }
            return;
        }
        ++ofUid;
        s.number = static_cast<std::uint16_t>(nextStream_m++);
        ++stats_m.streams;
    }

    void drainRing(Process& p, std::uint32_t i, bool final) {
        ltt_user_shm_ring* r = p.ring(i);
        Stream& s = p.streams[i];
        // Closing first, then the thread, then head. A thread claims a
        // free ring (tid) before it can mark it closing, so a ring seen
        // closing has its owner's tid; read the other way round, a free
        // ring's tid of 0 could be followed by a new owner's whole life
        // (claimed, logged, exited) and look like a ring closing with no
        // thread. And once closing is 1 the head is final.
        const bool closing = loadAcquire(&r->closing) != 0;
        const std::uint32_t tid = loadAcquire(&r->tid);
        if (closing && tid == 0) {
            drop(p, "a ring closing with no thread");
            return;
        }
        if (!s.open) {
            if (tid == 0)
                return;
            if (!threadOf(p.tgid, tid)) {
                drop(p, "a ring claims thread " + std::to_string(tid) +
                            ", which is not one of its threads");
                return;
            }
            openStream(p, s, i, tid);
        }
        const std::uint64_t head = loadAcquire(&r->head);
        const std::uint64_t lost = loadAcquire(&r->lost);
        if (head - s.tail > p.ringBytes) {
            drop(p, "a ring's head ran ahead of its tail by more than the ring");
            return;
        }
        const std::uint64_t newLost = lost > s.lostSeen ? lost - s.lostSeen : 0;
        s.lostSeen = lost;
        const std::size_t n = static_cast<std::size_t>(head - s.tail);
        const bool last = final || closing;
        if (n == 0 && newLost == 0 && !last)
            return;
        // Copy first: the process may change the ring while it is read.
        std::string bad;
        const auto records = copyRecords(p, i, s, n, bad);
        if (!records) {
            drop(p, bad);
            return; // the block is not written; the file stays valid
        }
        if (s.refused) {
            stats_m.lostNoStream += *records + newLost;
            __atomic_store_n(&r->tail, head, __ATOMIC_RELEASE);
            s.tail = head;
            if (closing) {
                s = Stream{};
                freeRing(*r);
            }
            return;
        }

        // Times stay within [the server's start, now] and never go back
        // within a stream (a thread that moved to a CPU whose TSC is
        // behind); a client's timestamps cannot stretch the trace.
        nowTsc_m = nowTrace();
        std::uint64_t startTsc = nowTsc_m;
        if (n >= sizeof(ltt_user_rec)) {
            std::memcpy(&startTsc, bytes_m.data() + offsetof(ltt_user_rec, tsc), sizeof startTsc);
            startTsc = toTrace(p, startTsc);
        }
        startTsc = clampTsc(startTsc, s);
        s.lastTsc = startTsc;
        builder_m.start(s.number, s.sequence, startTsc, static_cast<std::int32_t>(s.tid), newLost,
                        startTsc);
        std::uint64_t written = 0;
        std::string trigger;
        for (std::size_t o = 0; o < bytes_m.size();) {
            ltt_user_rec h;
            std::memcpy(&h, bytes_m.data() + o, sizeof h);
            if (!writeEvent(p, s, h, {bytes_m.data() + o + sizeof h, h.size - sizeof h}, trigger))
                break;
            ++written;
            o += h.size;
        }
        if (p.dropped)
            return; // the block is not written; the file stays valid
        // A block ends at its last record's time, and the stream's last
        // block at now: an end at "now" would hold back the times of the
        // events the thread logged while this drain ran (the next block
        // may not start before it), on another CPU.
        const std::uint64_t end = last ? std::max<std::uint64_t>(s.lastTsc, nowTrace()) : s.lastTsc;
        const auto block = builder_m.finish(end, userFlags(p) | (last ? LTT_BLOCK_F_FINAL : 0));
        s.lastTsc = end;
        ++s.sequence;
        sink_m(block);
        ++stats_m.blocks;
        stats_m.events += written;
        stats_m.lost += newLost;
        __atomic_store_n(&r->tail, head, __ATOMIC_RELEASE);
        s.tail = head;
        if (closing) {
            // The thread's stream ended; its ring's next owner starts a
            // new one.
            s = Stream{};
            freeRing(*r);
        }
        if (!trigger.empty())
            askSnapshot(p, "application event " + trigger);
    }

    // The trace clock now: the TSC, or CLOCK_MONOTONIC moved by the offset.
    std::uint64_t nowTrace() const {
        return config_m.clock == UserClock::Monotonic ? shift(monotonicNs()) : __rdtsc();
    }
    std::uint64_t shift(std::uint64_t mono) const {
        const auto t = static_cast<std::int64_t>(mono) + offset_m;
        return t < 0 ? 0 : static_cast<std::uint64_t>(t);
    }
    // A record's stamp on the trace clock.
    std::uint64_t toTrace(const Process& p, std::uint64_t stamp) const {
        return p.monotonic ? shift(stamp) : stamp;
    }
    void setOffset(const ClockPair& pair) {
        offset_m = static_cast<std::int64_t>(pair.trace - pair.monotonic);
    }
    // A fresh pair from the module, when it gives one: the offset follows
    // the kernel's clock however that drifts from CLOCK_MONOTONIC (NTP
    // slewing one and not the other, a sched_clock that is not re-anchored).
    void refreshClock() {
        if (config_m.clock != UserClock::Monotonic || !config_m.clockPair)
            return;
        auto pair = config_m.clockPair();
        if (!pair)
            return;
        const std::int64_t before = offset_m;
        setOffset(*pair);
        if (stats_m.clockPairs++ > 0) {
            const std::int64_t d = offset_m - before;
            stats_m.clockWanderNs =
                std::max(stats_m.clockWanderNs, static_cast<std::uint64_t>(d < 0 ? -d : d));
        }
    }
    static std::uint16_t userFlags(const Process& p) {
        return LTT_BLOCK_F_USER | (p.monotonic ? LTT_BLOCK_F_USER_MONOTONIC : 0);
    }

    std::uint64_t clampTsc(std::uint64_t tsc, const Stream& s) const {
        return std::min(std::max({tsc, s.lastTsc, anchorTsc_m}), std::max(nowTsc_m, s.lastTsc));
    }

    bool writeEvent(Process& p, Stream& s, const ltt_user_rec& h, std::span<const std::byte> values,
                    std::string& trigger) {
        auto& d = p.types[h.type];
        if (!d) {
            const ltt_user_shm_type entry = *p.type(h.type);
            auto checked = checkType(entry, h.type, p.tgid);
            if (!checked) {
                drop(p, "an event of undeclared or malformed type " + std::to_string(h.type));
                return false;
            }
            const std::string_view name(checked->decl.names);
            checked->trigger =
                std::find(config_m.triggerEvents.begin(), config_m.triggerEvents.end(), name) !=
                config_m.triggerEvents.end();
            d = std::make_unique<Declared>(*checked);
        }
        auto size = payloadSize(d->decl, values);
        if (!size || values.size() - *size >= 8 || *size > LTT_USER_PAYLOAD_MAX) {
            drop(p, "an event whose values do not match its type " + std::to_string(h.type));
            return false;
        }
        if (d->trigger && trigger.empty())
            trigger = d->decl.names;
        const std::uint64_t tsc = clampTsc(toTrace(p, h.tsc), s);
        s.lastTsc = tsc;
        // Room for a declaration, the event, a heartbeat and BLOCK_END;
        // else this block ends here and the next one goes on.
        const std::size_t need = (s.declared.test(h.type) ? 0 : 8 + d->size + 3) + 8 +
                                 LTT_EV_USER_FIXED + *size + 3 + 16 + kBlockEndRecord;
        if (builder_m.size() + need > config_m.maxBlock && builder_m.records() > 1) {
            sink_m(builder_m.finish(tsc, userFlags(p)));
            ++stats_m.blocks;
            ++s.sequence;
            builder_m.start(s.number, s.sequence, tsc, static_cast<std::int32_t>(s.tid));
        }
        if (!s.declared.test(h.type)) {
            s.declared.set(h.type);
            builder_m.extRecord(tsc, LTT_EV_USER, LTT_USER_DECLARE, &d->decl, d->size);
        }
        ltt_ev_user ev;
        ev.type = h.type;
        ev.tgid = static_cast<std::uint32_t>(p.tgid);
        std::memcpy(ev.data, values.data(), *size);
        builder_m.extRecord(tsc, LTT_EV_USER, LTT_USER_EVENT, &ev, LTT_EV_USER_FIXED + *size);
        return true;
    }

    UserServerConfig config_m;
    BlockSink sink_m;
    SnapshotHook snapshot_m;
    Reaper reaper_m; // before the descriptors: it outlives none of them
    UniqueFd listen_m, stopFd_m;
    // Kept free to take (and close) a connection when no descriptor is left.
    UniqueFd spare_m;
    ino_t socketIno_m = 0;
    dev_t socketDev_m = 0;
    std::size_t maxProcesses_m = kMaxProcesses;
    std::size_t maxPerUid_m = kMaxProcesses / 8;
    std::uint32_t maxStreams_m = 0xfffe;
    std::uint32_t maxStreamsPerUid_m = 0xfffe / 4;
    std::uint64_t anchorTsc_m = 0;
    // UserClock::Monotonic: trace clock - CLOCK_MONOTONIC, from the last pair.
    std::int64_t offset_m = 0;
    std::thread thread_m;
    std::atomic<bool> stopped_m{false};

    mutable std::mutex mutex_m; // the rest, between the thread and stop()/stats()
    std::chrono::steady_clock::time_point listenPausedUntil_m{};
    std::vector<std::unique_ptr<Process>> processes_m;
    std::uint32_t nextStream_m = 0;
    std::map<std::uint32_t, std::uint32_t> streamsOfUid_m;
    std::uint64_t nowTsc_m = 0;
    BlockBuilder builder_m;
    std::vector<std::byte> bytes_m;
    UserServerStats stats_m;
    std::vector<std::string> warnings_m;
};

UserServer::UserServer(UserServerConfig config, BlockSink sink, SnapshotHook snapshot)
    : impl_m(std::make_unique<Impl>(std::move(config), std::move(sink), std::move(snapshot))) {}
UserServer::~UserServer() = default;
void UserServer::stop() {
    impl_m->stop();
}
UserServerStats UserServer::stats() const {
    return impl_m->stats();
}
std::vector<std::string> UserServer::warnings() const {
    return impl_m->warnings();
}
std::vector<std::string> UserServer::drainImage(UserServerConfig config,
                                                std::span<const std::byte> shm, BlockSink sink) {
    Impl impl(Impl::Offline{}, std::move(config), std::move(sink));
    return impl.drainImage(shm);
}

std::optional<UserClock> userEventsClock(const ltt_trace_info& info) {
    if (info.flags & LTT_TRACE_F_CLOCK_FALLBACK)
        return UserClock::Monotonic;
    if ((info.flags & LTT_TRACE_F_TSC_RELIABLE) || info.ncpus == 1)
        return UserClock::Tsc;
    return std::nullopt;
}

std::optional<ClockPair> readClockPair(TraceDevice& dev) {
    ltt_clock_pair p{};
    if (dev.control(LTT_IOC_GET_CLOCK_PAIR, &p) != 0)
        return std::nullopt;
    return ClockPair{p.trace, p.monotonic};
}

std::optional<UserServerConfig> userServerConfig(const Options& o, const ltt_trace_info& info,
                                                 std::optional<int> commandPgrp,
                                                 std::string& note) {
    UserServerConfig c;
    c.socketPath = o.userSocket.empty() ? UserServer::defaultSocketPath() : o.userSocket;
    if (o.userSocket == "none") {
        note = "no user events (--user-socket none)";
        return std::nullopt;
    }
    if (c.socketPath.empty()) {
        note = "no user events: XDG_RUNTIME_DIR is not set (give --user-socket PATH)";
        return std::nullopt;
    }
    c.onlyOwnUid = ::geteuid() != 0;
    c.pid = o.pid;
    c.pgrp = o.pgrp ? o.pgrp : commandPgrp;
    c.uid = o.uid;
    c.gid = o.gid;
    c.snapshotGid = o.snapshotGid;
    c.triggerEvents = o.triggerEvents;
    const auto clock = userEventsClock(info);
    c.record = clock.has_value();
    c.clock = clock.value_or(UserClock::Tsc);
    c.anchor = {info.anchor_tsc, info.anchor_monotonic_ns};
    if (!clock) {
        c.refusal = "this trace's clock is the TSC of several CPUs that may disagree "
                    "(the module's clock=tsc on a machine without a reliable TSC)";
        note = "no user events in this trace: " + c.refusal;
    }
    return c;
}

void UserBlockQueue::push(std::span<const std::byte> block) {
    std::lock_guard lock(mutex_m);
    blocks_m.emplace_back(block.begin(), block.end());
}

void UserBlockQueue::moveTo(CommitBuffer& buffer) {
    std::vector<std::vector<std::byte>> blocks;
    {
        std::lock_guard lock(mutex_m);
        blocks.swap(blocks_m);
    }
    for (const auto& b : blocks) {
        if (b.size() > buffer.capacity()) {
            std::lock_guard lock(mutex_m);
            ++dropped_m;
            continue;
        }
        if (buffer.space().size() < b.size())
            buffer.rotate();
        std::memcpy(buffer.space().data(), b.data(), b.size());
        buffer.commit(b.size());
    }
}

std::uint64_t UserBlockQueue::dropped() const {
    std::lock_guard lock(mutex_m);
    return dropped_m;
}

std::string UserServer::defaultSocketPath() {
    // The same variable the library reads: a daemon and its processes
    // agree on a socket of their own (tests, a second root daemon).
    if (const char* env = std::getenv("LTT_USER_SOCKET"); env && *env)
        return env;
    if (::geteuid() == 0)
        return "/run/ltt/user.sock";
    const char* xdg = std::getenv("XDG_RUNTIME_DIR");
    if (!xdg || *xdg != '/')
        return {};
    return std::string(xdg) + "/ltt/user.sock";
}

std::string describe(const UserServerStats& st) {
    std::string s = "user events: " + std::to_string(st.events) + " from " +
                    std::to_string(st.enabled) + " of " + std::to_string(st.processes) +
                    " registered processes, " + std::to_string(st.lost + st.lostNoRing) + " lost";
    if (st.lostNoStream)
        s += ", " + std::to_string(st.lostNoStream) + " of threads given no stream";
    if (st.connectionsRefused)
        s += ", " + std::to_string(st.connectionsRefused) + " connections refused";
    if (st.snapshotsRefused)
        s += ", " + std::to_string(st.snapshotsRefused) + " snapshot requests refused";
    if (st.clockPairs > 1)
        s += "; stamped CLOCK_MONOTONIC: the kernel's clock moved at most " +
             std::to_string(st.clockWanderNs) + " ns against it between two of " +
             std::to_string(st.clockPairs) + " clock pairs";
    return s;
}

std::string escapeText(std::string_view text, std::size_t max) {
    std::string out;
    for (unsigned char c : text) {
        char piece[5];
        if (c >= 0x20 && c < 0x7f && c != '\\')
            piece[0] = static_cast<char>(c), piece[1] = 0;
        else
            std::snprintf(piece, sizeof piece, "\\x%02x", c);
        if (out.size() + std::strlen(piece) > max)
            break;
        out += piece;
    }
    return out;
}

} // namespace ltt::daemon
