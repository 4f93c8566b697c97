// Event descriptions and the control-event rule (event_format.hpp). Descriptions follow
// LTT's raw-trace column ("SYSCALL : close; EIP : 0x08084068", "IN : 0; OUT :
// 120; STATE : 2") with IP for the 64-bit instruction pointer; events whose
// details were masked out at trace time have an empty description, as in LTT.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <libltt/event_format.hpp>
#include <libltt/event_schema.hpp>
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

// A field's bytes as an unsigned value (a signed field's sign-extended).
std::uint64_t fieldValue(const schema::Field& f, const std::byte* p) {
    switch (f.size) {
    case 1:
        return std::to_integer<std::uint8_t>(*p);
    case 2: {
        std::uint16_t v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    case 4: {
        std::uint32_t v;
        std::memcpy(&v, p, sizeof v);
        return f.type == schema::FieldType::S32 ? std::uint64_t(std::int64_t(std::int32_t(v))) : v;
    }
    default: {
        std::uint64_t v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    }
}

// One {field:format} of a description template (event_schema.hpp).
void appendField(std::string& out, const schema::Field& f, std::string_view format,
                 std::span<const std::byte> det, const KernelSymbols& kernel) {
    using T = schema::FieldType;
    if (f.type == T::Str) {
        // Text the record ends with: NUL-terminated inside the record (never
        // read past it), at most 380 bytes of it, as ever.
        const std::size_t room = std::min<std::size_t>(det.size() - f.offset, f.size);
        const char* text = reinterpret_cast<const char*>(det.data() + f.offset);
        const std::size_t len = strnlen(text, room);
        appendEscaped(out, std::string_view(text, std::min<std::size_t>(len, 380)));
        return;
    }
    const std::uint64_t v = fieldValue(f, det.data() + f.offset);
    const bool hex = f.type == T::X16 || f.type == T::X32 || f.type == T::X64;
    const bool sign = f.type == T::S32 || f.type == T::S64;
    if (format == "ksym") {
        appendKernelSymbol(out, kernel, v);
        return;
    }
    // std::to_chars, not a printf per field: the dump formats every event.
    char buf[24];
    char* end;
    if (format == "x" || format == "04x" || (format.empty() && hex)) {
        end = std::to_chars(buf, buf + sizeof buf, v, 16).ptr;
        out.append("0x");
        if (format == "04x" && end - buf < 4)
            out.append(std::size_t(4 - (end - buf)), '0');
    } else if (format == "hi16") {
        end = std::to_chars(buf, buf + sizeof buf, v >> 16).ptr;
    } else if (format == "lo16") {
        end = std::to_chars(buf, buf + sizeof buf, v & 0xffff).ptr;
    } else if (format == "d" || (format.empty() && sign)) {
        const std::int64_t s = f.size == 4 ? std::int32_t(v) : std::int64_t(v);
        end = std::to_chars(buf, buf + sizeof buf, s).ptr;
    } else {
        end = std::to_chars(buf, buf + sizeof buf, v).ptr;
    }
    out.append(buf, end);
}

// Text with each {field} or {field:format} replaced by that field's value.
void appendTemplate(std::string& out, std::string_view t, std::span<const schema::Field> fields,
                    std::span<const std::byte> det, const KernelSymbols& kernel) {
    while (!t.empty()) {
        const std::size_t open = t.find('{');
        out.append(t.substr(0, open));
        if (open == std::string_view::npos)
            return;
        const std::size_t close = t.find('}', open);
        std::string_view name = t.substr(open + 1, close - open - 1), format;
        if (const std::size_t colon = name.find(':'); colon != std::string_view::npos) {
            format = name.substr(colon + 1);
            name = name.substr(0, colon);
        }
        for (const schema::Field& f : fields)
            if (f.name == name) {
                appendField(out, f, format, det, kernel);
                break;
            }
        t.remove_prefix(close + 1);
    }
}

// An event the schema describes with a template (the subtype's name, then
// its template), or, for one that has none, each field as "NAME : value".
void describeBySchema(const schema::Event& s, const Event& e, std::string& out,
                      const KernelSymbols& kernel) {
    const bool named = schema::namesSubtypes(s);
    const bool known = e.subtype < s.subtypes.size();
    if (named)
        out.append(known ? s.subtypes[e.subtype].name : "UNKNOWN");
    const auto det = e.details();
    if (s.fields.empty() || det.size() < schema::fixedSize(s))
        return; // no details, or masked out at trace time
    if (named && known) {
        appendTemplate(out, s.subtypes[e.subtype].describe, s.fields, det, kernel);
    } else if (!s.describe.empty()) {
        appendTemplate(out, s.describe, s.fields, det, kernel);
    } else {
        const char* sep = named ? " " : "";
        for (const schema::Field& f : s.fields) {
            if (f.name.starts_with("reserved") ||
                (schema::isArray(f.type) && f.type != schema::FieldType::Str))
                continue;
            out.append(sep);
            for (char c : f.name)
                out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
            out.append(" : ");
            appendField(out, f, {}, det, kernel);
            sep = "; ";
        }
    }
}

} // namespace

void describeEvent(const Event& e, std::string& out) {
    describeEvent(e, out, KernelSymbols());
}

// Events with a template in the schema are described from it; those below
// carry logic a template does not express (each says which).
void describeEvent(const Event& e, std::string& out, const KernelSymbols& kernel) {
    const std::size_t have = e.size - sizeof(ltt_record_header);
    if (const schema::Event* s = schema::event(e.id); s && !s->code) {
        describeBySchema(*s, e, out, kernel);
        return;
    }
    switch (e.id) {
    case LTT_EV_TRACE_START: {
        // The record is abi.h's extended structure; its variables only when
        // the session recorded some.
        ltt_ev_trace_start_ext d;
        if (e.copyDetails(d) >= sizeof d.start)
            appendf(out, "TSC KHZ : %llu; EVENT MASK : 0x%llx; DETAILS MASK : 0x%llx",
                    ull(d.start.tsc_khz), ull(d.start.event_mask), ull(d.start.details_mask));
        if (d.vars_mask)
            appendf(out, "; VARIABLES : 0x%x", d.vars_mask);
        break;
    }
    case LTT_EV_SYSCALL_ENTRY: {
        // The call by name (the syscall table), and a record cut after `nr`
        // (older producers) still shown.
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
    case LTT_EV_TRAP_ENTRY: {
        // The vector by name, and the address for page faults only.
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
        // The flags as words around the number.
        ltt_ev_irq_entry d;
        if (e.detailsAs(d))
            appendf(out, "IRQ : %s%u%s", (d.flags & LTT_IRQ_VECTOR) ? "vector " : "", d.irq,
                    (d.flags & LTT_IRQ_IN_KERNEL) ? ", IN-KERNEL" : "");
        break;
    }
    case LTT_EV_BLOCK_START: {
        // A CPU's block or a user stream's, by its flags.
        ltt_block_start d;
        if (e.detailsAs(d))
            appendf(out, "%s : %u; SEQUENCE : %u; PID : %d; LOST : %llu",
                    (d.flags & LTT_BLOCK_F_USER) ? "USER STREAM" : "CPU", d.cpu, d.sequence, d.pid,
                    ull(d.lost));
        break;
    }
    case LTT_EV_MAP: {
        // The file mapped executable (module_events.h): the subtype inside
        // the text, a record without its path as bytes; the path is untrusted.
        const auto how = schema::kEvents[LTT_EV_MAP].subtypes;
        const auto det = e.details();
        if (det.size() <= LTT_EV_MAP_FIXED) {
            appendf(out, "EVENT %u; SUBTYPE : %u; %zu BYTES", e.id, e.subtype, have);
            break;
        }
        ltt_ev_map d;
        std::memcpy(&d, det.data(), LTT_EV_MAP_FIXED);
        const char* path = reinterpret_cast<const char*>(det.data() + LTT_EV_MAP_FIXED);
        appendf(out, "MAP : %s; START : 0x%llx; LENGTH : 0x%llx; OFFSET : 0x%llx; PATH : ",
                e.subtype < how.size() ? how[e.subtype].name.data() : "?", ull(d.start),
                ull(d.length), ull(d.offset));
        appendEscaped(out, std::string_view(path, strnlen(path, det.size() - LTT_EV_MAP_FIXED)));
        break;
    }
    case LTT_EV_VARS: {
        // Values by the bits of `changed` (decodeVars()), the arguments as
        // strace shows them.
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
        // Two strings, the source for MOUNT only, quoted.
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
    case LTT_EV_CONFIG: {
        // The whole configuration from now on (module_events.h): the
        // subtype inside the text, each filter only when it is set.
        const auto what = schema::kEvents[LTT_EV_CONFIG].subtypes;
        ltt_ev_config d;
        if (!e.detailsAs(d)) {
            appendf(out, "MALFORMED; %zu BYTES", have);
            break;
        }
        appendf(out, "CHANGED : %s; EVENTS : 0x%llx; DETAILS : 0x%llx",
                e.subtype < what.size() ? what[e.subtype].name.data() : "?", ull(d.event_mask),
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
    case LTT_EV_STACK: {
        // Where a task blocked: its frames, innermost first (module_events.h),
        // as many as both `nr` and the record hold.
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
    default:
        // Ids this version does not know, and USER records, which
        // user_events.hpp describes when their stream declared the type.
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
