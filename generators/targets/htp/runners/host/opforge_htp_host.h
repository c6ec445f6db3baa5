// opforge's host harness: a stand-in for the part of Qualcomm's QNN HTP op package C++ API that
// opforge's generated op sources and their impl regions use, so an op's impl function compiles with
// g++ on the host and runs on plain memory. It is written by opforge from the API's documented
// behaviour (a generic Tensor with rank(), dim(i), float element access through operator(),
// set_dims; GraphStatus results; the registration macros), not from vendor code. It checks a
// kernel's arithmetic; it is not the HTP backend (no layouts, no quantization parameters, no HVX).
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// The results an impl returns.
enum class GraphStatus { Success = 0, ErrorDimensions = 1, ErrorPrecision = 2, ErrorFatal = 3, ErrorUnsupported = 4 };

// The QNN scalar data types a generated default names.
enum Qnn_DataType_t {
  QNN_DATATYPE_INT_8,
  QNN_DATATYPE_INT_16,
  QNN_DATATYPE_INT_32,
  QNN_DATATYPE_INT_64,
  QNN_DATATYPE_UINT_8,
  QNN_DATATYPE_UINT_16,
  QNN_DATATYPE_UINT_32,
  QNN_DATATYPE_UINT_64,
  QNN_DATATYPE_FLOAT_16,
  QNN_DATATYPE_FLOAT_32,
  QNN_DATATYPE_BOOL_8,
};

struct Qnn_Scalar_t {
  Qnn_DataType_t dataType;
  union {
    float floatValue;
    int8_t int8Value;
    int16_t int16Value;
    int32_t int32Value;
    int64_t int64Value;
    uint8_t uint8Value;
    uint16_t uint16Value;
    uint32_t uint32Value;
    uint64_t uint64Value;
    uint8_t bool8Value;
  };
};

enum Qnn_ParamType_t { QNN_PARAMTYPE_SCALAR, QNN_PARAMTYPE_TENSOR };

struct Qnn_Param_t {
  Qnn_ParamType_t paramType;
  const char* name;
  Qnn_Scalar_t scalarParam;
};

// Cost and flag names of the registration macros' alternatives.
enum { GLACIAL, SNAIL, FAST, FREE };
enum { IS_CONST = 1, INHIBIT_CONST_PROP = 2, RESOURCE_HVX = 4 };

class Op; // cost functions take one; the harness never calls them

namespace opforge_host {

// Element types of the harness's tensors.
enum class DType { Float32, Float16, Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, Bool };

size_t elementSize(DType t);
DType dtypeOf(const std::string& name, bool* ok);

// A problem the harness stops the run on (an index out of bounds, a wrong index count): printed,
// then exit status 5.
[[noreturn]] void fatal(const char* what, size_t a, size_t b);

} // namespace opforge_host

// The generic tensor: row-major storage of its current dims, float element access that converts
// from and to the element type (integer types round half away from zero and saturate, as
// quantized tensors of scale 1 and offset 0 would).
class Tensor {
public:
  class Ref {
  public:
    Ref(Tensor* t, size_t off) : t_(t), off_(off) {}
    operator float() const { return t_->load(off_); }
    Ref& operator=(float v)
    {
      t_->store(off_, v);
      return *this;
    }
    Ref& operator=(const Ref& o) { return *this = float(o); }

  private:
    Tensor* t_;
    size_t off_;
  };

  Tensor(opforge_host::DType type, std::vector<size_t> dims, std::vector<size_t> max, bool growable);

  size_t rank() const { return dims_.size(); }
  size_t dim(size_t i) const
  {
    if (i >= dims_.size()) {
      opforge_host::fatal("dim index beyond the rank", i, dims_.size());
    }
    return dims_[i];
  }
  // The four dims of a rank-4 tensor (bhwd); the harness stops the run on another rank rather
  // than guess how HTP pads it.
  std::array<size_t, 4> dims() const
  {
    if (dims_.size() != 4) {
      opforge_host::fatal("dims() of a tensor whose rank is not 4 (rank, 4)", dims_.size(), 4);
    }
    return {dims_[0], dims_[1], dims_[2], dims_[3]};
  }
  // Sets the dims (rank() of them); false when the rank's dims exceed the allotted maximum.
  bool set_dims(const size_t* d);
  bool set_dims(const Tensor& like) { return like.rank() == rank() && set_dims(like.dims_.data()); }

