/* Control-register and RFLAGS bits (SDM vol.3 2.5, 2.3). Shared with assembly. */
#ifndef INC_CR_H
#define INC_CR_H

#define CR0_PE          0x00000001
#define CR0_MP          0x00000002
#define CR0_EM          0x00000004
#define CR0_TS          0x00000008
#define CR0_ET          0x00000010
#define CR0_NE          0x00000020
#define CR0_WP          0x00010000
#define CR0_AM          0x00040000
#define CR0_NW          0x20000000
#define CR0_CD          0x40000000
#define CR0_PG          0x80000000

#define CR4_VME         0x00000001
#define CR4_PVI         0x00000002
#define CR4_TSD         0x00000004
#define CR4_DE          0x00000008
#define CR4_PSE         0x00000010
#define CR4_PAE         0x00000020
#define CR4_MCE         0x00000040
#define CR4_PGE         0x00000080
#define CR4_PCE         0x00000100
#define CR4_OSFXSR      0x00000200
#define CR4_OSXMMEXCPT  0x00000400

#define RFLAGS_CF       0x00000001
#define RFLAGS_FIXED1   0x00000002
#define RFLAGS_TF       0x00000100
#define RFLAGS_IF       0x00000200
#define RFLAGS_DF       0x00000400
#define RFLAGS_IOPL3    0x00003000
#define RFLAGS_NT       0x00004000
#define RFLAGS_RF       0x00010000
#define RFLAGS_VM       0x00020000
#define RFLAGS_AC       0x00040000

/* page-table entry bits */
#define PTE_P           0x001
#define PTE_W           0x002
#define PTE_U           0x004
#define PTE_PWT         0x008
#define PTE_PCD         0x010
#define PTE_A           0x020
#define PTE_PS          0x080

#endif
