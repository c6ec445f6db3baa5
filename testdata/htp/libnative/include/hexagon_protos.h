// opforge test stand-in for the Hexagon tools' libnative hexagon_protos.h (x86 hosts).
//
// Written for opforge from documented facts, not from the vendor header:
//   - the QNN HTP core headers include "hexagon_protos.h" on every host and use the
//     HVX types HVX_Vector, HVX_VectorPair and HVX_VectorPred; on non-Hexagon hosts
//     they read a vector's 32-bit lanes as .uw[i] (32 of them: 128-byte HVX) and a
//     pair's halves as .v[0]/.v[1] (HTP/core/intrinsics.h);
//   - an intrinsic's name says its operand types (Hexagon V6 HVX programmer's
//     reference): Q6_<result>_<op>_<operands>, with V a vector, W a vector pair,
//     Q/Qn a predicate, R a 32-bit scalar, P a 64-bit scalar, A an address;
//   - only the intrinsics the QNN HTP headers name are declared here (the list is
//     held to the headers by opforge's HTP compile test).
// This header lets generated sources compile with the Makefile's x86 flags where
// no Hexagon SDK is installed. It declares; it does not implement: an object that
// calls a vector intrinsic still needs the real libnative at link or load time.
#ifndef OPFORGE_LIBNATIVE_STANDIN_HEXAGON_PROTOS_H
#define OPFORGE_LIBNATIVE_STANDIN_HEXAGON_PROTOS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// One 128-byte HVX vector (the -D__HVXDBL__ length), lane views by element type.
typedef union {
  uint8_t ub[128];
  int8_t b[128];
  uint16_t uh[64];
  int16_t h[64];
  uint32_t uw[32];
  int32_t w[32];
  float sf[32];
  uint64_t ud[16];
  int64_t d[16];
} HVX_Vector;

// Two vectors: v[0] the low half, v[1] the high half.
typedef struct {
  HVX_Vector v[2];
} HVX_VectorPair;

// A vector predicate, one bit per byte lane, held in a vector's storage.
typedef HVX_Vector HVX_VectorPred;

// Scalar intrinsics (R: 32-bit, P: 64-bit; sf: float operand).
int32_t Q6_R_max_RR(int32_t Rs, int32_t Rt);
int32_t Q6_R_min_RR(int32_t Rs, int32_t Rt);
uint32_t Q6_R_maxu_RR(uint32_t Rs, uint32_t Rt);
uint32_t Q6_R_minu_RR(uint32_t Rs, uint32_t Rt);
int32_t Q6_R_add_RR_sat(int32_t Rs, int32_t Rt);
int32_t Q6_R_satb_R(int32_t Rs);
int32_t Q6_R_satub_R(int32_t Rs);
int32_t Q6_R_sath_R(int32_t Rs);
int32_t Q6_R_satuh_R(int32_t Rs);
int32_t Q6_R_combine_RlRl(int32_t Rt, int32_t Rs);
int64_t Q6_P_combine_RR(int32_t Rs, int32_t Rt);
uint32_t Q6_R_convert_sf2uw_R(float Rs);
uint32_t Q6_R_convert_sf2uw_R_chop(float Rs);
int32_t Q6_R_convert_sf2w_R(float Rs);
int64_t Q6_P_convert_sf2d_R(float Rs);
uint64_t Q6_P_convert_sf2ud_R(float Rs);
void Q6_dcfetch_A(void* Rs);

// Predicates.
HVX_VectorPred Q6_Q_or_QQn(HVX_VectorPred Qs, HVX_VectorPred Qt);
HVX_VectorPred Q6_Q_vcmp_eq_VbVb(HVX_Vector Vu, HVX_Vector Vv);
HVX_VectorPred Q6_Q_vcmp_eq_VwVw(HVX_Vector Vu, HVX_Vector Vv);
HVX_VectorPred Q6_Q_vcmp_gt_VhVh(HVX_Vector Vu, HVX_Vector Vv);
HVX_VectorPred Q6_Q_vcmp_gt_VubVub(HVX_Vector Vu, HVX_Vector Vv);
HVX_VectorPred Q6_Q_vcmp_gt_VuhVuh(HVX_Vector Vu, HVX_Vector Vv);
HVX_VectorPred Q6_Q_vcmp_gt_VuwVuw(HVX_Vector Vu, HVX_Vector Vv);
HVX_VectorPred Q6_Q_vcmp_gt_VwVw(HVX_Vector Vu, HVX_Vector Vv);
HVX_VectorPred Q6_Q_vsetq_R(int32_t Rt);
HVX_VectorPred Q6_Q_vsetq2_R(int32_t Rt);

