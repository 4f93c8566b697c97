// Text from a trace, escaped for a report.
#pragma once

#include <string>
#include <string_view>

namespace ltt {

// Names that come from a trace or a .proc (file names, task names, the
// header's host name) are whatever bytes the traced system had: a name may
// hold a newline that forges a report line, or an escape sequence a terminal
// obeys. Text output shows them through appendEscaped(): control characters
// as \n, \t, \r or \xHH (\x1b for ESC, \x7f for DEL), a backslash as \\,
// bytes that are not UTF-8 as \xHH, C1 controls as \u0080..\u009f; valid
// UTF-8 text is unchanged.
void appendEscaped(std::string& out, std::string_view s);
inline std::string escaped(std::string_view s) {
    std::string out;
    appendEscaped(out, s);
    return out;
}
// The same bytes as the body of a JSON string (RFC 8259): '"' and '\\'
// escaped, control characters, DEL and C1 controls as \u00XX, each byte
// that is not UTF-8 as \ufffd (JSON text must be UTF-8).
void appendJsonEscaped(std::string& out, std::string_view s);

} // namespace ltt
