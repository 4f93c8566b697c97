// CTF output: not built yet (libltt/convert.hpp declares the interface).
#include <libltt/convert.hpp>

namespace ltt::convert {

Result toCtf(const std::string&, const std::string&, const std::string&, const Options&) {
    throw Error("CTF output is not built yet");
}

} // namespace ltt::convert
