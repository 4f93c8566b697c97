// From options to the module's configuration, and from the configuration to
// the ioctls the daemon issues (against a fake device).
#include "device_config.hpp"
#include "fake_device.hpp"

#include <gtest/gtest.h>
#include <ltt/module_events.h>

using namespace ltt::daemon;
using namespace ltt::daemon::testing;

namespace {

Options parsed(std::initializer_list<std::string_view> args) {
    std::vector<std::string_view> v(args);
    auto r = parseCommandLine(v);
    EXPECT_TRUE(r.options) << r.error;
    return r.options.value_or(Options{});
}

} // namespace

TEST(ModuleConfig, DefaultsTraceEverythingWithDetails) {
    ltt_config c = moduleConfig(parsed({"a", "b"}));
    EXPECT_EQ(c.event_mask, LTT_EV_MASK_ALL | LTT_EV_BIT(LTT_EV_MAP));
    EXPECT_EQ(c.details_mask, LTT_EV_MASK_ALL | LTT_EV_BIT(LTT_EV_MAP));
    EXPECT_EQ(c.buffer_size, LTT_BUFFER_DEFAULT);
    EXPECT_EQ(c.record_cpuid, 0u);
    EXPECT_EQ(c.filters, 0u);
    EXPECT_EQ(c.pid, -1);
    EXPECT_EQ(c.pgrp, -1);
    EXPECT_EQ(c.syscall_depth, 0u);
    EXPECT_EQ(c.syscall_range.lower, 0u);
    EXPECT_EQ(c.syscall_range.upper, 0u);
    EXPECT_EQ(c.event_mask & LTT_EV_MASK_STRUCTURE, 0u);
}

TEST(ModuleConfig, EventsSelectAndDetailsFollow) {
    ltt_config c = moduleConfig(parsed({"-e", "sched", "-e", "syscall", "a", "b"}));
    std::uint64_t want = LTT_EV_BIT(LTT_EV_SCHEDCHANGE) | LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY) |
                         LTT_EV_BIT(LTT_EV_SYSCALL_EXIT);
    EXPECT_EQ(c.event_mask, want);
    EXPECT_EQ(c.details_mask, want);
}

TEST(ModuleConfig, DetailsOnlyForNamedEventsAndTheyAreRecorded) {
    ltt_config c = moduleConfig(parsed({"-e", "sched", "-D", "fs", "a", "b"}));
    EXPECT_EQ(c.event_mask, LTT_EV_BIT(LTT_EV_SCHEDCHANGE) | LTT_EV_BIT(LTT_EV_FILE_SYSTEM));
    EXPECT_EQ(c.details_mask, LTT_EV_BIT(LTT_EV_FILE_SYSTEM));
    ltt_config all = moduleConfig(parsed({"-D", "fs", "a", "b"}));
    EXPECT_EQ(all.event_mask, LTT_EV_MASK_ALL | LTT_EV_BIT(LTT_EV_MAP));
    EXPECT_EQ(all.details_mask, LTT_EV_BIT(LTT_EV_FILE_SYSTEM));
    ltt_config none = moduleConfig(parsed({"-D", "NONE", "a", "b"}));
    EXPECT_EQ(none.details_mask, 0u);
}

TEST(ModuleConfig, FiltersAndCpuid) {
    ltt_config c = moduleConfig(
        parsed({"-P", "12", "-G", "34", "-u", "1000", "-g", "100", "-c", "-b", "64K", "a", "b"}));
    EXPECT_EQ(c.filters,
              unsigned(LTT_FILTER_PID | LTT_FILTER_PGRP | LTT_FILTER_UID | LTT_FILTER_GID));
    EXPECT_EQ(c.pid, 12);
    EXPECT_EQ(c.pgrp, 34);
    EXPECT_EQ(c.uid, 1000u);
    EXPECT_EQ(c.gid, 100u);
    EXPECT_EQ(c.record_cpuid, 1u);
    EXPECT_EQ(c.buffer_size, 65536u);
}

TEST(ModuleConfig, TrackCommandFiltersOnItsProcessGroup) {
    ltt_config c = moduleConfig(parsed({"-T", "a", "b", "--", "ls"}), 4242);
    EXPECT_EQ(c.filters, unsigned(LTT_FILTER_PGRP));
    EXPECT_EQ(c.pgrp, 4242);
    ltt_config untracked = moduleConfig(parsed({"a", "b", "--", "ls"}), 4242);
    EXPECT_EQ(untracked.filters, 0u);
}

TEST(ModuleConfig, SyscallRangeWithOneBound) {
    ltt_config lo = moduleConfig(parsed({"-sl0x1000", "a", "b"}));
    EXPECT_EQ(lo.syscall_range.lower, 0x1000u);
    EXPECT_EQ(lo.syscall_range.upper, ~0ull);
    ltt_config hi = moduleConfig(parsed({"-su0x2000", "-sd3", "a", "b"}));
    EXPECT_EQ(hi.syscall_range.lower, 0u);
    EXPECT_EQ(hi.syscall_range.upper, 0x2000u);
    EXPECT_EQ(hi.syscall_depth, 3u);
}

