// The output files of the converters (CTF streams and metadata, the
// Perfetto trace): created private to their owner as the trace files are,
// and written whole.
#pragma once

#include <cstddef>
#include <libltt/unique_fd.hpp>
#include <string>

namespace ltt::convert {

// Creates (or truncates) one output file, private as the trace files are
// (openPrivateFile: 0600, never through a symbolic link). `what` names it
// in messages ("CTF stream"). Throws Error.
UniqueFd createOutputFile(const std::string& path, const std::string& what);
// write(2) until all `n` bytes are written; throws Error naming `path`.
void writeFully(int fd, const std::string& path, const void* data, std::size_t n);

} // namespace ltt::convert
