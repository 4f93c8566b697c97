// The event schema: every event and subtype of include/ltt/events.h and
// include/ltt/module_events.h described once, as data, for the code that
// names, describes and converts events. An entry gives the event's ABI
// name (the enum's, without LTT_EV_), its key (JSON, CTF's ltt_KEY), its
// display name, the LTT 0.9 name users type, its detail structure and that
// structure's fields (name, type, offset, size), its subtypes, and what
// kind of event it is for the viewer's graph.
//
// The table is checked against the headers when it compiles: each field's
// offset and size are taken with offsetof/sizeof from the structure, its
// type must match the member's (size and signedness), and the fields must
// tile the structure from byte 0 to its sizeof with no gap or overlap, so
// a field added to, removed from or retyped in a structure fails the build
// until the schema says the same (event_schema.cpp also checks that every
// event id and subtype of the headers has its entry). docs/adding-an-event.md
// says what to edit to add an event or a field.
//
// What it drives: eventName(), eventKey(), subtypeName() and the names
// users type (event_names.cpp), the JSON event dump's "event" and
// "subtype", the CTF converter's ltt_KEY events (their fields in the
// metadata and their sizes in the streams), the description of events
// without hand-written text (event_format.cpp) and the event graph's
// kinds (timebin_model.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <ltt/module_events.h>
#include <span>
#include <string_view>
#include <type_traits>

