// Event descriptions and the control-event rule (event_format.hpp). Descriptions follow
// LTT's raw-trace column ("SYSCALL : close; EIP : 0x08084068", "IN : 0; OUT :
// 120; STATE : 2") with IP for the 64-bit instruction pointer; events whose
// details were masked out at trace time have an empty description, as in LTT.
#include <algorithm>
#include <array>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <libltt/event_format.hpp>
#include <libltt/syscall_args.hpp>
#include <libltt/text_escape.hpp>
#include <ltt/module_events.h>
#include <utility>

namespace ltt {

namespace {

const char* trapName(std::uint32_t v) {
    static constexpr const char* names[] = {"divide error",
                                            "debug",
                                            "NMI",
                                            "breakpoint",
                                            "overflow",
                                            "bound range",
                                            "invalid opcode",
                                            "device not available",
                                            "double fault",
                                            "coprocessor overrun",
                                            "invalid TSS",
                                            "segment not present",
                                            "stack fault",
                                            "general protection",
                                            "page fault",
                                            "spurious",
                                            "x87 FPU error",
                                            "alignment check",
                                            "machine check",
                                            "SIMD error",
                                            "virtualization",
                                            "control protection"};
    return v < std::size(names) ? names[v] : nullptr;
}

template <class... A> void appendf(std::string& out, const char* fmt, A... args) {
    char buf[384];
    int n = std::snprintf(buf, sizeof buf, fmt, args...);
    if (n > 0)
        out.append(buf, std::min<std::size_t>(static_cast<std::size_t>(n), sizeof buf - 1));
}

// Kernel addresses are in the upper half; user space below 0x0000800000000000.
constexpr std::uint64_t kUserTop = 0x0000800000000000ull;

using ull = unsigned long long;
using ll = long long;

// Kernel addresses start at the canonical upper half on x86_64.
constexpr std::uint64_t kKernelSpace = 0xffff800000000000ull;

// " (function+0xoff)" after a kernel address `kernel` knows; nothing
// otherwise, so dumps without a kallsyms copy read as before.
void appendKernelSymbol(std::string& out, const KernelSymbols& kernel, std::uint64_t addr) {
    if (!kernel || addr < kKernelSpace)
        return;
    const std::string s = kernel(addr);
    if (!s.empty())
        appendf(out, " (%s)", s.c_str());
}

} // namespace

void describeEvent(const Event& e, std::string& out) {
    describeEvent(e, out, KernelSymbols());
}

void describeEvent(const Event& e, std::string& out, const KernelSymbols& kernel) {
    const std::size_t have = e.size - sizeof(ltt_record_header);
    switch (e.id) {
    case LTT_EV_TRACE_START: {
        ltt_ev_trace_start_ext d;
        if (e.copyDetails(d) >= sizeof d.start)
            appendf(out, "TSC KHZ : %llu; EVENT MASK : 0x%llx; DETAILS MASK : 0x%llx",
                    ull(d.start.tsc_khz), ull(d.start.event_mask), ull(d.start.details_mask));
        if (d.vars_mask)
            appendf(out, "; VARIABLES : 0x%x", d.vars_mask);
        break;
    }
    case LTT_EV_SYSCALL_ENTRY: {
        ltt_ev_syscall_entry d;
        if (e.copyDetails(d) >= 12) {
            auto name = syscallName(d.nr);
            if (name.empty())
                appendf(out, "SYSCALL : %u", d.nr);
            else
                appendf(out, "SYSCALL : %.*s", int(name.size()), name.data());
            appendf(out, "; IP : 0x%llx", ull(d.ip));
        }
        break;
    }
    case LTT_EV_SYSCALL_EXIT: {
        ltt_ev_syscall_exit d;
        if (e.detailsAs(d))
            appendf(out, "RET : %lld", ll(d.ret));
        break;
    }
    case LTT_EV_TRAP_ENTRY: {
        ltt_ev_trap_entry d;
        if (e.detailsAs(d)) {
            const char* n = trapName(d.trap);
            if (n)
                appendf(out, "TRAP : %s; IP : 0x%llx", n, ull(d.ip));
            else
                appendf(out, "TRAP : %u; IP : 0x%llx", d.trap, ull(d.ip));
            appendKernelSymbol(out, kernel, d.ip);
            if (d.trap == LTT_TRAP_PAGE_FAULT)
                appendf(out, "; ADDRESS : 0x%llx", ull(d.address));
        }
        break;
    }
    case LTT_EV_IRQ_ENTRY: {
        ltt_ev_irq_entry d;
        if (e.detailsAs(d))
            appendf(out, "IRQ : %s%u%s", (d.flags & LTT_IRQ_VECTOR) ? "vector " : "", d.irq,
                    (d.flags & LTT_IRQ_IN_KERNEL) ? ", IN-KERNEL" : "");
        break;
    }
    case LTT_EV_SCHEDCHANGE: {
        ltt_ev_schedchange d;
        if (e.detailsAs(d))
            appendf(out, "IN : %d; OUT : %d; STATE : %u", d.in, d.out, d.out_state);
        break;
    }
    case LTT_EV_SOFT_IRQ: {
        ltt_ev_soft_irq d;
        auto sub = subtypeName(e.id, e.subtype);
        out.append(sub);
        if (e.detailsAs(d))
            appendf(out, e.subtype >= LTT_TASKLET_ENTRY ? " : 0x%llx" : " : %llu", ull(d.id));
        break;
    }
    case LTT_EV_PROCESS: {
        ltt_ev_process d;
        out.append(subtypeName(e.id, e.subtype));
        if (!e.detailsAs(d))
            break;
        switch (e.subtype) {
        case LTT_PROCESS_KTHREAD:
            appendf(out, " PID : %d; FUNCTION : 0x%llx", d.pid, ull(d.arg));
            appendKernelSymbol(out, kernel, d.arg);
            break;
        case LTT_PROCESS_FORK:
            appendf(out, " PID : %d; FLAGS : 0x%llx", d.pid, ull(d.arg));
            break;
        case LTT_PROCESS_EXIT:
            appendf(out, " PID : %d; CODE : %lld", d.pid, ll(d.arg));
            break;
        case LTT_PROCESS_WAIT:
            appendf(out, " PID : %d", d.pid);
            break;
        case LTT_PROCESS_SIGNAL:
            appendf(out, " SIGNAL : %lld; PID : %d", ll(d.arg), d.pid);
            break;
        case LTT_PROCESS_WAKEUP:
            appendf(out, " PID : %d; STATE : %lld", d.pid, ll(d.arg));
            break;
        default:
            appendf(out, " PID : %d; ARG : 0x%llx", d.pid, ull(d.arg));
            break;
        }
        break;
    }
    case LTT_EV_FILE_SYSTEM: {
        ltt_ev_file_system d;
        out.append(subtypeName(e.id, e.subtype));
        const std::size_t n = e.copyDetails(d);
        if (n < LTT_EV_FS_FIXED)
            break;
        switch (e.subtype) {
        case LTT_FS_BUF_WAIT_START:
        case LTT_FS_BUF_WAIT_END:
            break;
        case LTT_FS_EXEC:
        case LTT_FS_OPEN: {
            // The name is NUL-terminated inside the record; never read past it.
            std::size_t len = 0, room = n - LTT_EV_FS_FIXED;
            while (len < room && d.name[len])
                ++len;
            // (At most 380 bytes of it, as ever.)
            out.append(" : ");
            appendEscaped(out, std::string_view(d.name, std::min<std::size_t>(len, 380)));
            if (e.subtype == LTT_FS_OPEN)
                appendf(out, "; FD : %d", d.fd);
            break;
        }
        case LTT_FS_CLOSE:
            appendf(out, " : %d", d.fd);
            break;
        case LTT_FS_READ:
        case LTT_FS_WRITE:
            appendf(out, " : %d; COUNT : %lld", d.fd, ll(d.arg));
            break;
        case LTT_FS_SEEK:
            appendf(out, " : %d; OFFSET : %lld; WHENCE : %u", d.fd, ll(d.arg), d.aux);
            break;
        case LTT_FS_IOCTL:
            appendf(out, " : %d; COMMAND : 0x%llx", d.fd, ull(d.arg));
            break;
        case LTT_FS_SELECT:
        case LTT_FS_POLL:
            appendf(out, " : %d; TIMEOUT : %lld", d.fd, ll(d.arg));
            break;
        default:
            appendf(out, " : %d; ARG : %lld", d.fd, ll(d.arg));
            break;
        }
        break;
    }
    case LTT_EV_TIMER: {
        ltt_ev_timer d;
        out.append(subtypeName(e.id, e.subtype));
        if (!e.detailsAs(d))
            break;
        if (e.subtype == LTT_TIMER_SETITIMER)
            appendf(out, " : %u; INTERVAL : %lld", d.aux, ll(d.arg));
        else
            appendf(out, " : %lld", ll(d.arg));
        break;
    }
    case LTT_EV_MEMORY: {
        ltt_ev_memory d;
        out.append(subtypeName(e.id, e.subtype));
        if (!e.detailsAs(d))
            break;
        if (e.subtype == LTT_MEM_PAGE_ALLOC || e.subtype == LTT_MEM_PAGE_FREE)
            appendf(out, " : 0x%llx; ORDER : %llu", ull(d.address), ull(d.arg));
        else
            appendf(out, " : 0x%llx", ull(d.address));
        break;
    }
    case LTT_EV_SOCKET: {
        ltt_ev_socket d;
        out.append(subtypeName(e.id, e.subtype));
        if (!e.detailsAs(d))
            break;
        switch (e.subtype) {
        case LTT_SOCKET_CALL:
            appendf(out, " : %u; FD : %d", d.call, d.id);
            break;
        case LTT_SOCKET_CREATE:
            appendf(out, " : FD %d; FAMILY : %u; TYPE : %u", d.id, d.type >> 16, d.type & 0xffff);
            break;
        default:
            appendf(out, " : TYPE %u; SIZE : %lld", d.type, ll(d.size));
            break;
        }
        break;
    }
    case LTT_EV_IPC: {
        ltt_ev_ipc d;
        out.append(subtypeName(e.id, e.subtype));
        if (!e.detailsAs(d))
            break;
        if (e.subtype == LTT_IPC_CALL)
            appendf(out, " : %u; ID : %d", d.call, d.id);
        else
            appendf(out, " : ID %d; FLAGS : 0x%x", d.id, d.flags);
        break;
    }
    case LTT_EV_NETWORK: {
        ltt_ev_network d;
        out.append(subtypeName(e.id, e.subtype));
        if (e.detailsAs(d))
            appendf(out, " : PROTOCOL 0x%04x", d.protocol);
        break;
    }
    case LTT_EV_BLOCK_START: {
        ltt_block_start d;
        if (e.detailsAs(d))
            appendf(out, "%s : %u; SEQUENCE : %u; PID : %d; LOST : %llu",
                    (d.flags & LTT_BLOCK_F_USER) ? "USER STREAM" : "CPU", d.cpu, d.sequence, d.pid,
                    ull(d.lost));
        break;
    }
    case LTT_EV_BLOCK_END: {
        ltt_block_end d;
        if (e.detailsAs(d))
            appendf(out, "EVENTS : %u", d.events);
        break;
    }
    case LTT_EV_HEARTBEAT: {
        ltt_ev_heartbeat d;
        if (e.detailsAs(d))
            appendf(out, "TSC : %llu", ull(d.tsc));
        break;
    }
    case LTT_EV_LOST: {
        ltt_ev_lost d;
        if (e.detailsAs(d))
            appendf(out, "LOST : %llu EVENTS", ull(d.count));
        break;
    }
    case LTT_EV_CUSTOM: {
        ltt_ev_custom d;
        if (e.copyDetails(d) >= LTT_EV_CUSTOM_FIXED)
            appendf(out, "ID : 0x%x; LENGTH : %u", d.id, d.length);
        break;
    }
    case LTT_EV_MAP: {
        // The file mapped executable (module_events.h); the path is untrusted.
        static const char* const kHow[] = {"mmap", "mprotect", "exec"};
        const auto det = e.details();
        if (det.size() <= LTT_EV_MAP_FIXED) {
            appendf(out, "EVENT %u; SUBTYPE : %u; %zu BYTES", e.id, e.subtype, have);
            break;
        }
        ltt_ev_map d;
        std::memcpy(&d, det.data(), LTT_EV_MAP_FIXED);
        const char* path = reinterpret_cast<const char*>(det.data() + LTT_EV_MAP_FIXED);
        appendf(out, "MAP : %s; START : 0x%llx; LENGTH : 0x%llx; OFFSET : 0x%llx; PATH : ",
                e.subtype < 3 ? kHow[e.subtype] : "?", ull(d.start), ull(d.length), ull(d.offset));
        appendEscaped(out, std::string_view(path, strnlen(path, det.size() - LTT_EV_MAP_FIXED)));
        break;
    }
    case LTT_EV_VARS: {
        auto v = decodeVars(e);
        if (!v) {
            appendf(out, "MALFORMED; %zu BYTES", have);
            break;
        }
        if (v->changed & LTT_VAR_BIT(LTT_VAR_ARGS)) {
            out.append("CALL : ");
            appendSyscall(out, v->nr, v->args.data(), v->nargs);
            if (v->changed & ~LTT_VAR_BIT(LTT_VAR_ARGS))
                out.append("; ");
        }
        appendVarValues(out, *v);
        break;
    }
    case LTT_EV_MOUNT: {
        ltt_ev_mount d;
        out.append(subtypeName(e.id, e.subtype));
        const std::size_t n = e.copyDetails(d);
        if (n < LTT_EV_MOUNT_FIXED)
            break;
        const std::size_t room = n - LTT_EV_MOUNT_FIXED;
        const std::size_t tlen = strnlen(d.names, room);
        out.append(" : \"");
        appendEscaped(out, std::string_view(d.names, tlen));
        out.push_back('"');
        if (e.subtype == LTT_MOUNT_MOUNT && tlen + 1 < room) {
            out.append("; SOURCE : \"");
            appendEscaped(out, std::string_view(d.names + tlen + 1,
                                                strnlen(d.names + tlen + 1, room - tlen - 1)));
            out.push_back('"');
        }
        appendf(out, "; FLAGS : 0x%llx; RET : %lld", ull(d.flags), ll(d.ret));
        break;
    }
    case LTT_EV_LOCK: {
        ltt_ev_lock d;
        out.append(subtypeName(e.id, e.subtype));
        if (!e.detailsAs(d))
            break;
        if (e.subtype == LTT_LOCK_CONTENDED)
            appendf(out, " : 0x%llx; FLAGS : 0x%x", ull(d.lock), d.flags);
        else
            appendf(out, " : 0x%llx; RET : %d", ull(d.lock), d.ret);
        break;
    }
    case LTT_EV_CONFIG: {
        // The whole configuration from now on (module_events.h).
        static const char* const kWhat[] = {"EVENTS", "DETAILS", "PID", "PGRP",
                                            "UID",    "GID",     "VARS"};
        ltt_ev_config d;
        if (!e.detailsAs(d)) {
            appendf(out, "MALFORMED; %zu BYTES", have);
            break;
        }
        appendf(out, "CHANGED : %s; EVENTS : 0x%llx; DETAILS : 0x%llx",
                e.subtype < std::size(kWhat) ? kWhat[e.subtype] : "?", ull(d.event_mask),
                ull(d.details_mask));
        if (d.filters & LTT_FILTER_PID)
            appendf(out, "; PID : %d", d.pid);
        if (d.filters & LTT_FILTER_PGRP)
            appendf(out, "; PGRP : %d", d.pgrp);
        if (d.filters & LTT_FILTER_UID)
            appendf(out, "; UID : %u", d.uid);
        if (d.filters & LTT_FILTER_GID)
            appendf(out, "; GID : %u", d.gid);
        appendf(out, "; VARS : 0x%x", d.vars_mask);
        break;
    }
    case LTT_EV_CONTEXT: {
        // The task current from now on (module_events.h).
        ltt_ev_context d;
        out.append(subtypeName(e.id, e.subtype));
        if (e.detailsAs(d))
            appendf(out, " PID : %d; TGID : %d", d.pid, d.tgid);
        break;
    }
    case LTT_EV_STACK: {
        // Where a task blocked: its frames, innermost first (module_events.h).
        out.append(subtypeName(e.id, e.subtype));
        ltt_ev_stack d{};
        const std::size_t n = e.copyDetails(d);
        if (n < LTT_EV_STACK_FIXED)
            break;
        const std::size_t frames = std::min<std::size_t>(
            {d.nr, (n - LTT_EV_STACK_FIXED) / sizeof d.ip[0], LTT_STACK_DEPTH_MAX});
        appendf(out, " PID : %d; FRAMES : %u%s", d.pid, unsigned(d.nr),
                (d.flags & LTT_STACK_F_TRUNCATED) ? " (truncated)" : "");
        for (std::size_t i = 0; i < frames; ++i)
            appendf(out, "%s0x%llx", i ? " " : "; ", ull(d.ip[i]));
        break;
    }
    case LTT_EV_TRAP_EXIT:
    case LTT_EV_IRQ_EXIT:
    case LTT_EV_KERNEL_TIMER:
        break; // no details, as in LTT
    default:
        appendf(out, "EVENT %u; SUBTYPE : %u; %zu BYTES", e.id, e.subtype, have);
        break;
    }
}

bool isControlEvent(const Event& e) {
    switch (e.id) {
    case LTT_EV_SYSCALL_ENTRY:
    case LTT_EV_SYSCALL_EXIT:
    case LTT_EV_SCHEDCHANGE:
        return true;
    case LTT_EV_IRQ_ENTRY: {
        ltt_ev_irq_entry d;
        return e.detailsAs(d) && !(d.flags & LTT_IRQ_IN_KERNEL);
    }
    case LTT_EV_TRAP_ENTRY: {
        ltt_ev_trap_entry d;
        return e.detailsAs(d) && d.ip < kUserTop;
    }
    default:
        // TRAP_EXIT / IRQ_EXIT carry no details: whether they return to user
        // mode depends on their entry, which ControlEventTracker follows.
        return false;
    }
}

namespace {

void push(std::uint64_t& bits, std::uint32_t& depth, bool user) {
    if (depth < 64)
        bits = (bits & ~(1ull << depth)) | (std::uint64_t(user) << depth);
    ++depth;
}

bool pop(std::uint64_t bits, std::uint32_t& depth) {
    if (depth == 0)
        return false; // the trace started inside it: unknown
    --depth;
    return depth < 64 && ((bits >> depth) & 1);
}

} // namespace

bool ControlEventTracker::operator()(const Event& e) {
    if (e.cpu >= cpus_m.size())
        return isControlEvent(e);
    Nesting& n = cpus_m[e.cpu];
    switch (e.id) {
    case LTT_EV_IRQ_ENTRY: {
        const bool c = isControlEvent(e);
        push(n.irqUser, n.irqDepth, c);
        return c;
    }
    case LTT_EV_IRQ_EXIT:
        return pop(n.irqUser, n.irqDepth);
    case LTT_EV_TRAP_ENTRY: {
        const bool c = isControlEvent(e);
        push(n.trapUser, n.trapDepth, c);
        return c;
    }
    case LTT_EV_TRAP_EXIT:
        return pop(n.trapUser, n.trapDepth);
    case LTT_EV_BLOCK_START: {
        ltt_block_start bs;
        if (e.detailsAs(bs) && bs.lost)
            n = Nesting{}; // unknown after a gap
        return false;
    }
    default:
        return isControlEvent(e);
    }
}

} // namespace ltt
