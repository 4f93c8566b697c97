// LTT-style descriptions of events, and the control-event rule of
// the paper's §3.5 (docs/trace-format.md §3). Shared by traceanalyze's dump
// and traceview's raw-trace list so both say the same thing. The names
// (eventName(), syscallName(), ...) are event_names.hpp's, the escaping of
// names from a trace text_escape.hpp's; both are included here.
#pragma once

#include <cstdint>
#include <functional>
#include <libltt/event_names.hpp>
#include <libltt/text_escape.hpp>
#include <libltt/trace_reader.hpp>
#include <ltt/module_events.h>
#include <string>
#include <string_view>
#include <vector>

namespace ltt {

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
