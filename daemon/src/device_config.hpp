// From the command line to the module's configuration (struct ltt_config).
#pragma once

#include "options.hpp"

#include <ltt/abi.h>
#include <optional>

namespace ltt::daemon {

// The configuration tracedaemon sends for `options`. `commandPgrp` is the
// process group of the traced COMMAND when --track-command is given.
//
// Events: -e selects events (default ALL); -D selects whose details are
// recorded and also records those events; without -D every recorded event
// keeps its details. Structure events (block start/end, heartbeat, lost) are
// always recorded by the module and never appear in the masks we send.
ltt_config moduleConfig(const Options& options, std::optional<int> commandPgrp = std::nullopt);

class TraceDevice;
// Sends -V's variables (LTT_IOC_SET_VARS_MASK) when any were selected;
// throws DeviceError when the module refuses them.
void configureVars(TraceDevice& dev, const Options& options);

} // namespace ltt::daemon
