// EventQuery: filtering and searching the merged event sequence, for
// traceview's raw trace list (and any tool that wants the same). Both walk
// the trace with a TraceCursor, report progress and can be cancelled from
// another thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <libltt/trace_reader.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ltt {

// Event types are masks over enum ltt_event_id, as parseEventList()
// (event_names.hpp) gives them: one event, a group (CORE, FS, ...) or a
// list; 0 means any event. Ids past the mask's 64 bits match only "any".
inline bool eventInMask(std::uint64_t mask, unsigned id) {
    return mask == 0 || (id < 64 && ((mask >> id) & 1));
}

struct EventFilter {
    std::uint64_t events = 0; // event types, 0: any
    std::int64_t pid = -1;    // -1: any
    int cpu = -1;             // -1: any
    bool active() const { return events != 0 || pid >= 0 || cpu >= 0; }
    bool matches(const Event& e) const {
        return eventInMask(events, e.id) && (pid < 0 || e.pid == pid) && (cpu < 0 || e.cpu == cpu);
    }
};

struct SearchQuery {
    std::string text;         // case-insensitive, in the event's name or description
    std::uint64_t events = 0; // event types, 0: any
    bool matches(const Event& e, std::string& scratch) const;
};

// Called every few thousand events with the fraction done; returning false
// cancels the walk.
using QueryProgress = std::function<bool(double)>;

// Indices of the events that pass `filter`, in order; nullopt when cancelled.
std::optional<std::vector<std::uint64_t>>
filterEvents(const TraceReader& reader, const EventFilter& filter, const QueryProgress& progress);
// The first match after `from` (forward) or the last one before it
// (backward); nullopt when there is none or the walk was cancelled.
// `from` may be UINT64_MAX going forward (search from the start) or
// eventCount() going backward (from the end).
std::optional<std::uint64_t> searchEvents(const TraceReader& reader, const SearchQuery& query,
                                          std::uint64_t from, bool forward,
                                          const QueryProgress& progress);

} // namespace ltt
