// The tables the Python package hands out as Arrow streams (docs/python.md):
// events, syscalls, sched, irqs and processes, each a BatchSource over one
// opened trace. Every table but `processes` is produced while walking the
// trace, a batch at a time, so memory stays bounded however long it is.
#pragma once

#include "arrow_c.hpp"

#include <libltt/proc_file.hpp>
#include <libltt/trace_analysis.hpp>
#include <libltt/trace_reader.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace ltt::pyext {

// One opened trace, shared by the Python objects and the streams made from
// it (a stream keeps the trace open while a consumer still reads it).
struct TraceHandle {
    std::unique_ptr<TraceReader> reader;
    std::optional<ProcSnapshot> snapshot;
    std::string procPath;
    // The analysis, run once on first use (the processes table, the report;
    // engines may scan two streams of one trace on two threads at once).
    std::unique_ptr<TraceAnalysis> analysis;
    std::mutex analysisLock;

    const ProcSnapshot* proc() const { return snapshot ? &*snapshot : nullptr; }
    // Runs the analysis if it has not run yet.
    const TraceAnalysis& analyzed();
};

// The schema metadata every table carries: host name, kernel, backend,
// producer and the wall-clock anchor (docs/python.md).
std::vector<std::pair<std::string, std::string>> traceMetadata(const TraceReader& reader);
// "facility" or "tracepoints", from the header.
const char* backendOf(const TraceReader& reader);

std::unique_ptr<arrow::BatchSource> eventsTable(std::shared_ptr<TraceHandle> trace);
std::unique_ptr<arrow::BatchSource> syscallsTable(std::shared_ptr<TraceHandle> trace);
std::unique_ptr<arrow::BatchSource> schedTable(std::shared_ptr<TraceHandle> trace);
std::unique_ptr<arrow::BatchSource> irqsTable(std::shared_ptr<TraceHandle> trace);
std::unique_ptr<arrow::BatchSource> processesTable(std::shared_ptr<TraceHandle> trace);

} // namespace ltt::pyext
