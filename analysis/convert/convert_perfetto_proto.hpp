// A protobuf wire-format writer for the Perfetto converter: just the three
// wire types Perfetto's trace messages need (varint, length-delimited,
// 64-bit), with no protobuf library at run time.
//
// Messages are built inside out: a nested message is encoded into its own
// ProtoWriter, then appended to its parent with message(), which writes the
// tag and the length before the bytes. A writer keeps its capacity across
// clear(), so the converter encodes every event into the same few buffers
// without allocating per event.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ltt::convert {

class ProtoWriter {
public:
    void clear() { bytes_m.clear(); }
    bool empty() const { return bytes_m.empty(); }
    std::size_t size() const { return bytes_m.size(); }
    const std::string& bytes() const { return bytes_m; }

    // uint32/uint64/bool/enum fields.
    void varint(std::uint32_t field, std::uint64_t value) {
        tag(field, kVarint);
        raw(value);
    }
    // int32/int64 fields: negative values take ten bytes (two's complement
    // sign-extended to 64 bits), as protobuf encodes them.
    void signedVarint(std::uint32_t field, std::int64_t value) {
        varint(field, static_cast<std::uint64_t>(value));
    }
    void string(std::uint32_t field, std::string_view text) {
        tag(field, kLengthDelimited);
        raw(text.size());
        bytes_m.append(text);
    }
    void message(std::uint32_t field, const ProtoWriter& inner) { string(field, inner.bytes_m); }
    // Appends fields encoded elsewhere (a run of already-tagged fields).
    void append(const ProtoWriter& fields) { bytes_m.append(fields.bytes_m); }

    // The tag and length of a length-delimited field whose `length` bytes
    // the caller writes itself (a file streaming the outermost message).
    static std::string header(std::uint32_t field, std::uint64_t length) {
        ProtoWriter w;
        w.tag(field, kLengthDelimited);
        w.raw(length);
        return std::move(w.bytes_m);
    }

private:
    static constexpr std::uint32_t kVarint = 0, kLengthDelimited = 2;
    void tag(std::uint32_t field, std::uint32_t wireType) {
        raw((static_cast<std::uint64_t>(field) << 3) | wireType);
    }
    void raw(std::uint64_t v) {
        char buf[10];
        std::size_t n = 0;
        while (v >= 0x80) {
            buf[n++] = static_cast<char>((v & 0x7f) | 0x80);
            v >>= 7;
        }
        buf[n++] = static_cast<char>(v);
        bytes_m.append(buf, n);
    }

    std::string bytes_m;
};

} // namespace ltt::convert
