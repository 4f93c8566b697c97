// Reads the user events of a trace file with libltt's block codec, checking
// what docs/user-events.md promises of them: user blocks in order of their
// stream's sequence, a type declared in a stream before its first event,
// times that never go back in a stream, the last block of each stream
// final, lost counts summed. The daemon's unit tests and the guest test's
// checker (user_check.cpp) share it; it stands in for the reader's own
// support, which is checked separately.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <libltt/block_codec.hpp>
#include <ltt/abi.h>
#include <ltt/module_events.h>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace ltt::usertest {

using Value = std::variant<std::int64_t, std::uint64_t, double, std::string>;

struct UserEvent {
    std::uint16_t stream = 0;
    std::int32_t tid = 0;
    std::uint32_t tgid = 0;
    std::string type;
    std::uint64_t tsc = 0;
    std::vector<Value> values;
};

struct UserTrace {
    std::vector<UserEvent> events; // in the file's order
    std::uint64_t kernelBlocks = 0, userBlocks = 0, lost = 0;
    std::uint64_t streams = 0; // user streams
    std::string error;         // empty: every check passed
};

namespace detail {
struct Type {
    std::string name;
    std::vector<std::uint8_t> fields;
};
struct StreamState {
    std::int64_t sequence = -1;
    std::uint64_t lastTsc = 0;
    bool final = false;
    std::int32_t tid = 0;
    std::map<std::uint64_t, Type> types; // (tgid << 32 | id)
};
} // namespace detail

inline UserTrace readUserTrace(const std::string& path) {
    UserTrace out;
    std::ifstream in(path, std::ios::binary);
    std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ltt_file_header fh;
    if (raw.size() < sizeof fh) {
        out.error = path + ": no file header";
        return out;
    }
    std::memcpy(&fh, raw.data(), sizeof fh);
    std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(raw.data()), raw.size());
    std::size_t off = fh.header_size;
    FrameRules rules;
    rules.version = fh.version;
    rules.ncpus = 0x10000; // user streams are numbered apart from the CPUs
    rules.maxLength = maxBlockLength(fh);
    std::map<std::uint16_t, detail::StreamState> streams;
    auto fail = [&](const std::string& what) {
        if (out.error.empty())
            out.error = "block at " + std::to_string(off) + ": " + what;
    };
    while (off < bytes.size() && out.error.empty()) {
        BlockInfo b;
        b.version = static_cast<std::uint8_t>(fh.version);
        FrameFault f = parseFrame(bytes.subspan(off), rules, b);
        if (f.kind != FrameFault::None) {
            fail(f.message());
            break;
        }
        auto block = bytes.subspan(off, b.length);
        if (!(b.flags & LTT_BLOCK_F_USER)) {
            ++out.kernelBlocks;
            off += b.length;
            continue;
        }
        ++out.userBlocks;
        out.lost += b.lost;
        auto& s = streams[b.cpu];
        if (s.final)
            fail("stream " + std::to_string(b.cpu) + " has a block after its final one");
        if (b.sequence != s.sequence + 1)
            fail("stream " + std::to_string(b.cpu) + " sequence " + std::to_string(b.sequence) +
                 " after " + std::to_string(s.sequence));
        if (s.sequence >= 0 && b.pid != s.tid)
            fail("stream " + std::to_string(b.cpu) + " changed its thread");
        s.sequence = b.sequence;
        s.tid = b.pid;
        s.final = b.flags & LTT_BLOCK_F_FINAL;
        RecordFault rf = walkBlock(block, b, [&](const BlockRecord& r) {
            if (r.tsc < s.lastTsc)
                fail("time goes back in stream " + std::to_string(b.cpu));
            s.lastTsc = r.tsc;
            if (r.header.event != LTT_EV_USER)
                return;
            auto d = r.details();
            if (r.header.subtype == LTT_USER_DECLARE) {
                ltt_ev_user_decl decl{};
                std::memcpy(&decl, d.data(), std::min(d.size(), sizeof decl));
                detail::Type t;
                const char* p = decl.names;
                t.name = p;
                p += t.name.size() + 1;
                for (unsigned i = 0; i < decl.nfields; ++i) {
                    t.fields.push_back(decl.field[i]);
                    p += std::strlen(p) + 1;
                }
                s.types[std::uint64_t(decl.tgid) << 32 | decl.type] = t;
                return;
            }
            ltt_ev_user ev{};
            std::memcpy(&ev, d.data(), std::min(d.size(), sizeof ev));
            auto it = s.types.find(std::uint64_t(ev.tgid) << 32 | ev.type);
            if (it == s.types.end()) {
                fail("an event of type " + std::to_string(ev.type) + " not declared in its stream");
                return;
            }
            UserEvent e{b.cpu, b.pid, ev.tgid, it->second.name, r.tsc, {}};
            std::size_t at = 0;
            for (std::uint8_t ft : it->second.fields) {
                if (ft == LTT_USER_STR) {
                    std::uint16_t len;
                    std::memcpy(&len, ev.data + at, 2);
                    e.values.emplace_back(
                        std::string(reinterpret_cast<const char*>(ev.data + at + 2), len));
                    at += 2 + len;
                } else {
                    std::uint64_t v;
                    std::memcpy(&v, ev.data + at, 8);
                    at += 8;
                    if (ft == LTT_USER_I64)
                        e.values.emplace_back(static_cast<std::int64_t>(v));
                    else if (ft == LTT_USER_U64)
                        e.values.emplace_back(v);
                    else
                        e.values.emplace_back(std::bit_cast<double>(v));
                }
            }
            out.events.push_back(std::move(e));
        });
        if (rf.kind != RecordFault::None)
            fail(rf.message());
        off += b.length;
    }
    out.streams = streams.size();
    for (const auto& [n, s] : streams)
        if (!s.final)
            fail("stream " + std::to_string(n) + " has no final block");
    return out;
}

} // namespace ltt::usertest
