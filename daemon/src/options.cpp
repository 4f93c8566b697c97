// tracedaemon's command line. A hand-written parser rather than getopt_long:
// getopt's permutation loses the position of "--" (which separates the files
// from the COMMAND), its global state makes it awkward to test, and its error
// messages cannot say what a valid value looks like.
#include "options.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstring>
#include <libltt/event_names.hpp>
#include <limits>
#include <ltt/abi.h>

#ifndef LTT_DAEMON_VERSION
#define LTT_DAEMON_VERSION "0.0.0"
#endif

namespace ltt::daemon {

namespace {

template <class Int> std::optional<Int> parseInteger(std::string_view s, bool allowHex) {
    int base = 10;
    if (allowHex && s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s.remove_prefix(2);
        base = 16;
    }
    if (s.empty() || s[0] == '-' || s[0] == '+')
        return std::nullopt;
    Int v{};
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (ec != std::errc() || p != s.data() + s.size())
        return std::nullopt;
    return v;
}

// The option table: one row per long option, with its short letter if any.
enum class Opt {
    Duration,
    BufferSize,
    DaemonBuffer,
    Events,
    Details,
    Vars,
    Cpuid,
    Stacks,
    Pid,
    Pgrp,
    Gid,
    Uid,
    SyscallShort, // -s{d,l,u}VALUE
    SyscallDepth,
    SyscallLower,
    SyscallUpper,
    SyscallRange,
    TrackCommand,
    Device,
    FlushInterval,
    TestEmit,
    UserSocket,
    Control,
    ControlFile,
    Defaults,
    Quiet,
    FlightRecorder,
    TriggerSignal,
    TriggerEvent,
    MaxSnapshots,
    SnapshotBudget,
    SnapshotGid,
    Help,
    Version,
};

struct OptSpec {
    const char* longName; // nullptr: short only
    char shortName;       // 0: long only
    bool hasArg;
    Opt opt;
};

constexpr OptSpec kOptions[] = {
    {"duration", 't', true, Opt::Duration},
    {"buffer-size", 'b', true, Opt::BufferSize},
    {"daemon-buffer", 'B', true, Opt::DaemonBuffer},
    {"events", 'e', true, Opt::Events},
    {"event", 0, true, Opt::Events},
    {"details", 'D', true, Opt::Details},
    {"vars", 'V', true, Opt::Vars},
    {"cpuid", 'c', false, Opt::Cpuid},
    {"stacks", 'S', false, Opt::Stacks},
    {"pid", 'P', true, Opt::Pid},
    {"pgrp", 'G', true, Opt::Pgrp},
    {"gid", 'g', true, Opt::Gid},
    {"uid", 'u', true, Opt::Uid},
    {nullptr, 's', true, Opt::SyscallShort},
    {"syscall-depth", 0, true, Opt::SyscallDepth},
    {"syscall-lower", 0, true, Opt::SyscallLower},
    {"syscall-upper", 0, true, Opt::SyscallUpper},
    {"syscall-range", 0, true, Opt::SyscallRange},
    {"track-command", 'T', false, Opt::TrackCommand},
    {"device", 0, true, Opt::Device},
    {"flush-interval", 0, true, Opt::FlushInterval},
    {"test-emit", 0, true, Opt::TestEmit},
    {"user-socket", 0, true, Opt::UserSocket},
    {"control", 0, true, Opt::Control},
    {"control-file", 0, true, Opt::ControlFile},
    {"defaults", 'd', false, Opt::Defaults},
    {"quiet", 'q', false, Opt::Quiet},
    {"flight-recorder", 0, false, Opt::FlightRecorder},
    {"trigger-signal", 0, true, Opt::TriggerSignal},
    {"trigger-event", 0, true, Opt::TriggerEvent},
    {"max-snapshots", 0, true, Opt::MaxSnapshots},
    {"snapshot-budget", 0, true, Opt::SnapshotBudget},
    {"snapshot-gid", 0, true, Opt::SnapshotGid},
    {"help", 'h', false, Opt::Help},
    {"version", 0, false, Opt::Version},
};

class Parser {
public:
    explicit Parser(std::span<const std::string_view> args) : args_m(args) {}

