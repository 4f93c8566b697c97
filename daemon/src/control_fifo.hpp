// Changes to a running trace: `tracedaemon --control FIFO` reads one command
// per line from a FIFO while it traces, and SIGHUP re-reads the lines of
// --control-file FILE. Each command is one row of a table (controlCommands())
// and one function that turns its argument into an ioctl of the module, which
// records the change as a CONFIG record (include/ltt/module_events.h):
//
//   events LIST     the event mask becomes LIST; "+LIST" adds, "-LIST" removes
//   details LIST    the details mask, likewise (LIST as for -e and -D)
//   vars LIST       the variables (as -V); "vars none" records none
//   pid N|off       the PID filter; pgrp, uid and gid likewise
//
// A line that is not a command, or that the module refuses, gives one message
// naming the line; nothing is replied to the FIFO.
#pragma once

#include "trace_device.hpp"

#include <cstdint>
#include <libltt/unique_fd.hpp>
#include <ltt/abi.h>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ltt::daemon {

// What the commands change: the module's configuration as last sent.
struct ControlState {
    ltt_config config{};
    std::uint32_t vars = 0;
};

struct ControlCommand {
    const char* name;
    const char* argument; // for the help text
    // Applies `argument` to `state` and the module; "" or the reason it failed.
    std::string (*apply)(TraceDevice& dev, ControlState& state, std::string_view argument);
};

// The command table; a new command is one row and one function.
std::span<const ControlCommand> controlCommands();

// Runs one line ("events -SYSCALL"). Blank lines and lines starting with '#'
// do nothing. Returns "" or a message naming the line.
std::string runControlLine(TraceDevice& dev, ControlState& state, std::string_view line);

// The FIFO: created with mode 0600 (an existing FIFO is used as it is; any
// other existing file is refused), opened read-write and non-blocking so
// that writers may come and go without an end of file. Removed on
// destruction when this created it.
class ControlFifo {
public:
    // Throws std::runtime_error naming the path and the reason.
    explicit ControlFifo(std::string path);
    ~ControlFifo();
    ControlFifo(const ControlFifo&) = delete;
    ControlFifo& operator=(const ControlFifo&) = delete;

    int fd() const { return fd_m.get(); }
    const std::string& path() const { return path_m; }
    // Everything readable now, as complete lines (a partial last line waits
    // for the rest).
    std::vector<std::string> readLines();

private:
    std::string path_m;
    UniqueFd fd_m;
    bool created_m = false;
    std::string partial_m;
};

// The lines of a --control-file, read whole; throws std::runtime_error.
std::vector<std::string> readControlFile(const std::string& path);

} // namespace ltt::daemon
