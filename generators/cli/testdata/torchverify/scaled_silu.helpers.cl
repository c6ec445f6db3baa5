// bfloat16 travels as ushort: its float's top 16 bits (rounded to nearest even).
static float __attribute__((overloadable)) load_f(float v) { return v; }
static float __attribute__((overloadable)) load_f(ushort v) { return as_float((uint)v << 16); }
static float __attribute__((overloadable)) to_t(float v, float tag) { return v; }
static ushort __attribute__((overloadable)) to_t(float v, ushort tag) {
  uint b = as_uint(v);
  return (ushort)((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
}
#ifdef cl_khr_fp16
static float __attribute__((overloadable)) load_f(half v) { return (float)v; }
static half __attribute__((overloadable)) to_t(float v, half tag) { return (half)v; }
#endif
