// opforge's TensorRT plugin test driver.
//
// Loads a plugin library the way TensorRT does (dlopen, setLoggerFinder, getCreators) and checks
// every plugin against a cases file written by generators/targets/trt's tests: field names, both
// field encodings, invalid fields (with the logged message), serialization round trips at the
// runtime phase, clone and attachToContext, output dtypes, format combinations, output shapes
// through TensorRT's IExprBuilder interface (backed here by an evaluator), size tensors, workspace
// sizes and aliases, at every number of inputs the plugin takes (trailing optional inputs left
// out) and refusing the counts outside that range. With --enqueue (built with -DOPFORGE_DRIVER_CUDA) it also runs enqueue on
// cudaMalloc'ed buffers and checks the default kernels wrote zeros to every output.
//
//   trt_driver <library.so> <cases file> [--enqueue]
//
// Exit status 0 when every check passed. Needs TensorRT 10 or later headers; no libnvinfer.

#include "NvInferRuntime.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#if NV_TENSORRT_MAJOR < 10
#error "the driver needs TensorRT >= 10 headers"
#endif

using namespace nvinfer1;

namespace
{

int gFailures = 0;
int gChecks = 0;

void check(bool ok, std::string const& what)
{
    ++gChecks;
    if (!ok)
    {
        ++gFailures;
        std::printf("FAIL %s\n", what.c_str());
    }
}

// ---- logging: TensorRT hands plugins a logger through setLoggerFinder ----

class CaptureLogger : public ILogger
{
public:
    void log(Severity severity, AsciiChar const* msg) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            messages += msg;
            messages += "\n";
        }
    }
    std::string messages;
};

class Finder : public ILoggerFinder
{
public:
    ILogger* findLogger() noexcept override
    {
        return &logger;
    }
    CaptureLogger logger;
};

Finder gFinder;

// ---- IExprBuilder backed by an evaluator: every expression carries its value ----

class Dim : public IDimensionExpr
{
public:
    Dim(int64_t value, bool constant, bool size)
    {
        mV.value = value;
        mV.constant = constant;
        mV.size = size;
        mImpl = &mV;
    }
    int64_t value() const
    {
        return mV.value;
    }

private:
    struct V : apiv::VDimensionExpr
    {
        int64_t value{};
        bool constant{};
        bool size{};
        bool isConstant() const override
        {
            return constant;
        }
        int64_t getConstantValue() const override
        {
            return constant ? value : INT64_MIN;
        }
        bool isSizeTensor() const override
        {
            return size;
        }
    } mV;
};

int64_t valueOf(IDimensionExpr const* e)
{
    return static_cast<Dim const*>(e)->value();
}

class Builder : public IExprBuilder
{
public:
    Builder()
    {
        mI.b = this;
        mImpl = &mI;
    }
    Dim const* make(int64_t v, bool constant, bool size = false)
    {
        mPool.emplace_back(new Dim(v, constant, size));
        return mPool.back().get();
    }
    struct Size
    {
        int64_t opt, upper;
    };
    std::map<int32_t, Size> sizes;

private:
    struct I : apiv::VExprBuilder
    {
        Builder* b{};
        IDimensionExpr const* constant(int64_t value) override
        {
            return b->make(value, true);
        }
        IDimensionExpr const* operation(DimensionOperation op, IDimensionExpr const& x, IDimensionExpr const& y) override
        {
            int64_t const a = valueOf(&x);
            int64_t const c = valueOf(&y);
            bool const k = x.isConstant() && y.isConstant();
            switch (op)
            {
            case DimensionOperation::kSUM: return b->make(a + c, k);
            case DimensionOperation::kPROD: return b->make(a * c, k);
            case DimensionOperation::kMAX: return b->make(a > c ? a : c, k);
            case DimensionOperation::kMIN: return b->make(a < c ? a : c, k);
            case DimensionOperation::kSUB: return b->make(a - c, k);
            case DimensionOperation::kEQUAL: return b->make(a == c, k);
            case DimensionOperation::kLESS: return b->make(a < c, k);
            case DimensionOperation::kFLOOR_DIV:
            {
                if (c == 0)
                    return nullptr;
                int64_t q = a / c;
                if (a % c != 0 && ((a < 0) != (c < 0)))
                    --q;
                return b->make(q, k);
            }
            case DimensionOperation::kCEIL_DIV:
            {
                if (c == 0)
                    return nullptr;
                int64_t q = a / c;
                if (a % c != 0 && ((a < 0) == (c < 0)))
                    ++q;
                return b->make(q, k);
            }
            }
            return nullptr;
        }
        IDimensionExpr const* declareSizeTensor(int32_t outputIndex, IDimensionExpr const& opt, IDimensionExpr const& upper) override
        {
            b->sizes[outputIndex] = Size{valueOf(&opt), valueOf(&upper)};
            // Shapes are checked at the upper bound: what TensorRT allocates.
            return b->make(valueOf(&upper), false, true);
        }
    } mI;
    std::deque<std::unique_ptr<Dim>> mPool;
};

class NoResources : public IPluginResourceContext
{
public:
    IGpuAllocator* getGpuAllocator() const noexcept override
    {
        return nullptr;
    }
    IErrorRecorder* getErrorRecorder() const noexcept override
    {
        return nullptr;
    }
};

// ---- REGISTER_TENSORRT_PLUGIN calls getPluginRegistry()->registerCreator at load time ----

//! Records registrations. Methods are declared without override: the pure virtuals of
//! IPluginRegistry differ between TensorRT versions, and each one here overrides where it exists.
class RecordingRegistry : public IPluginRegistry
{
public:
    std::vector<std::pair<std::string, std::string>> registered; // creator name, namespace argument

