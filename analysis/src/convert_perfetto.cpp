// Perfetto output: not built yet (libltt/convert.hpp declares the interface).
#include <libltt/convert.hpp>

namespace ltt::convert {

Result toPerfetto(const std::string&, const std::string&, const std::string&, const Options&) {
    throw Error("traceconvert: Perfetto output is not built yet");
}

} // namespace ltt::convert
