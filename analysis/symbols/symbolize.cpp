// Symbolizer and AddressSpace (symbolize.hpp).
//
// A user address is first turned into a file offset by the mapping that
// held it, then into the ELF file's own address (the PT_LOAD segment that
// maps that offset), which is what the symbol tables hold whatever the
// load address was (PIE or not, ASLR or not). libdw's offline reporting
// opens the file, and dwfl_module_addrinfo() finds the function symbol
// (.symtab, else .dynsym) that covers the address.
#include "symbols_common.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <elfutils/libdwfl.h>
#include <filesystem>
#include <fstream>
#include <gelf.h>
#include <libltt/symbolize.hpp>
#include <sstream>

namespace ltt {

namespace {

struct DwflDeleter {
    void operator()(Dwfl* d) const { dwfl_end(d); }
};

const Dwfl_Callbacks kOfflineCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = nullptr,
};

using symbols_common::baseName;

} // namespace

// One ELF file, opened once: its dwfl module and its loadable segments.
struct Symbolizer::ElfFile {
    struct Segment {
        std::uint64_t offset, filesz, vaddr;
    };
    std::unique_ptr<Dwfl, DwflDeleter> dwfl;
    Dwfl_Module* module = nullptr;
    GElf_Addr bias = 0;
    std::vector<Segment> segments;
    bool ok = false;
};

Symbolizer::Symbolizer() = default;
Symbolizer::~Symbolizer() = default;

void Symbolizer::setSymfs(std::string dir) {
    while (dir.size() > 1 && dir.back() == '/')
        dir.pop_back();
    symfs_m = dir == "/" ? std::string() : std::move(dir);
}

std::string Symbolizer::hex(std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
    return buf;
}

Symbolizer::ElfFile& Symbolizer::file(const std::string& path) {
    auto [it, fresh] = files_m.try_emplace(path);
    if (!fresh)
        return *it->second;
    it->second = std::make_unique<ElfFile>();
    ElfFile& f = *it->second;
    ++filesOpened_m;
    f.dwfl.reset(dwfl_begin(&kOfflineCallbacks));
    if (!f.dwfl)
        return f;
    dwfl_report_begin(f.dwfl.get());
    // dwfl opens the file itself (its own descriptor, closed by dwfl_end).
    const std::string where =
        symfs_m.empty() ? path : symfs_m + (path.starts_with("/") ? "" : "/") + path;
    f.module = dwfl_report_offline(f.dwfl.get(), path.c_str(), where.c_str(), -1);
    dwfl_report_end(f.dwfl.get(), nullptr, nullptr);
    if (!f.module)
        return f;
    Elf* elf = dwfl_module_getelf(f.module, &f.bias);
    if (!elf)
        return f;
    std::size_t n = 0;
    if (elf_getphdrnum(elf, &n) != 0)
        return f;
    for (std::size_t i = 0; i < n; ++i) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, static_cast<int>(i), &ph) && ph.p_type == PT_LOAD)
            f.segments.push_back({ph.p_offset, ph.p_filesz, ph.p_vaddr});
    }
    f.ok = !f.segments.empty();
    return f;
}

const ResolvedAddress& Symbolizer::resolveFile(const std::string& path, std::uint64_t fileOffset,
                                               std::uint64_t addr) {
    std::string key = path;
    key.push_back('\0');
    key.append(std::to_string(fileOffset));
    auto [it, fresh] = cache_m.try_emplace(std::move(key));
    ResolvedAddress& r = it->second;
    if (!fresh)
        return r;
    r.binary = baseName(path);
    ElfFile& f = file(path);
    const ElfFile::Segment* seg = nullptr;
    for (const auto& s : f.segments)
        if (fileOffset >= s.offset && fileOffset - s.offset < s.filesz) {
            seg = &s;
            break;
        }
    if (!f.ok || !seg) {
        r.text = hex(addr);
        return r;
    }
    r.inFile = true;
    r.elfAddr = fileOffset - seg->offset + seg->vaddr;
    GElf_Off off = 0;
    GElf_Sym sym;
    const char* name =
        dwfl_module_addrinfo(f.module, r.elfAddr + f.bias, &off, &sym, nullptr, nullptr, nullptr);
    if (name && GELF_ST_TYPE(sym.st_info) == STT_FUNC && off < sym.st_size) {
        r.function = name;
        r.offset = off;
        r.text = r.binary + "!" + r.function + "+" + hex(off);
    } else {
        r.offset = r.elfAddr;
        r.text = r.binary + "+" + hex(r.elfAddr);
    }
    return r;
}

