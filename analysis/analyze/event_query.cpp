// Filtering and searching events: see event_query.hpp.
#include <algorithm>
#include <cctype>
#include <libltt/event_format.hpp>
#include <libltt/event_query.hpp>

namespace ltt {

namespace {

bool containsNoCase(std::string_view hay, std::string_view needle) {
    if (needle.empty())
        return true;
    auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) ==
               std::tolower(static_cast<unsigned char>(b));
    });
    return it != hay.end();
}

constexpr std::uint64_t kProgressEvery = 1 << 16;

} // namespace

bool SearchQuery::matches(const Event& e, std::string& scratch) const {
    if (!eventInMask(events, e.id))
        return false;
    if (text.empty())
        return true;
    if (containsNoCase(eventName(e.id), text))
        return true;
    scratch.clear();
    describeEvent(e, scratch);
    return containsNoCase(scratch, text);
}

std::optional<std::vector<std::uint64_t>>
filterEvents(const TraceReader& reader, const EventFilter& filter, const QueryProgress& progress) {
    std::vector<std::uint64_t> out;
    const double total = double(std::max<std::uint64_t>(1, reader.claimedEvents()));
    for (auto c = reader.begin(); c.valid(); c.next()) {
        if (filter.matches(c.event()))
            out.push_back(c.index());
        if (progress && (c.index() % kProgressEvery) == 0 &&
            !progress(std::min(1.0, double(c.index()) / total)))
            return std::nullopt;
    }
    return out;
}

std::optional<std::uint64_t> searchEvents(const TraceReader& reader, const SearchQuery& query,
                                          std::uint64_t from, bool forward,
                                          const QueryProgress& progress) {
    const double total = double(std::max<std::uint64_t>(1, reader.claimedEvents()));
    std::string scratch;
    std::uint64_t steps = 0;
    auto cancelled = [&] {
        return progress && (++steps % kProgressEvery) == 0 &&
               !progress(std::min(1.0, double(steps) / total));
    };
    if (forward) {
        for (auto c = reader.atIndex(from + 1); c.valid(); c.next()) {
            if (query.matches(c.event(), scratch))
                return c.index();
            if (cancelled())
                return std::nullopt;
        }
        return std::nullopt;
    }
    // Backwards: walk forward through chunks ending at `from`, nearest chunk
    // first, keeping each chunk's last match (a prev() per step would seek a
    // checkpoint every time).
    constexpr std::uint64_t kChunk = 8192;
    std::uint64_t end = std::min(from, reader.eventCount());
    while (end > 0) {
        std::uint64_t begin = end > kChunk ? end - kChunk : 0;
        std::optional<std::uint64_t> last;
        for (auto c = reader.atIndex(begin); c.valid() && c.index() < end; c.next()) {
            if (query.matches(c.event(), scratch))
                last = c.index();
            if (cancelled())
                return std::nullopt;
        }
        if (last)
            return last;
        end = begin;
    }
    return std::nullopt;
}

} // namespace ltt
