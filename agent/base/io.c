/* SPDX-License-Identifier: Apache-2.0 */
#include "base/io.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool
pw_write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        len -= (size_t)w;
    }
    return true;
}

bool
pw_expand_path(const char *pattern, char *out, size_t len)
{
    size_t n = 0;
    for (const char *p = pattern; *p != '\0'; p++) {
        char pid[24];
        const char *piece = p;
        size_t plen = 1;
        if (p[0] == '%' && p[1] == 'p') {
            snprintf(pid, sizeof(pid), "%ld", (long)getpid());
            piece = pid;
            plen = strlen(pid);
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            p++;
        }
        if (n + plen >= len)
            return false;
        memcpy(out + n, piece, plen);
        n += plen;
    }
    out[n] = '\0';
    return true;
}
