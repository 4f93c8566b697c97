// The event graph's inputs: event kinds for the legend, the builder's input
// from a TraceReader event, and the sources the graph re-reads events from.
// See timebin_model.hpp for the design.
#include <algorithm>
#include <libltt/event_schema.hpp>
#include <libltt/timebin_model.hpp>
#include <libltt/trace_reader.hpp>
#include <ltt/events.h>

namespace ltt {

namespace {
class TraceSource final : public GraphEventSource {
public:
    explicit TraceSource(const TraceReader& reader) : reader_m(reader) {}
    std::unique_ptr<Walk> walkFrom(std::uint64_t index) const override {
        return std::make_unique<TraceWalk>(reader_m, reader_m.atIndex(index));
    }

private:
    class TraceWalk final : public Walk {
    public:
        TraceWalk(const TraceReader& reader, TraceCursor cursor)
            : reader_m(reader), cursor_m(std::move(cursor)) {}
        bool next(GraphEventInput& out) override {
            if (!first_m)
                cursor_m.next();
            first_m = false;
            if (!cursor_m.valid())
                return false;
            out = graphEventInput(reader_m, cursor_m.event(), cursor_m.index());
            return true;
        }

    private:
        const TraceReader& reader_m;
        TraceCursor cursor_m;
        bool first_m = true;
    };
    const TraceReader& reader_m;
};

class VectorSource final : public GraphEventSource {
public:
    explicit VectorSource(std::vector<GraphEventInput> events) : events_m(std::move(events)) {}
    std::unique_ptr<Walk> walkFrom(std::uint64_t index) const override {
        auto it =
            std::lower_bound(events_m.begin(), events_m.end(), index,
                             [](const GraphEventInput& e, std::uint64_t i) { return e.index < i; });
        return std::make_unique<VectorWalk>(events_m, std::size_t(it - events_m.begin()));
    }

private:
    class VectorWalk final : public Walk {
    public:
        VectorWalk(const std::vector<GraphEventInput>& events, std::size_t pos)
            : events_m(events), pos_m(pos) {}
        bool next(GraphEventInput& out) override {
            if (pos_m >= events_m.size())
                return false;
            out = events_m[pos_m++];
            return true;
        }

    private:
        const std::vector<GraphEventInput>& events_m;
        std::size_t pos_m;
    };
    std::vector<GraphEventInput> events_m;
};
} // namespace

std::shared_ptr<const GraphEventSource> traceGraphSource(const TraceReader& reader) {
    return std::make_shared<TraceSource>(reader);
}

std::shared_ptr<const GraphEventSource> vectorGraphSource(std::vector<GraphEventInput> events) {
    return std::make_shared<VectorSource>(std::move(events));
}

std::string_view graphEventKindName(GraphEventKind kind) {
    switch (kind) {
    case GraphEventKind::Syscall:
        return "System call";
    case GraphEventKind::Trap:
        return "Trap";
    case GraphEventKind::Irq:
        return "IRQ";
    case GraphEventKind::SchedChange:
        return "Scheduling change";
    case GraphEventKind::KernelTimer:
        return "Kernel timer";
    case GraphEventKind::BottomHalf:
        return "Bottom half";
    case GraphEventKind::IoWaitStart:
        return "I/O wait start";
    case GraphEventKind::IoWaitEnd:
        return "I/O wait end";
    case GraphEventKind::Process:
        return "Process";
    case GraphEventKind::FileSystem:
        return "File system";
    case GraphEventKind::Other:
        return "Other";
    case GraphEventKind::Lost:
        return "Lost events";
    case GraphEventKind::Count:
        break;
    }
    return "?";
}

// The schema's classes after None are the graph's kinds, in order.
static_assert(static_cast<int>(schema::EventClass::Syscall) == 1 &&
              static_cast<int>(schema::EventClass::Lost) ==
                  static_cast<int>(GraphEventKind::Lost) + 1 &&
              static_cast<int>(schema::EventClass::Inherit) == 1 + kGraphEventKinds);

std::optional<GraphEventKind> graphEventKindOf(std::uint8_t event, std::uint8_t subtype) {
    const schema::EventClass c = schema::classOf(event, subtype);
    if (c == schema::EventClass::None)
        return std::nullopt; // structure records, application events (no marker yet)
    return static_cast<GraphEventKind>(static_cast<int>(c) - 1);
}

GraphEventInput graphEventInput(const TraceReader& reader, const Event& ev, std::uint64_t index) {
    GraphEventInput in;
    in.index = index;
    in.timeNs = reader.nsFromAnchor(ev.tsc);
    in.cpu = ev.cpu;
    in.pid = ev.pid;
    in.event = ev.id;
    in.subtype = ev.subtype;
    switch (ev.id) {
    case LTT_EV_SCHEDCHANGE:
        in.schedIn = ev.pid;
        break; // the reader's pid is the incoming one
    case LTT_EV_IRQ_ENTRY: {
        ltt_ev_irq_entry d;
        ev.copyDetails(d);
        in.fromKernel = d.flags & LTT_IRQ_IN_KERNEL;
        break;
    }
    case LTT_EV_TRAP_ENTRY: {
        // Kernel addresses are the upper half (docs/trace-format.md §3).
        ltt_ev_trap_entry d;
        if (ev.detailsAs(d))
            in.fromKernel = d.ip >= 0x0000800000000000ull;
        break;
    }
    case LTT_EV_LOST: {
        ltt_ev_lost d;
        ev.copyDetails(d);
        in.lostCount = d.count;
        break;
    }
    default:
        break;
    }
    return in;
}

} // namespace ltt
