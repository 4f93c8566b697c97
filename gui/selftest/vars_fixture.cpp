// The self test's VARS fixture: see vars_fixture.hpp.
#include "vars_fixture.hpp"

#include <cstdio>
#include <cstring>
#include <libltt/block_codec.hpp>
#include <libltt/syscall_args.hpp>
#include <libltt/trace_reader.hpp>
#include <libltt/trace_writer.hpp>
#include <ltt/events.h>
#include <map>
#include <vector>

namespace traceview {

namespace {
// openat's dirfd for "relative to the working directory".
constexpr std::int64_t kAtFdcwd = -100;
} // namespace

// The records as tracedaemon -V args,freemem,totalmem,pgfault,loadavg
// writes them (vars_fixture.hpp gives what they say).
void writeVarsTrace(const std::string& path) {
    ltt_trace_info info{};
    info.abi_version = LTT_ABI_VERSION;
    info.ncpus = 2;
    info.tsc_khz = 1000000;
    info.anchor_tsc = 1000;
    info.anchor_realtime_ns = 1700000000000000000ull;
    info.max_block = 16384;
    info.config.event_mask = LTT_EV_MASK_ALL | LTT_EV_MASK_STRUCTURE;
    info.config.details_mask = LTT_EV_MASK_ALL | LTT_EV_MASK_STRUCTURE;
    info.config.pid = info.config.pgrp = -1;
    ltt::TraceWriter w(path, ltt::makeFileHeader(info, "traceview self test"));
    ltt::BlockBuilder b;
    const std::uint32_t mask = LTT_VAR_BIT(LTT_VAR_ARGS) | LTT_VAR_BIT(LTT_VAR_FREEMEM) |
                               LTT_VAR_BIT(LTT_VAR_TOTALMEM) | LTT_VAR_BIT(LTT_VAR_PGFAULT) |
                               LTT_VAR_BIT(LTT_VAR_LOADAVG);
    // A VARS record: the arguments, then the variables in bit order.
    auto vars = [&b](std::uint64_t tsc, std::uint32_t nr, std::vector<std::uint64_t> args,
                     std::vector<std::pair<unsigned, std::uint64_t>> values, bool withArgs) {
        ltt_ev_vars v{};
        unsigned n = 0;
        if (withArgs) {
            v.changed |= LTT_VAR_BIT(LTT_VAR_ARGS);
            v.nr = nr;
            for (auto a : args)
                v.values[n++] = a;
        }
        for (auto [var, value] : values) {
            v.changed |= LTT_VAR_BIT(var);
            v.values[n++] = value;
        }
        b.record(tsc, LTT_EV_VARS, std::uint8_t(args.size()), &v, LTT_EV_VARS_FIXED + n * 8);
    };
    auto entry = [&b](std::uint64_t tsc, std::uint32_t nr) {
        b.record(tsc, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x401000, nr, 0});
    };
    auto exitCall = [&b](std::uint64_t tsc, std::int64_t ret) {
        b.record(tsc, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{ret});
    };
    auto opened = [&b](std::uint64_t tsc, std::int32_t fd, const char* name) {
        ltt_ev_file_system f{};
        f.fd = fd;
        std::snprintf(f.name, sizeof f.name, "%s", name);
        b.record(tsc, LTT_EV_FILE_SYSTEM, LTT_FS_OPEN, &f,
                 LTT_EV_FS_FIXED + std::strlen(f.name) + 1);
    };
    const std::uint64_t openat = 257, getpid = 39;
    b.start(0, 0, 1000, 100);
    ltt_ev_trace_start_ext ts{};
    ts.start = {1000000, 1000, info.anchor_realtime_ns, LTT_EV_MASK_ALL, LTT_EV_MASK_ALL};
    ts.vars_mask = mask;
    b.record(1000, LTT_EV_TRACE_START, 0, ts);
    entry(2000, openat);
    vars(2000, openat, {std::uint64_t(kAtFdcwd), 0x7ffc1000, 0, 0},
         {{LTT_VAR_FREEMEM, 50000},
          {LTT_VAR_TOTALMEM, 262144},
          {LTT_VAR_PGFAULT, 1000},
          {LTT_VAR_LOADAVG, 3072}},
         true);
    opened(3000, 3, "/etc/passwd");
    vars(3000, 0, {}, {{LTT_VAR_FREEMEM, 49000}}, false);
    exitCall(4000, 3);
    entry(4500, openat);
    vars(4500, openat, {std::uint64_t(kAtFdcwd), 0x7ffc1100, 0, 0}, {}, true);
    opened(4700, -2, "/missing");
    exitCall(4900, -2);
    entry(8000, getpid);
    vars(8000, getpid, {},
         {{LTT_VAR_FREEMEM, 45000}, {LTT_VAR_PGFAULT, 1300}, {LTT_VAR_LOADAVG, 4096}}, true);
    exitCall(8100, 100);
    w.append(b.finish(10000, LTT_BLOCK_F_FINAL));
    b.start(1, 0, 1500, 200);
    entry(2500, getpid);
    vars(2500, getpid, {},
         {{LTT_VAR_FREEMEM, 48000},
          {LTT_VAR_TOTALMEM, 262144},
          {LTT_VAR_PGFAULT, 500},
          {LTT_VAR_LOADAVG, 3072}},
         true);
    exitCall(3500, 200);
    vars(3500, 0, {}, {{LTT_VAR_FREEMEM, 47000}, {LTT_VAR_PGFAULT, 700}}, false);
    entry(6000, getpid);
    vars(6000, getpid, {},
         {{LTT_VAR_FREEMEM, 46000}, {LTT_VAR_PGFAULT, 900}, {LTT_VAR_LOADAVG, 4096}}, true);
    exitCall(7000, 200);
    w.append(b.finish(10000, LTT_BLOCK_F_FINAL));
    w.close();
}

// The series VARS records give, worked out here from decodeVars() on every
// record: system-wide values the latest of any CPU, counters the sum of
// each CPU's increase since its first record. Checks the document's series
// at every record's time and returns what differed.
std::string compareVarSeries(const std::string& path, const TraceDocument& doc,
                             std::size_t& compared) {
    ltt::TraceError err;
    auto r = ltt::TraceReader::open(path, &err);
    if (!r)
        return err.str();
    std::map<unsigned, std::uint64_t> want;
    std::map<std::pair<unsigned, unsigned>, std::uint64_t> cpuLast; // (cpu, var)
    std::string bad;
    for (auto c = r->begin(); c.valid(); c.next()) {
        const auto v = ltt::decodeVars(c.event());
        if (!v)
            continue;
        const std::uint64_t t = r->nsFromAnchor(c.event().tsc);
        for (unsigned var = 0; var < LTT_VAR_COUNT; ++var) {
            if (!(v->changed & LTT_VAR_BIT(var)) || !ltt::VarSeriesBuilder::charted(var))
                continue;
            if (var >= LTT_VAR_PGFAULT && var <= LTT_VAR_PSWPOUT) {
                auto [it, first] = cpuLast.try_emplace({c.event().cpu, var}, v->values[var]);
                want[var] += first ? 0 : v->values[var] - it->second;
                it->second = v->values[var];
            } else {
                want[var] = v->values[var];
            }
        }
        for (const auto& s : doc.varSeries()) {
            ++compared;
            if (want.count(s.var) && s.valueAt(t) != want[s.var] && bad.empty())
                bad = std::string(ltt::varName(s.var)) + " at " + std::to_string(t) +
                      " ns: " + std::to_string(s.valueAt(t)) + ", records say " +
                      std::to_string(want[s.var]);
        }
    }
    return bad;
}

} // namespace traceview
