// The event-graph tests' trace builder: feeds hand-made events to an
// EventGraphBuilder and keeps them as the finished graph's event source.
#pragma once

#include <cstdint>
#include <libltt/timebin_model.hpp>
#include <vector>

namespace ltt::test {

struct GraphFeeder {
    EventGraphBuilder builder;
    std::vector<GraphEventInput> all;
    std::uint64_t index = 0;
    EventGraph finish(std::uint64_t endNs) {
        return builder.finish(endNs, vectorGraphSource(std::move(all)));
    }
    void ev(std::uint64_t t, std::uint16_t cpu, std::int32_t pid, std::uint8_t event,
            std::uint8_t sub = 0, std::int32_t in = 0, bool fromKernel = false,
            std::uint64_t lost = 0) {
        GraphEventInput e;
        e.index = index++;
        e.timeNs = t;
        e.cpu = cpu;
        e.pid = pid;
        e.event = event;
        e.subtype = sub;
        e.schedIn = in;
        e.fromKernel = fromKernel;
        e.lostCount = lost;
        builder.add(e);
        all.push_back(e);
    }
};

} // namespace ltt::test
