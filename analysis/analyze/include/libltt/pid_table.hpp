// PidTable: a map from pid to a 32-bit value (0: none) whose memory follows
// the pids a trace holds, not the largest one, and whose lookup for an
// ordinary pid is two loads and no test. TraceAnalysis (a pid's live task)
// and EventGraph (a pid's row) look pids up for every event.
//
// Pids below 4M (Linux's PID_MAX_LIMIT, the pid_max of systemd machines,
// which then hands out pids in the millions) go to a table in pages of 4096
// pids, allocated when a pid in them is first set; a page never set is one
// shared page of zeros, so a lookup reads it instead of testing for it. A
// trace's pids fill a few pages (16 KB each); a table up to the largest pid
// would take 16 MB for one pid near 4M. Anything else (negative, or a
// crafted pid up to 2^31-1) goes to a hash map.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ltt {

class PidTable {
public:
    PidTable() noexcept { pages_m.fill(kZeroPage); }
    PidTable(PidTable&& other) noexcept : PidTable() { *this = std::move(other); }
    PidTable(const PidTable&) = delete; // no caller copies a whole table
    PidTable& operator=(const PidTable&) = delete;
    // The pages move with their owners; `other` is left empty.
    PidTable& operator=(PidTable&& other) noexcept {
        if (this == &other)
            return *this;
        pages_m = other.pages_m;
        owned_m = std::move(other.owned_m);
        overflow_m = std::move(other.overflow_m);
        other.owned_m.clear();
        other.overflow_m.clear();
        other.pages_m.fill(kZeroPage);
        return *this;
    }

    // The value set for `pid`, 0 when none. Inlined: callers look up a pid
    // or two per event.
    [[gnu::always_inline]] std::uint32_t find(std::int32_t pid) const {
        if (pid >= 0 && pid < kPagedPids) [[likely]]
            return pages_m[static_cast<std::uint32_t>(pid) >> kPageBits]
                          [static_cast<std::uint32_t>(pid) & (kPageSize - 1)];
        return findOverflow(pid);
    }

    // Sets `pid`'s value (0 makes it none again, without giving back a page).
    void set(std::int32_t pid, std::uint32_t value) {
        if (pid >= 0 && pid < kPagedPids) {
            const std::uint32_t p = static_cast<std::uint32_t>(pid) >> kPageBits;
            if (pages_m[p] == kZeroPage)
                pages_m[p] =
                    owned_m.emplace_back(std::make_unique<std::uint32_t[]>(kPageSize)).get();
            // Not kZeroPage: one of owned_m, ours to write.
            const_cast<std::uint32_t*>(
                pages_m[p])[static_cast<std::uint32_t>(pid) & (kPageSize - 1)] = value;
        } else {
            overflow_m[pid] = value;
        }
    }

    // Replaces every value v that is not 0 by f(v) (which must not be 0).
    template <class F> void transform(F&& f) {
        for (auto& page : owned_m)
            for (std::uint32_t* v = page.get(); v != page.get() + kPageSize; ++v)
                if (*v)
                    *v = f(*v);
        for (auto& [pid, v] : overflow_m)
            if (v)
                v = f(v);
    }

    // Heap bytes held (the page pointers live in the object itself).
    std::size_t memoryBytes() const {
        return owned_m.size() * kPageSize * sizeof(std::uint32_t) +
               owned_m.capacity() * sizeof(owned_m[0]) + overflow_m.bucket_count() * sizeof(void*) +
               overflow_m.size() * (2 * sizeof(std::uint32_t) + 2 * sizeof(void*));
    }

private:
    static constexpr unsigned kPageBits = 12;
    static constexpr std::uint32_t kPageSize = 1u << kPageBits;
    static constexpr std::int32_t kPagedPids = 1 << 22;
    static constexpr std::size_t kPages = kPagedPids >> kPageBits;
    // Every page no pid has been set in: every lookup in it finds none.
    static constexpr std::uint32_t kZeroPage[kPageSize] = {};

    // Out of line: keeps find() small where it is inlined.
    [[gnu::noinline]] std::uint32_t findOverflow(std::int32_t pid) const {
        auto it = overflow_m.find(pid);
        return it != overflow_m.end() ? it->second : 0;
    }

    std::array<const std::uint32_t*, kPages> pages_m;
    std::vector<std::unique_ptr<std::uint32_t[]>> owned_m;
    std::unordered_map<std::int32_t, std::uint32_t> overflow_m;
};

} // namespace ltt
