// Output files of the converters: see convert_output.hpp.
#include "convert_output.hpp"

#include <cerrno>
#include <libltt/convert.hpp>
#include <libltt/private_file.hpp>
#include <system_error>
#include <unistd.h>

namespace ltt::convert {

UniqueFd createOutputFile(const std::string& path, const std::string& what) {
    UniqueFd fd;
    try {
        fd = openPrivateFile(path, what);
    } catch (const std::exception& e) {
        throw Error(e.what());
    }
    if (::ftruncate(fd.get(), 0) != 0)
        throw Error("cannot write " + path + ": " + std::generic_category().message(errno));
    return fd;
}

void writeFully(int fd, const std::string& path, const void* data, std::size_t n) {
    const auto* p = static_cast<const std::byte*>(data);
    while (n) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            throw Error("cannot write " + path + ": " + std::generic_category().message(errno));
        }
        p += w;
        n -= static_cast<std::size_t>(w);
    }
}

} // namespace ltt::convert
