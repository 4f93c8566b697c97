// What the symbols component's sources share, and nothing outside it
// includes: where user addresses end, and a path's last component.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ltt::symbols_common {

inline constexpr std::uint64_t kUserTop = 0x0000800000000000ull; // user addresses lie below

inline std::string baseName(std::string_view path) {
    const auto slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

} // namespace ltt::symbols_common
