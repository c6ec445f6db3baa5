// opforge's host harness driver: runs one case of an op whose HTP source was compiled with
// opforge_htp_host.h. Written by opforge; not vendor code.
//
//   htp_host REQUEST
//
// REQUEST is text, one item a line, fields separated by spaces:
//   op NAME
//   out DTYPE GROWABLE RANK D... PATH   (the output's allotted dims; GROWABLE 1: a data-dependent
//                                        output, whose dims may grow past them)
//   in DTYPE RANK D... PATH             (PATH holds the elements, row-major, little-endian)
//   param NAME DTYPE COUNT V...         (COUNT 0: a scalar, a [1, 1, 1, 1] tensor; else a
//                                        [1, 1, 1, COUNT] tensor of the COUNT values)
// Outputs, inputs and params in the impl's order (params by DEF_PACKAGE_PARAM_ORDER; a param the
// request leaves out takes the registered default). On success each output's elements are
// written to its PATH and stdout has "dims I D..." per output. Exit status: 0 ran; 2 a bad
// request; 3 the impl returned an error; 5 the impl broke the tensor API's rules (stderr says how).

#include "opforge_htp_host.h"

#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

namespace opforge_host {

// The byte every new tensor's elements start as (the request's "fill"
// line): verify runs each case from two fills, so an output element the
// impl never writes differs between the runs.
unsigned char outputFill = 0;

size_t elementSize(DType t)
{
  switch (t) {
  case DType::Float32: case DType::Int32: case DType::UInt32: return 4;
  case DType::Float16: case DType::Int16: case DType::UInt16: return 2;
  case DType::Int64: return 8;
  default: return 1;
  }
}

DType dtypeOf(const std::string& n, bool* ok)
{
  static const std::map<std::string, DType> names = {
      {"float32", DType::Float32}, {"float16", DType::Float16}, {"int8", DType::Int8},
      {"uint8", DType::UInt8}, {"int16", DType::Int16}, {"uint16", DType::UInt16},
      {"int32", DType::Int32}, {"uint32", DType::UInt32}, {"int64", DType::Int64}, {"bool", DType::Bool}};
  auto it = names.find(n);
  *ok = it != names.end();
  return *ok ? it->second : DType::Float32;
}

void fatal(const char* what, size_t a, size_t b)
{
  std::fprintf(stderr, "host harness: %s (%zu, %zu)\n", what, a, b);
  std::exit(5);
}

std::map<std::string, Impl>& impls()
{
  static std::map<std::string, Impl> m;
  return m;
}

std::map<std::string, std::vector<ParamSpec>>& paramOrders()
{
  static std::map<std::string, std::vector<ParamSpec>> m;
  return m;
}

} // namespace opforge_host

using opforge_host::DType;

static size_t product(const std::vector<size_t>& d)
{
  size_t n = 1;
  for (size_t x : d) {
    n *= x;
  }
  return n;
}

Tensor::Tensor(DType type, std::vector<size_t> dims, std::vector<size_t> max, bool growable)
    : type_(type), dims_(std::move(dims)), max_(std::move(max)), growable_(growable)
{
  data_.assign(product(dims_) * opforge_host::elementSize(type_), opforge_host::outputFill);
}

size_t Tensor::elements() const { return product(dims_); }

bool Tensor::set_dims(const size_t* d)
{
  std::vector<size_t> next(d, d + dims_.size());
  for (size_t i = 0; i < next.size(); ++i) {
    if (!growable_ && next[i] > max_[i]) {
      return false;
    }
  }
  dims_ = next;
  data_.assign(product(dims_) * opforge_host::elementSize(type_), opforge_host::outputFill);
  return true;
}

size_t Tensor::offset(std::initializer_list<size_t> idx) const
{
  if (idx.size() != dims_.size()) {
    opforge_host::fatal("element access with an index count other than the rank", idx.size(), dims_.size());
  }
  size_t off = 0, k = 0;
  for (size_t i : idx) {
    if (i >= dims_[k]) {
      opforge_host::fatal("element index out of bounds (index, dim)", i, dims_[k]);
    }
    off = off * dims_[k] + i;
    ++k;
  }
  return off;
}

