#include "control_fifo.hpp"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <libltt/event_names.hpp>
#include <ltt/module_events.h>
#include <optional>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace ltt::daemon {
namespace {

// The events tracedaemon may select (as moduleConfig()).
constexpr std::uint64_t kModuleEvents =
    LTT_EV_MASK_ALL | LTT_EV_BIT(LTT_EV_MAP) | LTT_EV_MASK_MOUNT_LOCK | LTT_EV_BIT(LTT_EV_STACK);

std::string ioctlError(TraceDevice& dev, unsigned long request, void* arg) {
    int r = dev.control(request, arg);
    if (r == 0)
        return {};
    return std::string("the module refused it: ") + std::strerror(-r);
}

// "LIST", "+LIST" or "-LIST" applied to `current`.
std::string maskArgument(std::string_view arg, __u64 current, __u64& out) {
    char op = 0;
    if (!arg.empty() && (arg[0] == '+' || arg[0] == '-')) {
        op = arg[0];
        arg.remove_prefix(1);
    }
    std::string bad;
    auto mask = parseEventList(arg, &bad);
    if (!mask)
        return bad.empty() ? "expected a list of events" : "unknown event '" + bad + "'";
    out = op == '+' ? current | *mask : op == '-' ? current & ~*mask : *mask;
    out &= kModuleEvents;
    return {};
}

// "events" and "details": the mask `Field` of the configuration, sent
// with `Request`.
template <unsigned long Request, __u64 ltt_config::*Field>
std::string setMask(TraceDevice& dev, ControlState& st, std::string_view arg) {
    __u64 mask = 0;
    std::string e = maskArgument(arg, st.config.*Field, mask);
    if (e.empty())
        e = ioctlError(dev, Request, &mask);
    if (e.empty())
        st.config.*Field = mask;
    return e;
}

std::string setVars(TraceDevice& dev, ControlState& st, std::string_view arg) {
    __u32 mask = 0;
    if (arg != "none") {
        std::string bad;
        auto m = parseVarList(arg, &bad);
        if (!m)
            return "unknown variable '" + bad + "' (known: " + varNames() + ", all, none)";
        mask = *m;
    }
    std::string e = ioctlError(dev, LTT_IOC_SET_VARS_MASK, &mask);
    if (e.empty())
        st.vars = mask;
    return e;
}

// "off" or a number in [lo, hi]; -1 for off.
std::optional<long long> idArgument(std::string_view arg, long long lo, long long hi) {
    if (arg == "off")
        return -1;
    long long v = 0;
    auto [p, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), v);
    if (arg.empty() || ec != std::errc() || p != arg.data() + arg.size() || v < lo || v > hi)
        return std::nullopt;
    return v;
}

// PID and PGRP take an __s32, UID and GID an __s64 (abi.h).
template <unsigned long Request, std::uint32_t Filter, typename Arg>
std::string setFilter(TraceDevice& dev, ControlState& st, std::string_view arg) {
    constexpr bool isId = sizeof(Arg) == 8;
    auto v = idArgument(arg, isId ? 0 : 1, isId ? 0xfffffffeLL : 0x7fffffffLL);
    if (!v)
        return std::string("expected ") + (isId ? "an id from 0" : "a number from 1") + " or off";
    Arg a = static_cast<Arg>(*v);
    std::string e = ioctlError(dev, Request, &a);
    if (!e.empty())
        return e;
    if (*v < 0)
        st.config.filters &= ~Filter;
    else
        st.config.filters |= Filter;
    return {};
}

constexpr ControlCommand kCommands[] = {
    {"events", "[+|-]LIST", setMask<LTT_IOC_SET_EVENT_MASK, &ltt_config::event_mask>},
    {"details", "[+|-]LIST", setMask<LTT_IOC_SET_DETAILS_MASK, &ltt_config::details_mask>},
    {"vars", "LIST|none", setVars},
    {"pid", "N|off", setFilter<LTT_IOC_TRACK_PID, LTT_FILTER_PID, __s32>},
    {"pgrp", "N|off", setFilter<LTT_IOC_TRACK_PGRP, LTT_FILTER_PGRP, __s32>},
    {"uid", "N|off", setFilter<LTT_IOC_TRACK_UID, LTT_FILTER_UID, __s64>},
    {"gid", "N|off", setFilter<LTT_IOC_TRACK_GID, LTT_FILTER_GID, __s64>},
};

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

