/* SPDX-License-Identifier: Apache-2.0 */
/* The metrics endpoint's request parser (agent/report/metrics_http.c) fed
 * any bytes: the head end lies inside the input and just past a blank
 * line; the answer is one of the statuses the endpoint sends; figures
 * (200) only for a request whose line starts "GET /metrics" and names
 * HTTP/1.0 or 1.1. */
#include "report/metrics_http.h"
#include "fuzz_check.h"

#include <string.h>

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > PW_METRICS_REQUEST_MAX)
        return 0;
    const char *buf = (const char *)data;
    size_t head = pw_http_head_end(buf, size);
    if (head == 0)
        return 0;
    CHECK(head <= size && head >= 2 && buf[head - 1] == '\n' &&
              (buf[head - 2] == '\n' || (head >= 3 && buf[head - 2] == '\r' && buf[head - 3] == '\n')),
          "head end %zu of %zu not after a blank line", head, size);
    struct pw_http_answer a = pw_http_answer(buf, head);
    CHECK(a.status == 200 || a.status == 400 || a.status == 404 || a.status == 405, "status %d", a.status);
    if (a.status == 200) {
        const char *nl = memchr(buf, '\n', head);
        size_t n = (size_t)(nl - buf);
        if (n > 0 && buf[n - 1] == '\r')
            n--;
        CHECK(n >= 21 && memcmp(buf, "GET /metrics", 12) == 0 && (buf[12] == ' ' || buf[12] == '?') &&
                  (memcmp(buf + n - 9, " HTTP/1.1", 9) == 0 || memcmp(buf + n - 9, " HTTP/1.0", 9) == 0),
              "200 for %.*s", (int)n, buf);
    }
    return 0;
}