namespace ltt::schema {

// How a field's bytes read (little-endian, as every record).
enum class FieldType : std::uint8_t {
    U8,
    U16,
    U32,
    U64,
    S32,
    S64,
    X16, // unsigned, best shown in hex (flags, masks, addresses)
    X32,
    X64,
    // Arrays. As a structure's last field, the record may end inside it:
    Str,   // NUL-terminated text (the record ends after the NUL)
    Strs,  // NUL-terminated strings, one after the other
    Bytes, // raw bytes: as many as the field named by `count` says, else all
    U64s,  // 64-bit values: as many as `count` says, else up to the record's end
};

// An array: the record may be cut inside it (the last field of a
// structure whose `fixed` part is shorter than it).
constexpr bool isArray(FieldType t) {
    return t == FieldType::Str || t == FieldType::Strs || t == FieldType::Bytes ||
           t == FieldType::U64s;
}

struct Field {
    std::string_view name; // the structure member's name
    FieldType type;
    std::uint16_t offset;        // offsetof() in the detail structure
    std::uint16_t size;          // sizeof() the member (an array: its largest size)
    std::string_view count = {}; // Bytes/U64s: the field holding the number of elements
};

// What an event is, for the event graph's colours and legend (the viewer's
// GraphEventKind, one for one, but for None: not drawn).
enum class EventClass : std::uint8_t {
    None, // structure records and application events: no marker
    Syscall,
    Trap,
    Irq,
    SchedChange,
    KernelTimer,
    BottomHalf,
    IoWaitStart,
    IoWaitEnd,
    Process,
    FileSystem,
    Other,
    Lost,
    Inherit, // a subtype: its event's class
};

// How an event reads in words (describeEvent(), the `-d` dump, traceview's
// raw list) is a template: text, with {field} for a field's value as its
// type shows it (signed or unsigned decimal, 0x-hex for the X types, a Str
// field escaped) or {field:F} with F one of
//   d, u   signed, unsigned decimal     x     0x-hex      04x  0x-hex, 4 digits at least
//   hi16, lo16   the upper or lower 16 bits, decimal
//   ksym   " (function+0xoff)" when the value is a kernel address the
//          trace's kallsyms names, else nothing
// The template of an event with subtypes is its subtype's, and the event's
// own for a subtype the schema does not know; the subtype's name comes
// before it. Event::code marks the events whose text event_format.cpp
// writes itself (each says why there); an event with neither shows each of
// its fields as "NAME : value".
struct Subtype {
    std::string_view name;          // "FORK", "READ": subtypeName(), CTF's enum labels
    std::string_view describe = {}; // the template (see above); "" shows nothing
    EventClass cls = EventClass::Inherit;
    // A subtype with a detail structure of its own (USER's DECLARE): its
    // fields and sizes; empty: the event's.
    std::string_view detail = {};
    std::uint16_t size = 0, fixed = 0;
    std::span<const Field> fields = {};
};

struct Event {
    std::uint8_t id;
    std::string_view abi;      // "SCHEDCHANGE": the enum's name without LTT_EV_
    std::string_view detail;   // the detail structure, "ltt_ev_schedchange"; empty: none
    std::uint16_t size;        // sizeof() it
    std::string_view key;      // "schedchange": eventKey(), JSON, CTF's ltt_KEY
    std::string_view name;     // "Sched change": eventName(), LTT's raw-trace column
    std::string_view ltt = {}; // "SCHED": LTT 0.9's name users type; empty: none
    bool typed = true;         // users may type `abi` (tracedaemon -e, traceanalyze -t)
    std::span<const std::string_view> aliases = {}; // more names users may type
    // Bytes before the array a record may be cut in (0: none, the records
    // hold the structure whole).
    std::uint16_t fixed = 0;
    std::span<const Field> fields = {};
    std::span<const Subtype> subtypes = {};
    // Whether the subtype's name is shown as such (subtypeName(), the JSON
    // dump's "subtype", CTF's subtype field); MAP and CONFIG say theirs
    // inside their description.
    bool namedSubtypes = true;
    EventClass cls = EventClass::Other;
    std::string_view describe = {}; // the template (above)
    bool code = false;              // described by event_format.cpp's code
};

// Whether the event's subtypes are shown by name (subtypeName()).
constexpr bool namesSubtypes(const Event& e) {
    return e.namedSubtypes && !e.subtypes.empty();
}

// Bytes of the structure a record must hold for its fields to be read
// (the part before the array a record may be cut in).
constexpr std::size_t fixedSize(const Event& e) {
    return e.fixed ? e.fixed : e.size;
}

namespace impl {

// The schema's type for a structure member of C type M, checked: a field
// whose type does not match its member is no constant expression (a
// compile error naming this function).
template <class M> consteval bool matches(FieldType t) {
    using E = std::remove_all_extents_t<M>;
    constexpr bool array = std::is_array_v<M>;
    constexpr bool sign = std::is_signed_v<E>;
    constexpr std::size_t n = sizeof(E);
    switch (t) {
    case FieldType::U8:
        return !array && n == 1 && !sign;
    case FieldType::U16:
    case FieldType::X16:
        return !array && n == 2 && !sign;
    case FieldType::U32:
    case FieldType::X32:
        return !array && n == 4 && !sign;
    case FieldType::U64:
    case FieldType::X64:
        return !array && n == 8 && !sign;
    case FieldType::S32:
        return !array && n == 4 && sign;
    case FieldType::S64:
        return !array && n == 8 && sign;
    case FieldType::Str:
    case FieldType::Strs:
        return array && std::is_same_v<E, char>;
    case FieldType::Bytes:
        return array && n == 1;
    case FieldType::U64s:
        return array && n == 8 && !sign;
    }
    return false;
}

template <class M>
consteval Field field(std::string_view name, FieldType t, std::size_t offset,
                      std::string_view count = {}) {
    if (!matches<M>(t))
        throw "event schema: the field's type does not match the structure member";
    return Field{name, t, static_cast<std::uint16_t>(offset), static_cast<std::uint16_t>(sizeof(M)),
                 count};
}

// The fields tile [0, size): each starts where the one before ends and the
// last ends at `size`; a structure whose records may be cut (`fixed` not
// 0) ends in an array that starts at `fixed`; a count names an earlier
// field.
consteval bool tiles(std::span<const Field> f, std::size_t size, std::size_t fixed) {
    std::size_t at = 0;
    for (std::size_t i = 0; i < f.size(); ++i) {
        if (f[i].offset != at)
            return false;
        if (!f[i].count.empty()) {
            bool found = false;
            for (std::size_t j = 0; j < i; ++j)
                found = found || f[j].name == f[i].count;
            if (!found)
                return false;
        }
        at += f[i].size;
    }
    if (at != size)
        return false;
    return fixed == 0 || (!f.empty() && isArray(f.back().type) && f.back().offset == fixed);
}

} // namespace impl

// A field of structure S: LTT_FIELD(ltt_ev_schedchange, in, S32).
#define LTT_FIELD(S, m, T, ...)                                                                    \
    ::ltt::schema::impl::field<decltype(S::m)>(#m, ::ltt::schema::FieldType::T,                    \
                                               offsetof(S, m) __VA_OPT__(, ) __VA_ARGS__)

// ------------------------------------------------------------------ fields

inline constexpr Field kTraceStart[] = {
    LTT_FIELD(ltt_ev_trace_start, tsc_khz, U64),
    LTT_FIELD(ltt_ev_trace_start, anchor_tsc, U64),
    LTT_FIELD(ltt_ev_trace_start, anchor_realtime_ns, U64),
    LTT_FIELD(ltt_ev_trace_start, event_mask, X64),
    LTT_FIELD(ltt_ev_trace_start, details_mask, X64),
};
inline constexpr Field kSyscallEntry[] = {
    LTT_FIELD(ltt_ev_syscall_entry, ip, X64),
    LTT_FIELD(ltt_ev_syscall_entry, nr, U32),
    LTT_FIELD(ltt_ev_syscall_entry, reserved, U32),
};
inline constexpr Field kSyscallExit[] = {
    LTT_FIELD(ltt_ev_syscall_exit, ret, S64),
};
inline constexpr Field kTrapEntry[] = {
    LTT_FIELD(ltt_ev_trap_entry, ip, X64),
    LTT_FIELD(ltt_ev_trap_entry, address, X64),
    LTT_FIELD(ltt_ev_trap_entry, trap, U32),
    LTT_FIELD(ltt_ev_trap_entry, error_code, U32),
};
inline constexpr Field kIrqEntry[] = {
    LTT_FIELD(ltt_ev_irq_entry, irq, U32),
    LTT_FIELD(ltt_ev_irq_entry, flags, U32),
};
inline constexpr Field kSchedchange[] = {
    LTT_FIELD(ltt_ev_schedchange, in, S32),
    LTT_FIELD(ltt_ev_schedchange, out, S32),
    LTT_FIELD(ltt_ev_schedchange, out_state, U32),
    LTT_FIELD(ltt_ev_schedchange, reserved, U32),
};
inline constexpr Field kSoftIrq[] = {
    LTT_FIELD(ltt_ev_soft_irq, id, X64),
};
inline constexpr Field kProcess[] = {
    LTT_FIELD(ltt_ev_process, pid, S32),
    LTT_FIELD(ltt_ev_process, reserved, U32),
    LTT_FIELD(ltt_ev_process, arg, U64),
};
// PROCESS FORK's `arg` holds the clone flags: with CLONE_THREAD the new
// task is a thread of its parent's process (it shares the parent's tgid).
inline constexpr std::uint64_t kForkCloneThread = 0x00010000;
inline constexpr Field kFileSystem[] = {
    LTT_FIELD(ltt_ev_file_system, fd, S32),
    LTT_FIELD(ltt_ev_file_system, aux, U32),
    LTT_FIELD(ltt_ev_file_system, arg, S64),
    LTT_FIELD(ltt_ev_file_system, name, Str),
};
inline constexpr Field kTimer[] = {
    LTT_FIELD(ltt_ev_timer, arg, S64),
    LTT_FIELD(ltt_ev_timer, aux, U32),
    LTT_FIELD(ltt_ev_timer, reserved, U32),
};
inline constexpr Field kMemory[] = {
    LTT_FIELD(ltt_ev_memory, address, X64),
    LTT_FIELD(ltt_ev_memory, arg, U64),
};
inline constexpr Field kSocket[] = {
    LTT_FIELD(ltt_ev_socket, call, U32), LTT_FIELD(ltt_ev_socket, id, S32),
    LTT_FIELD(ltt_ev_socket, type, U32), LTT_FIELD(ltt_ev_socket, reserved, U32),
    LTT_FIELD(ltt_ev_socket, size, S64),
};
inline constexpr Field kIpc[] = {
    LTT_FIELD(ltt_ev_ipc, call, U32),
    LTT_FIELD(ltt_ev_ipc, id, S32),
    LTT_FIELD(ltt_ev_ipc, flags, U32),
    LTT_FIELD(ltt_ev_ipc, reserved, U32),
};
inline constexpr Field kNetwork[] = {
    LTT_FIELD(ltt_ev_network, protocol, X32),
    LTT_FIELD(ltt_ev_network, reserved, U32),
};
inline constexpr Field kBlockStart[] = {
    LTT_FIELD(ltt_block_start, magic, X32),     LTT_FIELD(ltt_block_start, length, U32),
    LTT_FIELD(ltt_block_start, start_tsc, U64), LTT_FIELD(ltt_block_start, lost, U64),
    LTT_FIELD(ltt_block_start, sequence, U32),  LTT_FIELD(ltt_block_start, cpu, U16),
    LTT_FIELD(ltt_block_start, flags, X16),     LTT_FIELD(ltt_block_start, pid, S32),
    LTT_FIELD(ltt_block_start, reserved, U32),
};
inline constexpr Field kBlockEnd[] = {
    LTT_FIELD(ltt_block_end, end_tsc, U64),
    LTT_FIELD(ltt_block_end, events, U32),
    LTT_FIELD(ltt_block_end, reserved, U32),
};
inline constexpr Field kHeartbeat[] = {
    LTT_FIELD(ltt_ev_heartbeat, tsc, U64),
};
inline constexpr Field kLost[] = {
    LTT_FIELD(ltt_ev_lost, count, U64),
    LTT_FIELD(ltt_ev_lost, first_tsc, U64),
};
inline constexpr Field kCustom[] = {
    LTT_FIELD(ltt_ev_custom, id, U32),
    LTT_FIELD(ltt_ev_custom, length, U32),
    LTT_FIELD(ltt_ev_custom, data, Bytes, "length"),
};
inline constexpr Field kVars[] = {
    LTT_FIELD(ltt_ev_vars, changed, X32), LTT_FIELD(ltt_ev_vars, nr, U32),
    LTT_FIELD(ltt_ev_vars, values, U64s), // one per bit of `changed` (ARGS: subtype of them)
};
inline constexpr Field kMount[] = {
    LTT_FIELD(ltt_ev_mount, ret, S64), LTT_FIELD(ltt_ev_mount, flags, X64),
    LTT_FIELD(ltt_ev_mount, names, Strs), // target, then (MOUNT) source
};
inline constexpr Field kLock[] = {
    LTT_FIELD(ltt_ev_lock, lock, X64),
    LTT_FIELD(ltt_ev_lock, flags, X32),
    LTT_FIELD(ltt_ev_lock, ret, S32),
};
inline constexpr Field kMap[] = {
    LTT_FIELD(ltt_ev_map, start, X64),     LTT_FIELD(ltt_ev_map, length, X64),
    LTT_FIELD(ltt_ev_map, offset, X64),    LTT_FIELD(ltt_ev_map, reserved0, U32),
    LTT_FIELD(ltt_ev_map, reserved1, U32), LTT_FIELD(ltt_ev_map, path, Str),
};
inline constexpr Field kUser[] = {
    LTT_FIELD(ltt_ev_user, type, U32), LTT_FIELD(ltt_ev_user, tgid, U32),
    LTT_FIELD(ltt_ev_user, data, Bytes), // the declared fields' values, packed
};
inline constexpr Field kUserDecl[] = {
    LTT_FIELD(ltt_ev_user_decl, type, U32),       LTT_FIELD(ltt_ev_user_decl, tgid, U32),
    LTT_FIELD(ltt_ev_user_decl, nfields, U8),     LTT_FIELD(ltt_ev_user_decl, field, Bytes),
    LTT_FIELD(ltt_ev_user_decl, reserved, Bytes), LTT_FIELD(ltt_ev_user_decl, names, Strs),
};
inline constexpr Field kConfig[] = {
    LTT_FIELD(ltt_ev_config, event_mask, X64), LTT_FIELD(ltt_ev_config, details_mask, X64),
    LTT_FIELD(ltt_ev_config, filters, X32),    LTT_FIELD(ltt_ev_config, pid, S32),
    LTT_FIELD(ltt_ev_config, pgrp, S32),       LTT_FIELD(ltt_ev_config, uid, U32),
    LTT_FIELD(ltt_ev_config, gid, U32),        LTT_FIELD(ltt_ev_config, vars_mask, X32),
};
inline constexpr Field kContext[] = {
    LTT_FIELD(ltt_ev_context, pid, S32),
    LTT_FIELD(ltt_ev_context, tgid, S32),
};
inline constexpr Field kStack[] = {
    LTT_FIELD(ltt_ev_stack, pid, S32),
    LTT_FIELD(ltt_ev_stack, nr, U16),
    LTT_FIELD(ltt_ev_stack, flags, X16),
    LTT_FIELD(ltt_ev_stack, ip, U64s, "nr"),
};

// ---------------------------------------------------------------- subtypes
// In the order of their enums (event_schema.cpp checks the counts).

using C = EventClass;
inline constexpr Subtype kSoftIrqSubs[] = {{"SOFTIRQ ENTRY", " : {id:u}"},
                                           {"SOFTIRQ EXIT", " : {id:u}"},
                                           {"TASKLET ENTRY", " : {id}"},
                                           {"TASKLET EXIT", " : {id}"}};
inline constexpr Subtype kProcessSubs[] = {
    {"KTHREAD", " PID : {pid}; FUNCTION : {arg:x}{arg:ksym}"},
    {"FORK", " PID : {pid}; FLAGS : {arg:x}"},
    {"EXIT", " PID : {pid}; CODE : {arg:d}"},
    {"WAIT", " PID : {pid}"},
    {"SIGNAL", " SIGNAL : {arg:d}; PID : {pid}"},
    {"WAKEUP", " PID : {pid}; STATE : {arg:d}"}};
inline constexpr Subtype kFsSubs[] = {{"START I/O WAIT", "", C::IoWaitStart},
                                      {"END I/O WAIT", "", C::IoWaitEnd},
                                      {"EXEC", " : {name}"},
                                      {"OPEN", " : {name}; FD : {fd}"},
                                      {"CLOSE", " : {fd}"},
                                      {"READ", " : {fd}; COUNT : {arg}"},
                                      {"WRITE", " : {fd}; COUNT : {arg}"},
                                      {"SEEK", " : {fd}; OFFSET : {arg}; WHENCE : {aux}"},
                                      {"IOCTL", " : {fd}; COMMAND : {arg:x}"},
                                      {"SELECT", " : {fd}; TIMEOUT : {arg}"},
                                      {"POLL", " : {fd}; TIMEOUT : {arg}"}};
inline constexpr Subtype kTimerSubs[] = {{"EXPIRED", " : {arg}"},
                                         {"SET ITIMER", " : {aux}; INTERVAL : {arg}"},
                                         {"SET TIMEOUT", " : {arg}"}};
inline constexpr Subtype kMemorySubs[] = {{"PAGE ALLOC", " : {address}; ORDER : {arg}"},
                                          {"PAGE FREE", " : {address}; ORDER : {arg}"},
                                          {"SWAP IN", " : {address}"},
                                          {"SWAP OUT", " : {address}"},
                                          {"PAGE WAIT START", " : {address}", C::IoWaitStart},
                                          {"PAGE WAIT END", " : {address}", C::IoWaitEnd}};
inline constexpr Subtype kSocketSubs[] = {
    {"SO CALL", " : {call}; FD : {id}"},
    {"SO CREATE", " : FD {id}; FAMILY : {type:hi16}; TYPE : {type:lo16}"},
    {"SO SEND", " : TYPE {type}; SIZE : {size}"},
    {"SO RECEIVE", " : TYPE {type}; SIZE : {size}"}};
inline constexpr Subtype kIpcSubs[] = {{"IPC CALL", " : {call}; ID : {id}"},
                                       {"MSG CREATE", " : ID {id}; FLAGS : {flags:x}"},
                                       {"SEM CREATE", " : ID {id}; FLAGS : {flags:x}"},
                                       {"SHM CREATE", " : ID {id}; FLAGS : {flags:x}"}};
inline constexpr Subtype kNetworkSubs[] = {{"PACKET IN", " : PROTOCOL {protocol:04x}"},
                                           {"PACKET OUT", " : PROTOCOL {protocol:04x}"}};
inline constexpr Subtype kMountSubs[] = {{"MOUNT"}, {"UMOUNT"}};
inline constexpr Subtype kLockSubs[] = {{"CONTENDED", " : {lock}; FLAGS : {flags}"},
                                        {"ACQUIRED", " : {lock}; RET : {ret}"}};
inline constexpr Subtype kMapSubs[] = {{"mmap"}, {"mprotect"}, {"exec"}};
inline constexpr Subtype kUserSubs[] = {{"EVENT"},
                                        {"DECLARE", "", C::Inherit, "ltt_ev_user_decl",
                                         sizeof(ltt_ev_user_decl), LTT_EV_USER_DECL_FIXED,
                                         kUserDecl}};
inline constexpr Subtype kConfigSubs[] = {{"EVENTS"}, {"DETAILS"}, {"PID"}, {"PGRP"},
                                          {"UID"},    {"GID"},     {"VARS"}};
inline constexpr Subtype kContextSubs[] = {{"SWITCH", " PID : {pid}; TGID : {tgid}"},
                                           {"OWNED", " PID : {pid}; TGID : {tgid}"},
                                           {"HIDDEN", " PID : {pid}; TGID : {tgid}"}};
inline constexpr Subtype kStackSubs[] = {{"KERNEL"}, {"USER"}};

inline constexpr std::string_view kSoftIrqAliases[] = {"SOFTIRQ", "BH"};
inline constexpr std::string_view kCustomAliases[] = {"USER"};

// ------------------------------------------------------------------ events

// The id, ABI name, detail structure and its size of an event come from
// two tokens, so they cannot disagree: LTT_EVENT(SCHEDCHANGE,
// ltt_ev_schedchange); LTT_BARE(TRAP_EXIT) for an event without details.
#define LTT_EVENT(ABI, S) .id = LTT_EV_##ABI, .abi = #ABI, .detail = #S, .size = sizeof(S)
#define LTT_BARE(ABI) .id = LTT_EV_##ABI, .abi = #ABI, .detail = {}, .size = 0

// Indexed by event id: kEvents[id].id == id for every id it holds.
inline constexpr Event kEvents[] = {
    {LTT_EVENT(TRACE_START, ltt_ev_trace_start), .key = "trace_start", .name = "Trace start",
     .ltt = "START", .fields = kTraceStart, .cls = C::None, .code = true},
    {LTT_EVENT(SYSCALL_ENTRY, ltt_ev_syscall_entry), .key = "syscall_entry",
     .name = "Syscall entry", .ltt = "SYS_ENTRY", .fields = kSyscallEntry, .cls = C::Syscall,
     .code = true},
    {LTT_EVENT(SYSCALL_EXIT, ltt_ev_syscall_exit), .key = "syscall_exit", .name = "Syscall exit",
     .ltt = "SYS_EXIT", .fields = kSyscallExit, .cls = C::Syscall, .describe = "RET : {ret}"},
    {LTT_EVENT(TRAP_ENTRY, ltt_ev_trap_entry), .key = "trap_entry", .name = "Trap entry",
     .ltt = "TRAP_ENTRY", .fields = kTrapEntry, .cls = C::Trap, .code = true},
    {LTT_BARE(TRAP_EXIT), .key = "trap_exit", .name = "Trap exit", .ltt = "TRAP_EXIT",
     .cls = C::Trap},
    {LTT_EVENT(IRQ_ENTRY, ltt_ev_irq_entry), .key = "irq_entry", .name = "IRQ entry",
     .ltt = "IRQ_ENTRY", .fields = kIrqEntry, .cls = C::Irq, .code = true},
    {LTT_BARE(IRQ_EXIT), .key = "irq_exit", .name = "IRQ exit", .ltt = "IRQ_EXIT", .cls = C::Irq},
    {LTT_EVENT(SCHEDCHANGE, ltt_ev_schedchange), .key = "schedchange", .name = "Sched change",
     .ltt = "SCHED", .fields = kSchedchange, .cls = C::SchedChange,
     .describe = "IN : {in}; OUT : {out}; STATE : {out_state}"},
    {LTT_BARE(KERNEL_TIMER), .key = "kernel_timer", .name = "Kernel timer", .ltt = "KTIMER",
     .cls = C::KernelTimer},
    {LTT_EVENT(SOFT_IRQ, ltt_ev_soft_irq), .key = "soft_irq", .name = "Soft IRQ", .ltt = "SIRQ",
     .aliases = kSoftIrqAliases, .fields = kSoftIrq, .subtypes = kSoftIrqSubs, .cls = C::BottomHalf,
     .describe = " : {id}"},
    {LTT_EVENT(PROCESS, ltt_ev_process), .key = "process", .name = "Process", .ltt = "PROCESS",
     .fields = kProcess, .subtypes = kProcessSubs, .cls = C::Process,
     .describe = " PID : {pid}; ARG : {arg:x}"},
    {LTT_EVENT(FILE_SYSTEM, ltt_ev_file_system), .key = "file_system", .name = "File system",
     .ltt = "FS", .fixed = LTT_EV_FS_FIXED, .fields = kFileSystem, .subtypes = kFsSubs,
     .cls = C::FileSystem, .describe = " : {fd}; ARG : {arg}"},
    {LTT_EVENT(TIMER, ltt_ev_timer), .key = "timer", .name = "Timer", .ltt = "TIMER",
     .fields = kTimer, .subtypes = kTimerSubs, .describe = " : {arg}"},
    {LTT_EVENT(MEMORY, ltt_ev_memory), .key = "memory", .name = "Memory", .ltt = "MEM",
     .fields = kMemory, .subtypes = kMemorySubs, .describe = " : {address}"},
    {LTT_EVENT(SOCKET, ltt_ev_socket), .key = "socket", .name = "Socket", .ltt = "SOCKET",
     .fields = kSocket, .subtypes = kSocketSubs, .describe = " : TYPE {type}; SIZE : {size}"},
    {LTT_EVENT(IPC, ltt_ev_ipc), .key = "ipc", .name = "IPC", .ltt = "IPC", .fields = kIpc,
     .subtypes = kIpcSubs, .describe = " : ID {id}; FLAGS : {flags:x}"},
    {LTT_EVENT(NETWORK, ltt_ev_network), .key = "network", .name = "Network", .ltt = "NET",
     .fields = kNetwork, .subtypes = kNetworkSubs, .describe = " : PROTOCOL {protocol:04x}"},
    {LTT_EVENT(BLOCK_START, ltt_block_start), .key = "block_start", .name = "Block start",
     .fields = kBlockStart, .cls = C::None, .code = true},
    {LTT_EVENT(BLOCK_END, ltt_block_end), .key = "block_end", .name = "Block end",
     .fields = kBlockEnd, .cls = C::None, .describe = "EVENTS : {events}"},
    {LTT_EVENT(HEARTBEAT, ltt_ev_heartbeat), .key = "heartbeat", .name = "Heartbeat",
     .fields = kHeartbeat, .cls = C::None, .describe = "TSC : {tsc}"},
    {LTT_EVENT(LOST, ltt_ev_lost), .key = "lost", .name = "Lost events", .fields = kLost,
     .cls = C::Lost, .describe = "LOST : {count} EVENTS"},
    {LTT_EVENT(CUSTOM, ltt_ev_custom), .key = "custom", .name = "Custom", .ltt = "CUSTOM",
     .aliases = kCustomAliases, .fixed = LTT_EV_CUSTOM_FIXED, .fields = kCustom,
     .describe = "ID : {id:x}; LENGTH : {length}"},
    // module_events.h
    {LTT_EVENT(VARS, ltt_ev_vars), .key = "vars", .name = "Variables", .ltt = "VARS",
     .fixed = LTT_EV_VARS_FIXED, .fields = kVars, .code = true},
    {LTT_EVENT(MOUNT, ltt_ev_mount), .key = "mount", .name = "Mount", .ltt = "MOUNT",
     .fixed = LTT_EV_MOUNT_FIXED, .fields = kMount, .subtypes = kMountSubs, .code = true},
    {LTT_EVENT(LOCK, ltt_ev_lock), .key = "lock", .name = "Lock", .ltt = "LOCK", .fields = kLock,
     .subtypes = kLockSubs, .describe = " : {lock}; RET : {ret}"},
    {LTT_EVENT(MAP, ltt_ev_map), .key = "map", .name = "Map", .ltt = "MAP",
     .fixed = LTT_EV_MAP_FIXED, .fields = kMap, .subtypes = kMapSubs, .namedSubtypes = false,
     .code = true},
    {LTT_EVENT(USER, ltt_ev_user), .key = "user", .name = "User event", .typed = false,
     .fixed = LTT_EV_USER_FIXED, .fields = kUser, .subtypes = kUserSubs, .cls = C::None,
     .code = true},
    {LTT_EVENT(CONFIG, ltt_ev_config), .key = "config", .name = "Config", .typed = false,
     .fields = kConfig, .subtypes = kConfigSubs, .namedSubtypes = false, .code = true},
    {LTT_EVENT(CONTEXT, ltt_ev_context), .key = "context", .name = "Context", .typed = false,
     .fields = kContext, .subtypes = kContextSubs, .describe = " PID : {pid}; TGID : {tgid}"},
    {LTT_EVENT(STACK, ltt_ev_stack), .key = "stack", .name = "Stack", .ltt = "STACK",
     .fixed = LTT_EV_STACK_FIXED, .fields = kStack, .subtypes = kStackSubs, .code = true},
};

#undef LTT_EVENT
#undef LTT_BARE
#undef LTT_FIELD

// Whether this version knows event `id` (kEvents[id] is its entry).
// (Constant expressions here test indices, never pointers against null:
// GCC's sanitizer builds do not take &global == nullptr as constant.)
constexpr bool known(unsigned id) {
    return id < std::size(kEvents);
}

// The entry of event `id`, or null for an id this version does not know.
constexpr const Event* event(unsigned id) {
    return known(id) ? &kEvents[id] : nullptr;
}

// The fields of event `id`'s subtype `sub` (a subtype's own, else the event's).
constexpr std::span<const Field> fieldsOf(const Event& e, unsigned sub) {
    if (sub < e.subtypes.size() && !e.subtypes[sub].fields.empty())
        return e.subtypes[sub].fields;
    return e.fields;
}

// The class of a record, its subtype's when the subtype says.
constexpr EventClass classOf(unsigned id, unsigned sub) {
    if (!known(id))
        return EventClass::Other;
    const Event& e = kEvents[id];
    if (sub < e.subtypes.size() && e.subtypes[sub].cls != EventClass::Inherit)
        return e.subtypes[sub].cls;
    return e.cls;
}

// ------------------------------------------------------------------ checks

namespace impl {
consteval bool lower(std::string_view abi, std::string_view key) {
    if (abi.size() != key.size())
        return false;
    for (std::size_t i = 0; i < abi.size(); ++i)
        if ((abi[i] >= 'A' && abi[i] <= 'Z' ? char(abi[i] - 'A' + 'a') : abi[i]) != key[i])
            return false;
    return true;
}
// The index of a field of `fields` by name, fields.size() if none.
consteval std::size_t find(std::span<const Field> fields, std::string_view name) {
    std::size_t i = 0;
    while (i < fields.size() && fields[i].name != name)
        ++i;
    return i;
}

// Every {field} and {field:F} of a template names a field (of the fixed
// part, or the Str tail) and a known F.
consteval bool validTemplate(std::string_view t, std::span<const Field> fields, std::size_t fixed) {
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t[i] == '}')
            return false;
        if (t[i] != '{')
            continue;
        const std::size_t end = t.find('}', i);
        if (end == std::string_view::npos)
            return false;
        std::string_view name = t.substr(i + 1, end - i - 1), format;
        if (const std::size_t colon = name.find(':'); colon != std::string_view::npos) {
            format = name.substr(colon + 1);
            name = name.substr(0, colon);
        }
        const std::size_t at = find(fields, name);
        if (at == fields.size())
            return false;
        const Field& f = fields[at];
        if ((isArray(f.type) && (f.type != FieldType::Str || !format.empty())) ||
            (!isArray(f.type) && f.offset + f.size > fixed))
            return false;
        if (!(format.empty() || format == "d" || format == "u" || format == "x" ||
              format == "04x" || format == "hi16" || format == "lo16" || format == "ksym"))
            return false;
        i = end;
    }
    return true;
}

consteval bool wellFormed() {
    for (std::size_t i = 0; i < std::size(kEvents); ++i) {
        const Event& e = kEvents[i];
        if (e.id != i || !lower(e.abi, e.key) || e.name.empty())
            return false;
        if (!e.fields.empty() && !tiles(e.fields, e.size, e.fixed))
            return false;
        if (e.fields.empty() && (e.size != 0 || e.fixed != 0))
            return false;
        if (e.code && !e.describe.empty())
            return false;
        if (!validTemplate(e.describe, e.fields, fixedSize(e)))
            return false;
        for (const Subtype& s : e.subtypes) {
            if (s.name.empty() || (!s.fields.empty() && !tiles(s.fields, s.size, s.fixed)))
                return false;
            if ((e.code || !e.namedSubtypes) && !s.describe.empty())
                return false;
            if (!validTemplate(s.describe, e.fields, fixedSize(e)))
                return false;
        }
    }
    return true;
}
} // namespace impl

// Ids are dense, keys are the ABI names in lower case, every detail
// structure is tiled by its fields (sizes and offsets from the headers),
// and every description template names fields the event has.
static_assert(impl::wellFormed(), "event schema: an entry disagrees with include/ltt");

} // namespace ltt::schema
