#include "device_config.hpp"

#include "trace_device.hpp"

#include <cerrno>
#include <cstring>
#include <limits>
#include <ltt/module_events.h>

namespace ltt::daemon {

ltt_config moduleConfig(const Options& o, std::optional<int> commandPgrp) {
    ltt_config c;
    std::memset(&c, 0, sizeof c);
    // The module's own MAP records are on by default: without them the call
    // sites of processes started during the trace cannot be symbolized.
    // MOUNT, LOCK and STACK are opt-in (-e ALL,MOUNT,LOCK; -S).
    constexpr std::uint64_t kDefaultEvents = LTT_EV_MASK_ALL | LTT_EV_BIT(LTT_EV_MAP);
    constexpr std::uint64_t kModuleEvents =
        kDefaultEvents | LTT_EV_MASK_MOUNT_LOCK | LTT_EV_BIT(LTT_EV_STACK);
    // -S: the stacks and the switches they come before, with their details
    // (a blocked interval runs from one switch to the next).
    constexpr std::uint64_t kStacks = LTT_EV_BIT(LTT_EV_STACK) | LTT_EV_BIT(LTT_EV_SCHEDCHANGE);
    std::uint64_t events = o.events.value_or(kDefaultEvents);
    if (o.details && o.events)
        events |= *o.details;
    if (o.stacks)
        events |= kStacks;
    events &= kModuleEvents;
    c.event_mask = events;
    c.details_mask = o.details ? (*o.details & events) : events;
    if (o.stacks)
        c.details_mask |= kStacks;
    c.buffer_size = o.bufferSize.value_or(LTT_BUFFER_DEFAULT);
    c.record_cpuid = o.recordCpuid ? 1 : 0;
    c.pid = -1;
    c.pgrp = -1;
    if (o.pid) {
        c.filters |= LTT_FILTER_PID;
        c.pid = *o.pid;
    }
    if (o.pgrp) {
        c.filters |= LTT_FILTER_PGRP;
        c.pgrp = *o.pgrp;
    } else if (o.trackCommand && commandPgrp) {
        c.filters |= LTT_FILTER_PGRP;
        c.pgrp = *commandPgrp;
    }
    if (o.uid) {
        c.filters |= LTT_FILTER_UID;
        c.uid = *o.uid;
    }
    if (o.gid) {
        c.filters |= LTT_FILTER_GID;
        c.gid = *o.gid;
    }
    c.syscall_depth = o.syscallDepth.value_or(0);
    if (o.syscallLower || o.syscallUpper) {
        c.syscall_range.lower = o.syscallLower.value_or(0);
        c.syscall_range.upper = o.syscallUpper.value_or(std::numeric_limits<std::uint64_t>::max());
    }
    return c;
}

void configureVars(TraceDevice& dev, const Options& o) {
    if (!o.vars || !*o.vars)
        return; // the module's default: none (and older modules lack the ioctl)
    __u32 mask = *o.vars;
    if (int r = dev.control(LTT_IOC_SET_VARS_MASK, &mask); r < 0)
        throw DeviceError(dev.path() + ": cannot select the variables of -V (mask " +
                              std::to_string(mask) + "): " + std::strerror(-r) +
                              (-r == ENOTTY ? " (the module predates variables)" : ""),
                          -r);
}

} // namespace ltt::daemon