bool Symbolizer::loadTraceKallsyms(const std::string& tracePath, std::string* error) {
    const std::string path = kallsymsPathFor(tracePath);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return true;
    return loadKallsyms(path, error);
}

bool Symbolizer::loadKallsyms(const std::string& path, std::string* error) {
    std::ifstream in(path);
    if (!in) {
        if (error)
            *error = "cannot read " + path + ": " + std::strerror(errno);
        return false;
    }
    std::vector<KernelSymbol> syms;
    std::string line;
    bool nonzero = false;
    while (std::getline(in, line)) {
        // "ffffffff81000000 T _stext" or "... t name\t[module]"
        std::istringstream ls(line);
        std::string a, type, name, mod;
        if (!(ls >> a >> type >> name))
            continue;
        ls >> mod;
        if (type.size() != 1 ||
            (type[0] != 't' && type[0] != 'T' && type[0] != 'w' && type[0] != 'W'))
            continue;
        char* end = nullptr;
        const std::uint64_t v = std::strtoull(a.c_str(), &end, 16);
        if (*end)
            continue;
        nonzero = nonzero || v != 0;
        if (mod.size() > 2 && mod.front() == '[' && mod.back() == ']')
            mod = mod.substr(1, mod.size() - 2);
        else
            mod.clear();
        syms.push_back({v, std::move(name), std::move(mod)});
    }
    if (syms.empty() || !nonzero) {
        if (error)
            *error = path + (syms.empty() ? " holds no function symbol"
                                          : " holds no kernel address (all are 0: it was copied "
                                            "without the right to see them)");
        return false;
    }
    std::stable_sort(syms.begin(), syms.end(),
                     [](const KernelSymbol& x, const KernelSymbol& y) { return x.addr < y.addr; });
    // Of the names of one address (a function and the section marker at
    // its start: __schedule and __sched_text_start), the first listed, as
    // the kernel's own lookup (backtraces, ftrace) picks it.
    syms.erase(std::unique(syms.begin(), syms.end(),
                           [](const KernelSymbol& x, const KernelSymbol& y) {
                               return x.addr == y.addr && x.module == y.module;
                           }),
               syms.end());
    kernel_m = std::move(syms);
    return true;
}

ResolvedAddress Symbolizer::resolveKernel(std::uint64_t addr) const {
    ResolvedAddress r;
    auto it = std::upper_bound(kernel_m.begin(), kernel_m.end(), addr,
                               [](std::uint64_t a, const KernelSymbol& s) { return a < s.addr; });
    if (it == kernel_m.begin()) {
        r.text = hex(addr);
        return r;
    }
    --it;
    r.binary = it->module.empty() ? "vmlinux" : it->module;
    r.function = it->name;
    r.offset = addr - it->addr;
    r.elfAddr = addr;
    r.text = (it->module.empty() ? "" : it->module + "!") + it->name + "+" + hex(r.offset);
    return r;
}

std::string Symbolizer::kernelSymbol(std::uint64_t addr) const {
    if (kernel_m.empty())
        return {};
    ResolvedAddress r = resolveKernel(addr);
    return r.function.empty() ? std::string() : std::move(r.text);
}

// ------------------------------------------------------------- AddressSpace

void AddressSpace::add(std::uint64_t start, std::uint64_t end, std::uint64_t offset,
                       std::shared_ptr<const std::string> path) {
    if (end <= start)
        return;
    std::vector<std::pair<std::uint64_t, Mapping>> out;
    out.reserve(maps_m.size() + 2);
    for (auto& [s, m] : maps_m) {
        if (m.end <= start || s >= end) {
            out.emplace_back(s, std::move(m));
            continue;
        }
        if (s < start) // the part before the new mapping
            out.emplace_back(s, Mapping{start, m.offset, m.path});
        if (m.end > end) // the part after it
            out.emplace_back(end, Mapping{m.end, m.offset + (end - s), m.path});
    }
    out.emplace_back(start, Mapping{end, offset, std::move(path)});
    std::sort(out.begin(), out.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    maps_m = std::move(out);
}

std::optional<MappedAddress> AddressSpace::find(std::uint64_t addr) const {
    auto it = std::upper_bound(maps_m.begin(), maps_m.end(), addr,
                               [](std::uint64_t a, const auto& e) { return a < e.first; });
    if (it == maps_m.begin())
        return std::nullopt;
    --it;
    if (addr >= it->second.end)
        return std::nullopt;
    return MappedAddress{*it->second.path, it->second.offset + (addr - it->first)};
}

} // namespace ltt
