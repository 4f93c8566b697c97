// Names from a trace shown as text or JSON (text_escape.hpp).
#include <algorithm>
#include <cstdio>
#include <libltt/text_escape.hpp>

namespace ltt {

namespace {

template <class... A> void appendf(std::string& out, const char* fmt, A... args) {
    char buf[16];
    int n = std::snprintf(buf, sizeof buf, fmt, args...);
    if (n > 0)
        out.append(buf, std::min<std::size_t>(static_cast<std::size_t>(n), sizeof buf - 1));
}

// Length of the UTF-8 sequence at s[i] (1..4), or 0 when the bytes there
// are not one (a stray continuation byte, an overlong form, a surrogate, a
// code point past U+10FFFF, a cut sequence).
std::size_t utf8Length(std::string_view s, std::size_t i) {
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned c = at(i);
    std::size_t n;
    unsigned lo = 0x80, hi = 0xbf; // range of the second byte
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        lo = c == 0xe0 ? 0xa0 : 0x80;
        hi = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if (s.size() - i < n || at(i + 1) < lo || at(i + 1) > hi)
        return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (at(i + k) < 0x80 || at(i + k) > 0xbf)
            return 0;
    return n;
}

// Whether every byte can go out as it is (the common case: plain names).
bool plain(std::string_view s, bool json) {
    for (unsigned char c : s)
        if (c < 0x20 || c >= 0x7f || c == '\\' || (json && c == '"'))
            return false;
    return true;
}

// One byte that cannot go out as it is (a control character, DEL, a
// backslash or quote, a byte that is not UTF-8), in text's or JSON's form.
void appendEscapedByte(std::string& out, unsigned char c, bool json) {
    if (json) {
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(static_cast<char>(c));
        } else if (c < 0x20 || c == 0x7f) {
            appendf(out, "\\u%04x", c);
        } else {
            out.append("\\ufffd"); // not UTF-8
        }
        return;
    }
    switch (c) {
    case '\n':
        out.append("\\n");
        break;
    case '\t':
        out.append("\\t");
        break;
    case '\r':
        out.append("\\r");
        break;
    case '\\':
        out.append("\\\\");
        break;
    default:
        appendf(out, "\\x%02x", c);
        break;
    }
}

// The walk behind both: valid UTF-8 goes out as it is, C1 controls as
// \u00XX, every other byte that cannot go out as it is through
// appendEscapedByte().
void appendEscapedAs(std::string& out, std::string_view s, bool json) {
    if (plain(s, json)) {
        out.append(s);
        return;
    }
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        const std::size_t n = utf8Length(s, i);
        if (n == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0) {
            appendf(out, "\\u%04x", static_cast<unsigned char>(s[i + 1]));
        } else if (n == 0 || c < 0x20 || c == 0x7f || c == '\\' || (json && c == '"')) {
            appendEscapedByte(out, c, json);
        } else {
            out.append(s.substr(i, n));
            i += n;
            continue;
        }
        i += n ? n : 1;
    }
}

} // namespace

void appendEscaped(std::string& out, std::string_view s) {
    appendEscapedAs(out, s, false);
}

void appendJsonEscaped(std::string& out, std::string_view s) {
    appendEscapedAs(out, s, true);
}

} // namespace ltt
