// The Arrow C data and stream interfaces: see arrow_c.hpp.
#include "arrow_c.hpp"

#include <cerrno>
#include <exception>
#include <mutex>
#include <unordered_map>

namespace ltt::arrow {

const char* formatOf(Type t) {
    switch (t) {
    case Type::Bool:
        return "b";
    case Type::Int8:
        return "c";
    case Type::Int16:
        return "s";
    case Type::Int32:
        return "i";
    case Type::Int64:
        return "l";
    case Type::UInt8:
        return "C";
    case Type::UInt16:
        return "S";
    case Type::UInt32:
        return "I";
    case Type::UInt64:
        return "L";
    case Type::Utf8:
        return "u";
    }
    return "l";
}

std::size_t widthOf(Type t) {
    switch (t) {
    case Type::Bool:
        return 0;
    case Type::Int8:
    case Type::UInt8:
        return 1;
    case Type::Int16:
    case Type::UInt16:
        return 2;
    case Type::Int32:
    case Type::UInt32:
    case Type::Utf8:
        return 4;
    case Type::Int64:
    case Type::UInt64:
        return 8;
    }
    return 8;
}

namespace {

// The kept buffers, by rounded size.
struct BufferPool {
    static constexpr std::size_t kMaxKept = 64u << 20; // bytes kept at most
    static constexpr std::size_t kMinKept = 4096;      // smaller ones: malloc's business
    std::mutex lock;
    std::unordered_map<std::size_t, std::vector<void*>> free;
    std::size_t kept = 0;
    static BufferPool& get() {
        static BufferPool* p = new BufferPool; // never destroyed: freed at exit
        return *p;
    }
};

// aligned_alloc wants a multiple of the alignment; never 0 bytes, so that a
// buffer pointer is never null (some consumers test it).
std::size_t rounded(std::size_t bytes) {
    return ((bytes ? bytes : 1) + 63) & ~std::size_t{63};
}

} // namespace

void* allocateBuffer(std::size_t bytes) {
    const std::size_t n = rounded(bytes);
    if (n >= BufferPool::kMinKept) {
        BufferPool& p = BufferPool::get();
        std::lock_guard g(p.lock);
        auto it = p.free.find(n);
        if (it != p.free.end() && !it->second.empty()) {
            void* d = it->second.back();
            it->second.pop_back();
            p.kept -= n;
            return d;
        }
    }
    void* d = std::aligned_alloc(64, n);
    if (!d)
        throw std::bad_alloc();
    return d;
}

void freeBuffer(void* data, std::size_t bytes) {
    if (!data)
        return;
    const std::size_t n = rounded(bytes);
    if (n >= BufferPool::kMinKept) {
        BufferPool& p = BufferPool::get();
        std::lock_guard g(p.lock);
        if (p.kept + n <= BufferPool::kMaxKept) {
            p.free[n].push_back(data);
            p.kept += n;
            return;
        }
    }
    std::free(data);
}

void Buffer::allocate(std::size_t bytes) {
    freeBuffer(data, size);
    data = nullptr;
    data = allocateBuffer(bytes);
    size = bytes;
}

void Buffer::reserve(std::size_t bytes) {
    if (bytes <= size && data)
        return;
    std::size_t want = size ? size : 64;
    while (want < bytes)
        want *= 2;
    Buffer bigger(want);
    if (data)
        std::memcpy(bigger.data, data, size);
    *this = std::move(bigger);
}

// ---------------------------------------------------------------- schema

namespace {

// What an exported ArrowSchema owns: its strings and its children.
struct SchemaNode {
    std::string format, name, metadata;
    std::vector<ArrowSchema*> childPtrs;
    std::vector<ArrowSchema> children;
    ArrowSchema dictionary{};
    bool hasDictionary = false;
};

void releaseSchema(ArrowSchema* s) {
    if (!s || !s->release)
        return;
    auto* node = static_cast<SchemaNode*>(s->private_data);
    for (ArrowSchema* c : node->childPtrs)
        if (c->release)
            c->release(c);
    if (node->hasDictionary && node->dictionary.release)
        node->dictionary.release(&node->dictionary);
    delete node;
    s->release = nullptr;
}

void fillSchema(ArrowSchema* out, SchemaNode* node, std::int64_t flags) {
    out->format = node->format.c_str();
    out->name = node->name.c_str();
    out->metadata = node->metadata.empty() ? nullptr : node->metadata.data();
    out->flags = flags;
    out->n_children = static_cast<std::int64_t>(node->childPtrs.size());
    out->children = node->childPtrs.empty() ? nullptr : node->childPtrs.data();
    out->dictionary = node->hasDictionary ? &node->dictionary : nullptr;
    out->release = releaseSchema;
    out->private_data = node;
}

void leafSchema(ArrowSchema* out, const char* format, const std::string& name, std::int64_t flags) {
    auto* node = new SchemaNode;
    node->format = format;
    node->name = name;
    fillSchema(out, node, flags);
}

void put32(std::string& s, std::int32_t v) {
    s.append(reinterpret_cast<const char*>(&v), sizeof v);
}

} // namespace

void exportSchema(const TableSpec& spec, ArrowSchema* out) {
    auto* top = new SchemaNode;
    top->format = "+s";
    if (!spec.metadata.empty()) {
        put32(top->metadata, static_cast<std::int32_t>(spec.metadata.size()));
        for (const auto& [k, v] : spec.metadata) {
            put32(top->metadata, static_cast<std::int32_t>(k.size()));
            top->metadata += k;
            put32(top->metadata, static_cast<std::int32_t>(v.size()));
            top->metadata += v;
        }
    }
    top->children.resize(spec.columns.size());
    for (std::size_t i = 0; i < spec.columns.size(); ++i) {
        const ColumnSpec& c = spec.columns[i];
        ArrowSchema* child = &top->children[i];
        top->childPtrs.push_back(child);
        auto* node = new SchemaNode;
        node->format = formatOf(c.type);
        node->name = c.name;
        if (c.dictionaryEncoded()) {
            node->hasDictionary = true;
            leafSchema(&node->dictionary, "u", "", 0);
        }
        fillSchema(child, node, c.nullable ? ARROW_FLAG_NULLABLE : 0);
    }
    fillSchema(out, top, 0);
}

// ---------------------------------------------------------------- arrays

namespace {

// What an exported ArrowArray owns: its buffers and its children.
struct ArrayNode {
    std::vector<Buffer> buffers;
    std::vector<const void*> bufferPtrs;
    std::vector<ArrowArray*> childPtrs;
    std::vector<ArrowArray> children;
    ArrowArray dictionary{};
    bool hasDictionary = false;
};

void releaseArray(ArrowArray* a) {
    if (!a || !a->release)
        return;
    auto* node = static_cast<ArrayNode*>(a->private_data);
    for (ArrowArray* c : node->childPtrs)
        if (c->release)
            c->release(c);
    if (node->hasDictionary && node->dictionary.release)
        node->dictionary.release(&node->dictionary);
    delete node;
    a->release = nullptr;
}

void fillArray(ArrowArray* out, ArrayNode* node, std::int64_t length, std::int64_t nulls) {
    out->length = length;
    out->null_count = nulls;
    out->offset = 0;
    out->n_buffers = static_cast<std::int64_t>(node->bufferPtrs.size());
    out->buffers = node->bufferPtrs.data();
    out->n_children = static_cast<std::int64_t>(node->childPtrs.size());
    out->children = node->childPtrs.empty() ? nullptr : node->childPtrs.data();
    out->dictionary = node->hasDictionary ? &node->dictionary : nullptr;
    out->release = releaseArray;
    out->private_data = node;
}

// A string array of `values` (a dictionary's).
void stringArray(ArrowArray* out, const std::vector<std::string>& values) {
    auto* node = new ArrayNode;
    std::size_t chars = 0;
    for (const auto& v : values)
        chars += v.size();
    Buffer offsets((values.size() + 1) * sizeof(std::int32_t));
    Buffer data(chars);
    auto* o = offsets.as<std::int32_t>();
    std::size_t at = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        o[i] = static_cast<std::int32_t>(at);
        std::memcpy(static_cast<char*>(data.data) + at, values[i].data(), values[i].size());
        at += values[i].size();
    }
    o[values.size()] = static_cast<std::int32_t>(at);
    node->buffers.push_back(std::move(offsets));
    node->buffers.push_back(std::move(data));
    node->bufferPtrs = {nullptr, node->buffers[0].data, node->buffers[1].data};
    fillArray(out, node, static_cast<std::int64_t>(values.size()), 0);
}

} // namespace

