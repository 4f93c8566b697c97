// The event-name vocabulary: see event_names.hpp.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <libltt/event_names.hpp>
#include <ltt/module_events.h>

namespace ltt {

namespace {

struct EventNames {
    const char* name;
    const char* key;
};

// Ids without a name (reserved) read as "Unknown".
constexpr std::array<EventNames, LTT_EV_COUNT> kEvents = {{
    {"Trace start", "trace_start"},
    {"Syscall entry", "syscall_entry"},
    {"Syscall exit", "syscall_exit"},
    {"Trap entry", "trap_entry"},
    {"Trap exit", "trap_exit"},
    {"IRQ entry", "irq_entry"},
    {"IRQ exit", "irq_exit"},
    {"Sched change", "schedchange"},
    {"Kernel timer", "kernel_timer"},
    {"Soft IRQ", "soft_irq"},
    {"Process", "process"},
    {"File system", "file_system"},
    {"Timer", "timer"},
    {"Memory", "memory"},
    {"Socket", "socket"},
    {"IPC", "ipc"},
    {"Network", "network"},
    {"Block start", "block_start"},
    {"Block end", "block_end"},
    {"Heartbeat", "heartbeat"},
    {"Lost events", "lost"},
    {"Custom", "custom"},
    {"Variables", "vars"},
    {"Mount", "mount"},
    {"Lock", "lock"},
    {"Map", "map"},
    {"User event", "user"},
    {"Config", "config"},
    {"Context", "context"},
    {"Stack", "stack"},
}};

constexpr std::uint64_t bit(int ev) {
    return LTT_EV_BIT(ev);
}

constexpr EventNameEntry kEventNames[] = {
    {"START", bit(LTT_EV_TRACE_START)},
    {"SYS_ENTRY", bit(LTT_EV_SYSCALL_ENTRY)},
    {"SYS_EXIT", bit(LTT_EV_SYSCALL_EXIT)},
    {"TRAP_ENTRY", bit(LTT_EV_TRAP_ENTRY)},
    {"TRAP_EXIT", bit(LTT_EV_TRAP_EXIT)},
    {"IRQ_ENTRY", bit(LTT_EV_IRQ_ENTRY)},
    {"IRQ_EXIT", bit(LTT_EV_IRQ_EXIT)},
    {"SCHED", bit(LTT_EV_SCHEDCHANGE)},
    {"KTIMER", bit(LTT_EV_KERNEL_TIMER)},
    {"SIRQ", bit(LTT_EV_SOFT_IRQ)},
    {"PROCESS", bit(LTT_EV_PROCESS)},
    {"FS", bit(LTT_EV_FILE_SYSTEM)},
    {"TIMER", bit(LTT_EV_TIMER)},
    {"MEM", bit(LTT_EV_MEMORY)},
    {"SOCKET", bit(LTT_EV_SOCKET)},
    {"IPC", bit(LTT_EV_IPC)},
    {"NET", bit(LTT_EV_NETWORK)},
    {"CUSTOM", bit(LTT_EV_CUSTOM)},
    {"VARS", bit(LTT_EV_VARS)},
    {"MOUNT", bit(LTT_EV_MOUNT)},
    {"LOCK", bit(LTT_EV_LOCK)},
    {"MAP", bit(LTT_EV_MAP)},
    {"STACK", bit(LTT_EV_STACK)},
    {"TRACE_START", bit(LTT_EV_TRACE_START)},
    {"SYSCALL_ENTRY", bit(LTT_EV_SYSCALL_ENTRY)},
    {"SYSCALL_EXIT", bit(LTT_EV_SYSCALL_EXIT)},
    {"SCHEDCHANGE", bit(LTT_EV_SCHEDCHANGE)},
    {"KERNEL_TIMER", bit(LTT_EV_KERNEL_TIMER)},
    {"SOFT_IRQ", bit(LTT_EV_SOFT_IRQ)},
    {"SOFTIRQ", bit(LTT_EV_SOFT_IRQ)},
    {"BH", bit(LTT_EV_SOFT_IRQ)},
    {"FILE_SYSTEM", bit(LTT_EV_FILE_SYSTEM)},
    {"MEMORY", bit(LTT_EV_MEMORY)},
    {"NETWORK", bit(LTT_EV_NETWORK)},
    {"BLOCK_START", bit(LTT_EV_BLOCK_START)},
    {"BLOCK_END", bit(LTT_EV_BLOCK_END)},
    {"HEARTBEAT", bit(LTT_EV_HEARTBEAT)},
    {"LOST", bit(LTT_EV_LOST)},
    {"USER", bit(LTT_EV_CUSTOM)},
    {"SYSCALL", bit(LTT_EV_SYSCALL_ENTRY) | bit(LTT_EV_SYSCALL_EXIT)},
    {"TRAP", bit(LTT_EV_TRAP_ENTRY) | bit(LTT_EV_TRAP_EXIT)},
    {"IRQ", bit(LTT_EV_IRQ_ENTRY) | bit(LTT_EV_IRQ_EXIT)},
    {"CORE", LTT_EV_MASK_CORE},
    {"ALL", LTT_EV_MASK_ALL},
    {"NONE", 0},
};

// Case-insensitive, with '_' and ' ' the same.
bool sameName(std::string_view a, std::string_view b) {
    auto fold = [](char c) {
        return c == ' ' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    };
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                              [&](char x, char y) { return fold(x) == fold(y); });
}

} // namespace

