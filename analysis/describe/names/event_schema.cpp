// Compile-time checks that the event schema (event_schema.hpp) holds every
// event and subtype the headers define. The header checks each entry
// against its structure; this file checks that no entry is missing.
//
// Events of events.h are numbered densely below LTT_EV_MAX, which grows
// with every event appended. module_events.h numbers its events up to the
// fixed LTT_EV_COUNT, with reserved ids between: the switches below list
// its enumerators, and -Wswitch, made an error here, fails the build when
// the enum gains one that they do not list. The subtype enums are checked
// by their _MAX (or the same kind of switch, where there is none).
#include <libltt/event_schema.hpp>

namespace ltt::schema {
namespace {

#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"

// Whether `id` is an event of module_events.h.
constexpr bool moduleEvent(unsigned id) {
    switch (static_cast<ltt_module_event_id>(id)) {
    case LTT_EV_VARS:
    case LTT_EV_MOUNT:
    case LTT_EV_LOCK:
    case LTT_EV_MAP:
    case LTT_EV_USER:
    case LTT_EV_CONFIG:
    case LTT_EV_CONTEXT:
    case LTT_EV_STACK:
        return true;
    case LTT_EV_COUNT:
        break;
    }
    return false;
}

// The number of subtypes of the enums that have no _MAX.
constexpr unsigned mapSubtypes() {
    unsigned n = 0;
    for (unsigned s = 0; s < 256; ++s)
        switch (static_cast<ltt_map_sub>(s)) {
        case LTT_MAP_MMAP:
        case LTT_MAP_MPROTECT:
        case LTT_MAP_EXEC:
            n = s + 1;
            break;
        }
    return n;
}
constexpr unsigned contextSubtypes() {
    unsigned n = 0;
    for (unsigned s = 0; s < 256; ++s)
        switch (static_cast<ltt_context_sub>(s)) {
        case LTT_CONTEXT_SWITCH:
        case LTT_CONTEXT_OWNED:
        case LTT_CONTEXT_HIDDEN:
            n = s + 1;
            break;
        }
    return n;
}

#pragma GCC diagnostic pop

constexpr bool everyEvent() {
    if (std::size(kEvents) > LTT_EV_COUNT)
        return false;
    for (unsigned id = 0; id < LTT_EV_COUNT; ++id)
        if ((id < LTT_EV_MAX && moduleEvent(id)) ||
            (id < LTT_EV_MAX || moduleEvent(id)) != known(id))
            return false;
    return true;
}
static_assert(everyEvent(), "event schema: an event of include/ltt has no entry in "
                            "event_schema.hpp, or an entry no event");

constexpr std::size_t subtypes(unsigned id) {
    return kEvents[id].subtypes.size();
}
static_assert(
    subtypes(LTT_EV_SOFT_IRQ) == LTT_SOFTIRQ_MAX && subtypes(LTT_EV_PROCESS) == LTT_PROCESS_MAX &&
        subtypes(LTT_EV_FILE_SYSTEM) == LTT_FS_MAX && subtypes(LTT_EV_TIMER) == LTT_TIMER_MAX &&
        subtypes(LTT_EV_MEMORY) == LTT_MEMORY_MAX && subtypes(LTT_EV_SOCKET) == LTT_SOCKET_MAX &&
        subtypes(LTT_EV_IPC) == LTT_IPC_MAX && subtypes(LTT_EV_NETWORK) == LTT_NETWORK_MAX &&
        subtypes(LTT_EV_MOUNT) == LTT_MOUNT_MAX && subtypes(LTT_EV_LOCK) == LTT_LOCK_MAX &&
        subtypes(LTT_EV_USER) == LTT_USER_MAX && subtypes(LTT_EV_CONFIG) == LTT_CONFIG_MAX &&
        subtypes(LTT_EV_STACK) == LTT_STACK_MAX && subtypes(LTT_EV_MAP) == mapSubtypes() &&
        subtypes(LTT_EV_CONTEXT) == contextSubtypes(),
    "event schema: a subtype enum of include/ltt and its event's entry differ");

} // namespace
} // namespace ltt::schema