Batch::Batch(const TableSpec& spec, std::size_t capacity) : capacity_m(capacity) {
    cols_m.resize(spec.columns.size());
    for (std::size_t i = 0; i < spec.columns.size(); ++i) {
        const ColumnSpec& c = spec.columns[i];
        ColumnData& d = cols_m[i];
        const std::size_t bitmap = (capacity + 7) / 8;
        if (c.nullable) {
            d.validity.allocate(bitmap);
            std::memset(d.validity.data, 0xff, bitmap);
        }
        if (c.type == Type::Bool) {
            d.values.allocate(bitmap);
            std::memset(d.values.data, 0, bitmap);
        } else if (c.type == Type::Utf8) {
            d.values.allocate((capacity + 1) * sizeof(std::int32_t));
            d.values.as<std::int32_t>()[0] = 0;
            d.chars.allocate(capacity * 8);
        } else {
            d.values.allocate(capacity * widthOf(c.type));
        }
    }
}

void Batch::appendString(std::size_t i, std::size_t row, const char* s, std::size_t n) {
    ColumnData& d = cols_m[i];
    if (d.charsUsed + n > d.chars.size)
        d.chars.reserve(d.charsUsed + n);
    std::memcpy(static_cast<char*>(d.chars.data) + d.charsUsed, s, n);
    d.charsUsed += n;
    d.values.as<std::int32_t>()[row + 1] = static_cast<std::int32_t>(d.charsUsed);
}