TEST(ConfigureDevice, IssuesEveryIoctlWithTheMappedValues) {
    auto s = std::make_shared<FakeState>();
    FakeDevice dev(s);
    ltt_config c = moduleConfig(parsed({"-e", "sched", "-P", "77", "-b", "8K", "-c", "-sd1",
                                        "--syscall-range", "0x10-0x20", "a", "b"}));
    configureDevice(dev, c);
    EXPECT_EQ(s->arg<__u32>(LTT_IOC_SET_BUFFER_SIZE), 8192u);
    EXPECT_EQ(s->arg<__u64>(LTT_IOC_SET_EVENT_MASK), LTT_EV_BIT(LTT_EV_SCHEDCHANGE));
    EXPECT_EQ(s->arg<__u64>(LTT_IOC_SET_DETAILS_MASK), LTT_EV_BIT(LTT_EV_SCHEDCHANGE));
    EXPECT_EQ(s->arg<__u32>(LTT_IOC_SET_CPUID), 1u);
    EXPECT_EQ(s->arg<__s32>(LTT_IOC_TRACK_PID), 77);
    EXPECT_EQ(s->arg<__s32>(LTT_IOC_TRACK_PGRP), -1);
    EXPECT_EQ(s->arg<__s64>(LTT_IOC_TRACK_UID), -1);
    EXPECT_EQ(s->arg<__s64>(LTT_IOC_TRACK_GID), -1);
    EXPECT_EQ(s->arg<__u32>(LTT_IOC_SET_SYSCALL_DEPTH), 1u);
    auto r = s->arg<ltt_addr_range>(LTT_IOC_SET_SYSCALL_RANGE);
    EXPECT_EQ(r.lower, 0x10u);
    EXPECT_EQ(r.upper, 0x20u);
    EXPECT_EQ(s->count(LTT_IOC_START), 0u);
}

TEST(ConfigureDevice, RefusalNamesDeviceOperationAndValue) {
    auto s = std::make_shared<FakeState>();
    s->failWith[LTT_IOC_SET_BUFFER_SIZE] = EINVAL;
    FakeDevice dev(s);
    ltt_config c = moduleConfig(parsed({"-b", "8K", "a", "b"}));
    try {
        configureDevice(dev, c);
        FAIL() << "no error";
    } catch (const DeviceError& e) {
        EXPECT_STREQ(e.what(),
                     "/dev/faketracer: cannot set the buffer size to 8192 bytes: Invalid argument");
        EXPECT_EQ(e.error(), EINVAL);
    }
    s->failWith.clear();
    s->failWith[LTT_IOC_SET_EVENT_MASK] = EBUSY;
    try {
        configureDevice(dev, c);
        FAIL() << "no error";
    } catch (const DeviceError& e) {
        EXPECT_NE(std::string(e.what()).find("cannot set the event mask: Device or resource busy "
                                             "(the module refuses configuration while tracing)"),
                  std::string::npos)
            << e.what();
    }
}