    ParseResult run() {
        std::vector<std::string_view> positional;
        std::size_t i = 0;
        for (; i < args_m.size(); ++i) {
            std::string_view a = args_m[i];
            if (a == "--") {
                for (++i; i < args_m.size(); ++i)
                    o_m.command.emplace_back(args_m[i]);
                if (o_m.command.empty())
                    return fail("'--' must be followed by a COMMAND to trace");
                break;
            }
            if (a.starts_with("--")) {
                if (!longOption(a, i))
                    return fail();
            } else if (a.size() > 1 && a[0] == '-') {
                if (!shortOptions(a, i))
                    return fail();
            } else {
                positional.push_back(a);
            }
        }
        if (o_m.action != Options::Action::Trace)
            return ParseResult{o_m, {}};
        if (positional.size() < 2)
            return fail(positional.empty() ? "missing TRACEFILE and PROCFILE"
                                           : "missing PROCFILE after TRACEFILE");
        if (positional.size() > 3)
            return fail("too many arguments: '" + std::string(positional[3]) +
                        "' (usage: [DEVICE] TRACEFILE PROCFILE [-- COMMAND ARGS])");
        std::size_t p = 0;
        if (positional.size() == 3)
            o_m.device = positional[p++];
        o_m.traceFile = positional[p++];
        o_m.procFile = positional[p++];
        if (o_m.traceFile == o_m.procFile)
            return fail("TRACEFILE and PROCFILE are the same file: " + o_m.traceFile);
        if (o_m.trackCommand && o_m.command.empty())
            return fail("--track-command (-T) needs a COMMAND after '--'");
        if (o_m.trackCommand && o_m.pgrp)
            return fail("--track-command (-T) sets the process-group filter itself; drop -G");
        if (o_m.triggerSignals && !o_m.flightRecorder)
            return fail("--trigger-signal needs --flight-recorder");
        if (!o_m.triggerEvents.empty() && !o_m.flightRecorder)
            return fail("--trigger-event needs --flight-recorder");
        if (snapshotOption_m && !o_m.flightRecorder)
            return fail(std::string(snapshotOption_m) + " needs --flight-recorder");
        if (o_m.flightRecorder && !o_m.command.empty())
            return fail("--flight-recorder traces the whole system: no COMMAND after '--'");
        if (o_m.flightRecorder && o_m.testEmitRate)
            return fail("--flight-recorder and --test-emit cannot be combined");
        if (o_m.syscallLower && o_m.syscallUpper && *o_m.syscallLower >= *o_m.syscallUpper)
            return fail("syscall IP range is empty: lower bound " + hex(*o_m.syscallLower) +
                        " is not below upper bound " + hex(*o_m.syscallUpper));
        return ParseResult{o_m, {}};
    }

private:
    static std::string hex(std::uint64_t v) {
        char buf[24];
        auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v, 16);
        (void)ec;
        return "0x" + std::string(buf, p);
    }

    ParseResult fail(std::string message = {}) {
        if (!message.empty())
            error_m = std::move(message);
        return ParseResult{std::nullopt, error_m};
    }

    bool bad(std::string message) {
        error_m = std::move(message);
        return false;
    }

    bool longOption(std::string_view a, std::size_t& i) {
        std::string_view body = a.substr(2);
        std::optional<std::string_view> value;
        if (auto eq = body.find('='); eq != std::string_view::npos) {
            value = body.substr(eq + 1);
            body = body.substr(0, eq);
        }
        const OptSpec* spec = nullptr;
        for (const auto& s : kOptions)
            if (s.longName && body == s.longName)
                spec = &s;
        if (!spec)
            return bad("unknown option '--" + std::string(body) + "' (see --help)");
        std::string name = "--" + std::string(body);
        if (!spec->hasArg) {
            if (value)
                return bad("option '" + name + "' takes no value");
            return apply(*spec, name, {});
        }
        if (!value) {
            if (i + 1 >= args_m.size())
                return bad("option '" + name + "' needs a value");
            value = args_m[++i];
        }
        return apply(*spec, name, *value);
    }

