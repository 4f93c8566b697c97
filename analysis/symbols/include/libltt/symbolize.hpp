// Symbolizer: instruction addresses of a trace as binary!function+offset.
//
// User-space addresses are resolved through the mapping that held them
// (the file, where it was mapped and from which file offset: the .proc
// snapshot's MAP lines and the trace's MAP records) and the ELF file at
// that path, read with libdw's dwfl. Each file is opened once and kept;
// a stripped file gives binary+0xADDR (ADDR: the address in the ELF file's
// own address space, the value `nm` prints for a symbol of its unstripped
// twin), a file that is gone or not ELF gives the raw address. Kernel
// addresses are resolved through a copy of /proc/kallsyms (tracedaemon
// saves NAME.kallsyms beside the trace).
//
// The files are read by path on the machine doing the analysis: that must
// be the traced machine, with the binaries the trace ran, or a copy of its
// root given with setSymfs() (docs/analysis.md, "Call sites").
#pragma once

#include <cstdint>
#include <libltt/trace_files.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ltt {

// Where an address of a process lies: the file mapped there.
struct MappedAddress {
    std::string path;         // the mapped file
    std::uint64_t fileOffset; // the address's offset in that file
};

// The result of resolving one address.
struct ResolvedAddress {
    std::string text;          // "binary!function+0x1f", "binary+0x1139", "0x7f12..."
    std::string binary;        // file name without its directory ("" if unknown)
    std::string function;      // "" when no symbol covers the address
    std::uint64_t offset = 0;  // from the function's start, or the ELF address
    std::uint64_t elfAddr = 0; // the address in the ELF file's address space
    bool inFile = false;       // the file was read and the offset lies in a segment
};

class Symbolizer {
public:
    Symbolizer();
    ~Symbolizer();
    Symbolizer(const Symbolizer&) = delete;
    Symbolizer& operator=(const Symbolizer&) = delete;

    // The symbol at `fileOffset` of the ELF file `path`. `addr` is the
    // run-time address, shown when the file cannot be read. Results are
    // cached per (path, offset); each file is opened once.
    const ResolvedAddress& resolveFile(const std::string& path, std::uint64_t fileOffset,
                                       std::uint64_t addr);

    // Reads a copy of /proc/kallsyms. False (with the reason in `error`)
    // when it cannot be read or holds no usable address (all zero: the
    // copy was made without the right to see kernel addresses).
    bool loadKallsyms(const std::string& path, std::string* error);
    // Reads the trace's NAME.kallsyms (kallsymsPathFor()) when it exists.
    // False (with the reason) only when one exists and cannot be used; a
    // trace without one is no error, its kernel addresses stay raw.
    bool loadTraceKallsyms(const std::string& tracePath, std::string* error);
    bool hasKallsyms() const { return !kernel_m.empty(); }
    // A kernel address as function+0xoff (module functions as
    // module!function+0xoff); the raw address without kallsyms or when no
    // symbol precedes it.
    ResolvedAddress resolveKernel(std::uint64_t addr) const;
    // The function+0xoff text of a kernel address, "" without kallsyms or
    // when no symbol precedes it (describeEvent's KernelSymbols).
    std::string kernelSymbol(std::uint64_t addr) const;

    // Look binaries up under `dir` (perf's --symfs): the file mapped at
    // /usr/bin/prog on the traced machine is read from DIR/usr/bin/prog,
    // and nowhere else (the analysing machine's own /usr/bin/prog may be
    // another build). Empty: by their own paths. Set before resolving.
    void setSymfs(std::string dir);
    const std::string& symfs() const { return symfs_m; }

    // Files opened so far (each at most once), for tests.
    std::size_t filesOpened() const { return filesOpened_m; }

    // Formats an address as the raw fallback: "0x" and lowercase hex.
    static std::string hex(std::uint64_t v);

private:
    struct ElfFile;
    ElfFile& file(const std::string& path);
    struct KernelSymbol {
        std::uint64_t addr;
        std::string name;
        std::string module; // "" for the kernel itself
    };
    std::unordered_map<std::string, std::unique_ptr<ElfFile>> files_m;
    std::unordered_map<std::string, ResolvedAddress> cache_m; // path '\0' offset
    std::vector<KernelSymbol> kernel_m;                       // sorted by address
    std::size_t filesOpened_m = 0;
    std::string symfs_m;
};

// A process's executable mappings over time: the .proc snapshot's, then
// those MAP records add; exec empties them, fork copies them.
class AddressSpace {
public:
    struct Mapping {
        std::uint64_t end = 0;
        std::uint64_t offset = 0; // file offset mapped at the start
        std::shared_ptr<const std::string> path;
    };
    // Adds [start, end) mapping `path` from `offset`, replacing what it
    // overlaps (parts of older mappings outside it stay).
    void add(std::uint64_t start, std::uint64_t end, std::uint64_t offset,
             std::shared_ptr<const std::string> path);
    void clear() { maps_m.clear(); }
    // The mapping holding `addr`, or null.
    std::optional<MappedAddress> find(std::uint64_t addr) const;
    std::size_t size() const { return maps_m.size(); }

private:
    std::vector<std::pair<std::uint64_t, Mapping>> maps_m; // sorted by start, disjoint
};

} // namespace ltt
