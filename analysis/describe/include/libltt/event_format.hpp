// Names and LTT-style descriptions of events, and the control-event rule of
// the paper's §3.5 (docs/trace-format.md §3). Shared by traceanalyze's dump
// and traceview's raw-trace list so both say the same thing.
#pragma once

#include <cstdint>
#include <functional>
#include <libltt/trace_reader.hpp>
#include <ltt/module_events.h>
#include <string>
#include <string_view>
#include <vector>

namespace ltt {

// "Syscall entry", "Sched change", ... (LTT's raw-trace column); "Unknown"
// for ids this version does not know.
std::string_view eventName(unsigned id);
// Stable machine key: "syscall_entry", "schedchange", ... (JSON). Names
// that users type are parsed by event_names.hpp, which accepts these keys.
std::string_view eventKey(unsigned id);
// Subtype name ("FORK", "READ", ...), empty when the event has none.
std::string_view subtypeName(unsigned id, unsigned subtype);

// x86_64 syscall name for `nr` (Linux 6.1 table), or empty when unknown.
std::string_view syscallName(std::uint32_t nr);
// Highest syscall number in the table + 1.
std::uint32_t syscallTableSize();

// Appends the human-readable description (`SYSCALL : write; IP : 0x...`,
// `IN : 0; OUT : 120; STATE : 2`) to `out`. Appending into a caller's buffer
// keeps dumps free of per-event allocation.
void describeEvent(const Event& event, std::string& out);
// The symbol of a kernel address ("do_user_addr_fault+0x1a"), "" when
// unknown: Symbolizer::kernelSymbol with a kallsyms copy (symbolize.hpp).
using KernelSymbols = std::function<std::string(std::uint64_t addr)>;
// The same, with kernel addresses (a trap's IP in the kernel, a kernel
// thread's start function) followed by the symbol `kernel` gives them:
// `IP : 0xffffffff81234567 (do_user_addr_fault+0x1a)`.
void describeEvent(const Event& event, std::string& out, const KernelSymbols& kernel);
inline std::string describeEvent(const Event& event) {
    std::string s;
    describeEvent(event, s);
    return s;
}

// Names that come from a trace or a .proc (file names, task names, the
// header's host name) are whatever bytes the traced system had: a name may
// hold a newline that forges a report line, or an escape sequence a terminal
// obeys. Text output shows them through appendEscaped(): control characters
// as \n, \t, \r or \xHH (\x1b for ESC, \x7f for DEL), a backslash as \\,
// bytes that are not UTF-8 as \xHH, C1 controls as \u0080..\u009f; valid
// UTF-8 text is unchanged.
void appendEscaped(std::string& out, std::string_view s);
inline std::string escaped(std::string_view s) {
    std::string out;
    appendEscaped(out, s);
    return out;
}
// The same bytes as the body of a JSON string (RFC 8259): '"' and '\\'
// escaped, control characters, DEL and C1 controls as \u00XX, each byte
// that is not UTF-8 as \ufffd (JSON text must be UTF-8).
void appendJsonEscaped(std::string& out, std::string_view s);

// True when the event moves control into or out of the kernel, or from one
// task to another (paper §3.5, docs/trace-format.md §3). Decided from the
// event alone: TRAP_EXIT and IRQ_EXIT carry no details, so for them this
// says false; ControlEventTracker decides them from their entries.
bool isControlEvent(const Event& event);

// The control-event rule for a walk in merged order: remembers, per CPU,
// whether each open IRQ and trap interrupted user mode, so that the
// matching exit (a return to user mode) is a control event too.
class ControlEventTracker {
public:
    explicit ControlEventTracker(unsigned ncpus) : cpus_m(ncpus) {}
    bool operator()(const Event& event);

private:
    // A stack of "entered from user mode" bits per nesting kind; deeper
    // nesting than 64 only loses the bits beyond (exits then say false).
    struct Nesting {
        std::uint64_t irqUser = 0, trapUser = 0;
        std::uint32_t irqDepth = 0, trapDepth = 0;
    };
    std::vector<Nesting> cpus_m;
};

} // namespace ltt