    bool shortOptions(std::string_view a, std::size_t& i) {
        for (std::size_t k = 1; k < a.size(); ++k) {
            const OptSpec* spec = nullptr;
            for (const auto& s : kOptions)
                if (s.shortName == a[k])
                    spec = &s;
            std::string name = std::string("-") + a[k];
            if (!spec)
                return bad("unknown option '" + name + "' (see --help)");
            if (!spec->hasArg) {
                if (!apply(*spec, name, {}))
                    return false;
                continue;
            }
            std::string_view value = a.substr(k + 1);
            if (value.empty()) {
                if (i + 1 >= args_m.size())
                    return bad("option '" + name + "' needs a value");
                value = args_m[++i];
            }
            return apply(*spec, name, value);
        }
        return true;
    }

    template <class Int>
    bool id(std::string_view v, const std::string& name, const char* what, Int lo, Int hi,
            std::optional<Int>& out) {
        auto n = parseInteger<std::int64_t>(v, false);
        if (!n || *n < static_cast<std::int64_t>(lo) || *n > static_cast<std::int64_t>(hi))
            return bad("invalid " + std::string(what) + " '" + std::string(v) + "' for " + name +
                       ": expected an integer from " + std::to_string(lo) + " to " +
                       std::to_string(hi));
        out = static_cast<Int>(*n);
        return true;
    }

    bool address(std::string_view v, const std::string& name, std::optional<std::uint64_t>& out) {
        auto n = parseInteger<std::uint64_t>(v, true);
        if (!n)
            return bad("invalid address '" + std::string(v) + "' for " + name +
                       ": expected a number such as 0x400000");
        out = *n;
        return true;
    }

    bool depth(std::string_view v, const std::string& name) {
        auto n = parseInteger<std::uint32_t>(v, false);
        if (!n || *n > LTT_SYSCALL_DEPTH_MAX)
            return bad("invalid syscall IP depth '" + std::string(v) + "' for " + name +
                       ": expected 0 to " + std::to_string(LTT_SYSCALL_DEPTH_MAX));
        o_m.syscallDepth = *n;
        return true;
    }

    bool events(std::string_view v, const std::string& name, std::optional<std::uint64_t>& out) {
        std::string badName;
        auto mask = parseEventList(v, &badName);
        if (!mask)
            return bad(ltt::unknownEventMessage(badName, name));
        out = out.value_or(0) | *mask;
        return true;
    }

