/* Debug registers DR6 and DR7 (SDM vol.3 18.2, APM vol.2 13.1.1). */
#ifndef INC_DR_H
#define INC_DR_H

#define DR6_B0          (1ULL << 0)
#define DR6_B1          (1ULL << 1)
#define DR6_B2          (1ULL << 2)
#define DR6_B3          (1ULL << 3)
#define DR6_BN(n)       (1ULL << (n))
#define DR6_BLD         (1ULL << 11)    /* bus-lock detect; active low */
#define DR6_BD          (1ULL << 13)
#define DR6_BS          (1ULL << 14)
#define DR6_BT          (1ULL << 15)
#define DR6_RTM         (1ULL << 16)    /* active low */
/* DR6 as the processor leaves it with no debug condition recorded (SDM vol.3 18.2.3):
 * the reserved bits 4-10 and 17-31 read as 1, bit 12 reads as 0, and the active-low
 * BLD (11) and RTM (16) are 1 when nothing was detected. */
#define DR6_INIT        0xffff0ff0ULL
/* The bits that read as 1 whatever is written, also on a CPU with RTM and bus-lock
 * detection (where a 0 written to BLD or RTM sticks): DR6_INIT without BLD and RTM. */
#define DR6_FIXED1      0xfffe07f0ULL

#define DR7_L(n)        (1ULL << (2 * (n)))
#define DR7_G(n)        (1ULL << (2 * (n) + 1))
#define DR7_LE          (1ULL << 8)
#define DR7_GE          (1ULL << 9)
#define DR7_FIXED1      (1ULL << 10)    /* reads as 1 */
#define DR7_RTM         (1ULL << 11)
#define DR7_GD          (1ULL << 13)
#define DR7_RW_SHIFT(n) (16 + 4 * (n))
#define DR7_LEN_SHIFT(n) (18 + 4 * (n))
#define DR7_RW_EXEC     0ULL
#define DR7_RW_WRITE    1ULL
#define DR7_RW_IO       2ULL            /* only with CR4.DE=1 */
#define DR7_RW_RDWR     3ULL
#define DR7_LEN_1       0ULL
#define DR7_LEN_2       1ULL
#define DR7_LEN_8       2ULL
#define DR7_LEN_4       3ULL
#define DR7_INIT        0x400ULL

#endif
