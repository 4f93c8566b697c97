// The unattributed fixture: see unattributed_fixture.hpp.
#include "unattributed_fixture.hpp"

#include <libltt/block_codec.hpp>
#include <libltt/trace_writer.hpp>
#include <ltt/events.h>

namespace traceview {

void writeUnattributedTrace(const std::string& path) {
    const std::uint64_t mask =
        LTT_EV_MASK_STRUCTURE | LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY) | LTT_EV_BIT(LTT_EV_SYSCALL_EXIT);
    constexpr std::uint32_t kGetpid = 39, kWrite = 1;
    ltt_trace_info info{};
    info.abi_version = LTT_ABI_VERSION;
    info.ncpus = 2;
    info.tsc_khz = 1000000;
    info.anchor_tsc = 1000;
    info.anchor_realtime_ns = 1700000000000000000ull;
    info.max_block = 16384;
    info.config.event_mask = info.config.details_mask = mask;
    info.config.pid = info.config.pgrp = -1;
    ltt::TraceWriter w(path, ltt::makeFileHeader(info, "traceview unattributed fixture"));
    ltt::BlockBuilder b;
    b.start(0, 0, 1000, 100);
    ltt_ev_trace_start_ext ts{};
    ts.start = {1000000, 1000, info.anchor_realtime_ns, mask, mask};
    b.record(1000, LTT_EV_TRACE_START, 0, ts);
    for (std::uint64_t t = 2000; t < 5000; t += 1000) {
        b.record(t, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x401000, kGetpid, 0});
        b.record(t + 100, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{100});
    }
    w.append(b.finish(10000, LTT_BLOCK_F_FINAL));
    b.start(1, 0, 1500, -1);
    b.record(2500, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x401000, kWrite, 0});
    b.record(2800, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{5});
    w.append(b.finish(10000, LTT_BLOCK_F_FINAL));
    w.close();
}

} // namespace traceview
