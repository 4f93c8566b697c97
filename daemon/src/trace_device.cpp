// /dev/tracer behind the TraceDevice interface, and the typed ioctl helpers.
#include "trace_device.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <libltt/unique_fd.hpp>
#include <optional>
#include <poll.h>
#include <signal.h>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace ltt::daemon {

namespace {

std::string errnoText(int err) {
    return std::strerror(err);
}

// The misc minor of "tracer" in /proc/misc, if the module registered one.
std::optional<int> miscMinor(const std::string& name) {
    std::ifstream in("/proc/misc");
    int minor;
    std::string n;
    while (in >> minor >> n)
        if (n == name)
            return minor;
    return std::nullopt;
}

class FileTraceDevice final : public TraceDevice {
public:
    FileTraceDevice(std::string path, UniqueFd fd) : path_m(std::move(path)), fd_m(std::move(fd)) {}

    const std::string& path() const override { return path_m; }

    int control(unsigned long request, void* arg) override {
        int r;
        do
            r = ::ioctl(fd_m.get(), request, arg);
        while (r < 0 && errno == EINTR);
        return r < 0 ? -errno : 0;
    }

    long readBlocks(std::span<std::byte> buffer) override {
        ssize_t n;
        do
            n = ::read(fd_m.get(), buffer.data(), buffer.size());
        while (n < 0 && errno == EINTR);
        if (n < 0)
            return errno == EWOULDBLOCK ? -EAGAIN : -errno;
        return static_cast<long>(n);
    }

    void enableSigio() override {
        if (::fcntl(fd_m.get(), F_SETOWN, ::getpid()) < 0)
            throw DeviceError(
                path_m + ": cannot direct SIGIO to the daemon (F_SETOWN): " + errnoText(errno),
                errno);
        int fl = ::fcntl(fd_m.get(), F_GETFL);
        if (fl < 0 || ::fcntl(fd_m.get(), F_SETFL, fl | O_ASYNC | O_NONBLOCK) < 0)
            throw DeviceError(path_m + ": cannot enable SIGIO (O_ASYNC): " + errnoText(errno),
                              errno);
    }

    bool waitReadable(std::chrono::milliseconds timeout) override {
        pollfd p{fd_m.get(), POLLIN, 0};
        int r = ::poll(&p, 1, static_cast<int>(timeout.count()));
        return r > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR));
    }

    int pollFd() const override { return fd_m.get(); }

private:
    std::string path_m;
    UniqueFd fd_m;
};

[[noreturn]] void ioctlFailed(TraceDevice& dev, const std::string& what, int err) {
    std::string hint;
    if (err == EBUSY)
        hint = " (the module refuses configuration while tracing)";
    else if (err == ENOTTY)
        hint = " (not supported by this module)";
    throw DeviceError(dev.path() + ": " + what + ": " + errnoText(err) + hint, err);
}

void call(TraceDevice& dev, unsigned long req, void* arg, const std::string& what) {
    if (int r = dev.control(req, arg); r < 0)
        ioctlFailed(dev, what, -r);
}

} // namespace

std::unique_ptr<TraceDevice> openTraceDevice(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
        struct stat st;
        if (::fstat(fd, &st) == 0 && !S_ISCHR(st.st_mode)) {
            ::close(fd);
            throw DeviceError(path + " is not a character device: is it the trace device?", ENOTTY);
        }
        return std::make_unique<FileTraceDevice>(path, UniqueFd(fd));
    }
    int err = errno;
    throw DeviceError(
        openFailureMessage(path, err, err == ENOENT ? miscMinor("tracer") : std::nullopt), err);
}

std::string openFailureMessage(const std::string& path, int err, std::optional<int> minor) {
    std::string msg = "cannot open " + path + ": " + errnoText(err);
    switch (err) {
    case ENOENT:
        if (minor)
            msg += ". The trace module is loaded (misc device \"tracer\", minor " +
                   std::to_string(*minor) +
                   ") but the device node is missing: mount devtmpfs on /dev or run: mknod " +
                   path + " c 10 " + std::to_string(*minor);
        else
            msg += ". Is the trace module loaded? (insmod ltt_tracer.ko)";
        break;
    case ENODEV:
    case ENXIO:
        msg += ". The device node exists but no driver answers: load the trace module "
               "(insmod ltt_tracer.ko)";
        break;
    case EBUSY:
        msg += ". The trace device is in use: another tracedaemon is running (this module "
               "predates concurrent sessions and lets one trace at a time)";
        break;
    case EUSERS:
        msg += ". Too many tracing sessions are open: 8 in all, 2 per unprivileged user "
               "and 4 for all unprivileged users together; wait for one to end";
        break;
    case EACCES:
    case EPERM:
        msg += ". This user may not open the trace device (a module before ABI 2.3 "
               "needs root; a current one's node is mode 0666 and gives every user a "
               "session of their own processes)";
        break;
    default:
        break;
    }
    return msg;
}

