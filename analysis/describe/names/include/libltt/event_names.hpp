// The one vocabulary of event names that users type: tracedaemon -e/-D,
// traceanalyze -o/-t and traceview's event filter all parse it here, so a
// name that works in one works in all. Names are case-insensitive, and '_'
// and ' ' are the same character:
//  - LTT 0.9's names (SYS_ENTRY, SCHED, FS, MEM, NET, ...);
//  - the ABI's names, which are also the JSON keys (SYSCALL_ENTRY,
//    SCHEDCHANGE, FILE_SYSTEM, BLOCK_START, LOST, ...);
//  - the display names of event_format.hpp ("Sched change", "File system");
//  - groups: SYSCALL, TRAP, IRQ (entry and exit), CORE (the paper's core
//    events), ALL (every event tracedaemon can select), NONE;
//  - an event id in decimal.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ltt {

struct EventNameEntry {
    const char* name;   // as listed in help texts
    std::uint64_t mask; // bits over enum ltt_event_id
};

// The named entries (not the display names or ids), LTT names first, then
// the ABI's, then the groups.
std::span<const EventNameEntry> eventNames();

// Bits of one name (see above); nullopt when unknown.
std::optional<std::uint64_t> eventMaskOf(std::string_view name);

// A comma-separated list of names: the union of their masks. On an unknown
// name (or an empty list) returns nullopt and that name in *bad.
std::optional<std::uint64_t> parseEventList(std::string_view text, std::string* bad);

// "START,SYS_ENTRY,...": every entry of eventNames(), for help texts.
std::string eventNameHelp();

// The one message for a name parseEventList() refused, given the option it
// came with: "unknown event 'FSX' for -t; known events: START,SYS_ENTRY,...".
std::string unknownEventMessage(std::string_view bad, std::string_view option);

} // namespace ltt
