// The Arrow C data and C stream interfaces (ArrowSchema, ArrowArray,
// ArrowArrayStream), written from the Arrow specification ("The Arrow C data
// interface", "The Arrow C stream interface"): a stable C ABI that producers
// implement themselves, so that pyarrow, DuckDB and Polars take our column
// buffers as they are, without a copy and without linking Arrow.
//
// A table is described once (TableSpec: its columns' names, formats and
// dictionaries); a Batch holds one record batch's buffers, filled by the
// table's producer and handed over whole: exportBatch() moves them into the
// ArrowArray, whose release callback frees them.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

extern "C" {

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
    const char* format;
    const char* name;
    const char* metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema** children;
    struct ArrowSchema* dictionary;
    void (*release)(struct ArrowSchema*);
    void* private_data;
};

struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void** buffers;
    struct ArrowArray** children;
    struct ArrowArray* dictionary;
    void (*release)(struct ArrowArray*);
    void* private_data;
};

#endif // ARROW_C_DATA_INTERFACE

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
    int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
    int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
    const char* (*get_last_error)(struct ArrowArrayStream*);
    void (*release)(struct ArrowArrayStream*);
    void* private_data;
};

#endif // ARROW_C_STREAM_INTERFACE
}

namespace ltt::arrow {

// Column types the tables use, as C data interface format strings.
enum class Type : std::uint8_t {
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Utf8
};
const char* formatOf(Type t);
std::size_t widthOf(Type t); // bytes per value (Utf8: its offsets, 4; Bool: 0, bits)

struct ColumnSpec {
    ColumnSpec(std::string n, Type t, bool null = false, std::vector<std::string> dict = {})
        : name(std::move(n)), type(t), nullable(null), dictionary(std::move(dict)) {}
    std::string name;
    Type type = Type::Int64; // a dictionary column: the index type
    bool nullable = false;
    // A dictionary-encoded string column: `type` is the index type, these
    // its values.
    std::vector<std::string> dictionary;
    bool dictionaryEncoded() const { return !dictionary.empty(); }
};

struct TableSpec {
    std::vector<ColumnSpec> columns;
    // Key/value pairs of the schema's metadata (host name, kernel, ...).
    std::vector<std::pair<std::string, std::string>> metadata;
};

// Fills `out` with the schema of `spec` (a struct of its columns); `out`
// owns copies of everything it points to.
void exportSchema(const TableSpec& spec, ArrowSchema* out);

// Memory for buffers: 64-byte aligned (as Arrow recommends), uninitialized.
// Freed buffers of the sizes batches use are kept (up to a bound) and
// handed out again: a stream's batches all have the same sizes, and taking
// fresh pages from the kernel for every batch would cost a page fault per
// 4 KiB written, as much as filling them. Thread-safe: consumers release
// batches on their own threads.
void* allocateBuffer(std::size_t bytes);
void freeBuffer(void* data, std::size_t bytes);

struct Buffer {
    void* data = nullptr;
    std::size_t size = 0;
    Buffer() = default;
    explicit Buffer(std::size_t bytes) { allocate(bytes); }
    Buffer(Buffer&& o) noexcept : data(o.data), size(o.size) { o.data = nullptr, o.size = 0; }
    Buffer& operator=(Buffer&& o) noexcept {
        if (this != &o) {
            freeBuffer(data, size);
            data = o.data, size = o.size;
            o.data = nullptr, o.size = 0;
        }
        return *this;
    }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { freeBuffer(data, size); }
    void allocate(std::size_t bytes);
    // Grows to at least `bytes`, keeping the contents.
    void reserve(std::size_t bytes);
    template <class T> T* as() { return static_cast<T*>(data); }
};

// One column of a batch: validity bitmap (when nullable), values (or the
// offsets of a string column) and a string column's characters.
struct ColumnData {
    Buffer validity;
    Buffer values;
    Buffer chars;
    std::size_t charsUsed = 0;
    std::int64_t nullCount = 0;
    // Validity kept the other way round (startAllNull()): rows are null
    // unless setValid() marks them, and `present` counts those.
    bool countPresent = false;
    std::int64_t present = 0;
};

// One record batch in the making: `capacity` rows of every column of
// `spec`, allocated up front.
class Batch {
public:
    Batch(const TableSpec& spec, std::size_t capacity);
    std::size_t capacity() const { return capacity_m; }
    std::size_t length = 0;
    ColumnData& column(std::size_t i) { return cols_m[i]; }
    template <class T> T* values(std::size_t i) { return cols_m[i].values.as<T>(); }
    std::uint8_t* validity(std::size_t i) { return cols_m[i].validity.as<std::uint8_t>(); }
    // Appends a string to column i at row `row` (rows in order).
    void appendString(std::size_t i, std::size_t row, const char* s, std::size_t n);
    // Marks row `row` of column i null (its value must still be written).
    void setNull(std::size_t i, std::size_t row) {
        auto* v = validity(i);
        v[row >> 3] &= static_cast<std::uint8_t>(~(1u << (row & 7)));
        ++cols_m[i].nullCount;
    }
    // For a column mostly null: every row starts null, setValid() marks the
    // rows that have a value.
    void startAllNull(std::size_t i) {
        ColumnData& d = cols_m[i];
        std::memset(d.validity.data, 0, (capacity_m + 7) / 8);
        d.countPresent = true;
    }
    void setValid(std::size_t i, std::size_t row) {
        cols_m[i].validity.as<std::uint8_t>()[row >> 3] |=
            static_cast<std::uint8_t>(1u << (row & 7));
        ++cols_m[i].present;
    }
    // Moves the batch into `out` (length rows); the batch is empty after.
    void exportTo(const TableSpec& spec, ArrowArray* out);

private:
    std::size_t capacity_m;
    std::vector<ColumnData> cols_m;
};

// A producer of record batches: next() fills `batch` (false at the end);
// error() is set when it stopped on an error.
class BatchSource {
public:
    virtual ~BatchSource() = default;
    virtual const TableSpec& spec() const = 0;
    // Fills up to batch.capacity() rows; returns false when no rows are left.
    virtual bool next(Batch& batch) = 0;
    // The next batch (null at the end): a Batch of batchRows filled by
    // next(), unless the source makes its batches itself.
    virtual std::unique_ptr<Batch> nextBatch() {
        auto b = std::make_unique<Batch>(spec(), batchRows);
        if (next(*b) && b->length > 0)
            return b;
        return nullptr;
    }
    // Set when the source stopped early on damage: the message the stream's
    // get_last_error() gives. A source may also stop quietly (a truncated
    // trace: warned about when opened).
    std::string error;
    std::size_t batchRows = 65536;
};

// Fills `out` with a stream over `source`, which it owns from then on.
void exportStream(std::unique_ptr<BatchSource> source, ArrowArrayStream* out);

} // namespace ltt::arrow