std::string_view eventName(unsigned id) {
    return id < LTT_EV_COUNT && kEvents[id].name ? kEvents[id].name : "Unknown";
}
std::string_view eventKey(unsigned id) {
    return id < LTT_EV_COUNT && kEvents[id].key ? kEvents[id].key : "unknown";
}

std::string_view subtypeName(unsigned id, unsigned sub) {
    static constexpr const char* softirq[] = {"SOFTIRQ ENTRY", "SOFTIRQ EXIT", "TASKLET ENTRY",
                                              "TASKLET EXIT"};
    static constexpr const char* process[] = {"KTHREAD", "FORK",   "EXIT",
                                              "WAIT",    "SIGNAL", "WAKEUP"};
    static constexpr const char* fs[] = {"START I/O WAIT", "END I/O WAIT", "EXEC",  "OPEN",
                                         "CLOSE",          "READ",         "WRITE", "SEEK",
                                         "IOCTL",          "SELECT",       "POLL"};
    static constexpr const char* timer[] = {"EXPIRED", "SET ITIMER", "SET TIMEOUT"};
    static constexpr const char* memory[] = {"PAGE ALLOC", "PAGE FREE",       "SWAP IN",
                                             "SWAP OUT",   "PAGE WAIT START", "PAGE WAIT END"};
    static constexpr const char* socket[] = {"SO CALL", "SO CREATE", "SO SEND", "SO RECEIVE"};
    static constexpr const char* ipc[] = {"IPC CALL", "MSG CREATE", "SEM CREATE", "SHM CREATE"};
    static constexpr const char* net[] = {"PACKET IN", "PACKET OUT"};
    static constexpr const char* mount[] = {"MOUNT", "UMOUNT"};
    static constexpr const char* lock[] = {"CONTENDED", "ACQUIRED"};
    static constexpr const char* user[] = {"EVENT", "DECLARE"};
    static constexpr const char* context[] = {"SWITCH", "OWNED", "HIDDEN"};
    static constexpr const char* stack[] = {"KERNEL", "USER"};
    auto pick = [sub](const auto& arr) -> std::string_view {
        return sub < std::size(arr) ? arr[sub] : "UNKNOWN";
    };
    switch (id) {
    case LTT_EV_USER:
        return pick(user);
    case LTT_EV_SOFT_IRQ:
        return pick(softirq);
    case LTT_EV_PROCESS:
        return pick(process);
    case LTT_EV_FILE_SYSTEM:
        return pick(fs);
    case LTT_EV_TIMER:
        return pick(timer);
    case LTT_EV_MEMORY:
        return pick(memory);
    case LTT_EV_SOCKET:
        return pick(socket);
    case LTT_EV_IPC:
        return pick(ipc);
    case LTT_EV_NETWORK:
        return pick(net);
    case LTT_EV_MOUNT:
        return pick(mount);
    case LTT_EV_LOCK:
        return pick(lock);
    case LTT_EV_CONTEXT:
        return pick(context);
    case LTT_EV_STACK:
        return pick(stack);
    default:
        return {};
    }
}

std::span<const EventNameEntry> eventNames() {
    return kEventNames;
}

std::optional<std::uint64_t> eventMaskOf(std::string_view name) {
    for (const auto& e : kEventNames)
        if (sameName(name, e.name))
            return e.mask;
    for (unsigned id = 0; id < LTT_EV_COUNT; ++id)
        if (eventName(id) != "Unknown" && sameName(name, eventName(id)))
            return bit(static_cast<int>(id));
    unsigned id = 0;
    auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), id);
    if (!name.empty() && ec == std::errc() && end == name.data() + name.size() &&
        id < LTT_EV_COUNT && eventName(id) != "Unknown")
        return bit(static_cast<int>(id));
    return std::nullopt;
}

std::optional<std::uint64_t> parseEventList(std::string_view text, std::string* bad) {
    std::uint64_t mask = 0;
    bool any = false;
    while (true) {
        const auto comma = text.find(',');
        const std::string_view name = text.substr(0, comma);
        if (!name.empty()) {
            auto m = eventMaskOf(name);
            if (!m) {
                if (bad)
                    *bad = name;
                return std::nullopt;
            }
            mask |= *m;
            any = true;
        }
        if (comma == std::string_view::npos)
            break;
        text.remove_prefix(comma + 1);
    }
    if (!any) {
        if (bad)
            bad->clear();
        return std::nullopt;
    }
    return mask;
}

std::string eventNameHelp() {
    std::string out;
    for (const auto& e : kEventNames) {
        if (!out.empty())
            out += ',';
        out += e.name;
    }
    return out;
}

std::string unknownEventMessage(std::string_view bad, std::string_view option) {
    return "unknown event '" + std::string(bad) + "' for " + std::string(option) +
           "; known events: " + eventNameHelp();
}

} // namespace ltt
