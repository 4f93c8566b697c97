// tracedaemon's side of libltt-user (user/protocol/user_shm.h,
// docs/user-events.md): a Unix socket where processes register their
// shared memory, and a thread that drains their rings into user blocks
// (include/ltt/module_events.h, USER) handed to a sink.
//
//   listen on the socket (bound under a temporary name, then renamed into
//   place, so that a process woken by the new name can always connect)
//   REGISTER: check the peer (SO_PEERCRED: a non-root daemon takes only its
//   own uid), the memfd (sealed against shrinking, the protocol's size and
//   version); map it; when the filters take the process, set its enabled
//   word and send ENABLE
//   every `drainEvery`, when a process's wakeup eventfd fires (a ring
//   half full, a thread gone) and at stop: copy each ring's new bytes out,
//   check every record and type against the bounds before use, write one
//   block per ring that has events or new losses; then advance the ring's
//   tail; a ring whose thread exited (closing) ends its stream with a
//   final block and is freed for the process's next thread
//   stop: disable every process, drain once more, close each stream with a
//   LTT_BLOCK_F_FINAL block
//
// A process that breaks the protocol (a record size, type or value out of
// bounds, a head that runs ahead of the ring) is disabled and dropped:
// what it wrote before stays, its bad bytes never reach the file.
#pragma once

#include "options.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <ltt/abi.h>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ltt::daemon {

// The clock processes stamp their events with (user_shm.h, enum
// ltt_user_clock): the TSC when the trace's clock is a TSC every CPU
// shares, CLOCK_MONOTONIC when the trace's clock is the module's fallback.
enum class UserClock { Tsc, Monotonic };

// The trace clock and CLOCK_MONOTONIC (ns) at one instant: the module's
// LTT_IOC_GET_CLOCK_PAIR, or the trace header's anchors.
struct ClockPair {
    std::uint64_t trace = 0;
    std::uint64_t monotonic = 0;
};

struct UserServerConfig {
    std::string socketPath;
    // A non-root daemon serves only processes of its own uid.
    bool onlyOwnUid = false;
    // The session's filters, applied to the registering process.
    std::optional<std::int32_t> pid, pgrp;
    std::optional<std::uint32_t> uid, gid;
    // False when the daemon records no process's events (the trace's clock
    // is neither a TSC every CPU shares nor the fallback): processes are
    // registered, never enabled, and told `refusal` at once (REFUSE).
    bool record = true;
    std::string refusal;
    UserClock clock = UserClock::Tsc;
    // UserClock::Monotonic: a stamp m is written at the trace time
    // m + (pair.trace - pair.monotonic), with the last pair read: `anchor`
    // (the trace header's) at first, then `clockPair()` at each drain (the
    // module's LTT_IOC_GET_CLOCK_PAIR), when given and it returns one.
    ClockPair anchor;
    std::function<std::optional<ClockPair>()> clockPair;
    std::chrono::milliseconds drainEvery{100};
    // The trace's largest block (its header's max_block): a drain that
    // would write a longer one cuts it into several.
    std::uint32_t maxBlock = 1u << 20;
    // The trace's CPUs: kernel streams, numbered before the user streams.
    // The server writes at most 0xfffe - ncpus user streams, the most a
    // reader takes beside ncpus kernel ones.
    std::uint32_t ncpus = 1;
    // Who may ask for a snapshot (LTT_USER_MSG_SNAPSHOT, an event named in
    // triggerEvents): admitted, registered processes of uid 0, of the
    // daemon's own uid, or of this group (primary or supplementary).
    std::optional<std::uint32_t> snapshotGid;
    // Names of application events that ask for a snapshot when logged.
    std::vector<std::string> triggerEvents;
    // Where the tid a ring claims is checked (PROCROOT/TGID/task/TID).
    std::string procRoot = "/proc";
};

struct UserServerStats {
    std::uint64_t processes = 0; // registered
    std::uint64_t enabled = 0;   // of them, enabled
    std::uint64_t refused = 0;   // registrations refused or processes dropped
    std::uint64_t events = 0;    // written
    std::uint64_t lost = 0;      // counted lost in the rings
    std::uint64_t lostNoRing = 0;
    std::uint64_t streams = 0;
    std::uint64_t blocks = 0;
    std::uint64_t wakeups = 0; // drains a process's eventfd asked for
    // Connections closed at once: over the per-user or total cap, or
    // when the daemon had no descriptor left to take them.
    std::uint64_t connectionsRefused = 0;
    // Snapshot requests (messages, trigger events) of processes that may
    // not ask for one, ignored.
    std::uint64_t snapshotsRefused = 0;
    // Events of threads that got no stream (the trace's or their user's
    // stream cap reached): not written, counted here.
    std::uint64_t lostNoStream = 0;
    // UserClock::Monotonic: clock pairs read from the module, and the
    // largest change of (trace clock - CLOCK_MONOTONIC) between two
    // successive ones: how far the kernel's clock wanders against
    // CLOCK_MONOTONIC between pairs, the measured bound on how far an
    // event's place among the kernel's can be off.
    std::uint64_t clockPairs = 0;
    std::uint64_t clockWanderNs = 0;
};

