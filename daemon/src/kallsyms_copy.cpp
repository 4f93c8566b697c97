#include "kallsyms_copy.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <libltt/private_file.hpp>
#include <libltt/trace_files.hpp>
#include <sstream>
#include <system_error>
#include <unistd.h>

namespace ltt::daemon {

namespace {

// True when some line's address is not zero.
bool showsAddresses(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (line.find_first_not_of('0') < line.find(' '))
            return true;
    return false;
}

} // namespace

bool saveKallsyms(const std::string& kallsyms, const std::string& traceFile, std::string& why) {
    std::ifstream in(kallsyms);
    if (!in) {
        why = "cannot read " + kallsyms + ": " + std::strerror(errno);
        return false;
    }
    std::ostringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    if (!showsAddresses(s)) {
        why = kallsyms + " shows no kernel address to this process (kptr_restrict)";
        return false;
    }
    const std::string path = kallsymsPathFor(traceFile);
    try {
        ReplacementFile out(path, "kallsyms copy");
        std::size_t done = 0;
        while (done < s.size()) {
            const ssize_t n = ::write(out.fd(), s.data() + done, s.size() - done);
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                throw std::system_error(errno, std::generic_category(), "cannot write " + path);
            }
            done += static_cast<std::size_t>(n);
        }
        out.commit();
    } catch (const std::exception& e) {
        why = e.what();
        return false;
    }
    return true;
}

} // namespace ltt::daemon
