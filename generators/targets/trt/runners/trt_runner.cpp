// opforge verify's TensorRT C++ runner (written for opforge; no vendor code). Runs one plugin of a
// built plugin library on one case, loading the library the way TensorRT does, without libnvinfer:
// dlopen, setLoggerFinder, getCreators, the creator found by name, namespace and version,
// createPlugin from fields, then (IPluginV3) getOutputDataTypes, supportsFormatCombination,
// getOutputShapes through an IExprBuilder that evaluates, configurePlugin, getWorkspaceSize,
// onShapeChange and enqueue on cudaMalloc'ed buffers, or the same steps of IPluginV2DynamicExt.
//
//   opforge_trt_runner --probe                  (exit 0 when a CUDA device is usable)
//   opforge_trt_runner <library.so> <request>
//
// The request file, one item a line:
//   plugin <name> <namespace> <version>          ("-" for an empty namespace)
//   field <name> <PluginFieldType> <length> <hex bytes>
//   in <DataType> <rank> <dims...> <file>        (the input's bytes, row-major)
//   out <DataType> <rank> <dims...> <file>       (written with the output's bytes)
// Exit status: 0 ran, 1 an error (printed on stderr), 3 no CUDA device, 4 the plugin does not take
// this dtype combination (printed).

#include "NvInferRuntime.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#if NV_TENSORRT_MAJOR < 10
#error "opforge verify needs TensorRT >= 10 headers"
#endif

using namespace nvinfer1;

