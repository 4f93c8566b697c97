// The "offcpu" member of the JSON document (docs/json.md), rendered from
// the off-CPU report's data (offcpu_report.hpp) that symbols/ fills.
#pragma once

#include <cstdio>
#include <libltt/offcpu_report.hpp>

namespace ltt {

// Written as `,\n  "offcpu": {...}`: the totals, the processes by pid, and
// the stacks longest first, each with its user and kernel frames and its
// time per process.
void writeOffCpuJson(std::FILE* out, const OffCpuReport& report);

} // namespace ltt
