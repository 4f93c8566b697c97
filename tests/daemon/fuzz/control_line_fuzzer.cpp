// libFuzzer target: tracedaemon's control lines (--control, --control-file;
// daemon/src/control_fifo.cpp) against the fake module. Each line of the
// input is run as the FIFO's reader would run it; whatever the input, a
// line either changes the configuration the module was sent or names
// itself in its message, and nothing reads or writes out of bounds (ASan,
// UBSan).
#include "../fake_device.hpp"
#include "control_fifo.hpp"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto state = std::make_shared<ltt::daemon::testing::FakeState>();
    ltt::daemon::testing::FakeDevice dev(state);
    ltt::daemon::ControlState st;
    const std::string_view all(reinterpret_cast<const char*>(data), size);
    std::size_t start = 0;
    while (start <= all.size()) {
        std::size_t nl = all.find('\n', start);
        if (nl == std::string_view::npos)
            nl = all.size();
        const std::string_view line = all.substr(start, nl - start);
        const std::string message = ltt::daemon::runControlLine(dev, st, line);
        // A message always names the line it is about.
        if (!message.empty() && message.rfind("control line '", 0) != 0)
            std::abort();
        start = nl + 1;
    }
    return 0;
}
