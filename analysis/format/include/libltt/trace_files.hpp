// The names of a trace's sibling files. A trace NAME.trace comes with
// NAME.proc (the process snapshot, proc_file.hpp) and, when tracedaemon could
// read it, NAME.kallsyms (its copy of /proc/kallsyms, which the symbolizer
// reads). Writers and readers derive those names here, so both agree.
#pragma once

#include <string>
#include <string_view>

namespace ltt {

// NAME.kallsyms for the trace NAME.trace (another name: that name and
// .kallsyms): where tracedaemon saves its copy of /proc/kallsyms.
inline std::string kallsymsPathFor(const std::string& tracePath) {
    constexpr std::string_view kExt = ".trace";
    std::string base = tracePath;
    if (base.size() > kExt.size() && base.ends_with(kExt))
        base.resize(base.size() - kExt.size());
    return base + ".kallsyms";
}

} // namespace ltt
