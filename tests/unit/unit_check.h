/* SPDX-License-Identifier: Apache-2.0 */
/* A failed check prints where and why and ends the test with status 1. */
#ifndef PW_UNIT_CHECK_H
#define PW_UNIT_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                                                       \
    do {                                                                                                       \
        if (!(cond)) {                                                                                         \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);                           \
            fprintf(stderr, __VA_ARGS__);                                                                      \
            fputc('\n', stderr);                                                                               \
            exit(1);                                                                                           \
        }                                                                                                      \
    } while (0)

/* Distinct 16-byte aligned addresses from base up, in no arithmetic order:
 * consecutive ones would hash without a single collision (Fibonacci hashing
 * spreads a progression evenly) and leave probing and deletion untested.
 * fmix32, a bijection, scrambles i. */
static inline uintptr_t
unit_key(uintptr_t base, uint32_t i)
{
    uint32_t h = i;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return base + ((uintptr_t)h << 4);
}

#endif