TEST(CheckAbi, AcceptsSameMajorRefusesOther) {
    auto s = std::make_shared<FakeState>();
    FakeDevice dev(s);
    s->abi = (LTT_ABI_MAJOR << 16) | 7;
    EXPECT_NO_THROW(checkAbi(dev));
    s->abi = ((LTT_ABI_MAJOR + 1) << 16);
    try {
        checkAbi(dev);
        FAIL() << "no error";
    } catch (const DeviceError& e) {
        const std::string want = "speaks ltt ABI " + std::to_string(LTT_ABI_MAJOR + 1) +
                                 ".0 but this tracedaemon speaks " + std::to_string(LTT_ABI_MAJOR) +
                                 "." + std::to_string(LTT_ABI_MINOR);
        EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
    s->failWith[LTT_IOC_GET_ABI_VERSION] = ENOTTY;
    try {
        checkAbi(dev);
        FAIL() << "no error";
    } catch (const DeviceError& e) {
        EXPECT_NE(std::string(e.what()).find("it is not an ltt trace device"), std::string::npos);
    }
}

TEST(OpenTraceDevice, MissingDeviceSaysModuleNotLoaded) {
    try {
        openTraceDevice("/nonexistent/tracer");
        FAIL() << "no error";
    } catch (const DeviceError& e) {
        EXPECT_EQ(e.error(), ENOENT);
        EXPECT_NE(std::string(e.what()).find("cannot open /nonexistent/tracer: No such file or "
                                             "directory"),
                  std::string::npos);
        EXPECT_NE(std::string(e.what()).find("trace module"), std::string::npos);
    }
}

TEST(OpenTraceDevice, RegularFileIsNotATraceDevice) {
    try {
        openTraceDevice("/proc/self/status");
        FAIL() << "no error";
    } catch (const DeviceError& e) {
        EXPECT_NE(std::string(e.what()).find("is not a character device"), std::string::npos);
    }
}

TEST(OpenTraceDevice, EveryFailureSaysWhatToDo) {
    EXPECT_EQ(openFailureMessage("/dev/tracer", ENOENT, std::nullopt),
              "cannot open /dev/tracer: No such file or directory. Is the trace module loaded? "
              "(insmod ltt_tracer.ko)");
    EXPECT_EQ(openFailureMessage("/dev/tracer", ENOENT, 57),
              "cannot open /dev/tracer: No such file or directory. The trace module is loaded "
              "(misc device \"tracer\", minor 57) but the device node is missing: mount "
              "devtmpfs on /dev or run: mknod /dev/tracer c 10 57");
    EXPECT_NE(openFailureMessage("/dev/tracer", ENXIO, std::nullopt).find("no driver answers"),
              std::string::npos);
    EXPECT_EQ(openFailureMessage("/dev/tracer", EBUSY, std::nullopt),
              "cannot open /dev/tracer: Device or resource busy. The trace device is in use: "
              "another tracedaemon is running (this module predates concurrent sessions and "
              "lets one trace at a time)");
    EXPECT_EQ(openFailureMessage("/dev/tracer", EUSERS, std::nullopt),
              "cannot open /dev/tracer: Too many users. Too many tracing sessions are open: 8 "
              "in all, 2 per unprivileged user and 4 for all unprivileged users together; "
              "wait for one to end");
    EXPECT_NE(openFailureMessage("/dev/tracer", EACCES, std::nullopt)
                  .find("This user may not open the trace device"),
              std::string::npos);
    EXPECT_NE(openFailureMessage("/dev/tracer", EPERM, std::nullopt)
                  .find("gives every user a session of their own processes"),
              std::string::npos);
}

TEST(ModuleConfig, MountAndLockAreSelectableButNotDefault) {
    EXPECT_EQ(moduleConfig(parsed({"a", "b"})).event_mask & LTT_EV_MASK_MOUNT_LOCK, 0u);
    ltt_config c = moduleConfig(parsed({"-e", "all,mount,lock", "a", "b"}));
    EXPECT_EQ(c.event_mask, LTT_EV_MASK_ALL | LTT_EV_MASK_MOUNT_LOCK);
    EXPECT_EQ(c.details_mask, LTT_EV_MASK_ALL | LTT_EV_MASK_MOUNT_LOCK);
}

TEST(ModuleConfig, StacksAddTheSwitchesWithTheirDetails) {
    EXPECT_EQ(moduleConfig(parsed({"a", "b"})).event_mask & LTT_EV_BIT(LTT_EV_STACK), 0u);
    const std::uint64_t want = LTT_EV_BIT(LTT_EV_STACK) | LTT_EV_BIT(LTT_EV_SCHEDCHANGE);
    // -S with events that leave the switches out, and details of none.
    ltt_config c = moduleConfig(parsed({"-S", "-e", "SYSCALL", "-D", "NONE", "a", "b"}));
    EXPECT_EQ(c.event_mask & want, want);
    EXPECT_EQ(c.details_mask, want);
    c = moduleConfig(parsed({"--stacks", "a", "b"}));
    EXPECT_EQ(c.event_mask, LTT_EV_MASK_ALL | LTT_EV_BIT(LTT_EV_MAP) | LTT_EV_BIT(LTT_EV_STACK));
    // -e STACK names it too.
    EXPECT_EQ(moduleConfig(parsed({"-e", "sched,stack", "a", "b"})).event_mask, want);
}

TEST(ConfigureVars, SentOnlyWhenSelected) {
    auto s = std::make_shared<FakeState>();
    FakeDevice dev(s);
    configureVars(dev, parsed({"a", "b"}));
    EXPECT_EQ(s->count(LTT_IOC_SET_VARS_MASK), 0u);
    configureVars(dev, parsed({"-V", "args,uid", "a", "b"}));
    EXPECT_EQ(s->arg<__u32>(LTT_IOC_SET_VARS_MASK),
              LTT_VAR_BIT(LTT_VAR_ARGS) | LTT_VAR_BIT(LTT_VAR_UID));
}

TEST(ConfigureVars, RefusalSaysWhy) {
    auto s = std::make_shared<FakeState>();
    s->failWith[LTT_IOC_SET_VARS_MASK] = ENOTTY;
    FakeDevice dev(s);
    try {
        configureVars(dev, parsed({"-V", "pid", "a", "b"}));
        FAIL() << "no DeviceError";
    } catch (const DeviceError& e) {
        EXPECT_NE(std::string(e.what()).find("/dev/faketracer: cannot select the variables of -V "
                                             "(mask 2): Inappropriate ioctl for device (the "
                                             "module predates variables)"),
                  std::string::npos)
            << e.what();
        EXPECT_EQ(e.error(), ENOTTY);
    }
}