    bool apply(const OptSpec& spec, const std::string& name, std::string_view v) {
        switch (spec.opt) {
        case Opt::Duration: {
            auto d = parseDuration(v);
            if (!d)
                return bad("invalid duration '" + std::string(v) + "' for " + name +
                           ": use e.g. -ts30, -tu500000, --duration 30s, 1.5s, 500ms");
            o_m.duration = *d;
            return true;
        }
        case Opt::BufferSize: {
            auto s = parseSize(v);
            if (!s || *s < LTT_BUFFER_MIN || *s > LTT_BUFFER_MAX)
                return bad("invalid buffer size '" + std::string(v) + "' for " + name +
                           ": expected " + std::to_string(LTT_BUFFER_MIN) + " to " +
                           std::to_string(LTT_BUFFER_MAX) + " bytes (suffixes K, M)");
            o_m.bufferSize = static_cast<std::uint32_t>(*s);
            return true;
        }
        case Opt::DaemonBuffer: {
            auto s = parseSize(v);
            constexpr std::uint64_t maxDaemon = 1ull << 30;
            if (!s || *s < LTT_BUFFER_MIN || *s > maxDaemon)
                return bad("invalid daemon buffer size '" + std::string(v) + "' for " + name +
                           ": expected " + std::to_string(LTT_BUFFER_MIN) + " bytes to 1G");
            o_m.daemonBuffer = *s;
            return true;
        }
        case Opt::Events:
            return events(v, name, o_m.events);
        case Opt::Details:
            return events(v, name, o_m.details);
        case Opt::Vars: {
            std::string badName;
            auto mask = ltt::parseVarList(v, &badName);
            if (!mask)
                return bad("unknown variable '" + badName + "' for " + name +
                           " (known: " + ltt::varNames() + ", all)");
            o_m.vars = o_m.vars.value_or(0) | *mask;
            return true;
        }
        case Opt::Cpuid:
            o_m.recordCpuid = true;
            return true;
        case Opt::Stacks:
            o_m.stacks = true;
            return true;
        case Opt::Pid:
            return id<std::int32_t>(v, name, "PID", 1, std::numeric_limits<std::int32_t>::max(),
                                    o_m.pid);
        case Opt::Pgrp:
            return id<std::int32_t>(v, name, "process group", 1,
                                    std::numeric_limits<std::int32_t>::max(), o_m.pgrp);
        case Opt::Uid:
            return id<std::uint32_t>(v, name, "UID", 0, 0xfffffffeu, o_m.uid);
        case Opt::Gid:
            return id<std::uint32_t>(v, name, "GID", 0, 0xfffffffeu, o_m.gid);
        case Opt::SyscallShort:
            if (v.size() >= 2 && v[0] == 'd')
                return depth(v.substr(1), name + "d");
            if (v.size() >= 2 && v[0] == 'l')
                return address(v.substr(1), name + "l", o_m.syscallLower);
            if (v.size() >= 2 && v[0] == 'u')
                return address(v.substr(1), name + "u", o_m.syscallUpper);
            return bad("invalid value '" + std::string(v) + "' for " + name +
                       ": use -sdDEPTH, -slLOWER or -suUPPER (e.g. -sd2, -sl0x400000)");
        case Opt::SyscallDepth:
            return depth(v, name);
        case Opt::SyscallLower:
            return address(v, name, o_m.syscallLower);
        case Opt::SyscallUpper:
            return address(v, name, o_m.syscallUpper);
        case Opt::SyscallRange: {
            auto dash = v.find_first_of("-:");
            if (dash == std::string_view::npos)
                return bad("invalid range '" + std::string(v) + "' for " + name +
                           ": expected LOWER-UPPER, e.g. 0x400000-0x500000");
            return address(v.substr(0, dash), name, o_m.syscallLower) &&
                   address(v.substr(dash + 1), name, o_m.syscallUpper);
        }
        case Opt::TrackCommand:
            o_m.trackCommand = true;
            return true;
        case Opt::Control:
        case Opt::ControlFile:
            if (v.empty())
                return bad("option '" + name + "' needs a path");
            (spec.opt == Opt::Control ? o_m.controlFifo : o_m.controlFile) = v;
            return true;
        case Opt::Device:
            if (v.empty())
                return bad("option '" + name + "' needs a device path");
            o_m.device = v;
            return true;
        case Opt::FlushInterval: {
            if (v == "0") {
                o_m.flushInterval = std::chrono::milliseconds(0);
                return true;
            }
            auto d = parseDuration(v);
            if (!d || *d < std::chrono::milliseconds(10))
                return bad("invalid flush interval '" + std::string(v) + "' for " + name +
                           ": expected 0 (off) or at least 10ms, e.g. 500ms, 2s");
            o_m.flushInterval = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
            return true;
        }
        case Opt::UserSocket:
            if (v.empty())
                return bad("option '" + name + "' needs a socket path or 'none'");
            o_m.userSocket = v;
            return true;
        case Opt::TestEmit: {
            // Decimal suffixes: a rate, not a size.
            std::string_view num = v;
            std::uint64_t mult = 1;
            if (!num.empty() && (num.back() == 'k' || num.back() == 'K'))
                mult = 1000, num.remove_suffix(1);
            else if (!num.empty() && num.back() == 'M')
                mult = 1000000, num.remove_suffix(1);
            auto n = parseInteger<std::uint64_t>(num, false);
            if (!n || *n == 0 || *n > 1000000000 / mult)
                return bad("invalid event rate '" + std::string(v) + "' for " + name +
                           ": expected events per second, e.g. 100000, 250k, 2M");
            o_m.testEmitRate = *n * mult;
            return true;
        }
        case Opt::Defaults: // LTT's -d: we always set the whole configuration
            return true;
        case Opt::Quiet:
            o_m.quiet = true;
            return true;
        case Opt::FlightRecorder:
            o_m.flightRecorder = true;
            return true;
        case Opt::TriggerSignal: {
            std::string badName;
            auto mask = parseSignalList(v, badName);
            if (!mask)
                return bad("unknown signal '" + badName + "' for " + name +
                           " (a name such as SEGV or SIGABRT, or a number 1-64)");
            o_m.triggerSignals |= *mask;
            return true;
        }
        case Opt::TriggerEvent:
            // A user event's name: 1 to LTT_USER_NAME_MAX - 1 bytes.
            if (v.empty() || v.size() >= 64)
                return bad("an application event's name of 1 to 63 bytes for " + name + ", not '" +
                           std::string(v) + "'");
            o_m.triggerEvents.emplace_back(v);
            return true;
        case Opt::MaxSnapshots: {
            auto n = parseInteger<unsigned>(v, false);
            if (!n || *n > 1000000)
                return bad("invalid snapshot count '" + std::string(v) + "' for " + name +
                           ": expected 0 (no limit) to 1000000");
            o_m.maxSnapshots = *n;
            snapshotOption_m = "--max-snapshots";
            return true;
        }
        case Opt::SnapshotBudget: {
            auto n = parseSize(v);
            if (!n || *n < (1u << 20))
                return bad("invalid snapshot budget '" + std::string(v) + "' for " + name +
                           ": expected at least 1M (suffixes K, M, G)");
            o_m.snapshotBudget = *n;
            snapshotOption_m = "--snapshot-budget";
            return true;
        }
        case Opt::SnapshotGid:
            snapshotOption_m = "--snapshot-gid";
            return id<std::uint32_t>(v, name, "GID", 0, 0xfffffffeu, o_m.snapshotGid);
        case Opt::Help:
            o_m.action = Options::Action::Help;
            return true;
        case Opt::Version:
            if (o_m.action != Options::Action::Help)
                o_m.action = Options::Action::Version;
            return true;
        }
        return bad("internal error: unhandled option " + name);
    }