namespace
{

class CaptureLogger : public ILogger
{
public:
    void log(Severity severity, AsciiChar const* msg) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            messages += msg;
            messages += "; ";
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

class Dim : public IDimensionExpr
{
public:
    explicit Dim(int64_t value, bool constant)
    {
        mV.value = value;
        mV.constant = constant;
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
            return false;
        }
    } mV;
};

int64_t valueOf(IDimensionExpr const* e)
{
    return e == nullptr ? INT64_MIN : static_cast<Dim const*>(e)->value();
}

//! TensorRT's IExprBuilder, each expression carrying its value.
class Builder : public IExprBuilder
{
public:
    Builder()
    {
        mI.b = this;
        mImpl = &mI;
    }
    Dim const* make(int64_t v, bool constant)
    {
        mPool.emplace_back(new Dim(v, constant));
        return mPool.back().get();
    }

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
        IDimensionExpr const* declareSizeTensor(int32_t, IDimensionExpr const&, IDimensionExpr const& upper) override
        {
            return b->make(valueOf(&upper), false);
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

struct Tensor
{
    int32_t type{};
    std::vector<int64_t> dims;
    std::string file;
    void* device{};
    size_t bytes{};
};

struct Request
{
    std::string name, ns, version;
    std::vector<std::string> fieldNames;
    std::vector<std::vector<uint8_t>> fieldData;
    std::vector<PluginField> fields;
    std::vector<Tensor> in, out;
};

[[noreturn]] void fail(std::string const& what, int code = 1)
{
    std::fprintf(stderr, "%s%s%s\n", what.c_str(), gFinder.logger.messages.empty() ? "" : "; TensorRT log: ",
        gFinder.logger.messages.c_str());
    std::exit(code);
}

void cuda(cudaError_t e, char const* what)
{
    if (e != cudaSuccess)
        fail(std::string(what) + ": " + cudaGetErrorString(e));
}

std::vector<uint8_t> unhex(std::string const& s)
{
    std::vector<uint8_t> out;
    if (s == "-")
        return out;
    for (size_t i = 0; i + 1 < s.size(); i += 2)
        out.push_back(static_cast<uint8_t>(std::stoul(s.substr(i, 2), nullptr, 16)));
    return out;
}

Request parse(char const* path)
{
    std::ifstream f(path);
    if (!f)
        fail(std::string("cannot read ") + path);
    Request r;
    std::string line;
    while (std::getline(f, line))
    {
        std::istringstream in(line);
        std::string kind;
        in >> kind;
        if (kind == "plugin")
        {
            in >> r.name >> r.ns >> r.version;
            if (r.ns == "-")
                r.ns.clear();
        }
        else if (kind == "field")
        {
            std::string name, hex;
            int32_t type = 0, length = 0;
            in >> name >> type >> length >> hex;
            r.fieldNames.push_back(name);
            r.fieldData.push_back(unhex(hex));
            r.fields.push_back(PluginField{nullptr, nullptr, static_cast<PluginFieldType>(type), length});
        }
        else if (kind == "in" || kind == "out")
        {
            Tensor t;
            int32_t rank = 0;
            in >> t.type >> rank;
            t.dims.resize(static_cast<size_t>(rank));
            for (auto& d : t.dims)
                in >> d;
            in >> t.file;
            (kind == "in" ? r.in : r.out).push_back(t);
        }
        else if (!kind.empty())
            fail("bad request line: " + line);
    }
    for (size_t i = 0; i < r.fields.size(); ++i)
    {
        r.fields[i].name = r.fieldNames[i].c_str();
        r.fields[i].data = r.fieldData[i].data();
    }
    return r;
}

size_t typeSize(int32_t t)
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

Dims toDims(std::vector<int64_t> const& v)
{
    Dims d{};
    d.nbDims = static_cast<int32_t>(v.size());
    for (size_t i = 0; i < v.size(); ++i)
        d.d[i] = v[i];
    return d;
}

std::string str(std::vector<int64_t> const& v)
{
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

std::string combo(Request const& r)
{
    std::string s;
    for (auto const* side : {&r.in, &r.out})
        for (auto const& t : *side)
            s += (s.empty() ? "" : ", ") + std::to_string(t.type);
    return "DataType " + s;
}

void allocate(Request& r)
{
    for (auto* side : {&r.in, &r.out})
        for (auto& t : *side)
        {
            size_t n = 1;
            for (int64_t d : t.dims)
                n *= static_cast<size_t>(d);
            t.bytes = n * typeSize(t.type);
            cuda(cudaMalloc(&t.device, t.bytes > 0 ? t.bytes : 1), "cudaMalloc");
        }
    for (auto& t : r.in)
    {
        std::ifstream f(t.file, std::ios::binary);
        std::vector<char> host((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        if (host.size() != t.bytes)
            fail("input file " + t.file + " holds " + std::to_string(host.size()) + " bytes; expected " + std::to_string(t.bytes));
        cuda(cudaMemcpy(t.device, host.data(), t.bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    // Outputs start as all-ones bytes (NaN for floats, -1 for integers): what a kernel leaves
    // unwritten shows.
    for (auto& t : r.out)
        cuda(cudaMemset(t.device, 0xff, t.bytes), "cudaMemset");
}

void writeOutputs(Request const& r)
{
    for (auto const& t : r.out)
    {
        std::vector<char> host(t.bytes);
        cuda(cudaMemcpy(host.data(), t.device, t.bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
        std::ofstream f(t.file, std::ios::binary);
        f.write(host.data(), static_cast<std::streamsize>(host.size()));
        if (!f)
            fail("cannot write " + t.file);
    }
}

void runV3(IPluginCreatorV3One* creator, Request& r, PluginFieldCollection const& fc)
{
    std::unique_ptr<IPluginV3> plugin(creator->createPlugin(r.name.c_str(), &fc, TensorRTPhase::kBUILD));
    if (plugin == nullptr)
        fail("createPlugin returned null");
    // What TensorRT does before the engine runs: a runtime-phase copy through attachToContext.
    auto* build = static_cast<IPluginV3OneBuild*>(plugin->getCapabilityInterface(PluginCapabilityType::kBUILD));
    auto* brt = static_cast<IPluginV3OneRuntime*>(plugin->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
    if (build == nullptr || brt == nullptr)
        fail("the plugin has no build or runtime capability");
    int32_t const nIn = static_cast<int32_t>(r.in.size()), nOut = static_cast<int32_t>(r.out.size());
    if (build->getNbOutputs() != nOut)
        fail("getNbOutputs is " + std::to_string(build->getNbOutputs()) + "; verify expects " + std::to_string(nOut));
    std::vector<DynamicPluginTensorDesc> d(static_cast<size_t>(nIn + nOut));
    for (int32_t p = 0; p < nIn + nOut; ++p)
    {
        Tensor const& t = p < nIn ? r.in[p] : r.out[p - nIn];
        d[p].desc.type = static_cast<DataType>(t.type);
        d[p].desc.format = TensorFormat::kLINEAR;
        d[p].desc.scale = -1.0F;
        d[p].desc.dims = d[p].min = d[p].max = d[p].opt = toDims(t.dims);
    }
    for (int32_t p = 0; p < nIn + nOut; ++p)
        if (!build->supportsFormatCombination(p, d.data(), nIn, nOut))
        {
            std::printf("the plugin does not take %s (position %d refused)\n", combo(r).c_str(), p);
            std::exit(4);
        }
    std::vector<DataType> inTypes(static_cast<size_t>(nIn)), outTypes(static_cast<size_t>(nOut));
    for (int32_t i = 0; i < nIn; ++i)
        inTypes[i] = static_cast<DataType>(r.in[i].type);
    if (build->getOutputDataTypes(outTypes.data(), nOut, inTypes.data(), nIn) != 0)
        fail("getOutputDataTypes failed");
    for (int32_t o = 0; o < nOut; ++o)
        if (static_cast<int32_t>(outTypes[o]) != r.out[o].type)
            fail("getOutputDataTypes gives output " + std::to_string(o) + " DataType " + std::to_string(static_cast<int32_t>(outTypes[o]))
                + "; the opdef says " + std::to_string(r.out[o].type));
    Builder eb;
    std::vector<DimsExprs> ins(static_cast<size_t>(nIn)), outs(static_cast<size_t>(nOut));
    for (int32_t i = 0; i < nIn; ++i)
    {
        ins[i].nbDims = static_cast<int32_t>(r.in[i].dims.size());
        for (size_t j = 0; j < r.in[i].dims.size(); ++j)
            ins[i].d[j] = eb.make(r.in[i].dims[j], false);
    }
    if (build->getOutputShapes(ins.data(), nIn, nullptr, 0, outs.data(), nOut, eb) != 0)
        fail("getOutputShapes failed");
    for (int32_t o = 0; o < nOut; ++o)
    {
        std::vector<int64_t> got;
        for (int32_t j = 0; j < outs[o].nbDims; ++j)
            got.push_back(valueOf(outs[o].d[j]));
        if (got != r.out[o].dims)
            fail("getOutputShapes gives output " + std::to_string(o) + " dims " + str(got) + "; the opdef says " + str(r.out[o].dims));
    }
    if (build->configurePlugin(d.data(), nIn, d.data() + nIn, nOut) != 0)
        fail("configurePlugin failed");
    size_t const ws = build->getWorkspaceSize(d.data(), nIn, d.data() + nIn, nOut);
    NoResources resources;
    std::unique_ptr<IPluginV3> attached(brt->attachToContext(&resources));
    if (attached == nullptr)
        fail("attachToContext returned null");
    auto* rt = static_cast<IPluginV3OneRuntime*>(attached->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
    std::vector<PluginTensorDesc> pd;
    for (auto const& x : d)
        pd.push_back(x.desc);
    if (rt->onShapeChange(pd.data(), nIn, pd.data() + nIn, nOut) != 0)
        fail("onShapeChange failed");
    allocate(r);
    void* workspace = nullptr;
    if (ws > 0)
        cuda(cudaMalloc(&workspace, ws), "cudaMalloc (workspace)");
    std::vector<void const*> ib;
    std::vector<void*> ob;
    for (auto& t : r.in)
        ib.push_back(t.device);
    for (auto& t : r.out)
        ob.push_back(t.device);
    cudaStream_t stream{};
    cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
    if (rt->enqueue(pd.data(), pd.data() + nIn, ib.data(), ob.data(), workspace, stream) != 0)
        fail("enqueue returned an error");
    cuda(cudaStreamSynchronize(stream), "the kernels failed");
    writeOutputs(r);
}

struct V2Deleter
{
    void operator()(IPluginV2* p) const
    {
        if (p != nullptr)
            p->destroy();
    }
};

void runV2(IPluginCreator* creator, Request& r, PluginFieldCollection const& fc)
{
    std::unique_ptr<IPluginV2DynamicExt, V2Deleter> plugin(static_cast<IPluginV2DynamicExt*>(creator->createPlugin(r.name.c_str(), &fc)));
    if (plugin == nullptr)
        fail("createPlugin returned null");
    int32_t const nIn = static_cast<int32_t>(r.in.size()), nOut = static_cast<int32_t>(r.out.size());
    if (plugin->getNbOutputs() != nOut)
        fail("getNbOutputs is " + std::to_string(plugin->getNbOutputs()) + "; verify expects " + std::to_string(nOut));
    std::vector<DynamicPluginTensorDesc> d(static_cast<size_t>(nIn + nOut));
    std::vector<PluginTensorDesc> pd(static_cast<size_t>(nIn + nOut));
    for (int32_t p = 0; p < nIn + nOut; ++p)
    {
        Tensor const& t = p < nIn ? r.in[p] : r.out[p - nIn];
        d[p].desc.type = static_cast<DataType>(t.type);
        d[p].desc.format = TensorFormat::kLINEAR;
        d[p].desc.scale = -1.0F;
        d[p].desc.dims = d[p].min = d[p].max = d[p].opt = toDims(t.dims);
        pd[p] = d[p].desc;
    }
    for (int32_t p = 0; p < nIn + nOut; ++p)
        if (!plugin->supportsFormatCombination(p, pd.data(), nIn, nOut))
        {
            std::printf("the plugin does not take %s (position %d refused)\n", combo(r).c_str(), p);
            std::exit(4);
        }
    std::vector<DataType> inTypes(static_cast<size_t>(nIn));
    for (int32_t i = 0; i < nIn; ++i)
        inTypes[i] = static_cast<DataType>(r.in[i].type);
    Builder eb;
    std::vector<DimsExprs> ins(static_cast<size_t>(nIn));
    for (int32_t i = 0; i < nIn; ++i)
    {
        ins[i].nbDims = static_cast<int32_t>(r.in[i].dims.size());
        for (size_t j = 0; j < r.in[i].dims.size(); ++j)
            ins[i].d[j] = eb.make(r.in[i].dims[j], false);
    }
    for (int32_t o = 0; o < nOut; ++o)
    {
        if (static_cast<int32_t>(plugin->getOutputDataType(o, inTypes.data(), nIn)) != r.out[o].type)
            fail("getOutputDataType gives output " + std::to_string(o) + " another dtype than the opdef");
        DimsExprs e = plugin->getOutputDimensions(o, ins.data(), nIn, eb);
        std::vector<int64_t> got;
        for (int32_t j = 0; j < e.nbDims; ++j)
            got.push_back(valueOf(e.d[j]));
        if (got != r.out[o].dims)
            fail("getOutputDimensions gives output " + std::to_string(o) + " dims " + str(got) + "; the opdef says " + str(r.out[o].dims));
    }
    plugin->configurePlugin(d.data(), nIn, d.data() + nIn, nOut);
    if (plugin->initialize() != 0)
        fail("initialize failed");
    size_t const ws = plugin->getWorkspaceSize(pd.data(), nIn, pd.data() + nIn, nOut);
    allocate(r);
    void* workspace = nullptr;
    if (ws > 0)
        cuda(cudaMalloc(&workspace, ws), "cudaMalloc (workspace)");
    std::vector<void const*> ib;
    std::vector<void*> ob;
    for (auto& t : r.in)
        ib.push_back(t.device);
    for (auto& t : r.out)
        ob.push_back(t.device);
    cudaStream_t stream{};
    cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
    if (plugin->enqueue(pd.data(), pd.data() + nIn, ib.data(), ob.data(), workspace, stream) != 0)
        fail("enqueue returned an error");
    cuda(cudaStreamSynchronize(stream), "the kernels failed");
    writeOutputs(r);
    plugin->terminate();
}

} // namespace

int main(int argc, char** argv)
{
    if (argc == 2 && std::strcmp(argv[1], "--probe") == 0)
    {
        int n = 0;
        cudaError_t const e = cudaGetDeviceCount(&n);
        if (e != cudaSuccess || n == 0)
        {
            std::printf("no usable CUDA device: %s\n", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
            return 3;
        }
        cudaDeviceProp prop{};
        cudaGetDeviceProperties(&prop, 0);
        std::printf("%s\n", prop.name);
        return 0;
    }
    if (argc != 3)
    {
        std::fprintf(stderr, "usage: %s <plugin library> <request> | --probe\n", argv[0]);
        return 2;
    }
    Request r = parse(argv[2]);
    void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr)
        fail(std::string("dlopen: ") + dlerror());
    using GetCreators = IPluginCreatorInterface* const* (*) (int32_t&);
    using SetLoggerFinder = void (*)(ILoggerFinder*);
    auto getCreators = reinterpret_cast<GetCreators>(dlsym(lib, "getCreators"));
    auto setLoggerFinder = reinterpret_cast<SetLoggerFinder>(dlsym(lib, "setLoggerFinder"));
    if (getCreators == nullptr)
        fail("the library exports no getCreators");
    if (setLoggerFinder != nullptr)
        setLoggerFinder(&gFinder);
    int32_t nb = 0;
    IPluginCreatorInterface* const* creators = getCreators(nb);
    PluginFieldCollection fc{static_cast<int32_t>(r.fields.size()), r.fields.data()};
    for (int32_t i = 0; i < nb; ++i)
    {
        InterfaceInfo const info = creators[i]->getInterfaceInfo();
        if (std::strcmp(info.kind, "PLUGIN CREATOR_V3ONE") == 0)
        {
            auto* c = static_cast<IPluginCreatorV3One*>(creators[i]);
            if (r.name == c->getPluginName() && r.ns == c->getPluginNamespace() && r.version == c->getPluginVersion())
            {
                runV3(c, r, fc);
                return 0;
            }
        }
        else
        {
            auto* c = static_cast<IPluginCreator*>(creators[i]);
            if (r.name == c->getPluginName() && r.ns == c->getPluginNamespace() && r.version == c->getPluginVersion())
            {
                runV2(c, r, fc);
                return 0;
            }
        }
    }
    fail("getCreators returns no creator " + r.name + " version " + r.version + " in namespace \"" + r.ns + "\"");
}
