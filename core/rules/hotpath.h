/* hotpath.h — small helpers the games' hot paths (legal-action generation, apply) share. */
#ifndef MEEPLE_HOTPATH_H
#define MEEPLE_HOTPATH_H

#include <stdint.h>
#include <string.h>

/* Keeps a rare path out of a hot function: inlined, its arrays and variables would cost the hot
 * function a larger frame and register saves on every call. ALWAYS_INLINED: a small function called
 * once an action inside a loop over a decision's actions, where a call costs as much as its work. */
#if defined(__GNUC__)
#define NOT_INLINED __attribute__((noinline))
#define ALWAYS_INLINED __attribute__((always_inline))
#else
#define NOT_INLINED
#define ALWAYS_INLINED
#endif

/* The lowest set bit's index of a mask that is not 0. */
static inline int lowest_bit64(uint64_t mask) {
#if defined(__GNUC__)
    return __builtin_ctzll(mask);
#else
    int i = 0;
    while (!(mask >> i & 1)) i++;
    return i;
#endif
}
static inline int lowest_bit(unsigned mask) { return lowest_bit64(mask); }

/* The highest set bit's index of a mask that is not 0. */
static inline int highest_bit(uint32_t mask) {
#if defined(__GNUC__)
    return 31 - __builtin_clz(mask);
#else
    int i = 31;
    while (!(mask >> i & 1)) i--;
    return i;
#endif
}

/* ---- a few bytes as one word: byte i in bits 8i to 8i + 7, whatever the machine's byte order ---- */

/* The four bytes at p: one load where the machine is little-endian. */
static inline uint32_t load_le32(const uint8_t *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t x;
    memcpy(&x, p, sizeof x);
    return x;
#else
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}

/* The first min(n, 8) bytes at p (the rest 0): one load where the machine is little-endian and 8
 * bytes are there to read. */
static inline uint64_t load_le_upto8(const uint8_t *p, int n) {
    uint64_t x = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n >= 8) {
        memcpy(&x, p, sizeof x);
        return x;
    }
#endif
    for (int i = (n < 8 ? n : 8) - 1; i >= 0; i--) x = x << 8 | p[i];
    return x;
}

/* Bit i set when byte i of x is not 0: each byte's test kept from carrying into the next, then the
 * flags gathered by one multiplication (its products are distinct bits, so none carries either). */
static inline unsigned bytes_nonzero32(uint32_t x) {
    uint32_t flags = (((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x) & 0x80808080;
    return (flags >> 7) * 0x10204080u >> 28;
}
static inline unsigned bytes_nonzero64(uint64_t x) {
    uint64_t flags = (((x & 0x7f7f7f7f7f7f7f7full) + 0x7f7f7f7f7f7f7f7full) | x) & 0x8080808080808080ull;
    return (unsigned)((flags >> 7) * 0x0102040810204080ull >> 56);
}

#endif
