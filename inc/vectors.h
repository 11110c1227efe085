/* Exception vectors (SDM vol.3 6.3.1, Table 6-1).  Shared with assembly. */
#ifndef INC_VECTORS_H
#define INC_VECTORS_H

#define VEC_DE          0
#define VEC_DB          1
#define VEC_NMI         2
#define VEC_BP          3
#define VEC_UD          6
#define VEC_DF          8
#define VEC_TS          10
#define VEC_NP          11
#define VEC_GP          13
#define VEC_PF          14

/* Vectors for which the processor pushes an error code (Table 6-1). */
#define VEC_HAS_ERR(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

#endif
