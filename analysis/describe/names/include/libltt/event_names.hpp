// The names users type and reports print. Needs no trace: tracedaemon links
// it (ltt_names) without the reader.
//
// The one vocabulary of event names that users type: tracedaemon -e/-D,
// traceanalyze -o/-t and traceview's event filter all parse it here, so a
// name that works in one works in all. Names are case-insensitive, and '_'
// and ' ' are the same character:
//  - LTT 0.9's names (SYS_ENTRY, SCHED, FS, MEM, NET, ...);
//  - the ABI's names, which are also the JSON keys (SYSCALL_ENTRY,
//    SCHEDCHANGE, FILE_SYSTEM, BLOCK_START, LOST, ...);
//  - the display names of eventName() below ("Sched change", "File system");
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

// "Syscall entry", "Sched change", ... (LTT's raw-trace column); "Unknown"
// for ids this version does not know.
std::string_view eventName(unsigned id);
// Stable machine key: "syscall_entry", "schedchange", ... (JSON). Names
// that users type are parsed by eventMaskOf() above, which accepts these keys.
std::string_view eventKey(unsigned id);
// Subtype name ("FORK", "READ", ...), empty when the event has none.
std::string_view subtypeName(unsigned id, unsigned subtype);

// x86_64 syscall name for `nr` (Linux 6.12 table), or empty when unknown.
std::string_view syscallName(std::uint32_t nr);
// Highest syscall number in the table + 1.
std::uint32_t syscallTableSize();

// The names of kernel-state variables (VARS records, enum ltt_var in
// include/ltt/module_events.h), as tracedaemon -V takes them.
// "args", "pid", "ppid", ... for enum ltt_var; empty for other numbers.
std::string_view varName(unsigned var);
// A comma-separated list of variable names ("pid,ppid,minflt"), or "all";
// case-insensitive. nullopt on a name that is no variable (it goes to *bad).
std::optional<std::uint32_t> parseVarList(std::string_view list, std::string* bad = nullptr);
// Every variable's name, comma-separated, for help texts and messages.
std::string varNames();

} // namespace ltt