template <typename T>
static T fromBytes(const unsigned char* p)
{
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T>
static void toBytes(unsigned char* p, T v)
{
  std::memcpy(p, &v, sizeof v);
}

// v rounded half away from zero and saturated to T's range (NaN gives 0).
template <typename T>
static T saturate(float v)
{
  if (std::isnan(v)) {
    return T(0);
  }
  double const r = std::round(double(v));
  if (r <= double(std::numeric_limits<T>::lowest())) {
    return std::numeric_limits<T>::lowest();
  }
  if (r >= double(std::numeric_limits<T>::max())) {
    return std::numeric_limits<T>::max();
  }
  return T(r);
}

float Tensor::load(size_t off) const
{
  const unsigned char* p = data_.data() + off * opforge_host::elementSize(type_);
  switch (type_) {
  case DType::Float32: return fromBytes<float>(p);
  case DType::Float16: return float(fromBytes<_Float16>(p));
  case DType::Int8: return float(fromBytes<int8_t>(p));
  case DType::UInt8: return float(fromBytes<uint8_t>(p));
  case DType::Int16: return float(fromBytes<int16_t>(p));
  case DType::UInt16: return float(fromBytes<uint16_t>(p));
  case DType::Int32: return float(fromBytes<int32_t>(p));
  case DType::UInt32: return float(fromBytes<uint32_t>(p));
  case DType::Int64: return float(fromBytes<int64_t>(p));
  case DType::Bool: return p[0] != 0 ? 1.0f : 0.0f;
  }
  return 0.0f;
}

void Tensor::store(size_t off, float v)
{
  unsigned char* p = data_.data() + off * opforge_host::elementSize(type_);
  switch (type_) {
  case DType::Float32: toBytes(p, v); break;
  case DType::Float16: toBytes(p, _Float16(v)); break;
  case DType::Int8: toBytes(p, saturate<int8_t>(v)); break;
  case DType::UInt8: toBytes(p, saturate<uint8_t>(v)); break;
  case DType::Int16: toBytes(p, saturate<int16_t>(v)); break;
  case DType::UInt16: toBytes(p, saturate<uint16_t>(v)); break;
  case DType::Int32: toBytes(p, saturate<int32_t>(v)); break;
  case DType::UInt32: toBytes(p, saturate<uint32_t>(v)); break;
  case DType::Int64: toBytes(p, saturate<int64_t>(v)); break;
  case DType::Bool: p[0] = v != 0.0f ? 1 : 0; break;
  }
}

namespace {

int bad(const std::string& why)
{
  std::cerr << "host harness: bad request: " << why << "\n";
  return 2;
}

// A request's tensor: dtype, dims, file.
struct Item {
  DType type;
  std::vector<size_t> dims;
  std::string path;
  bool growable = false;
};

bool readItem(std::istringstream& in, Item& it, bool output)
{
  std::string dt;
  size_t rank = 0;
  int grow = 0;
  in >> dt;
  if (output) {
    in >> grow;
  }
  in >> rank;
  bool ok = false;
  it.type = opforge_host::dtypeOf(dt, &ok);
  it.growable = grow != 0;
  it.dims.resize(rank);
  for (size_t& d : it.dims) {
    in >> d;
  }
  in >> it.path;
  return ok && !in.fail();
}

// The param tensor of a default: a [1, 1, 1, 1] tensor of the scalar's value.
std::unique_ptr<Tensor> fromDefault(const Qnn_Param_t& p)
{
  const Qnn_Scalar_t& s = p.scalarParam;
  DType t = DType::Int32;
  float v = 0.0f;
  switch (s.dataType) {
  case QNN_DATATYPE_FLOAT_32: t = DType::Float32; v = s.floatValue; break;
  case QNN_DATATYPE_INT_8: t = DType::Int8; v = float(s.int8Value); break;
  case QNN_DATATYPE_INT_16: t = DType::Int16; v = float(s.int16Value); break;
  case QNN_DATATYPE_INT_32: t = DType::Int32; v = float(s.int32Value); break;
  case QNN_DATATYPE_UINT_8: t = DType::UInt8; v = float(s.uint8Value); break;
  case QNN_DATATYPE_UINT_16: t = DType::UInt16; v = float(s.uint16Value); break;
  case QNN_DATATYPE_UINT_32: t = DType::UInt32; v = float(s.uint32Value); break;
  case QNN_DATATYPE_BOOL_8: t = DType::Bool; v = float(s.bool8Value); break;
  default: t = DType::Float32; break;
  }
  auto tensor = std::make_unique<Tensor>(t, std::vector<size_t>{1, 1, 1, 1}, std::vector<size_t>{1, 1, 1, 1}, false);
  tensor->operator()(0, 0, 0, 0) = v;
  return tensor;
}

bool readFile(const std::string& path, std::vector<unsigned char>& into)
{
  std::ifstream f(path, std::ios::binary);
  std::vector<unsigned char> data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (!f.good() && !f.eof()) {
    return false;
  }
  if (data.size() != into.size()) {
    return false;
  }
  into = data;
  return true;
}

} // namespace

int main(int argc, char** argv)
{
  if (argc != 2) {
    return bad("usage: htp_host REQUEST");
  }
  std::ifstream req(argv[1]);
  std::string line, opName;
  std::vector<Item> outs, ins;
  std::map<std::string, std::unique_ptr<Tensor>> params;
  while (std::getline(req, line)) {
    std::istringstream in(line);
    std::string kind;
    in >> kind;
    if (kind == "op") {
      in >> opName;
    } else if (kind == "fill") {
      unsigned v = 0;
      in >> v;
      opforge_host::outputFill = static_cast<unsigned char>(v);
    } else if (kind == "out" || kind == "in") {
      Item it;
      if (!readItem(in, it, kind == "out")) {
        return bad(line);
      }
      (kind == "out" ? outs : ins).push_back(it);
    } else if (kind == "param") {
      std::string name, dt;
      size_t count = 0;
      in >> name >> dt >> count;
      bool ok = false;
      DType t = opforge_host::dtypeOf(dt, &ok);
      if (!ok) {
        return bad(line);
      }
      size_t const n = count == 0 ? 1 : count;
      auto p = std::make_unique<Tensor>(t, std::vector<size_t>{1, 1, 1, n}, std::vector<size_t>{1, 1, 1, n}, false);
      for (size_t i = 0; i < n; ++i) {
        double v = 0;
        in >> v;
        p->operator()(0, 0, 0, i) = float(v);
      }
      if (in.fail()) {
        return bad(line);
      }
      params[name] = std::move(p);
    } else if (!kind.empty()) {
      return bad(line);
    }
  }
  auto it = opforge_host::impls().find(opName);
  if (it == opforge_host::impls().end()) {
    return bad("no DEF_PACKAGE_OP registers " + opName);
  }
  const opforge_host::Impl& impl = it->second;
  std::vector<std::unique_ptr<Tensor>> owned;
  std::vector<Tensor*> args;
  for (const Item& o : outs) {
    owned.push_back(std::make_unique<Tensor>(o.type, o.dims, o.dims, o.growable));
    args.push_back(owned.back().get());
  }
  for (const Item& i : ins) {
    owned.push_back(std::make_unique<Tensor>(i.type, i.dims, i.dims, false));
    if (!readFile(i.path, owned.back()->bytes())) {
      return bad("cannot read " + i.path + " as the tensor's bytes");
    }
    args.push_back(owned.back().get());
  }
  for (const opforge_host::ParamSpec& p : opforge_host::paramOrders()[opName]) {
    auto given = params.find(p.name);
    if (given != params.end()) {
      args.push_back(given->second.get());
      continue;
    }
    if (p.mandatory || p.def == nullptr) {
      return bad("param " + p.name + " is required and the request has none");
    }
    owned.push_back(fromDefault(*p.def));
    args.push_back(owned.back().get());
  }
  if (outs.size() != impl.outputs || args.size() != impl.operands) {
    std::ostringstream why;
    why << opName << "'s impl takes " << impl.outputs << " outputs and " << impl.operands - impl.outputs
        << " inputs and params; the request has " << outs.size() << " outputs and " << args.size() - outs.size();
    return bad(why.str());
  }
  GraphStatus const st = impl.call(args);
  if (st != GraphStatus::Success) {
    std::cerr << "host harness: " << opName << "'s impl returned GraphStatus " << int(st) << "\n";
    return 3;
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    std::ofstream f(outs[i].path, std::ios::binary);
    std::vector<unsigned char>& b = args[i]->bytes();
    f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
    std::cout << "dims " << i;
    for (size_t d : args[i]->shape()) {
      std::cout << " " << d;
    }
    std::cout << "\n";
  }
  return 0;
}
