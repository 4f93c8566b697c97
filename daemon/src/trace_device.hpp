// The trace module as the daemon sees it: ioctls, whole-block reads and a
// SIGIO when blocks are ready (include/ltt/abi.h has the call sequence).
//
// TraceDevice is the small seam between the daemon and the kernel: the real
// one (openTraceDevice) wraps /dev/tracer; tests put a fake behind it to run
// the whole drain/commit loop on any host. The typed helpers below turn every
// failing ioctl into a DeviceError whose message names the device, the
// operation and the value, so the user sees what the module refused.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <ltt/abi.h>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

namespace ltt::daemon {

class DeviceError : public std::runtime_error {
public:
    DeviceError(const std::string& message, int err) : std::runtime_error(message), errno_m(err) {}
    int error() const { return errno_m; }

private:
    int errno_m;
};

class TraceDevice {
public:
    virtual ~TraceDevice() = default;
    virtual const std::string& path() const = 0;
    // ioctl(2): 0 or -errno.
    virtual int control(unsigned long request, void* arg) = 0;
    // Non-blocking read of whole blocks: bytes read (> 0), 0 at the end of
    // the trace (after STOP, once everything was read), -EAGAIN when no block
    // is ready, other -errno on failure.
    virtual long readBlocks(std::span<std::byte> buffer) = 0;
    // Ask for SIGIO to this process whenever blocks become ready.
    virtual void enableSigio() = 0;
    // Wait up to `timeout` for a block (or the end) to become readable.
    virtual bool waitReadable(std::chrono::milliseconds timeout) = 0;
    // The descriptor to poll() for POLLPRI (a flight-recorder trigger);
    // -1 when there is none (a fake device).
    virtual int pollFd() const { return -1; }
};

// Opens the device read-only, non-blocking, close-on-exec. Throws
// DeviceError explaining the likely cause: module not loaded, device node
// missing, busy (another tracedaemon), permission denied.
std::unique_ptr<TraceDevice> openTraceDevice(const std::string& path);
// The message for a failed open: errno `err`, and the misc minor of
// "tracer" from /proc/misc when the module is loaded (ENOENT only).
std::string openFailureMessage(const std::string& path, int err, std::optional<int> miscMinor);

// Typed operations; each throws DeviceError on failure.
std::uint32_t abiVersion(TraceDevice& dev);
// Refuses another ABI major with a message naming both versions.
void checkAbi(TraceDevice& dev);
void configureDevice(TraceDevice& dev, const ltt_config& config);
void startTracing(TraceDevice& dev);
void stopTracing(TraceDevice& dev);
ltt_trace_info traceInfo(TraceDevice& dev);
// std::nullopt-like: returns false when the module does not support it.
bool lostCounts(TraceDevice& dev, ltt_lost_counts& out);

std::string abiVersionString(std::uint32_t v);

} // namespace ltt::daemon
