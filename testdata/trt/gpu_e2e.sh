#!/usr/bin/env bash
# End-to-end run of the shipped VisionOps TensorRT plugins on a GPU, without Go and without libnvinfer:
# builds testdata/gen/examples/out/trt/VisionOps/libVisionOps.so (nvcc for the kernels, g++ for the plugins, the package's
# version script), builds testdata/trt/driver/trt_driver.cpp with CUDA, checks the library's exports,
# then runs the driver: every check of the Go tests (fields in both encodings, serialization round
# trips, dtypes, formats, shapes through IExprBuilder, size tensors) and, with --enqueue, onShapeChange
# and enqueue for every dtype combination on cudaMalloc'ed buffers: outputs are prefilled with 0xff and
# must come back all zeros, which is what the default kernel bodies (the "launch" regions) write.
#
# usage: testdata/trt/gpu_e2e.sh <TensorRT include dir> [--build-only]
#
#   NVCC       nvcc to use (default: $CUDA_HOME/bin/nvcc, nvcc on PATH, /usr/local/cuda/bin/nvcc, or the
#              nvidia-cuda-nvcc wheel in .venv, CUDA 13, which needs a driver for CUDA 13); its CUDA
#              runtime must not be newer than the GPU driver supports
#   CUDA_ARCH  -arch for the kernels (default: native, the GPUs of this machine)
#   CXX        host compiler (default: g++)
#   KEEP=1     keep the build directory
set -euo pipefail

if [[ $# -lt 1 ]]; then
  sed -n '2,19p' "$0" >&2
  exit 2
fi
TRT_INCLUDE=$1
BUILD_ONLY=${2:-}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PKG=$ROOT/testdata/gen/examples/out/trt/VisionOps  # the examples' copy: never the workspace's out/
CASES=$ROOT/testdata/trt/VisionOps.cases
CXX=${CXX:-g++}
ARCH=${CUDA_ARCH:-native}

[[ -f $TRT_INCLUDE/NvInferRuntime.h ]] || { echo "no NvInferRuntime.h in $TRT_INCLUDE" >&2; exit 1; }

nvcc=${NVCC:-}
if [[ -z $nvcc ]]; then
  for c in "${CUDA_HOME:-/nonexistent}/bin/nvcc" "$(command -v nvcc || true)" /usr/local/cuda/bin/nvcc \
    "$ROOT"/.venv/lib/python3*/site-packages/nvidia/cu13/bin/nvcc; do
    if [[ -n $c && -x $c ]]; then nvcc=$c; break; fi
  done
fi
[[ -n $nvcc ]] || { echo "no nvcc: set NVCC or CUDA_HOME" >&2; exit 1; }
cuda_root=$(cd "$(dirname "$nvcc")/.." && pwd)
cuda_include=""
for d in "$cuda_root/include" "$cuda_root/targets/x86_64-linux/include" /usr/local/cuda/include; do
  if [[ -f $d/cuda_runtime_api.h ]]; then cuda_include=$d; break; fi
done
cuda_lib=""
for d in "$cuda_root/lib64" "$cuda_root/lib" "$cuda_root/targets/x86_64-linux/lib" /usr/local/cuda/lib64; do
  if [[ -f $d/libcudart_static.a ]]; then cuda_lib=$d; break; fi
done
[[ -n $cuda_include && -n $cuda_lib ]] || { echo "no cuda_runtime_api.h or libcudart_static.a beside $nvcc" >&2; exit 1; }
echo "nvcc:     $nvcc ($("$nvcc" --version | tail -1))"
echo "TensorRT: $TRT_INCLUDE ($(grep -E '^#define (NV_TENSORRT|TRT)_(MAJOR|MINOR|PATCH)[A-Z_]* +[0-9]+' "$TRT_INCLUDE/NvInferVersion.h" | awk '{printf "%s ", $3}'))"

build=$(mktemp -d)
if [[ ${KEEP:-} != 1 ]]; then trap 'rm -rf "$build"' EXIT; else echo "build:    $build"; fi
flags=(-std=c++17 -Wall -Werror -Wno-deprecated-declarations -isystem "$TRT_INCLUDE" -isystem "$cuda_include")

objs=()
for cu in "$PKG"/src/ops/*.cu; do
  o=$build/$(basename "$cu" .cu).cu.o
  "$nvcc" -std=c++17 -O2 -arch="$ARCH" -Xcompiler -fPIC,-Wall -c "$cu" -o "$o"
  objs+=("$o")
done
for cpp in "$PKG"/src/*.cpp "$PKG"/src/ops/*.cpp; do
  o=$build/$(basename "$cpp" .cpp).o
  "$CXX" "${flags[@]}" -O2 -fPIC -fvisibility=hidden -c "$cpp" -o "$o"
  objs+=("$o")
done
lib=$build/libVisionOps.so
"$CXX" -shared -o "$lib" "${objs[@]}" -Wl,--version-script="$PKG/VisionOps.map" -Wl,--no-undefined \
  -L"$cuda_lib" -l:libcudart_static.a -ldl -lpthread -lrt
exports=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TWDB]$/ {print $3}' | sort | tr '\n' ' ')
if [[ $exports != "getCreators getPluginCreators setLoggerFinder " ]]; then
  echo "libVisionOps.so exports: $exports; expected getCreators getPluginCreators setLoggerFinder" >&2
  exit 1
fi
echo "built:    $lib (exports $exports)"

driver=$build/trt_driver
"$CXX" "${flags[@]}" -O1 -DOPFORGE_DRIVER_CUDA -rdynamic "$ROOT/testdata/trt/driver/trt_driver.cpp" -o "$driver" \
  -L"$cuda_lib" -l:libcudart_static.a -ldl -lpthread -lrt
echo "built:    $driver"
if [[ $BUILD_ONLY == --build-only ]]; then
  "$driver" "$lib" "$CASES"
  exit 0
fi
"$driver" "$lib" "$CASES" --enqueue
