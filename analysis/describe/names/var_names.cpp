// The names of kernel-state variables (event_names.hpp).
#include <cctype>
#include <libltt/event_names.hpp>
#include <ltt/module_events.h>
#include <string>

namespace ltt {

namespace {

constexpr const char* kVarNames[LTT_VAR_COUNT] = {
    "args",   "pid",     "ppid",   "pgid",    "freemem", "totalmem", "pgfault",
    "pgpgin", "pgpgout", "pswpin", "pswpout", "prev",    "next",     "sigpending",
    "uid",    "minflt",  "majflt", "nvcsw",   "nivcsw",  "loadavg",
};

} // namespace

std::string_view varName(unsigned var) {
    return var < LTT_VAR_COUNT ? kVarNames[var] : std::string_view{};
}

std::string varNames() {
    std::string s;
    for (unsigned v = 0; v < LTT_VAR_COUNT; ++v)
        s.append(v ? "," : "").append(kVarNames[v]);
    return s;
}

std::optional<std::uint32_t> parseVarList(std::string_view list, std::string* bad) {
    std::uint32_t mask = 0;
    std::size_t at = 0;
    while (at <= list.size()) {
        std::size_t comma = list.find(',', at);
        if (comma == std::string_view::npos)
            comma = list.size();
        std::string name(list.substr(at, comma - at));
        for (char& ch : name)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        at = comma + 1;
        if (name == "all") {
            mask |= LTT_VAR_MASK_ALL;
            continue;
        }
        unsigned v = 0;
        while (v < LTT_VAR_COUNT && name != kVarNames[v])
            ++v;
        if (v == LTT_VAR_COUNT) {
            if (bad)
                *bad = name;
            return std::nullopt;
        }
        mask |= LTT_VAR_BIT(v);
    }
    return mask;
}

} // namespace ltt
