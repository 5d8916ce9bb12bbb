/* SPDX-License-Identifier: Apache-2.0 */
/* pw_options_parse on any option string: never reads or writes out of
 * bounds, accepts only values in each option's documented range, and on
 * refusal leaves one line (no newline, NUL-terminated, within errlen). */
#include "base/options.h"
#include "fuzz_check.h"

#include <string.h>

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 17)
        return 0;
    /* First byte: the error buffer's size (the agent passes 256), sized
     * exactly so that ASan sees a write past it. */
    size_t errlen = 1 + data[0];
    char *err = malloc(errlen);
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    struct pw_options o;
    bool ok = pw_options_parse(text, &o, err, errlen);
    if (ok) {
        CHECK(o.format <= PW_FORMAT_OPENMETRICS, "format %d", (int)o.format);
        CHECK(o.threshold <= (UINT64_C(1) << 40), "threshold %llu", (unsigned long long)o.threshold);
        CHECK(o.interval_ms == 0 || (o.interval_ms >= 10 && o.interval_ms <= 7 * 24 * 3600 * UINT64_C(1000) + 999),
              "interval_ms %llu", (unsigned long long)o.interval_ms);
        CHECK(o.exitcode >= 0 && o.exitcode <= 255, "exitcode %d", o.exitcode);
        CHECK(o.stack >= 0 && o.stack <= 64 && o.javastack >= 0 && o.javastack <= 64, "stack %d javastack %d",
              o.stack, o.javastack);
        CHECK(o.critical_ms <= (UINT64_C(1) << 32), "critical_ms %llu", (unsigned long long)o.critical_ms);
        CHECK(memchr(o.file, '\0', sizeof(o.file)) != NULL && memchr(o.suppress, '\0', sizeof(o.suppress)) != NULL,
              "unterminated path");
        CHECK(strstr(text, "file=") != NULL || o.file[0] == '\0', "file set from nowhere");
    } else {
        size_t n = strnlen(err, errlen);
        CHECK(n < errlen, "error message not terminated within %zu bytes", errlen);
        CHECK(memchr(err, '\n', n) == NULL, "error message spans lines: %s", err);
        CHECK(n > 0 || errlen == 1, "refused without a message");
    }
    free(text);
    free(err);
    return 0;
}