std::string modeString(mode_t m) {
    char b[8];
    std::snprintf(b, sizeof b, "%04o", static_cast<unsigned>(m & 07777));
    return b;
}

} // namespace

std::span<const ControlCommand> controlCommands() {
    return kCommands;
}

std::string runControlLine(TraceDevice& dev, ControlState& state, std::string_view line) {
    std::string_view s = trim(line);
    if (s.empty() || s.front() == '#')
        return {};
    auto space = s.find_first_of(" \t");
    std::string_view name = s.substr(0, space);
    std::string_view arg =
        space == std::string_view::npos ? std::string_view{} : trim(s.substr(space));
    for (const auto& c : kCommands) {
        if (name != c.name)
            continue;
        std::string e =
            arg.empty() ? std::string("missing ") + c.argument : c.apply(dev, state, arg);
        return e.empty() ? e : "control line '" + std::string(s) + "': " + e;
    }
    std::string known;
    for (const auto& c : kCommands)
        known += (known.empty() ? "" : ", ") + std::string(c.name);
    return "control line '" + std::string(s) + "': unknown command (known: " + known + ")";
}

ControlFifo::ControlFifo(std::string path) : path_m(std::move(path)) {
    auto fail = [&](const std::string& why, int err) {
        throw std::runtime_error("--control " + path_m + ": " + why +
                                 (err ? std::string(": ") + std::strerror(err) : ""));
    };
    if (::mkfifo(path_m.c_str(), 0600) == 0) {
        created_m = true;
    } else if (errno != EEXIST) {
        fail("cannot create the FIFO", errno);
    }
    // An existing path is examined before it is opened (opening a device
    // or another user's FIFO could itself do harm), then opened without
    // following a symbolic link and checked again on the descriptor: what
    // was opened is what is used, whatever the path names meanwhile.
    auto check = [&](const struct stat& st) {
        if (!S_ISFIFO(st.st_mode))
            fail("exists and is not a FIFO", 0);
        if (st.st_uid != ::geteuid())
            fail("the FIFO belongs to uid " + std::to_string(st.st_uid) + ", not to " +
                     std::to_string(::geteuid()) + " (remove it, or give a new path)",
                 0);
        if ((st.st_mode & 07777) != 0600)
            fail("the FIFO has mode " + modeString(st.st_mode) +
                     ", not 0600 (anyone else who may write to it could change the trace)",
                 0);
    };
    struct stat st {};
    if (::lstat(path_m.c_str(), &st) != 0)
        fail("cannot examine it", errno);
    if (S_ISLNK(st.st_mode))
        fail("is a symbolic link", 0);
    check(st);
    // Read-write: the FIFO always has a writer (us), so a writer closing
    // never gives an end of file, and open never waits.
    fd_m.reset(::open(path_m.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW));
    if (!fd_m)
        fail(errno == ELOOP ? "is a symbolic link" : "cannot open it", errno == ELOOP ? 0 : errno);
    struct stat opened {};
    if (::fstat(fd_m.get(), &opened) != 0)
        fail("cannot examine it", errno);
    check(opened);
    if (opened.st_dev != st.st_dev || opened.st_ino != st.st_ino)
        fail("was replaced while it was opened", 0);
    dev_m = opened.st_dev;
    ino_m = opened.st_ino;
}

ControlFifo::~ControlFifo() {
    // Only the FIFO this made, not what another took its name for.
    struct stat st {};
    if (created_m && ::lstat(path_m.c_str(), &st) == 0 && st.st_dev == dev_m && st.st_ino == ino_m)
        ::unlink(path_m.c_str());
}

std::vector<std::string> ControlFifo::readLines() {
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fd_m.get(), buf, sizeof buf)) > 0) {
        partial_m.append(buf, static_cast<std::size_t>(n));
        // A line longer than any command is cut, not kept growing.
        if (partial_m.size() > kMaxLine && partial_m.find('\n') == std::string::npos)
            partial_m.resize(kMaxLine);
    }
    std::vector<std::string> lines;
    std::size_t start = 0, nl;
    while ((nl = partial_m.find('\n', start)) != std::string::npos) {
        lines.emplace_back(partial_m, start, nl - start);
        start = nl + 1;
    }
    partial_m.erase(0, start);
    return lines;
}

std::vector<std::string> readControlFile(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error("--control-file " + path +
                                 ": cannot read it: " + std::strerror(errno));
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);)
        lines.push_back(l);
    return lines;
}

} // namespace ltt::daemon