    virtual bool registerCreator(IPluginCreatorInterface& creator, AsciiChar const* const pluginNamespace) noexcept
    {
        InterfaceInfo const info = creator.getInterfaceInfo();
        char const* name = std::strcmp(info.kind, "PLUGIN CREATOR_V3ONE") == 0 ? static_cast<IPluginCreatorV3One&>(creator).getPluginName()
                                                                               : static_cast<IPluginCreator&>(creator).getPluginName();
        registered.push_back({name, pluginNamespace != nullptr ? pluginNamespace : "<null>"});
        return true;
    }
    virtual bool registerCreator(IPluginCreator& creator, AsciiChar const* const pluginNamespace) noexcept
    {
        registered.push_back({creator.getPluginName(), pluginNamespace != nullptr ? pluginNamespace : "<null>"});
        return true;
    }
    virtual IPluginCreator* const* getPluginCreatorList(int32_t* const n) const noexcept
    {
        *n = 0;
        return nullptr;
    }
    virtual IPluginCreator* getPluginCreator(AsciiChar const* const, AsciiChar const* const, AsciiChar const* const) noexcept
    {
        return nullptr;
    }
    virtual void setErrorRecorder(IErrorRecorder* const) noexcept {}
    virtual IErrorRecorder* getErrorRecorder() const noexcept
    {
        return nullptr;
    }
    virtual bool deregisterCreator(IPluginCreator const&) noexcept
    {
        return false;
    }
    virtual bool isParentSearchEnabled() const
    {
        return false;
    }
    virtual void setParentSearchEnabled(bool const) {}
    virtual PluginLibraryHandle loadLibrary(AsciiChar const*) noexcept
    {
        return nullptr;
    }
    virtual void deregisterLibrary(PluginLibraryHandle) noexcept {}
    virtual IPluginCreatorInterface* const* getAllCreators(int32_t* const n) const noexcept
    {
        *n = 0;
        return nullptr;
    }
    virtual IPluginCreatorInterface* getCreator(AsciiChar const* const, AsciiChar const* const, AsciiChar const* const) noexcept
    {
        return nullptr;
    }
    virtual bool deregisterCreator(IPluginCreatorInterface const&) noexcept
    {
        return false;
    }
    virtual IPluginResource* acquirePluginResource(AsciiChar const*, IPluginResource*) noexcept
    {
        return nullptr;
    }
    virtual int32_t releasePluginResource(AsciiChar const*) noexcept
    {
        return 0;
    }
    virtual IPluginCreatorInterface* const* getAllCreatorsRecursive(int32_t* const n) noexcept
    {
        *n = 0;
        return nullptr;
    }
    ~RecordingRegistry() noexcept override = default;
};

RecordingRegistry gRegistry;

// ---- the cases file ----

std::vector<uint8_t> unhex(std::string const& s)
{
    std::vector<uint8_t> out;
    if (s == "-")
        return out;
    for (size_t i = 0; i + 1 < s.size(); i += 2)
        out.push_back(static_cast<uint8_t>(std::stoul(s.substr(i, 2), nullptr, 16)));
    return out;
}

struct FieldSet
{
    std::string label;
    bool ok{true};
    bool runtime{false};
    std::string message; // expected in the log when !ok
    std::vector<std::string> names;
    std::vector<std::vector<uint8_t>> data;
    std::vector<PluginField> fields;
    PluginFieldCollection fc{};

    PluginFieldCollection const* collection()
    {
        fields.clear();
        for (size_t i = 0; i < names.size(); ++i)
            fields.push_back(PluginField(names[i].c_str(), data[i].empty() ? nullptr : data[i].data(), types[i], lengths[i]));
        fc.nbFields = static_cast<int32_t>(fields.size());
        fc.fields = fields.data();
        return &fc;
    }
    std::vector<PluginFieldType> types;
    std::vector<int32_t> lengths;
};

struct Case
{
    std::string name, version, ns;
    bool legacy{false};
    int32_t nbInputs{}, nbOutputs{}, nbShapeInputs{};
    // The inputs the plugin takes: minInputs to maxInputs. A partial case checks the plugin of the
    // case before it with only nbInputs of them.
    int32_t minInputs{-1}, maxInputs{-1};
    bool partial{false};

    //! The name in messages: partial cases say how many inputs they pass.
    std::string label() const
    {
        return partial ? name + " with " + std::to_string(nbInputs) + " inputs" : name;
    }
    struct Declared
    {
        std::string name;
        int32_t type, length;
    };
    std::vector<Declared> declared;
    std::vector<FieldSet> sets;
    std::vector<std::vector<int64_t>> inputs;      // dims
    std::vector<std::vector<int64_t>> shapeValues; // values of shape inputs
    std::map<int32_t, std::vector<int64_t>> outputs;
    std::map<int32_t, std::pair<int64_t, int64_t>> sizes;
    int64_t workspace{-1};
    std::vector<std::pair<int32_t, int32_t>> aliases;
    std::vector<std::vector<int32_t>> combos;
    std::vector<std::vector<int32_t>> formats;
    std::vector<std::pair<int32_t, int32_t>> rejects; // against combos[0]
    //! Dims of one input that break a relation the opdef requires (requires:), and the text the plugin's message
    //! must hold ("<op>: requires").
    struct Violation
    {
        std::map<int32_t, std::vector<int64_t>> inputs; // the inputs changed, with their dims
        std::string message;
    };
    std::vector<Violation> violations;
    // Format rules: dtypes and formats of every tensor, and whether
    // supportsFormatCombination must accept them (else refuse at some position).
    struct FormatCase
    {
        bool accept;
        std::vector<int32_t> types, formats;
    };
    std::vector<FormatCase> formatCases;
};

std::vector<int64_t> readInts(std::istringstream& in)
{
    int64_t n = 0;
    in >> n;
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (auto& x : v)
        in >> x;
    return v;
}

int gStatic = 0; // the cases expect REGISTER_TENSORRT_PLUGIN registrations