void Batch::exportTo(const TableSpec& spec, ArrowArray* out) {
    auto* top = new ArrayNode;
    top->bufferPtrs = {nullptr};
    top->children.resize(cols_m.size());
    const auto len = static_cast<std::int64_t>(length);
    for (std::size_t i = 0; i < cols_m.size(); ++i) {
        const ColumnSpec& c = spec.columns[i];
        ColumnData& d = cols_m[i];
        auto* node = new ArrayNode;
        if (d.countPresent)
            d.nullCount = len - d.present;
        const bool hasNulls = c.nullable && d.nullCount > 0;
        const void* validity = hasNulls ? d.validity.data : nullptr;
        node->buffers.push_back(std::move(d.validity));
        node->buffers.push_back(std::move(d.values));
        if (c.type == Type::Utf8) {
            node->buffers.push_back(std::move(d.chars));
            node->bufferPtrs = {validity, node->buffers[1].data, node->buffers[2].data};
        } else {
            node->bufferPtrs = {validity, node->buffers[1].data};
        }
        if (c.dictionaryEncoded()) {
            node->hasDictionary = true;
            stringArray(&node->dictionary, c.dictionary);
        }
        ArrowArray* child = &top->children[i];
        top->childPtrs.push_back(child);
        fillArray(child, node, len, hasNulls ? d.nullCount : 0);
    }
    fillArray(out, top, len, 0);
    cols_m.clear();
    length = 0;
}

// ---------------------------------------------------------------- stream

namespace {

struct StreamState {
    std::unique_ptr<BatchSource> source;
    std::string lastError;
    bool done = false;
};

int streamSchema(ArrowArrayStream* s, ArrowSchema* out) {
    auto* st = static_cast<StreamState*>(s->private_data);
    try {
        exportSchema(st->source->spec(), out);
        return 0;
    } catch (const std::exception& e) {
        st->lastError = e.what();
        return ENOMEM;
    }
}

int streamNext(ArrowArrayStream* s, ArrowArray* out) {
    auto* st = static_cast<StreamState*>(s->private_data);
    try {
        if (!st->done) {
            if (auto b = st->source->nextBatch()) {
                b->exportTo(st->source->spec(), out);
                return 0;
            }
            st->done = true;
        }
        if (!st->source->error.empty()) {
            st->lastError = st->source->error;
            return EIO;
        }
        out->release = nullptr; // the end of the stream
        return 0;
    } catch (const std::exception& e) {
        st->lastError = e.what();
        return EIO;
    }
}

const char* streamError(ArrowArrayStream* s) {
    auto* st = static_cast<StreamState*>(s->private_data);
    return st->lastError.empty() ? nullptr : st->lastError.c_str();
}

void streamRelease(ArrowArrayStream* s) {
    if (!s || !s->release)
        return;
    delete static_cast<StreamState*>(s->private_data);
    s->release = nullptr;
}

} // namespace

void exportStream(std::unique_ptr<BatchSource> source, ArrowArrayStream* out) {
    auto* st = new StreamState;
    st->source = std::move(source);
    out->get_schema = streamSchema;
    out->get_next = streamNext;
    out->get_last_error = streamError;
    out->release = streamRelease;
    out->private_data = st;
}

} // namespace ltt::arrow
