/* SPDX-License-Identifier: Apache-2.0 */
#include "base/memory.h"

#include <stdlib.h>
#include <sys/mman.h>

/* Below this, malloc's rounding costs less than a page's. */
#define MAP_FROM (64 * 1024)

void *
pw_table_alloc(size_t bytes)
{
    if (bytes < MAP_FROM)
        return calloc(1, bytes);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void
pw_table_free(void *p, size_t bytes)
{
    if (p == NULL)
        return;
    if (bytes < MAP_FROM)
        free(p);
    else
        munmap(p, bytes);
}