std::vector<Case> parse(char const* path)
{
    std::ifstream file(path);
    std::vector<Case> cases;
    std::string line;
    while (std::getline(file, line))
    {
        std::istringstream in(line);
        std::string word;
        if (!(in >> word) || word[0] == '#')
            continue;
        if (word == "static")
        {
            in >> gStatic;
            continue;
        }
        if (word == "plugin")
        {
            cases.emplace_back();
            std::string kind;
            in >> cases.back().name >> cases.back().version >> cases.back().ns >> kind;
            if (cases.back().ns == "-")
                cases.back().ns.clear(); // the empty namespace, written "-" in the cases file
            cases.back().legacy = kind == "v2";
            continue;
        }
        if (word == "arity")
        {
            // The same plugin with fewer inputs: its identity, fields and shape values; the
            // tensors and combinations follow.
            Case next;
            Case const& full = cases.back();
            next.name = full.name;
            next.version = full.version;
            next.ns = full.ns;
            next.legacy = full.legacy;
            next.nbOutputs = full.nbOutputs;
            next.nbShapeInputs = full.nbShapeInputs;
            next.minInputs = full.minInputs;
            next.maxInputs = full.maxInputs;
            next.declared = full.declared;
            next.sets = full.sets;
            next.shapeValues = full.shapeValues;
            next.partial = true;
            in >> next.nbInputs;
            cases.push_back(next);
            continue;
        }
        Case& c = cases.back();
        if (word == "io")
            in >> c.nbInputs >> c.nbOutputs >> c.nbShapeInputs;
        else if (word == "inputs")
            in >> c.minInputs >> c.maxInputs;
        else if (word == "declared")
        {
            Case::Declared d;
            in >> d.name >> d.type >> d.length;
            c.declared.push_back(d);
        }
        else if (word == "fields")
        {
            FieldSet s;
            std::string verdict, hex;
            in >> s.label >> verdict;
            s.ok = verdict == "ok";
            if (!s.ok)
            {
                in >> hex;
                auto m = unhex(hex);
                s.message.assign(m.begin(), m.end());
            }
            std::string phase;
            if (in >> phase)
                s.runtime = phase == "runtime";
            c.sets.push_back(s);
        }
        else if (word == "field")
        {
            FieldSet& s = c.sets.back();
            std::string name, hex;
            int32_t type, length;
            in >> name >> type >> length >> hex;
            s.names.push_back(name);
            s.types.push_back(static_cast<PluginFieldType>(type));
            s.lengths.push_back(length);
            s.data.push_back(unhex(hex));
        }
        else if (word == "input")
            c.inputs.push_back(readInts(in));
        else if (word == "shapevalue")
            c.shapeValues.push_back(readInts(in));
        else if (word == "output")
        {
            int32_t o;
            in >> o;
            c.outputs[o] = readInts(in);
        }
        else if (word == "size")
        {
            int32_t o;
            int64_t opt, upper;
            in >> o >> opt >> upper;
            c.sizes[o] = {opt, upper};
        }
        else if (word == "workspace")
            in >> c.workspace;
        else if (word == "alias")
        {
            int32_t o, i;
            in >> o >> i;
            c.aliases.push_back({o, i});
        }
        else if (word == "combo" || word == "formats")
        {
            auto v = readInts(in);
            (word == "combo" ? c.combos : c.formats).push_back(std::vector<int32_t>(v.begin(), v.end()));
        }
        else if (word == "violate")
        {
            Case::Violation v;
            std::string op;
            in >> op;
            int32_t input = 0;
            while (in >> input)
                v.inputs[input] = readInts(in);
            v.message = op + ": requires";
            c.violations.push_back(v);
        }
        else if (word == "fmtcase")
        {
            int32_t accept = 0;
            in >> accept;
            auto t = readInts(in);
            auto f = readInts(in);
            c.formatCases.push_back({accept != 0, std::vector<int32_t>(t.begin(), t.end()), std::vector<int32_t>(f.begin(), f.end())});
        }
        else if (word == "reject")
        {
            int32_t pos, type;
            in >> pos >> type;
            c.rejects.push_back({pos, type});
        }
    }
    return cases;
}

// ---- checks shared by both interfaces ----

