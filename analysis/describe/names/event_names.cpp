// The event-name vocabulary: see event_names.hpp.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <libltt/event_names.hpp>
#include <libltt/event_schema.hpp>
#include <ltt/module_events.h>

namespace ltt {

namespace {

constexpr std::uint64_t bit(int ev) {
    return LTT_EV_BIT(ev);
}

// The names users type, in the order help texts list them: each event's
// LTT 0.9 name, then its ABI name where that differs and the event may be
// typed, with its aliases, then the groups (event_schema.hpp).
constexpr EventNameEntry kGroups[] = {
    {"SYSCALL", bit(LTT_EV_SYSCALL_ENTRY) | bit(LTT_EV_SYSCALL_EXIT)},
    {"TRAP", bit(LTT_EV_TRAP_ENTRY) | bit(LTT_EV_TRAP_EXIT)},
    {"IRQ", bit(LTT_EV_IRQ_ENTRY) | bit(LTT_EV_IRQ_EXIT)},
    {"CORE", LTT_EV_MASK_CORE},
    {"ALL", LTT_EV_MASK_ALL},
    {"NONE", 0},
};

template <class F> constexpr void forEachName(F f) {
    for (const schema::Event& e : schema::kEvents)
        if (!e.ltt.empty())
            f(e.ltt, bit(e.id));
    for (const schema::Event& e : schema::kEvents) {
        if (e.typed && e.abi != e.ltt)
            f(e.abi, bit(e.id));
        for (std::string_view a : e.aliases)
            f(a, bit(e.id));
    }
    for (const EventNameEntry& g : kGroups)
        f(g.name, g.mask);
}

constexpr std::size_t kNameCount = [] {
    std::size_t n = 0;
    forEachName([&](std::string_view, std::uint64_t) { ++n; });
    return n;
}();

// EventNameEntry holds a C string: the schema's names are literals.
constexpr std::array<EventNameEntry, kNameCount> kEventNames = [] {
    std::array<EventNameEntry, kNameCount> out{};
    std::size_t i = 0;
    forEachName([&](std::string_view name, std::uint64_t mask) { out[i++] = {name.data(), mask}; });
    return out;
}();

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
    const schema::Event* e = schema::event(id);
    return e ? e->name : "Unknown";
}
std::string_view eventKey(unsigned id) {
    const schema::Event* e = schema::event(id);
    return e ? e->key : "unknown";
}

std::string_view subtypeName(unsigned id, unsigned sub) {
    const schema::Event* e = schema::event(id);
    if (!e || !schema::namesSubtypes(*e))
        return {};
    return sub < e->subtypes.size() ? e->subtypes[sub].name : "UNKNOWN";
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
