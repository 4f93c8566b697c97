// The system's state when tracing starts (paper §3.4), read from /proc into
// libltt's ProcSnapshot: every thread (PID, PPID, TGID, PGRP, effective
// UID/GID, state, kernel-thread flag, name), the IRQ names of
// /proc/interrupts and each process's executable mappings.
//
// Tasks come and go while we read: a task that vanishes between listing and
// reading is skipped silently; the FORK/EXIT events in the trace cover it.
#pragma once

#include <libltt/proc_file.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ltt::daemon {

// `procRoot` is "/proc" except in tests. With `onlyUid`, the snapshot of a
// restricted session (an unprivileged user's, LTT_TRACE_F_RESTRICTED): only
// the tasks whose real or effective UID is that one, and their mappings,
// which is what the kernel lets the session see; the IRQ names stay (the
// world may read /proc/interrupts).
ProcSnapshot takeProcSnapshot(const std::string& procRoot = "/proc",
                              std::optional<long long> onlyUid = std::nullopt);

// Parsers, exposed for tests. They return nullopt on malformed input.
struct StatFields {
    std::string comm;
    char state = '?';
    int ppid = 0;
    int pgrp = -1;
    unsigned long flags = 0;
};
std::optional<StatFields> parseStat(std::string_view text);

struct StatusFields {
    int tgid = 0;
    long long uid = -1;  // effective
    long long gid = -1;  // effective
    long long ruid = -1; // real
};
StatusFields parseStatus(std::string_view text);

std::vector<ProcIrq> parseInterrupts(std::string_view text);

// Executable mappings only ('x' in the permissions).
std::vector<ProcMap> parseMaps(int pid, std::string_view text);

} // namespace ltt::daemon