  template <typename... I>
  float operator()(I... idx) const
  {
    static_assert((std::is_integral<I>::value && ...), "indices are integers");
    return load(offset({size_t(idx)...}));
  }
  template <typename... I>
  Ref operator()(I... idx)
  {
    static_assert((std::is_integral<I>::value && ...), "indices are integers");
    return Ref(this, offset({size_t(idx)...}));
  }

  // The harness's side: storage and current dims.
  opforge_host::DType type() const { return type_; }
  const std::vector<size_t>& shape() const { return dims_; }
  std::vector<unsigned char>& bytes() { return data_; }
  size_t elements() const;

private:
  size_t offset(std::initializer_list<size_t> idx) const;
  float load(size_t off) const;
  void store(size_t off, float v);

  opforge_host::DType type_;
  std::vector<size_t> dims_, max_;
  bool growable_;
  std::vector<unsigned char> data_;
};

namespace opforge_host {

// One op's impl, callable with the outputs, then the inputs and params in the impl's order.
struct Impl {
  size_t outputs = 0, operands = 0;
  std::function<GraphStatus(std::vector<Tensor*>&)> call;
};

// A param of DEF_PACKAGE_PARAM_ORDER: its name, whether a graph must pass it, its default.
struct ParamSpec {
  std::string name;
  bool mandatory;
  const Qnn_Param_t* def;
};

std::map<std::string, Impl>& impls();
std::map<std::string, std::vector<ParamSpec>>& paramOrders();

template <typename T>
struct IsOutput : std::integral_constant<bool, !std::is_const<std::remove_reference_t<T>>::value> {};

template <size_t... K, typename... A>
GraphStatus invoke(GraphStatus (*f)(A...), std::vector<Tensor*>& t, std::index_sequence<K...>)
{
  return f(*t[K]...);
}

// Registers an impl: its leading non-const tensors are outputs, the rest inputs then params.
template <typename... A>
bool addImpl(const char* op, GraphStatus (*f)(A...))
{
  Impl impl;
  bool const out[] = {IsOutput<A>::value..., false};
  while (impl.outputs < sizeof...(A) && out[impl.outputs]) {
    ++impl.outputs;
  }
  impl.operands = sizeof...(A);
  impl.call = [f](std::vector<Tensor*>& t) { return invoke(f, t, std::index_sequence_for<A...>{}); };
  impls()[op] = impl;
  return true;
}

inline void addParams(std::vector<ParamSpec>&) {}
template <typename D, typename... R>
void addParams(std::vector<ParamSpec>& v, const char* name, bool mandatory, D def, R... rest)
{
  v.push_back(ParamSpec{name, mandatory, def});
  addParams(v, rest...);
}
template <typename... R>
bool addParamOrder(const char* op, R... spec)
{
  std::vector<ParamSpec>& v = paramOrders()[op];
  v.clear();
  addParams(v, spec...);
  return true;
}

} // namespace opforge_host

#define OPFORGE_HOST_CAT2(a, b) a##b
#define OPFORGE_HOST_CAT(a, b) OPFORGE_HOST_CAT2(a, b)
#define OPFORGE_HOST_UNIQUE OPFORGE_HOST_CAT(opforge_host_reg_, __LINE__)

#define BEGIN_PKG_OP_DEFINITION(name)
#define END_PKG_OP_DEFINITION(name)
#define DEF_PACKAGE_OP(F, OP) [[maybe_unused]] static bool OPFORGE_HOST_UNIQUE = opforge_host::addImpl(OP, F);
#define DEF_PACKAGE_OP_AND_COST_AND_FLAGS(F, OP, ...) DEF_PACKAGE_OP(F, OP)
#define DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS(F, OP, ...) DEF_PACKAGE_OP(F, OP)
#define DEF_PACKAGE_PARAM_ORDER(OP, ...) \
  [[maybe_unused]] static bool OPFORGE_HOST_UNIQUE = opforge_host::addParamOrder(OP, __VA_ARGS__);
