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
#include <sys/types.h>
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

// The FIFO: created with mode 0600, or an existing FIFO of this process's
// effective uid with mode 0600 (anything else is refused: a symbolic link,
// another file, another user's FIFO, one others may write to), opened
// read-write, non-blocking and O_NOFOLLOW, and checked again with fstat on
// the descriptor, so that writers may come and go without an end of file
// and nobody can swap the path between the check and the open. Removed on
// destruction when this created it (and the path still names it).
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
    // The longest partial line kept: longer ones are cut.
    static constexpr std::size_t kMaxLine = std::size_t{64} * 1024;
    std::string path_m;
    UniqueFd fd_m;
    bool created_m = false;
    dev_t dev_m = 0;
    ino_t ino_m = 0;
    std::string partial_m;
};

// The lines of a --control-file, read whole; throws std::runtime_error.
std::vector<std::string> readControlFile(const std::string& path);

} // namespace ltt::daemon
