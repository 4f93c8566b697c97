// EventGraph's column sweep: bins wholly inside a column come from the
// summary, bins a column boundary cuts are re-read from their checkpoint.
#include "timebin_control.hpp"

#include <limits>

namespace ltt {

void GraphSweep::columns(const EventGraph& g, std::uint64_t begin, std::uint64_t end,
                         unsigned columns, const std::vector<std::int32_t>& slotOf,
                         const std::vector<RowBins*>& outs, bool control) {
    for (RowBins* o : outs) {
        o->control.assign(columns, 0);
        o->firstEvent.assign(columns, -1);
        o->firstKind.assign(columns, GraphEventKind::Other);
        o->eventCount.assign(columns, 0);
        o->kinds.assign(columns, 0);
    }
    if (columns == 0 || end <= begin || g.rows_m.empty())
        return;
    std::vector<std::uint32_t> slotRow(outs.size(), 0);
    for (std::size_t r = 0; r < slotOf.size(); ++r)
        if (slotOf[r] >= 0)
            slotRow[std::size_t(slotOf[r])] = std::uint32_t(r);

    GraphSweep s(g);
    const std::size_t nb = g.binCount();
    const std::uint64_t w = g.width_m;
    unsigned c = 0;
    std::uint64_t hi = EventGraph::columnStart(begin, end, columns, 1);
    bool loaded = false, started = false;
    std::vector<std::uint8_t> on(outs.size(), 0);
    auto start = [&] {
        if (started)
            return;
        started = true;
        if (control)
            for (std::size_t k = 0; k < outs.size(); ++k)
                on[k] = s.ctl.inControl[slotRow[k]] > 0;
    };
    // Closes every column that ends at or before t (all events before t
    // have been applied, none in [its end, t) remains).
    auto closeTo = [&](std::uint64_t t) {
        while (c < columns && hi <= t) {
            if (control) {
                for (std::size_t k = 0; k < outs.size(); ++k) {
                    const bool now = s.ctl.inControl[slotRow[k]] > 0;
                    std::uint8_t& f = outs[k]->control[c];
                    f |=
                        (on[k] ? RowBins::kControlAtStart : 0) | (now ? RowBins::kControlAtEnd : 0);
                    on[k] = now;
                }
            }
            ++c;
            hi = c + 1 >= columns ? end : EventGraph::columnStart(begin, end, columns, c + 1);
        }
    };
    struct Sink {
        const std::vector<std::int32_t>& slotOf;
        const std::vector<RowBins*>& outs;
        const unsigned& c;
        std::uint64_t begin;
        bool control;
        void transition(std::uint32_t row, std::uint64_t t) {
            if (!control || t < begin)
                return;
            if (const std::int32_t k = slotOf[row]; k >= 0)
                outs[std::size_t(k)]->control[c] |= RowBins::kControlChanges;
        }
        void marker(std::uint32_t row, const GraphEventInput& ev, GraphEventKind kind) {
            if (ev.timeNs < begin)
                return;
            if (const std::int32_t k = slotOf[row]; k >= 0) {
                RowBins& o = *outs[std::size_t(k)];
                o.kinds[c] |= std::uint16_t(1u << unsigned(kind));
                if (o.eventCount[c]++ == 0) {
                    o.firstEvent[c] = std::int64_t(ev.index);
                    o.firstKind[c] = kind;
                }
            }
        }
        void lost(const GraphEventInput&) {}
    } sink{slotOf, outs, c, begin, control};

    std::size_t b = g.binOf(begin);
    bool contiguous = false; // the walk is at bin b's first event
    for (; b < nb; ++b) {
        const std::uint64_t eb = g.start_m + b * w, eb1 = eb + w;
        if (eb >= end)
            break;
        if (eb >= begin && eb1 <= end) {
            if (!loaded) {
                s.loadState(b);
                loaded = true;
            }
            start();
            closeTo(eb);
            if (eb1 <= hi) {
                // The whole bin is inside column c: the summary answers.
                for (std::uint32_t i = g.binEntry_m[b]; i < g.binEntry_m[b + 1]; ++i) {
                    const EventGraph::Entry& e = g.entries_m[i];
                    if (const std::int32_t k = slotOf[e.row]; k >= 0) {
                        RowBins& o = *outs[std::size_t(k)];
                        if (control && e.changes)
                            o.control[c] |= RowBins::kControlChanges;
                        if (e.count) {
                            if (o.eventCount[c] == 0) {
                                o.firstEvent[c] = std::int64_t(g.binIndex_m[b] + e.firstOff);
                                o.firstKind[c] = e.kind;
                            }
                            o.eventCount[c] += e.count;
                            o.kinds[c] |= e.kinds;
                        }
                    }
                    s.ctl.inControl[e.row] = e.endCount;
                }
                contiguous = false;
                continue;
            }
        }
        // A column boundary cuts the bin (or the bin starts before begin):
        // re-read it.
        if (!contiguous) {
            s.seek(b);
            loaded = contiguous = true;
        }
        const std::uint64_t limit = std::min(eb1, end);
        while (const GraphEventInput* ev = s.take(limit)) {
            if (ev->timeNs >= begin) {
                start();
                closeTo(ev->timeNs);
            }
            s.apply(*ev, sink);
        }
    }
    if (!loaded)
        s.loadState(std::min(b, nb));
    start();
    closeTo(std::numeric_limits<std::uint64_t>::max());
}

} // namespace ltt
