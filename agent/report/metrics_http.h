/* SPDX-License-Identifier: Apache-2.0 */
/* The HTTP the metrics endpoint understands: one request, read whole, of
 * which only "GET /metrics" gets the figures.  Pure parsing, no sockets,
 * so it is tested and fuzzed on its own. */
#ifndef PW_METRICS_HTTP_H
#define PW_METRICS_HTTP_H

#include "base/pinwatch.h"

#include <stddef.h>

/* Largest request accepted, headers included; Prometheus sends ~300 bytes. */
#define PW_METRICS_REQUEST_MAX 8192

/* Where the request's headers end (just past the blank line), or 0 when
 * buf does not hold a whole request head yet. */
PW_HIDDEN size_t pw_http_head_end(const char *buf, size_t len);

struct pw_http_answer {
    int status;       /* 200, 400, 404, 405 */
    bool openmetrics; /* the client accepts application/openmetrics-text */
};

/* The answer to the request head in buf (len bytes, as found by
 * pw_http_head_end). */
PW_HIDDEN struct pw_http_answer pw_http_answer(const char *buf, size_t len);

#endif
