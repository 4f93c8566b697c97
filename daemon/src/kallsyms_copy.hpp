// The copy of /proc/kallsyms tracedaemon saves beside the trace
// (NAME.kallsyms), so the analysis can name kernel addresses (trap IPs,
// kernel threads' start functions) with the addresses of the traced boot.
#pragma once

#include <string>

namespace ltt::daemon {

// Copies `kallsyms` (/proc/kallsyms) to the NAME.kallsyms of `traceFile`,
// a private file (0600, written whole or not at all, as the .proc). Writes
// nothing and returns false with the reason in `why` when the source
// cannot be read or shows no address (all zero: this process may not see
// kernel addresses, kptr_restrict), and when the copy cannot be written (a
// full disk, a planted link): the copy is an extra, so its failure never
// stops a trace, and it leaves no partial file.
bool saveKallsyms(const std::string& kallsyms, const std::string& traceFile, std::string& why);

} // namespace ltt::daemon
