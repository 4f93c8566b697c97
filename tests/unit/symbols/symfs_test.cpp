// Symbolizer::setSymfs (traceanalyze --symfs): a binary the trace names by
// its path on the traced machine is read from under the given directory,
// and only from there.
#include <cstdio>
#include <cstring>
#include <elf.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <libltt/symbolize.hpp>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

const std::string kDir = LTT_WORKLOAD_DIR;

std::uint64_t nmValue(const std::string& path, const std::string& symbol) {
    std::FILE* p = popen(("nm " + path).c_str(), "r");
    EXPECT_NE(p, nullptr);
    char line[512];
    std::uint64_t v = 0;
    while (p && std::fgets(line, sizeof line, p)) {
        char name[256], type;
        unsigned long long a;
        if (std::sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && symbol == name)
            v = a;
    }
    if (p)
        pclose(p);
    EXPECT_NE(v, 0u) << symbol << " not in nm " << path;
    return v;
}

std::uint64_t fileOffset(const std::string& path, std::uint64_t vaddr) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<char> elf{std::istreambuf_iterator<char>(in),
                                std::istreambuf_iterator<char>()};
    Elf64_Ehdr eh;
    if (elf.size() < sizeof eh) {
        ADD_FAILURE() << path << " is no ELF file";
        return 0;
    }
    std::memcpy(&eh, elf.data(), sizeof eh);
    for (unsigned i = 0; i < eh.e_phnum; ++i) {
        Elf64_Phdr ph;
        std::memcpy(&ph, elf.data() + eh.e_phoff + i * eh.e_phentsize, sizeof ph);
        if (ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz)
            return vaddr - ph.p_vaddr + ph.p_offset;
    }
    ADD_FAILURE() << "no segment maps " << std::hex << vaddr;
    return 0;
}

} // namespace

TEST(Symfs, BinariesAreReadUnderTheDirectory) {
    namespace fs = std::filesystem;
    const fs::path root = fs::temp_directory_path() / ("ltt-symfs-" + std::to_string(getpid()));
    fs::create_directories(root / "opt/app");
    const std::string built = kDir + "/wl_callsites-dyn";
    fs::copy_file(built, root / "opt/app/prog", fs::copy_options::overwrite_existing);
    const std::uint64_t fn = nmValue(built, "make_getpids");
    const std::uint64_t off = fileOffset(built, fn + 4);
    // The traced machine's /opt/app/prog does not exist here: raw.
    ltt::Symbolizer plain;
    EXPECT_EQ(plain.resolveFile("/opt/app/prog", off, 0x5555000 + fn + 4).text,
              ltt::Symbolizer::hex(0x5555000 + fn + 4));
    ltt::Symbolizer sym;
    sym.setSymfs(root.string() + "/"); // a trailing slash is the same directory
    EXPECT_EQ(sym.symfs(), root.string());
    EXPECT_EQ(sym.resolveFile("/opt/app/prog", off, 0x5555000 + fn + 4).text,
              "prog!make_getpids+0x4");
    // Nowhere else: a binary that exists on this machine but not under DIR.
    EXPECT_EQ(sym.resolveFile(built, off, 0x77).text, "0x77");
    fs::remove_all(root);
}