// Vectors and pairs.
HVX_Vector Q6_V_vzero(void);
HVX_Vector Q6_V_vsplat_R(int32_t Rt);
HVX_Vector Q6_Vh_vsplat_R(int32_t Rt);
HVX_Vector Q6_V_vand_QR(HVX_VectorPred Qu, int32_t Rt);
HVX_Vector Q6_V_vand_QV(HVX_VectorPred Qv, HVX_Vector Vu);
HVX_Vector Q6_V_vand_QnV(HVX_VectorPred Qv, HVX_Vector Vu);
HVX_Vector Q6_V_vand_VV(HVX_Vector Vu, HVX_Vector Vv);
HVX_Vector Q6_V_vor_VV(HVX_Vector Vu, HVX_Vector Vv);
HVX_Vector Q6_V_vxor_VV(HVX_Vector Vu, HVX_Vector Vv);
HVX_Vector Q6_V_vlalign_VVR(HVX_Vector Vu, HVX_Vector Vv, int32_t Rt);
HVX_Vector Q6_V_vmux_QVV(HVX_VectorPred Qt, HVX_Vector Vu, HVX_Vector Vv);
HVX_Vector Q6_V_vror_VR(HVX_Vector Vu, int32_t Rt);
HVX_Vector Q6_Vh_equals_Vhf(HVX_Vector Vu);
HVX_Vector Q6_Vh_vadd_VhVh(HVX_Vector Vu, HVX_Vector Vv);
HVX_Vector Q6_Vh_vlut4_VuhPh(HVX_Vector Vu, int64_t Rtt);
HVX_Vector Q6_Vh_vround_VwVw_sat(HVX_Vector Vu, HVX_Vector Vv);
HVX_Vector Q6_Vh_vsat_VwVw(HVX_Vector Vu, HVX_Vector Vv);
HVX_Vector Q6_Vqf32_vadd_Vqf32Vsf(HVX_Vector Vu, HVX_Vector Vv);
HVX_Vector Q6_Vqf32_vadd_VsfVsf(HVX_Vector Vu, HVX_Vector Vv);
HVX_Vector Q6_Vsf_equals_Vqf32(HVX_Vector Vu);
HVX_Vector Q6_Vsf_equals_Vw(HVX_Vector Vu);
HVX_Vector Q6_Vuw_vabsdiff_VwVw(HVX_Vector Vu, HVX_Vector Vv);
HVX_Vector Q6_Vuw_vcl0_Vuw(HVX_Vector Vu);
HVX_Vector Q6_Vuw_vlsr_VuwR(HVX_Vector Vu, int32_t Rt);
HVX_Vector Q6_Vw_condacc_QVwVw(HVX_VectorPred Qv, HVX_Vector Vx, HVX_Vector Vu);
HVX_Vector Q6_Vw_equals_Vsf(HVX_Vector Vu);
HVX_Vector Q6_Vw_vadd_VwVw(HVX_Vector Vu, HVX_Vector Vv);
HVX_Vector Q6_Vw_vasl_VwR(HVX_Vector Vu, int32_t Rt);
HVX_Vector Q6_Vw_vasl_VwVw(HVX_Vector Vu, HVX_Vector Vv);
HVX_Vector Q6_Vw_vasr_VwR(HVX_Vector Vu, int32_t Rt);
HVX_Vector Q6_Vw_vlsr_VwVw(HVX_Vector Vu, HVX_Vector Vv);
HVX_Vector Q6_Vw_vmax_VwVw(HVX_Vector Vu, HVX_Vector Vv);
HVX_Vector Q6_Vw_vmpye_VwVuh(HVX_Vector Vu, HVX_Vector Vv);
HVX_Vector Q6_Vw_vmpyoacc_VwVwVh_s1_rnd_sat_shift(HVX_Vector Vx, HVX_Vector Vu, HVX_Vector Vv);
HVX_Vector Q6_Vw_vmpyoacc_VwVwVh_s1_sat_shift(HVX_Vector Vx, HVX_Vector Vu, HVX_Vector Vv);
HVX_Vector Q6_Vw_vnormamt_Vw(HVX_Vector Vu);
HVX_Vector Q6_Vw_vsub_VwVw(HVX_Vector Vu, HVX_Vector Vv);
HVX_VectorPair Q6_Wqf32_vmpy_VhfVhf(HVX_Vector Vu, HVX_Vector Vv);
void Q6_vmem_QRIV(HVX_VectorPred Qv, HVX_Vector* Rt, HVX_Vector Vs);
void Q6_vmaskedstorentq_QAV(HVX_VectorPred Qv, void* A, HVX_Vector Vs);
void Q6_vmaskedstorentnq_QAV(HVX_VectorPred Qv, void* A, HVX_Vector Vs);

// Intrinsics that are macros over functions, as the QNN headers expect on x86
// hosts (HTP/core/intrinsics.h redefines them when Q6_V_lo_W is a macro).
HVX_Vector opforge_standin_V_lo_W(HVX_VectorPair Vss);
HVX_Vector opforge_standin_V_hi_W(HVX_VectorPair Vss);
HVX_VectorPair opforge_standin_W_vcombine_VV(HVX_Vector Vu, HVX_Vector Vv);
HVX_Vector opforge_standin_Vw_vadd_VwVwQ_carry(HVX_Vector Vu, HVX_Vector Vv, HVX_VectorPred* Qp);
HVX_Vector opforge_standin_Vw_vsub_VwVwQ_carry(HVX_Vector Vu, HVX_Vector Vv, HVX_VectorPred* Qp);
#define Q6_V_lo_W(Vss) opforge_standin_V_lo_W(Vss)
#define Q6_V_hi_W(Vss) opforge_standin_V_hi_W(Vss)
#define Q6_W_vcombine_VV(Vu, Vv) opforge_standin_W_vcombine_VV(Vu, Vv)
#define Q6_Vw_vadd_VwVwQ_carry(Vu, Vv, Qp) opforge_standin_Vw_vadd_VwVwQ_carry(Vu, Vv, Qp)
#define Q6_Vw_vsub_VwVwQ_carry(Vu, Vv, Qp) opforge_standin_Vw_vsub_VwVwQ_carry(Vu, Vv, Qp)

#ifdef __cplusplus
}
#endif

#endif