    std::span<const std::string_view> args_m;
    Options o_m;
    std::string error_m;
    const char* snapshotOption_m = nullptr; // one that needs --flight-recorder
};

} // namespace

ParseResult parseCommandLine(std::span<const std::string_view> args) {
    return Parser(args).run();
}

ParseResult parseCommandLine(int argc, char** argv) {
    std::vector<std::string_view> args;
    for (int i = 1; i < argc; ++i)
        args.emplace_back(argv[i]);
    return parseCommandLine(args);
}

std::optional<std::chrono::microseconds> parseDuration(std::string_view text) {
    using namespace std::chrono;
    double unitUs = 1e6;
    std::string_view number = text;
    // LTT's prefix form: s30, u500000, and m250 for milliseconds.
    if (!text.empty() && (text[0] == 's' || text[0] == 'u' || text[0] == 'm') && text.size() > 1 &&
        std::isdigit(static_cast<unsigned char>(text[1]))) {
        unitUs = text[0] == 's' ? 1e6 : text[0] == 'm' ? 1e3 : 1.0;
        number = text.substr(1);
    } else {
        std::size_t end = 0;
        while (end < text.size() &&
               (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.'))
            ++end;
        number = text.substr(0, end);
        std::string_view unit = text.substr(end);
        if (unit.empty() || unit == "s" || unit == "sec")
            unitUs = 1e6;
        else if (unit == "ms")
            unitUs = 1e3;
        else if (unit == "us")
            unitUs = 1.0;
        else if (unit == "min")
            unitUs = 60e6;
        else if (unit == "h")
            unitUs = 3600e6;
        else
            return std::nullopt;
    }
    if (number.empty() || number.find_first_not_of("0123456789.") != std::string_view::npos)
        return std::nullopt;
    double v = 0;
    auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
    if (ec != std::errc() || p != number.data() + number.size())
        return std::nullopt;
    double us = std::round(v * unitUs);
    if (!(us >= 1.0) || us > 1e15) // one microsecond to ~30 years
        return std::nullopt;
    return microseconds(static_cast<std::int64_t>(us));
}

std::optional<std::uint64_t> parseSignalList(std::string_view text, std::string& bad) {
    std::uint64_t mask = 0;
    std::size_t pos = 0;
    while (true) {
        auto comma = text.find(',', pos);
        std::string_view item =
            text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos);
        bad = std::string(item);
        std::string up(item);
        for (char& c : up)
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        if (up.starts_with("SIG"))
            up.erase(0, 3);
        int sig = 0;
        if (auto n = parseInteger<std::uint64_t>(up, false)) {
            sig = *n >= 1 && *n <= 64 ? static_cast<int>(*n) : 0;
        } else {
            for (int s = 1; s < NSIG && !sig; ++s)
                if (const char* abbrev = ::sigabbrev_np(s); abbrev && up == abbrev)
                    sig = s;
        }
        if (!sig)
            return std::nullopt;
        mask |= std::uint64_t{1} << (sig - 1);
        if (comma == std::string_view::npos)
            return mask;
        pos = comma + 1;
    }
}

std::optional<std::uint64_t> parseSize(std::string_view text) {
    std::size_t end = 0;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])))
        ++end;
    if (end == 0)
        return std::nullopt;
    auto n = parseInteger<std::uint64_t>(text.substr(0, end), false);
    if (!n)
        return std::nullopt;
    std::string suffix(text.substr(end));
    for (char& c : suffix)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    int shift = 0;
    if (suffix.empty() || suffix == "B")
        shift = 0;
    else if (suffix == "K" || suffix == "KB" || suffix == "KIB")
        shift = 10;
    else if (suffix == "M" || suffix == "MB" || suffix == "MIB")
        shift = 20;
    else if (suffix == "G" || suffix == "GB" || suffix == "GIB")
        shift = 30;
    else
        return std::nullopt;
    if (*n > (std::numeric_limits<std::uint64_t>::max() >> shift))
        return std::nullopt;
    return *n << shift;
}