std::string str(std::vector<int64_t> const& v)
{
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

//! A serialized field collection in comparable form.
std::string fieldsText(PluginFieldCollection const* fc, size_t (*entry)(PluginFieldType))
{
    if (fc == nullptr)
        return "<null>";
    std::string s;
    for (int32_t i = 0; i < fc->nbFields; ++i)
    {
        PluginField const& f = fc->fields[i];
        s += std::string(f.name) + ":" + std::to_string(static_cast<int32_t>(f.type)) + ":" + std::to_string(f.length) + ":";
        auto const* b = static_cast<uint8_t const*>(f.data);
        for (size_t j = 0; j < entry(f.type) * static_cast<size_t>(f.length); ++j)
        {
            char h[3];
            std::snprintf(h, sizeof h, "%02x", b[j]);
            s += h;
        }
        s += ";";
    }
    return s;
}

size_t entrySize(PluginFieldType t)
{
    switch (t)
    {
    case PluginFieldType::kFLOAT16:
    case PluginFieldType::kINT16:
    case PluginFieldType::kBF16: return 2;
    case PluginFieldType::kFLOAT32:
    case PluginFieldType::kINT32: return 4;
    case PluginFieldType::kFLOAT64:
    case PluginFieldType::kINT64: return 8;
    default: return 1;
    }
}

std::vector<int64_t> rankedDims(Case const& c, int32_t pos)
{
    if (pos < c.nbInputs)
        return c.inputs[pos];
    auto it = c.outputs.find(pos - c.nbInputs);
    return it != c.outputs.end() ? it->second : std::vector<int64_t>{};
}

Dims toDims(std::vector<int64_t> const& v)
{
    Dims d{};
    d.nbDims = static_cast<int32_t>(v.size());
    for (size_t i = 0; i < v.size(); ++i)
        d.d[i] = v[i];
    return d;
}

bool logged(std::string const& what)
{
    return gFinder.logger.messages.find(what) != std::string::npos;
}

//! Checks what createPlugin made of a field set; true when it made a plugin, as it had to.
bool verdict(FieldSet const& s, bool created, std::string const& label)
{
    if (!s.ok)
    {
        check(!created, label + ": createPlugin accepted invalid fields");
        check(logged(s.message), label + ": the log lacks \"" + s.message + "\"; it holds: " + gFinder.logger.messages);
        return false;
    }
    check(created, label + ": createPlugin failed: " + gFinder.logger.messages);
    return created;
}

#if defined(OPFORGE_DRIVER_CUDA)
size_t dataTypeSize(int32_t t)
{
    switch (static_cast<DataType>(t))
    {
    case DataType::kFLOAT:
    case DataType::kINT32: return 4;
    case DataType::kHALF:
    case DataType::kBF16: return 2;
    case DataType::kINT64: return 8;
    default: return 1;
    }
}

//! Runs enqueue for every dtype combination on device buffers and checks the outputs are zeros.
template <typename Enqueue, typename ShapeChange>
void runEnqueue(Case const& c, Enqueue enqueue, ShapeChange shapeChange)
{
    for (auto const& combo : c.combos)
    {
        int32_t const n = c.nbInputs + c.nbOutputs;
        std::vector<PluginTensorDesc> desc(static_cast<size_t>(n));
        std::vector<void*> buffers(static_cast<size_t>(n), nullptr);
        std::vector<size_t> bytes(static_cast<size_t>(n), 0);
        bool allocated = true;
        for (int32_t p = 0; p < n; ++p)
        {
            desc[p].type = static_cast<DataType>(combo[p]);
            desc[p].format = TensorFormat::kLINEAR;
            desc[p].scale = desc[p].type == DataType::kINT8 ? 1.0F : -1.0F;
            desc[p].dims = toDims(rankedDims(c, p));
            size_t elems = 1;
            for (int32_t i = 0; i < desc[p].dims.nbDims; ++i)
                elems *= static_cast<size_t>(desc[p].dims.d[i]);
            bytes[p] = elems * dataTypeSize(combo[p]);
            if (cudaMalloc(&buffers[p], bytes[p] > 0 ? bytes[p] : 1) != cudaSuccess)
                allocated = false;
            else
                cudaMemset(buffers[p], p < c.nbInputs ? 0x11 : 0xff, bytes[p]);
        }
        check(allocated, c.label() + ": cudaMalloc");
        void* workspace = nullptr;
        if (c.workspace > 0)
            cudaMalloc(&workspace, static_cast<size_t>(c.workspace));
        cudaStream_t stream{};
        cudaStreamCreate(&stream);
        std::string const label = c.label() + " enqueue combo " + std::to_string(&combo - &c.combos[0]);
        int const before = gFailures;
        gFinder.logger.messages.clear();
        int32_t const changed = shapeChange(desc.data(), desc.data() + c.nbInputs);
        check(changed == 0, label + ": onShapeChange: " + gFinder.logger.messages);
        int32_t const status = enqueue(desc.data(), desc.data() + c.nbInputs, buffers.data(), buffers.data() + c.nbInputs, workspace, stream);
        check(status == 0, label + ": enqueue returned an error: " + gFinder.logger.messages);
        cudaError_t const synced = cudaStreamSynchronize(stream);
        check(synced == cudaSuccess, label + ": the kernels failed: " + cudaGetErrorString(synced));
        for (int32_t p = c.nbInputs; p < n; ++p)
        {
            std::vector<uint8_t> host(bytes[p]);
            cudaMemcpy(host.data(), buffers[p], bytes[p], cudaMemcpyDeviceToHost);
            bool zero = true;
            for (uint8_t b : host)
                zero = zero && b == 0;
            check(zero, label + ": output " + std::to_string(p - c.nbInputs) + " is not all zeros (the default kernels write zeros)");
        }
        cudaStreamDestroy(stream);
        for (void* b : buffers)
            cudaFree(b);
        cudaFree(workspace);
        std::printf("%s %s\n", gFailures == before ? "ok  " : "FAIL", label.c_str());
    }
}
#endif

// ---- IPluginV3 ----

std::string v3Fields(IPluginV3* p)
{
    auto* rt = static_cast<IPluginV3OneRuntime*>(p->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
    return rt != nullptr ? fieldsText(rt->getFieldsToSerialize(), entrySize) : "<no runtime capability>";
}

void checkV3(IPluginCreatorV3One* creator, Case& c, bool enqueue)
{
    check(std::strcmp(creator->getPluginVersion(), c.version.c_str()) == 0, c.label() + ": creator version");
    check(std::strcmp(creator->getPluginNamespace(), c.ns.c_str()) == 0, c.label() + ": creator namespace");
    PluginFieldCollection const* names = creator->getFieldNames();
    check(names != nullptr && names->nbFields == static_cast<int32_t>(c.declared.size()), c.label() + ": getFieldNames lists every param");
    for (int32_t i = 0; names != nullptr && i < names->nbFields && i < static_cast<int32_t>(c.declared.size()); ++i)
    {
        PluginField const& f = names->fields[i];
        check(c.declared[i].name == f.name && c.declared[i].type == static_cast<int32_t>(f.type) && c.declared[i].length == f.length,
            c.label() + ": getFieldNames entry " + std::to_string(i) + " (" + c.declared[i].name + ")");
    }
    std::unique_ptr<IPluginV3> base;
    std::string baseFields;
    for (FieldSet& s : c.sets)
    {
        gFinder.logger.messages.clear();
        std::unique_ptr<IPluginV3> p(creator->createPlugin(c.name.c_str(), s.collection(), s.runtime ? TensorRTPhase::kRUNTIME : TensorRTPhase::kBUILD));
        std::string const label = c.label() + " fields " + s.label;
        if (!verdict(s, p != nullptr, label))
            continue;
        std::string const fields = v3Fields(p.get());
        if (base == nullptr)
        {
            base = std::move(p);
            baseFields = fields;
            continue;
        }
        check(fields == baseFields, label + ": serializes differently from " + c.sets[0].label + ":\n  " + fields + "\n  " + baseFields);
    }
    if (base == nullptr)
        return;
    // Serialization round trip at the runtime phase, clone and attachToContext.
    auto* rt = static_cast<IPluginV3OneRuntime*>(base->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
    std::unique_ptr<IPluginV3> again(creator->createPlugin(c.name.c_str(), rt->getFieldsToSerialize(), TensorRTPhase::kRUNTIME));
    check(again != nullptr && v3Fields(again.get()) == baseFields, c.label() + ": getFieldsToSerialize does not round-trip through createPlugin at kRUNTIME: " + gFinder.logger.messages);
    std::unique_ptr<IPluginV3> clone(base->clone());
    check(clone != nullptr && v3Fields(clone.get()) == baseFields, c.label() + ": clone");
    NoResources resources;
    std::unique_ptr<IPluginV3> attached(rt->attachToContext(&resources));
    check(attached != nullptr && attached.get() != base.get() && v3Fields(attached.get()) == baseFields, c.label() + ": attachToContext");

    auto* core = static_cast<IPluginV3OneCore*>(base->getCapabilityInterface(PluginCapabilityType::kCORE));
    auto* build = static_cast<IPluginV3OneBuild*>(base->getCapabilityInterface(PluginCapabilityType::kBUILD));
    check(core != nullptr && build != nullptr && rt != nullptr, c.label() + ": capability interfaces");
    if (core == nullptr || build == nullptr)
        return;
    check(std::strcmp(core->getPluginName(), c.name.c_str()) == 0 && std::strcmp(core->getPluginVersion(), c.version.c_str()) == 0
            && std::strcmp(core->getPluginNamespace(), c.ns.c_str()) == 0,
        c.label() + ": plugin name, version and namespace match the creator's");
    check(build->getNbOutputs() == c.nbOutputs, c.label() + ": getNbOutputs");

    // Output dtypes and format combinations.
    for (auto const& combo : c.combos)
    {
        std::vector<DataType> in(static_cast<size_t>(c.nbInputs));
        std::vector<DataType> out(static_cast<size_t>(c.nbOutputs));
        for (size_t i = 0; i < in.size(); ++i)
            in[i] = static_cast<DataType>(combo[i]);
        check(build->getOutputDataTypes(out.data(), c.nbOutputs, in.data(), c.nbInputs) == 0, c.label() + ": getOutputDataTypes");
        for (int32_t o = 0; o < c.nbOutputs; ++o)
            check(static_cast<int32_t>(out[o]) == combo[c.nbInputs + o], c.label() + ": output " + std::to_string(o) + " dtype " + std::to_string(static_cast<int32_t>(out[o])) + ", expected " + std::to_string(combo[c.nbInputs + o]));
    }
    auto descs = [&](std::vector<int32_t> const& types, std::vector<int32_t> const* formats) {
        std::vector<DynamicPluginTensorDesc> d(static_cast<size_t>(c.nbInputs + c.nbOutputs));
        for (int32_t p = 0; p < c.nbInputs + c.nbOutputs; ++p)
        {
            d[p].desc.type = static_cast<DataType>(types[p]);
            d[p].desc.format = formats != nullptr ? static_cast<TensorFormat>((*formats)[p]) : TensorFormat::kLINEAR;
            d[p].desc.dims = toDims(rankedDims(c, p));
            d[p].min = d[p].max = d[p].opt = d[p].desc.dims;
        }
        return d;
    };
    auto supported = [&](std::vector<DynamicPluginTensorDesc> const& d, int32_t upto) {
        for (int32_t p = 0; p <= upto; ++p)
            if (!build->supportsFormatCombination(p, d.data(), c.nbInputs, c.nbOutputs))
                return p;
        return -1;
    };
    int32_t const last = c.nbInputs + c.nbOutputs - 1;
    for (auto const& combo : c.combos)
        check(supported(descs(combo, nullptr), last) < 0, c.label() + ": supportsFormatCombination refuses an allowed dtype combination at position " + std::to_string(supported(descs(combo, nullptr), last)));
    for (auto const& f : c.formats)
        check(supported(descs(c.combos[0], &f), last) < 0, c.label() + ": supportsFormatCombination refuses an allowed format combination");
    for (auto const& fc : c.formatCases)
        check((supported(descs(fc.types, &fc.formats), last) < 0) == fc.accept,
            c.label() + (fc.accept ? ": supportsFormatCombination refuses a format its rules admit (format " : ": supportsFormatCombination accepts a format its rules refuse (format ")
                + std::to_string(fc.formats[0]) + ", dtype " + std::to_string(fc.types[0]) + ")");
    for (auto const& r : c.rejects)
    {
        auto d = descs(c.combos[0], nullptr);
        d[r.first].desc.type = static_cast<DataType>(r.second);
        check(!build->supportsFormatCombination(r.first, d.data(), c.nbInputs, c.nbOutputs),
            c.label() + ": supportsFormatCombination accepts dtype " + std::to_string(r.second) + " at position " + std::to_string(r.first));
    }

    // Output shapes through IExprBuilder.
    Builder eb;
    std::vector<DimsExprs> ins(static_cast<size_t>(c.nbInputs)), shapes(static_cast<size_t>(c.nbShapeInputs));
    for (int32_t i = 0; i < c.nbInputs; ++i)
    {
        ins[i].nbDims = static_cast<int32_t>(c.inputs[i].size());
        for (size_t j = 0; j < c.inputs[i].size(); ++j)
            ins[i].d[j] = eb.make(c.inputs[i][j], false);
    }
    for (int32_t i = 0; i < c.nbShapeInputs; ++i)
    {
        shapes[i].nbDims = static_cast<int32_t>(c.shapeValues[i].size());
        for (size_t j = 0; j < c.shapeValues[i].size(); ++j)
            shapes[i].d[j] = eb.make(c.shapeValues[i][j], false);
    }
    std::vector<DimsExprs> outs(static_cast<size_t>(c.nbOutputs));
    gFinder.logger.messages.clear();
    int32_t const status = build->getOutputShapes(ins.data(), c.nbInputs, shapes.data(), c.nbShapeInputs, outs.data(), c.nbOutputs, eb);
    check(status == 0, c.label() + ": getOutputShapes failed: " + gFinder.logger.messages);
    if (status == 0)
    {
        for (auto const& [o, want] : c.outputs)
        {
            std::vector<int64_t> got;
            for (int32_t j = 0; j < outs[o].nbDims; ++j)
                got.push_back(outs[o].d[j] != nullptr ? valueOf(outs[o].d[j]) : INT64_MIN);
            check(got == want, c.label() + ": output " + std::to_string(o) + " shape " + str(got) + ", expected " + str(want));
        }
        for (auto const& [o, bounds] : c.sizes)
        {
            auto it = eb.sizes.find(o);
            check(outs[o].nbDims == 0 && it != eb.sizes.end() && it->second.opt == bounds.first && it->second.upper == bounds.second,
                c.label() + ": size tensor " + std::to_string(o) + " is not declared 0-D with opt " + std::to_string(bounds.first) + " and upper " + std::to_string(bounds.second));
        }
    }
    // Counts outside [minInputs, maxInputs] are refused by every method that takes them.
    for (int32_t n : {c.minInputs - 1, c.maxInputs + 1})
    {
        if (c.partial || c.minInputs < 0 || n < 0)
            continue;
        std::string const what = c.label() + " with " + std::to_string(n) + " inputs: ";
        std::vector<DimsExprs> many(static_cast<size_t>(c.maxInputs + 1));
        for (int32_t i = 0; i < c.nbInputs; ++i)
            many[i] = ins[i];
        many[c.maxInputs] = c.nbInputs > 0 ? ins[0] : DimsExprs{};
        std::vector<DimsExprs> outs2(static_cast<size_t>(c.nbOutputs));
        check(build->getOutputShapes(many.data(), n, shapes.data(), c.nbShapeInputs, outs2.data(), c.nbOutputs, eb) != 0, what + "getOutputShapes accepts them");
        std::vector<DataType> inTypes(static_cast<size_t>(c.maxInputs + 1), DataType::kFLOAT), outTypes(static_cast<size_t>(c.nbOutputs));
        check(build->getOutputDataTypes(outTypes.data(), c.nbOutputs, inTypes.data(), n) != 0, what + "getOutputDataTypes accepts them");
        auto d = descs(c.combos[0], nullptr);
        d.resize(static_cast<size_t>(c.maxInputs + 1 + c.nbOutputs));
        check(!build->supportsFormatCombination(0, d.data(), n, c.nbOutputs), what + "supportsFormatCombination accepts them");
        check(build->configurePlugin(d.data(), n, d.data() + n, c.nbOutputs) != 0, what + "configurePlugin accepts them");
    }
    if (c.workspace >= 0)
    {
        auto d = descs(c.combos[0], nullptr);
        size_t const ws = build->getWorkspaceSize(d.data(), c.nbInputs, d.data() + c.nbInputs, c.nbOutputs);
        check(static_cast<int64_t>(ws) == c.workspace, c.label() + ": getWorkspaceSize " + std::to_string(ws) + ", expected " + std::to_string(c.workspace));
    }
#if NV_TENSORRT_MAJOR > 10 || NV_TENSORRT_MINOR >= 3
    if (!c.aliases.empty())
    {
        check(build->getInterfaceInfo().major == 2, c.label() + ": the build capability is IPluginV3OneBuildV2");
        auto* v2 = static_cast<IPluginV3OneBuildV2*>(build);
        for (auto const& a : c.aliases)
            check(v2->getAliasedInput(a.first) == a.second, c.label() + ": getAliasedInput(" + std::to_string(a.first) + ")");
        check(v2->getAliasedInput(c.nbOutputs) == -1, c.label() + ": getAliasedInput of no output");
    }
#endif
    {
        auto d = descs(c.combos[0], nullptr);
        check(build->configurePlugin(d.data(), c.nbInputs, d.data() + c.nbInputs, c.nbOutputs) == 0, c.label() + ": configurePlugin");
        std::vector<PluginTensorDesc> pd;
        for (auto const& x : d)
            pd.push_back(x.desc);
        gFinder.logger.messages.clear();
        int32_t const changed = rt->onShapeChange(pd.data(), c.nbInputs, pd.data() + c.nbInputs, c.nbOutputs);
        check(changed == 0, c.label() + ": onShapeChange: " + gFinder.logger.messages);
    }
    // Dims that break a relation: configurePlugin fails the build and onShapeChange the run, naming the op.
    for (auto const& v : c.violations)
    {
        auto const kept = c.inputs;
        std::string what = c.label() + " with";
        for (auto const& [i, dims] : v.inputs)
        {
            c.inputs[i] = dims;
            what += " input " + std::to_string(i) + " " + str(dims);
        }
        what += ": ";
        auto d = descs(c.combos[0], nullptr);
        gFinder.logger.messages.clear();
        check(build->configurePlugin(d.data(), c.nbInputs, d.data() + c.nbInputs, c.nbOutputs) != 0 && logged(v.message),
            what + "configurePlugin does not refuse it with \"" + v.message + "\": " + gFinder.logger.messages);
        std::vector<PluginTensorDesc> pd;
        for (auto const& x : d)
            pd.push_back(x.desc);
        gFinder.logger.messages.clear();
        check(rt->onShapeChange(pd.data(), c.nbInputs, pd.data() + c.nbInputs, c.nbOutputs) != 0 && logged(v.message),
            what + "onShapeChange does not refuse it with \"" + v.message + "\": " + gFinder.logger.messages);
        c.inputs = kept;
    }
#if defined(OPFORGE_DRIVER_CUDA)
    if (enqueue)
    {
        runEnqueue(c,
            [&](PluginTensorDesc const* in, PluginTensorDesc const* out, void* const* ib, void* const* ob, void* ws, cudaStream_t s) {
                return rt->enqueue(in, out, ib, ob, ws, s);
            },
            [&](PluginTensorDesc const* in, PluginTensorDesc const* out) { return rt->onShapeChange(in, c.nbInputs, out, c.nbOutputs); });
    }
#else
    (void) enqueue;
#endif
}

// ---- legacy IPluginV2DynamicExt ----

struct V2Deleter
{
    void operator()(IPluginV2* p) const
    {
        if (p != nullptr)
            p->destroy();
    }
};
using V2Ptr = std::unique_ptr<IPluginV2DynamicExt, V2Deleter>;

std::string v2Bytes(IPluginV2DynamicExt const* p)
{
    std::string s(p->getSerializationSize(), '\0');
    p->serialize(&s[0]);
    return s;
}

void checkV2(IPluginCreator* creator, Case& c, bool enqueue)
{
    check(std::strcmp(creator->getPluginVersion(), c.version.c_str()) == 0, c.label() + ": creator version");
    check(std::strcmp(creator->getPluginNamespace(), c.ns.c_str()) == 0, c.label() + ": creator namespace");
    PluginFieldCollection const* names = creator->getFieldNames();
    check(names != nullptr && names->nbFields == static_cast<int32_t>(c.declared.size()), c.label() + ": getFieldNames lists every param");
    V2Ptr base;
    std::string baseBytes;
    for (FieldSet& s : c.sets)
    {
        gFinder.logger.messages.clear();
        std::string const label = c.label() + " fields " + s.label;
        V2Ptr p;
        if (s.runtime)
        {
            // Runtime-phase sets are serialized blobs for V2: build one from the fields.
            std::string blob;
            PluginFieldCollection const* fc = s.collection();
            uint32_t n = static_cast<uint32_t>(fc->nbFields);
            blob.append(reinterpret_cast<char const*>(&n), sizeof n);
            for (int32_t i = 0; i < fc->nbFields; ++i)
            {
                PluginField const& f = fc->fields[i];
                uint32_t len = static_cast<uint32_t>(std::strlen(f.name));
                int32_t type = static_cast<int32_t>(f.type);
                uint64_t bytes = entrySize(f.type) * static_cast<uint64_t>(f.length);
                blob.append(reinterpret_cast<char const*>(&len), sizeof len).append(f.name, len);
                blob.append(reinterpret_cast<char const*>(&type), sizeof type).append(reinterpret_cast<char const*>(&f.length), sizeof f.length);
                blob.append(reinterpret_cast<char const*>(&bytes), sizeof bytes).append(static_cast<char const*>(f.data), bytes);
            }
            p.reset(static_cast<IPluginV2DynamicExt*>(creator->deserializePlugin(c.name.c_str(), blob.data(), blob.size())));
        }
        else
        {
            p.reset(static_cast<IPluginV2DynamicExt*>(creator->createPlugin(c.name.c_str(), s.collection())));
        }
        if (!verdict(s, p != nullptr, label))
            continue;
        if (base == nullptr)
        {
            baseBytes = v2Bytes(p.get());
            base = std::move(p);
            continue;
        }
        check(v2Bytes(p.get()) == baseBytes, label + ": serializes differently from " + c.sets[0].label);
    }
    if (base == nullptr)
        return;
    V2Ptr again(static_cast<IPluginV2DynamicExt*>(creator->deserializePlugin(c.name.c_str(), baseBytes.data(), baseBytes.size())));
    check(again != nullptr && v2Bytes(again.get()) == baseBytes, c.label() + ": serialize does not round-trip through deserializePlugin: " + gFinder.logger.messages);
    V2Ptr clone(base->clone());
    check(clone != nullptr && v2Bytes(clone.get()) == baseBytes && std::strcmp(clone->getPluginNamespace(), c.ns.c_str()) == 0, c.label() + ": clone");
    check(std::strcmp(base->getPluginType(), c.name.c_str()) == 0 && std::strcmp(base->getPluginVersion(), c.version.c_str()) == 0, c.label() + ": plugin type and version");
    check(base->getNbOutputs() == c.nbOutputs, c.label() + ": getNbOutputs");
    for (auto const& combo : c.combos)
    {
        std::vector<DataType> in(static_cast<size_t>(c.nbInputs));
        for (int32_t i = 0; i < c.nbInputs; ++i)
            in[i] = static_cast<DataType>(combo[i]);
        for (int32_t o = 0; o < c.nbOutputs; ++o)
            check(static_cast<int32_t>(base->getOutputDataType(o, in.data(), c.nbInputs)) == combo[c.nbInputs + o], c.label() + ": output " + std::to_string(o) + " dtype");
    }
    auto descs = [&](std::vector<int32_t> const& types, std::vector<int32_t> const* formats) {
        std::vector<PluginTensorDesc> d(static_cast<size_t>(c.nbInputs + c.nbOutputs));
        for (int32_t p = 0; p < c.nbInputs + c.nbOutputs; ++p)
        {
            d[p].type = static_cast<DataType>(types[p]);
            d[p].format = formats != nullptr ? static_cast<TensorFormat>((*formats)[p]) : TensorFormat::kLINEAR;
            d[p].dims = toDims(rankedDims(c, p));
            d[p].scale = -1.0F;
        }
        return d;
    };
    auto supported = [&](std::vector<PluginTensorDesc> const& d) {
        for (int32_t p = 0; p < c.nbInputs + c.nbOutputs; ++p)
            if (!base->supportsFormatCombination(p, d.data(), c.nbInputs, c.nbOutputs))
                return p;
        return -1;
    };
    for (auto const& combo : c.combos)
        check(supported(descs(combo, nullptr)) < 0, c.label() + ": supportsFormatCombination refuses an allowed dtype combination");
    for (auto const& f : c.formats)
        check(supported(descs(c.combos[0], &f)) < 0, c.label() + ": supportsFormatCombination refuses an allowed format combination");
    for (auto const& fc : c.formatCases)
        check((supported(descs(fc.types, &fc.formats)) < 0) == fc.accept,
            c.label() + (fc.accept ? ": supportsFormatCombination refuses a format its rules admit (format " : ": supportsFormatCombination accepts a format its rules refuse (format ")
                + std::to_string(fc.formats[0]) + ", dtype " + std::to_string(fc.types[0]) + ")");
    for (auto const& r : c.rejects)
    {
        auto d = descs(c.combos[0], nullptr);
        d[r.first].type = static_cast<DataType>(r.second);
        check(!base->supportsFormatCombination(r.first, d.data(), c.nbInputs, c.nbOutputs),
            c.label() + ": supportsFormatCombination accepts dtype " + std::to_string(r.second) + " at position " + std::to_string(r.first));
    }
    Builder eb;
    std::vector<DimsExprs> ins(static_cast<size_t>(c.nbInputs));
    for (int32_t i = 0; i < c.nbInputs; ++i)
    {
        ins[i].nbDims = static_cast<int32_t>(c.inputs[i].size());
        for (size_t j = 0; j < c.inputs[i].size(); ++j)
            ins[i].d[j] = eb.make(c.inputs[i][j], false);
    }
    for (int32_t n : {c.minInputs - 1, c.maxInputs + 1})
    {
        if (c.partial || c.minInputs < 0 || n < 0)
            continue;
        std::string const what = c.label() + " with " + std::to_string(n) + " inputs: ";
        std::vector<DimsExprs> many(static_cast<size_t>(c.maxInputs + 1));
        for (int32_t i = 0; i < c.nbInputs; ++i)
            many[i] = ins[i];
        many[c.maxInputs] = c.nbInputs > 0 ? ins[0] : DimsExprs{};
        if (!c.outputs.empty() && !c.outputs.begin()->second.empty())
            check(base->getOutputDimensions(c.outputs.begin()->first, many.data(), n, eb).nbDims == 0, what + "getOutputDimensions accepts them");
        auto d = descs(c.combos[0], nullptr);
        d.resize(static_cast<size_t>(c.maxInputs + 1 + c.nbOutputs));
        check(!base->supportsFormatCombination(0, d.data(), n, c.nbOutputs), what + "supportsFormatCombination accepts them");
    }
    for (auto const& [o, want] : c.outputs)
    {
        DimsExprs out = base->getOutputDimensions(o, ins.data(), c.nbInputs, eb);
        std::vector<int64_t> got;
        for (int32_t j = 0; j < out.nbDims; ++j)
            got.push_back(out.d[j] != nullptr ? valueOf(out.d[j]) : INT64_MIN);
        check(got == want, c.label() + ": output " + std::to_string(o) + " shape " + str(got) + ", expected " + str(want));
    }
    if (c.workspace >= 0)
    {
        auto d = descs(c.combos[0], nullptr);
        size_t const ws = base->getWorkspaceSize(d.data(), c.nbInputs, d.data() + c.nbInputs, c.nbOutputs);
        check(static_cast<int64_t>(ws) == c.workspace, c.label() + ": getWorkspaceSize " + std::to_string(ws) + ", expected " + std::to_string(c.workspace));
    }
    // Dims that break a relation: configurePlugin (which cannot fail here) logs it, naming the op.
    for (auto const& v : c.violations)
    {
        auto const kept = c.inputs;
        std::string what = c.label() + " with";
        for (auto const& [i, dims] : v.inputs)
        {
            c.inputs[i] = dims;
            what += " input " + std::to_string(i) + " " + str(dims);
        }
        auto pd = descs(c.combos[0], nullptr);
        std::vector<DynamicPluginTensorDesc> d(pd.size());
        for (size_t p = 0; p < pd.size(); ++p)
        {
            d[p].desc = pd[p];
            d[p].min = d[p].max = d[p].opt = pd[p].dims;
        }
        gFinder.logger.messages.clear();
        base->configurePlugin(d.data(), c.nbInputs, d.data() + c.nbInputs, c.nbOutputs);
        check(logged(v.message), what + ": configurePlugin does not log \"" + v.message + "\": " + gFinder.logger.messages);
        c.inputs = kept;
    }
#if defined(OPFORGE_DRIVER_CUDA)
    if (enqueue)
    {
        runEnqueue(c,
            [&](PluginTensorDesc const* in, PluginTensorDesc const* out, void* const* ib, void* const* ob, void* ws, cudaStream_t s) {
                return base->enqueue(in, out, ib, ob, ws, s);
            },
            [&](PluginTensorDesc const* in, PluginTensorDesc const* out) {
                // configurePlugin runs before execution: the plugin learns how many inputs it has.
                std::vector<DynamicPluginTensorDesc> d(static_cast<size_t>(c.nbInputs + c.nbOutputs));
                for (int32_t p = 0; p < c.nbInputs + c.nbOutputs; ++p)
                {
                    d[p].desc = p < c.nbInputs ? in[p] : out[p - c.nbInputs];
                    d[p].min = d[p].max = d[p].opt = d[p].desc.dims;
                }
                base->configurePlugin(d.data(), c.nbInputs, d.data() + c.nbInputs, c.nbOutputs);
                return 0;
            });
    }
#else
    (void) enqueue;
#endif
}

} // namespace

//! What libnvinfer exports; the driver is linked with -rdynamic so that a plugin library built with
//! REGISTER_TENSORRT_PLUGIN resolves it here.
extern "C" TENSORRTAPI IPluginRegistry* getPluginRegistry() noexcept
{
    return &gRegistry;
}

int main(int argc, char** argv)
{
    if (argc < 3)
    {
        std::fprintf(stderr, "usage: %s <plugin library> <cases file> [--enqueue]\n", argv[0]);
        return 2;
    }
    bool const enqueue = argc > 3 && std::strcmp(argv[3], "--enqueue") == 0;
#if !defined(OPFORGE_DRIVER_CUDA)
    if (enqueue)
    {
        std::fprintf(stderr, "--enqueue needs a driver built with -DOPFORGE_DRIVER_CUDA\n");
        return 2;
    }
#endif
    // As IPluginRegistry::loadLibrary does: dlopen, then the entry points by name.
    void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr)
    {
        std::fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
        return 1;
    }
    using GetCreators = IPluginCreatorInterface* const* (*) (int32_t&);
    using SetLoggerFinder = void (*)(ILoggerFinder*);
    auto getCreators = reinterpret_cast<GetCreators>(dlsym(lib, "getCreators"));
    auto getPluginCreators = reinterpret_cast<GetCreators>(dlsym(lib, "getPluginCreators"));
    auto setLoggerFinder = reinterpret_cast<SetLoggerFinder>(dlsym(lib, "setLoggerFinder"));
    check(getCreators != nullptr, "the library exports getCreators");
    check(getPluginCreators != nullptr, "the library exports getPluginCreators");
    check(setLoggerFinder != nullptr, "the library exports setLoggerFinder");
    if (getCreators == nullptr || setLoggerFinder == nullptr)
        return 1;
    setLoggerFinder(&gFinder);
    int32_t nb = 0;
    IPluginCreatorInterface* const* creators = getCreators(nb);
    int32_t nbOld = -1;
    if (getPluginCreators != nullptr)
    {
        IPluginCreatorInterface* const* old = getPluginCreators(nbOld);
        check(nbOld == nb && (nb == 0 || old[0] == creators[0]), "getPluginCreators returns the creators of getCreators");
    }
    std::vector<Case> cases = parse(argv[2]);
    // One creator per op. A rank-polymorphic op has one case per rank, one after another, and an op
    // with optional inputs partial cases (fewer inputs) checking the same creator again: the ops are
    // the full cases whose plugin differs from the op before.
    std::vector<Case const*> ops;
    for (Case const& c : cases)
        if (!c.partial && (ops.empty() || ops.back()->name != c.name || ops.back()->version != c.version || ops.back()->ns != c.ns))
            ops.push_back(&c);
    check(nb == static_cast<int32_t>(ops.size()), "getCreators returns one creator per op");
    // Static registration happened in dlopen: one registerCreator per op, namespace "" (the creators
    // carry theirs), or none at all.
    check(gRegistry.registered.size() == (gStatic != 0 ? ops.size() : 0),
        "REGISTER_TENSORRT_PLUGIN registered " + std::to_string(gRegistry.registered.size()) + " creators; expected " + std::to_string(gStatic != 0 ? ops.size() : 0));
    for (size_t i = 0; i < gRegistry.registered.size() && i < ops.size(); ++i)
        check(gRegistry.registered[i].first == ops[i]->name && gRegistry.registered[i].second.empty(),
            "registration " + std::to_string(i) + ": " + gRegistry.registered[i].first + " in \"" + gRegistry.registered[i].second + "\"");
    for (Case& c : cases)
    {
        IPluginCreatorInterface* found = nullptr;
        for (int32_t i = 0; i < nb; ++i)
        {
            InterfaceInfo const info = creators[i]->getInterfaceInfo();
            bool const v3 = std::strcmp(info.kind, "PLUGIN CREATOR_V3ONE") == 0;
            char const* name = v3 ? static_cast<IPluginCreatorV3One*>(creators[i])->getPluginName()
                                  : static_cast<IPluginCreator*>(creators[i])->getPluginName();
            if (c.name == name)
            {
                found = creators[i];
                check(v3 != c.legacy, c.label() + ": creator kind " + info.kind);
            }
        }
        check(found != nullptr, c.label() + ": no creator with this name");
        if (found == nullptr)
            continue;
        int const before = gFailures;
        if (c.legacy)
            checkV2(static_cast<IPluginCreator*>(found), c, enqueue);
        else
            checkV3(static_cast<IPluginCreatorV3One*>(found), c, enqueue);
        std::printf("%s %s\n", gFailures == before ? "ok  " : "FAIL", c.label().c_str());
    }
    std::printf("%d checks, %d failed\n", gChecks, gFailures);
    return gFailures == 0 ? 0 : 1;
}
