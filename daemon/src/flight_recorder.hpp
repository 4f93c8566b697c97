// tracedaemon --flight-recorder: the module traces in overwrite mode (each
// CPU's two buffers always hold its latest events) and the daemon writes a
// whole, ordinary trace of what the buffers hold whenever a snapshot is
// asked for:
//
//   open, configure, SET_OVERWRITE 1, SET_TRIGGER_SIGNALS, START
//   loop: poll() a signalfd (SIGUSR1: snapshot; SIGINT, SIGTERM, SIGHUP:
//         stop), the device (POLLPRI: a traced task died of a trigger
//         signal), an eventfd (requestSnapshot()) and the duration timer
//   snapshot N: SNAPSHOT; TRACEFILE-N (header flag LTT_TRACE_F_SNAPSHOT,
//         then every block read() returns until EAGAIN: each CPU's blocks
//         oldest first, the last one FINAL), its kallsyms copy and
//         PROCFILE-N (the /proc snapshot, taken after the blocks), all 0600
//   STOP; nothing more is written (the buffers since the last snapshot are
//   dropped: send SIGUSR1 first to keep them).
//
// Application events (libltt-user, ltt-mark) are served as in a session
// (UserServer, the same socket rules); their blocks are kept in memory in a
// UserBlockStore bounded like the kernel's buffers, and each snapshot
// copies them after the kernel blocks. `ltt-mark --snapshot` asks for one,
// and so does an event named by --trigger-event.
#pragma once
#include "trace_session.hpp"

#include <cstdint>
#include <deque>
#include <libltt/block_codec.hpp>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ltt::daemon {

// The name of snapshot `n` of `path`: "out.trace" -> "out-3.trace", "a.b/x"
// -> "a.b/x-3" (the number goes before the last extension of the file name).
std::string snapshotPath(const std::string& path, unsigned n);

// The latest user blocks (include/ltt/module_events.h, USER), at most
// `budget` bytes: the oldest arrived (the oldest times: the server drains
// every ring at each pass) are dropped first and counted. The DECLARE
// records of a dropped block are kept, so that a copy can declare the types
// of its stream's remaining events again. push() and copy() may be called
// from different threads.
class UserBlockStore {
public:
    // `triggers`: names of events that push() reports.
    explicit UserBlockStore(std::size_t budget, std::vector<std::string> triggers = {})
        : budget_m(budget), triggers_m(std::move(triggers)) {}
    // Keeps one whole user block (a block that does not parse is ignored
    // and counted as dropped). Returns the name of the block's first event
    // of a trigger's name, or an empty string.
    std::string push(std::span<const std::byte> block);
    // The blocks kept, grouped by stream, each stream readable on its own:
    // a block of the types declared in its dropped blocks first (sequence:
    // one before its first block kept), then its blocks in order, then an
    // empty LTT_BLOCK_F_FINAL block unless its last block is final.
    std::vector<std::byte> copy() const;

    std::size_t bytes() const;
    std::uint64_t droppedBlocks() const;

private:
    struct Kept {
        std::uint16_t stream = 0;
        std::vector<std::byte> bytes;
    };
    struct Stream {
        std::int32_t tid = 0;
        std::uint32_t lastSequence = 0;
        std::uint64_t lastTsc = 0;
        bool final = false;
        // (tgid, type id) -> the DECLARE's details, from dropped blocks.
        std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::byte>> declared;
    };
    void dropOldest();

    // The trigger names' types, by (tgid, type id), from every DECLARE
    // seen (type ids belong to a process).
    std::string triggerOf(std::span<const std::byte> block, const BlockInfo& b);

    const std::size_t budget_m;
    const std::vector<std::string> triggers_m;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::string> triggerTypes_m;
    mutable std::mutex mutex_m;
    std::deque<Kept> blocks_m;
    std::map<std::uint16_t, Stream> streams_m;
    std::size_t bytes_m = 0;
    std::uint64_t dropped_m = 0;
};

// Asks the running flight recorder for a snapshot; `why` is named in its
// message. Any thread may call it; without a flight recorder running it
// does nothing.
void requestSnapshot(std::string_view why);

// Runs tracedaemon --flight-recorder until SIGINT/SIGTERM/SIGHUP or the
// duration. Never throws: errors are reported and give exit code 1.
SessionSummary runFlightRecorder(const Options& options, std::ostream& messages,
                                 const SessionEnv& env);

} // namespace ltt::daemon
