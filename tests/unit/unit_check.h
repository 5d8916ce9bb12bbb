/* A failed check prints where and why and ends the test with status 1. */
#ifndef PW_UNIT_CHECK_H
#define PW_UNIT_CHECK_H

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

#endif