std::string usageText() {
    return R"(Usage: tracedaemon [OPTIONS] [DEVICE] TRACEFILE PROCFILE [-- COMMAND [ARGS...]]

Configures the trace module (DEVICE, default /dev/tracer), starts tracing,
writes the system's state to PROCFILE and the events to TRACEFILE until the
duration elapses, SIGINT/SIGTERM arrives, or COMMAND exits.

Options (LTT's short forms; values may be attached, as in -ts30):
  -t, --duration TIME      stop after TIME: -ts30 (seconds), -tu500000 (us),
                           -tm250 (ms), or 30s, 1.5s, 500ms, 250us, 2min
  -b, --buffer-size SIZE   size of each of the module's per-CPU buffers
                           (4K..64M, default 1M; suffixes K, M)
  -B, --daemon-buffer SIZE size of each half of the daemon's double buffer
                           (default: 4M, or the module's largest block if bigger)
  -e, --events LIST        record only these events (repeatable, comma lists)
  -D, --details LIST       record the details of these events only; events
                           named here are recorded too (default: details of
                           every recorded event)
  -V, --vars LIST          after each event, record these kernel-state
                           variables when they changed (comma list, below)
  -c, --cpuid              record the CPU id (LTT option; the CPU is always in
                           each block header)
  -S, --stacks             when a task blocks, record its kernel stack and
                           (frame pointers, best effort) its user stack, for
                           traceanalyze's off-CPU stacks; adds SCHED. Kernel
                           stacks only for root or CAP_PERFMON
  -P, --pid PID            record only events of process PID
  -G, --pgrp PGRP          record only events of process group PGRP
  -u, --uid UID            record only events of user UID
  -g, --gid GID            record only events of group GID
  -sdDEPTH, --syscall-depth DEPTH
                           syscall IP: the return address DEPTH frames up
                           (0: the syscall instruction; max 16)
  -slADDR, -suADDR, --syscall-lower ADDR, --syscall-upper ADDR,
  --syscall-range LOWER-UPPER
                           syscall IP: the first return address in the range
  -T, --track-command      with -- COMMAND: record only COMMAND's process
                           group (COMMAND and its children)
      --device PATH        the trace device (default /dev/tracer)
      --flush-interval T   write a partly filled buffer at least every T
                           (default 1s; 0 = only full buffers)
      --test-emit RATE     benchmark/test load: have the module's test mode
                           emit RATE events/s (all CPUs together, e.g. 200k)
                           while tracing; the count emitted is reported
      --user-socket PATH   where applications register their events
                           (libltt-user, ltt-mark; 'none': no user events;
                           default $LTT_USER_SOCKET, else
                           /run/ltt/user.sock for root, else
                           $XDG_RUNTIME_DIR/ltt/user.sock)
      --control FIFO       create FIFO (mode 0600) and apply the command
                           lines written to it while tracing (below)
      --control-file FILE  apply FILE's command lines at each SIGHUP (which
                           then no longer stops the trace)
  -d, --defaults           accepted for LTT compatibility (the whole
                           configuration is always set)
      --flight-recorder    keep the last events only (each CPU's two buffers
                           of -b, overwritten oldest first); per snapshot
                           (SIGUSR1, --trigger-signal) write TRACEFILE and
                           PROCFILE with -N before the extension (out.trace:
                           out-1.trace, out-2.trace, ...); SIGINT writes none
      --trigger-signal LIST
                           with --flight-recorder: a snapshot when a traced
                           task dies of one of these signals (comma list of
                           names or numbers, e.g. SEGV,ABRT)
      --trigger-event NAME with --flight-recorder: a snapshot when an
                           application logs an event of this name (libltt-
                           user, ltt-mark's is ltt_mark); may be repeated
      --max-snapshots N    with --flight-recorder: keep the last N snapshots
                           (the oldest's files removed; default 16, 0: all)
      --snapshot-budget SIZE
                           with --flight-recorder: the bytes the snapshots
                           kept may take (default 1G; the oldest removed,
                           the newest always kept)
      --snapshot-gid GID   with --flight-recorder: processes of group GID
                           may ask for snapshots (with ltt-mark, or by
                           a trigger event); uid 0 and the daemon's own
                           uid always may, nobody else
  -q, --quiet              print only warnings and errors
  -h, --help               show this help
      --version            show the version and the ltt ABI it speaks

Events (case-insensitive; LTT names, ABI names and groups):
  SYS_ENTRY SYS_EXIT TRAP_ENTRY TRAP_EXIT IRQ_ENTRY IRQ_EXIT SCHED KTIMER
  SIRQ PROCESS FS TIMER MEM SOCKET IPC NET CUSTOM; SYSCALL TRAP IRQ
  (entry and exit); CORE (the paper's core events); ALL (default); NONE
  (with -D: no details). ABI names also work: SCHEDCHANGE, FILE_SYSTEM, ...
  (the same names as traceanalyze -o/-t). Not in ALL, so named when
  wanted: MOUNT (mount and umount with their paths; a probe on every
  system call's exit), LOCK (kernel lock contention, thousands a second
  on a busy system) and STACK (-S).

Variables (-V, case-insensitive; traceanalyze -d shows them):
  args (a system call's arguments at its entry; the return value is in its
  exit), pid, ppid, pgid, uid (effective), freemem, totalmem (pages),
  pgfault, pgpgin, pgpgout, pswpin, pswpout (this CPU's counters, on
  kernels with CONFIG_VM_EVENT_COUNTERS), prev, next (the tasks of a
  switch), sigpending (pending signals, bit n-1 for signal n), minflt,
  majflt, nvcsw, nivcsw (the current task's faults and context switches),
  loadavg (1-minute load average x 2048); all. Each CPU records a value
  only when it changed since that CPU last recorded it.

Control lines (--control, --control-file), each recorded in the trace:
  events [+|-]LIST, details [+|-]LIST (LIST as -e; + adds, - removes),
  vars LIST|none, pid N|off, pgrp N|off, uid N|off, gid N|off. A bad line
  gets a message naming it and is ignored; nothing is replied.

Users: several tracedaemons may trace at once (8 sessions). Root or
CAP_PERFMON traces every task; any other user gets only the events of their
own processes (real or effective UID theirs), other users' tasks shown as PID
0, no kernel addresses, buffers of at most 1M, 2 sessions per user, and a
PROCFILE listing only their own processes. Nothing else needs root.

Output files: TRACEFILE and PROCFILE are created mode 0600. A symbolic link,
another user's file, a file with a second hard link or anything but a regular
file at either path is refused before tracing starts. TRACEFILE is synced to
disk before exit status 0; PROCFILE is written to PROCFILE.XXXXXX and renamed
into place. A full disk ends the trace (exit status 1) with TRACEFILE valid up
to its last whole block.

Exit status: 0 when the trace was written (with -- COMMAND: COMMAND's exit
status), 1 on a runtime error, 2 on a usage error.

Example: tracedaemon -ts30 out.trace out.proc
         tracedaemon -e sched,syscall,process out.trace out.proc -- make
)";
}

std::string versionText() {
    return "tracedaemon " LTT_DAEMON_VERSION " (ltt ABI " + std::to_string(LTT_ABI_MAJOR) + "." +
           std::to_string(LTT_ABI_MINOR) + ", trace format " + std::to_string(LTT_FILE_VERSION) +
           ")\n";
}

} // namespace ltt::daemon