// The summary line a daemon prints at the end: "user events: N from E of P
// registered processes, L lost", and what was refused when anything was.
std::string describe(const UserServerStats& st);

class UserServer {
public:
    // Receives whole blocks, from the server's thread (one call at a time).
    using BlockSink = std::function<void(std::span<const std::byte>)>;
    // Called from the server's thread when a process that may asks for a
    // snapshot; `why` is printable ASCII (other bytes escaped as \xHH),
    // at most 200 bytes.
    using SnapshotHook = std::function<void(std::string_view why)>;

    // Binds the socket (creating its directory, 0755 for root, else 0700;
    // an existing directory must belong to this user or root and be
    // writable by nobody else unless sticky) and starts the thread. Raises
    // RLIMIT_NOFILE's soft limit to the hard one. Throws std::runtime_error
    // with a message naming the path (another daemon answers there, an
    // unsafe directory, cannot bind).
    UserServer(UserServerConfig config, BlockSink sink, SnapshotHook snapshot = {});
    ~UserServer(); // stop()
    UserServer(const UserServer&) = delete;
    UserServer& operator=(const UserServer&) = delete;

    // Disables every process, drains the rings a last time, writes each
    // stream's final block, removes the socket. Idempotent.
    void stop();

    UserServerStats stats() const;
    // Warnings met so far (a process dropped and why), oldest first.
    std::vector<std::string> warnings() const;

    // The default socket for this daemon: LTT_USER_SOCKET when set, else
    // root /run/ltt/user.sock, others $XDG_RUNTIME_DIR/ltt/user.sock
    // (empty without XDG_RUNTIME_DIR).
    static std::string defaultSocketPath();

    // The fuzz target's way in (tests/daemon/fuzz/): drains `shm`, the image
    // of a process's shared memory (checked as a registration is), as the
    // server drains a registered, enabled process: once, then a final
    // time. Blocks go to `sink`; returns the warnings (a process dropped
    // and why). No socket, no thread.
    static std::vector<std::string> drainImage(UserServerConfig config,
                                               std::span<const std::byte> shm, BlockSink sink);

private:
    class Impl;
    std::unique_ptr<Impl> impl_m;
};

// `text` with every byte but printable ASCII written \xHH (a backslash
// too), cut at `max` bytes: a client's text fit for a terminal or a log.
std::string escapeText(std::string_view text, std::size_t max = 200);

// The clock user events of a trace carry: the TSC (rdtsc) when the
// trace's clock is the TSC, the same on every CPU (LTT_TRACE_F_TSC_RELIABLE)
// or the TSC of a trace's only CPU (no other CPU's TSC to disagree with);
// CLOCK_MONOTONIC when the trace's clock is the module's fallback
// (LTT_TRACE_F_CLOCK_FALLBACK: ns of a kernel clock, CLOCK_MONOTONIC since
// ABI 2.5's module, local_clock() before); nullopt for a TSC trace of
// several CPUs whose TSCs may disagree (the module's clock=tsc forced).
std::optional<UserClock> userEventsClock(const ltt_trace_info& info);

// The server for a session's options: nullopt with `note` saying why when
// the session serves no user events (--user-socket none, no default
// path). `clock`: userEventsClock() of the trace (nullopt: processes are
// refused, `note` says why); `info`: the trace's header (its anchors);
// `commandPgrp`: the traced command's group (-T).
std::optional<UserServerConfig> userServerConfig(const Options& o, const ltt_trace_info& info,
                                                 std::optional<int> commandPgrp, std::string& note);

// A clock pair read from the module (LTT_IOC_GET_CLOCK_PAIR) through
// `control` (a TraceDevice's); nullopt when the module has none (before
// ABI 2.5) or is not tracing.
class TraceDevice;
std::optional<ClockPair> readClockPair(TraceDevice& dev);

class CommitBuffer;

// Blocks the server's thread produced, waiting for the session's loop to
// put them into its CommitBuffer (which only that loop may fill).
class UserBlockQueue {
public:
    void push(std::span<const std::byte> block);
    // Moves every queued block into `buffer`, rotating it when a block does
    // not fit the filling half. Blocks larger than a half are dropped and
    // counted.
    void moveTo(CommitBuffer& buffer);
    std::uint64_t dropped() const;

private:
    mutable std::mutex mutex_m;
    std::vector<std::vector<std::byte>> blocks_m;
    std::uint64_t dropped_m = 0;
};

} // namespace ltt::daemon