std::string abiVersionString(std::uint32_t v) {
    return std::to_string(v >> 16) + "." + std::to_string(v & 0xffff);
}

std::uint32_t abiVersion(TraceDevice& dev) {
    __u32 v = 0;
    if (int r = dev.control(LTT_IOC_GET_ABI_VERSION, &v); r < 0) {
        if (-r == ENOTTY || -r == EINVAL)
            throw DeviceError(dev.path() + " does not answer the ltt ABI version request (" +
                                  errnoText(-r) + "): it is not an ltt trace device",
                              -r);
        ioctlFailed(dev, "cannot read the ABI version", -r);
    }
    return v;
}

void checkAbi(TraceDevice& dev) {
    std::uint32_t v = abiVersion(dev);
    if ((v >> 16) != LTT_ABI_MAJOR)
        throw DeviceError(dev.path() + " speaks ltt ABI " + abiVersionString(v) +
                              " but this tracedaemon speaks " + abiVersionString(LTT_ABI_VERSION) +
                              ": rebuild the module and tracedaemon from the same tree",
                          EPROTO);
}

void configureDevice(TraceDevice& dev, const ltt_config& c) {
    __u32 size = c.buffer_size;
    call(dev, LTT_IOC_SET_BUFFER_SIZE, &size,
         "cannot set the buffer size to " + std::to_string(size) + " bytes");
    __u64 events = c.event_mask;
    call(dev, LTT_IOC_SET_EVENT_MASK, &events, "cannot set the event mask");
    __u64 details = c.details_mask;
    call(dev, LTT_IOC_SET_DETAILS_MASK, &details, "cannot set the details mask");
    __u32 cpuid = c.record_cpuid;
    call(dev, LTT_IOC_SET_CPUID, &cpuid, "cannot set CPU-id recording");
    __s32 pid = (c.filters & LTT_FILTER_PID) ? c.pid : -1;
    call(dev, LTT_IOC_TRACK_PID, &pid, "cannot set the PID filter to " + std::to_string(pid));
    __s32 pgrp = (c.filters & LTT_FILTER_PGRP) ? c.pgrp : -1;
    call(dev, LTT_IOC_TRACK_PGRP, &pgrp,
         "cannot set the process-group filter to " + std::to_string(pgrp));
    __s64 gid = (c.filters & LTT_FILTER_GID) ? static_cast<__s64>(c.gid) : -1;
    call(dev, LTT_IOC_TRACK_GID, &gid, "cannot set the GID filter to " + std::to_string(gid));
    __s64 uid = (c.filters & LTT_FILTER_UID) ? static_cast<__s64>(c.uid) : -1;
    call(dev, LTT_IOC_TRACK_UID, &uid, "cannot set the UID filter to " + std::to_string(uid));
    __u32 depth = c.syscall_depth;
    call(dev, LTT_IOC_SET_SYSCALL_DEPTH, &depth,
         "cannot set the syscall IP depth to " + std::to_string(depth));
    ltt_addr_range range = c.syscall_range;
    call(dev, LTT_IOC_SET_SYSCALL_RANGE, &range, "cannot set the syscall IP range");
}

void startTracing(TraceDevice& dev) {
    call(dev, LTT_IOC_START, nullptr, "cannot start tracing");
}

void stopTracing(TraceDevice& dev) {
    call(dev, LTT_IOC_STOP, nullptr, "cannot stop tracing");
}

ltt_trace_info traceInfo(TraceDevice& dev) {
    ltt_trace_info info;
    std::memset(&info, 0, sizeof info);
    call(dev, LTT_IOC_GET_TRACE_INFO, &info, "cannot read the trace information");
    return info;
}

bool lostCounts(TraceDevice& dev, ltt_lost_counts& out) {
    std::memset(&out, 0, sizeof out);
    return dev.control(LTT_IOC_GET_LOST, &out) == 0;
}

} // namespace ltt::daemon
