// traceconvert: converts an ltt trace into other tools' formats, a thin CLI
// over libltt's converters (libltt/convert.hpp).
//
//   traceconvert --to ctf|perfetto [options] TRACE PROC OUTPUT
//
// CTF output is a directory (metadata and one stream per CPU) that
// babeltrace2 and Trace Compass read as an LTTng kernel trace; Perfetto
// output is one protobuf file for ui.perfetto.dev. The output holds what
// the trace holds (kernel addresses, file names), so it is created private
// to its owner (files 0600, directory 0700), and an existing non-empty
// output is refused unless --force. Warnings, errors, progress and the
// one-line summary go to stderr. Exit status: 0 success (also, with a
// warning, for a trace cut short: what is whole is converted), 1
// unreadable or corrupt input or unwritable output (the message names the
// file, and for a corrupt trace the byte offset), 2 usage errors.
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <getopt.h>
#include <libltt/convert.hpp>
#include <libltt/event_format.hpp>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace {

void usage(std::FILE* f) {
    std::fprintf(f,
                 "usage: traceconvert --to ctf|perfetto [options] TRACE PROC OUTPUT\n"
                 "Converts an ltt trace (TRACE, e.g. out.trace) with the system state at its\n"
                 "start (PROC, e.g. out.proc) into another tool's format.\n"
                 "\n"
                 "  -t, --to FORMAT      ctf: OUTPUT is a directory holding a CTF 1.8 trace laid\n"
                 "                       out as an LTTng kernel trace (metadata and one stream\n"
                 "                       per CPU), for Trace Compass (File > Open Trace on the\n"
                 "                       directory) and babeltrace2 (babeltrace2 OUTPUT);\n"
                 "                       perfetto: OUTPUT is a Perfetto protobuf trace file,\n"
                 "                       for ui.perfetto.dev\n"
                 "  -f, --force          replace an existing non-empty OUTPUT\n"
                 "      --no-progress    no progress line even on a terminal\n"
                 "  -h, --help           this text\n"
                 "  -V, --version        version\n"
                 "The output holds what the trace holds (kernel addresses, file names): it is\n"
                 "created readable by its owner only. A trace cut short is converted up to\n"
                 "its last whole block, with a warning; events the tracer lost are carried\n"
                 "into the format's own field (docs/convert.md). On stderr, a last line:\n"
                 "events read, written, dropped by a documented rule, lost by the tracer.\n"
                 "Exit status: 0 converted, 1 unreadable or corrupt input or unwritable\n"
                 "output, 2 usage error.\n");
}

// True when `path` exists and holds something: a file with bytes, a
// directory with an entry, anything else that is there (a link, a FIFO:
// the converter refuses those itself, with the reason).
bool nonEmpty(const std::string& path) {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0)
        return false;
    if (S_ISREG(st.st_mode))
        return st.st_size > 0;
    if (!S_ISDIR(st.st_mode))
        return false;
    DIR* d = ::opendir(path.c_str());
    if (!d)
        return true;
    bool any = false;
    while (const dirent* e = ::readdir(d))
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
            any = true;
            break;
        }
    ::closedir(d);
    return any;
}

} // namespace

int main(int argc, char** argv) {
    enum class Format { None, Ctf, Perfetto };
    Format format = Format::None;
    bool force = false, progress = true;
    enum { kNoProgress = 1000 };
    static const option longopts[] = {{"to", required_argument, nullptr, 't'},
                                      {"force", no_argument, nullptr, 'f'},
                                      {"no-progress", no_argument, nullptr, kNoProgress},
                                      {"help", no_argument, nullptr, 'h'},
                                      {"version", no_argument, nullptr, 'V'},
                                      {nullptr, 0, nullptr, 0}};
    int ch;
    while ((ch = getopt_long(argc, argv, "t:fhV", longopts, nullptr)) != -1) {
        switch (ch) {
        case 't':
            if (std::strcmp(optarg, "ctf") == 0) {
                format = Format::Ctf;
            } else if (std::strcmp(optarg, "perfetto") == 0) {
                format = Format::Perfetto;
            } else {
                std::fprintf(stderr,
                             "traceconvert: unknown format \"%s\" (--to takes ctf or perfetto)\n",
                             optarg);
                return 2;
            }
            break;
        case 'f':
            force = true;
            break;
        case kNoProgress:
            progress = false;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            std::printf("traceconvert (ltt) %s\n", LTT_VERSION_STRING);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (format == Format::None) {
        std::fprintf(stderr, "traceconvert: missing --to ctf|perfetto\n");
        usage(stderr);
        return 2;
    }
    const int npos = argc - optind;
    if (npos != 3) {
        std::fprintf(stderr, "traceconvert: %s\n",
                     npos < 1   ? "missing TRACE file"
                     : npos < 2 ? "missing PROC file"
                     : npos < 3 ? "missing OUTPUT"
                                : "too many arguments");
        usage(stderr);
        return 2;
    }
    const std::string trace = argv[optind], proc = argv[optind + 1], out = argv[optind + 2];
    if (trace.empty() || proc.empty() || out.empty()) {
        std::fprintf(stderr, "traceconvert: empty file name\n");
        usage(stderr);
        return 2;
    }

    if (!force && nonEmpty(out)) {
        std::fprintf(stderr,
                     "traceconvert: refusing to overwrite %s: it exists and is not empty "
                     "(--force replaces it)\n",
                     out.c_str());
        return 1;
    }

    ltt::convert::Options options;
    options.progress = progress && isatty(STDERR_FILENO);
    options.log = stderr;
    ltt::convert::Result r;
    try {
        r = format == Format::Ctf ? ltt::convert::toCtf(trace, proc, out, options)
                                  : ltt::convert::toPerfetto(trace, proc, out, options);
    } catch (const std::exception& e) {
        // A message may already carry the program's name.
        const char* prefix =
            std::strncmp(e.what(), "traceconvert: ", 14) == 0 ? "" : "traceconvert: ";
        std::fprintf(stderr, "%s%s\n", prefix, e.what());
        return 1;
    }
    // One line: the figures, which rule dropped what (by ltt event key),
    // and what the format's state dump added from PROC.
    std::string dropped;
    for (std::size_t id = 0; id < r.droppedByEvent.size(); ++id)
        if (r.droppedByEvent[id])
            dropped += (dropped.empty() ? " (" : ", ") + std::string(ltt::eventKey(unsigned(id))) +
                       " " + std::to_string(r.droppedByEvent[id]);
    if (!dropped.empty())
        dropped += ")";
    std::fprintf(stderr,
                 "traceconvert: %" PRIu64 " events read, %" PRIu64 " written, %" PRIu64
                 " dropped by rule%s, %" PRIu64 " lost by the tracer; %" PRIu64
                 " state-dump events added from PROC%s\n",
                 r.eventsRead, r.eventsWritten, r.eventsDropped, dropped.c_str(), r.lost,
                 r.eventsAdded, r.truncated ? " (trace cut short)" : "");
    return 0;
}
