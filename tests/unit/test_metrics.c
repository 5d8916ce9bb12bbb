/* SPDX-License-Identifier: Apache-2.0 */
/* The metrics exposition (report_openmetrics.c) and the endpoint's request
 * parser (metrics_http.c) on inputs no JVM produces on demand: label values
 * with quotes, backslashes, newlines, '$', '<init>', non-BMP and broken
 * UTF-8; more rows than the bound; every kind of request.  Exact texts. */
#include "report/metrics_http.h"
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                                                       \
    do {                                                                                                       \
        if (!(cond)) {                                                                                         \
            failures++;                                                                                        \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                        \
            printf(__VA_ARGS__);                                                                               \
            printf("\n");                                                                                      \
        }                                                                                                      \
    } while (0)

static char *
expose(const struct pw_snapshot *snap, size_t rows, bool openmetrics, bool pid_label)
{
    struct pw_strbuf out;
    pw_strbuf_init(&out);
    pw_report_openmetrics(snap, &out,
                          &(struct pw_metrics_style){.rows = rows, .openmetrics = openmetrics, .pid_label = pid_label});
    CHECK(!out.failed, "strbuf failed");
    pw_strbuf_add(&out, "", 1);
    return out.data;
}

static void
expect_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
        if ((p == text || p[-1] == '\n') && p[n] == '\n')
            return;
    CHECK(false, "missing line: %s\n--- in ---\n%s", line, text);
}

static size_t
count(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

static void
test_exposition(void)
{
    struct pw_snap_row rows[4] = {
        {.method = "a.B$Inner.<init>", .signature = "(Ljava/lang/String;)V", .fn = PW_FN_INT_ELEMENTS,
         .acquired = 7, .released = 2, .live = 5, .live_bytes = 500, .leaked = 4},
        {.method = "q\"uote\\back\nline", .signature = "([B)V", .fn = PW_FN_BYTE_ELEMENTS,
         .acquired = 3, .released = 1, .live = 2, .live_bytes = 20},
        /* é, 中, U+1F600, then modified UTF-8 NUL (C0 80), a lone surrogate
         * (ED A0 80), a stray continuation byte and a cut sequence. */
        {.method = "x.\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80.\xc0\x80|\xed\xa0\x80|\x80|\xe4\xb8", .signature = "()V",
         .fn = PW_FN_STRING_CHARS, .acquired = 11, .released = 10, .live = 1, .live_bytes = 8},
        {.method = "z.Z.z", .signature = "()V", .fn = PW_FN_STRING_UTF_CHARS, .acquired = 100, .released = 100},
    };
    struct pw_snapshot snap = {.reason = "metrics", .pid = 4242, .rows = rows, .nrows = 4, .uptime_ms = 61500,
                               .totals = {.unmatched_releases = 3, .lost = 1, .table_bytes = 4096}};
    snap.kinds[0] = (struct pw_snap_kind){"double_release", 2};
    snap.kinds[1] = (struct pw_snap_kind){"long_critical", 0};
    snap.nkinds = 2;

    char *t = expose(&snap, 20, false, false);
    expect_line(t, "# TYPE pinwatch_live_pins gauge");
    expect_line(t, "# TYPE pinwatch_acquired_total counter");
    expect_line(t, "pinwatch_live_pins{method=\"a.B$Inner.<init>\",signature=\"(Ljava/lang/String;)V\","
                   "function=\"GetIntArrayElements\"} 5");
    expect_line(t, "pinwatch_live_pins{method=\"q\\\"uote\\\\back\\nline\",signature=\"([B)V\","
                   "function=\"GetByteArrayElements\"} 2");
    expect_line(t, "pinwatch_acquired_total{method=\"x.\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80.\xef\xbf\xbd\xef\xbf\xbd|"
                   "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd\",signature=\"()V\","
                   "function=\"GetStringChars\"} 11");
    expect_line(t, "pinwatch_leaked_pins{method=\"a.B$Inner.<init>\",signature=\"(Ljava/lang/String;)V\","
                   "function=\"GetIntArrayElements\"} 4");
    expect_line(t, "pinwatch_released_total{method=\"z.Z.z\",signature=\"()V\",function=\"GetStringUTFChars\"} 100");
    expect_line(t, "pinwatch_findings_total{kind=\"double_release\"} 2");
    expect_line(t, "pinwatch_findings_total{kind=\"long_critical\"} 0");
    expect_line(t, "pinwatch_unmatched_releases_total 3");
    expect_line(t, "pinwatch_lost_total 1");
    expect_line(t, "pinwatch_table_bytes 4096");
    expect_line(t, "pinwatch_rows 4");
    expect_line(t, "pinwatch_uptime_seconds 61");
    CHECK(strstr(t, "# EOF") == NULL && strstr(t, "# UNIT") == NULL, "0.0.4 text with OpenMetrics lines");
    CHECK(strstr(t, "pid=") == NULL, "pid label on the endpoint");
    CHECK(strstr(t, "other") == NULL, "an other row within the bound");
    /* Nothing but escaped newlines inside a line: every line is a comment
     * or a sample. */
    for (const char *p = t; *p != '\0'; p = strchr(p, '\n') + 1)
        CHECK(p[0] == '#' || strncmp(p, "pinwatch_", 9) == 0, "stray line at: %.40s", p);
    free(t);

    /* Bound 2: the two largest named, the other two summed. */
    t = expose(&snap, 2, true, false);
    expect_line(t, "# TYPE pinwatch_acquired counter");
    expect_line(t, "# UNIT pinwatch_live_bytes bytes");
    expect_line(t, "pinwatch_live_pins{method=\"other\",signature=\"\",function=\"other\"} 1");
    expect_line(t, "pinwatch_live_bytes{method=\"other\",signature=\"\",function=\"other\"} 8");
    expect_line(t, "pinwatch_acquired_total{method=\"other\",signature=\"\",function=\"other\"} 111");
    expect_line(t, "pinwatch_released_total{method=\"other\",signature=\"\",function=\"other\"} 110");
    CHECK(count(t, "pinwatch_live_pins{") == 3, "live_pins series with bound 2: %zu", count(t, "pinwatch_live_pins{"));
    CHECK(strstr(t, "z.Z.z") == NULL, "a row past the bound is named");
    size_t len = strlen(t);
    CHECK(len > 6 && strcmp(t + len - 6, "# EOF\n") == 0, "OpenMetrics text does not end in # EOF");
    CHECK(count(t, "# EOF") == 1, "# EOF more than once");
    free(t);

    /* Textfile: every sample carries pid. */
    t = expose(&snap, 20, false, true);
    expect_line(t, "pinwatch_lost_total{pid=\"4242\"} 1");
    expect_line(t, "pinwatch_findings_total{pid=\"4242\",kind=\"double_release\"} 2");
    expect_line(t, "pinwatch_live_pins{pid=\"4242\",method=\"z.Z.z\",signature=\"()V\",function=\"GetStringUTFChars\"} 0");
    expect_line(t, "pinwatch_build_info{pid=\"4242\",version=\"" PINWATCH_VERSION "\"} 1");
    free(t);

    /* No rows at all: families still declared, no other row. */
    struct pw_snapshot empty = {.reason = "metrics", .pid = 1};
    t = expose(&empty, 20, true, false);
    expect_line(t, "# TYPE pinwatch_live_pins gauge");
    CHECK(strstr(t, "other") == NULL && strstr(t, "pinwatch_live_pins{") == NULL, "rows in an empty snapshot");
    free(t);
}

static int
status_of(const char *request)
{
    size_t len = strlen(request), head = pw_http_head_end(request, len);
    if (head == 0)
        return 0;
    return pw_http_answer(request, head).status;
}

static void
test_requests(void)
{
    static const struct {
        const char *request;
        int status;
        bool openmetrics;
    } cases[] = {
        {"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 200, false},
        {"GET /metrics HTTP/1.0\r\n\r\n", 200, false},
        {"GET /metrics HTTP/1.1\n\n", 200, false},
        {"GET /metrics?name[]=x HTTP/1.1\r\n\r\n", 200, false},
        {"GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;version=1.0.0,text/plain;q=0.5\r\n\r\n", 200,
         true},
        {"GET /metrics HTTP/1.1\r\naccept: Application/OpenMetrics-Text\r\n\r\n", 200, true},
        {"GET /metrics HTTP/1.1\r\nX-Accept: application/openmetrics-text\r\n\r\n", 200, false},
        {"GET /metrics HTTP/1.1\r\nAccept: text/plain\r\n\r\n", 200, false},
        {"GET /metricsx HTTP/1.1\r\n\r\n", 404, false},
        {"GET /metrics/ HTTP/1.1\r\n\r\n", 404, false},
        {"GET / HTTP/1.1\r\n\r\n", 404, false},
        {"GET http://h/metrics HTTP/1.1\r\n\r\n", 404, false},
        {"POST /metrics HTTP/1.1\r\n\r\n", 405, false},
        {"HEAD /metrics HTTP/1.1\r\n\r\n", 405, false},
        {"get /metrics HTTP/1.1\r\n\r\n", 405, false},
        {"GET /metrics\r\n\r\n", 400, false},
        {"GET  /metrics HTTP/1.1\r\n\r\n", 400, false},
        {"GET /metrics HTTP/2.0\r\n\r\n", 400, false},
        {"GET /metrics HTTP/1.1x\r\n\r\n", 400, false},
        {"GET /met\x01rics HTTP/1.1\r\n\r\n", 400, false},
        {"GET /metrics HTTP/1.1\r\nno colon\r\n\r\n", 400, false},
        {"GET /metrics HTTP/1.1\r\n: empty name\r\n\r\n", 400, false},
        {"GET /metrics HTTP/1.1\r\nX: a\x01b\r\n\r\n", 400, false},
        {"\x16\x03\x01\x02\xff\r\n\r\n", 400, false},
        {"\r\n\r\n", 400, false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *r = cases[i].request;
        size_t head = pw_http_head_end(r, strlen(r));
        CHECK(head == strlen(r), "case %zu: head ends at %zu of %zu", i, head, strlen(r));
        struct pw_http_answer a = pw_http_answer(r, head);
        CHECK(a.status == cases[i].status, "case %zu (%.30s): status %d, expected %d", i, r, a.status,
              cases[i].status);
        if (a.status == 200)
            CHECK(a.openmetrics == cases[i].openmetrics, "case %zu: openmetrics %d", i, a.openmetrics);
    }
    CHECK(status_of("GET /metrics HTTP/1.1\r\nHost: x\r\n") == 0, "an unfinished head was taken as whole");
    CHECK(status_of("GET /metrics HTTP/1.1\r\n") == 0, "a request line alone was taken as whole");
    CHECK(pw_http_head_end("GET / HTTP/1.1\r\n\r\nbody", 22) == 18, "head end before a body");
}

int
main(void)
{
    test_exposition();
    test_requests();
    if (failures == 0)
        printf("PASS: metrics exposition and requests\n");
    return failures == 0 ? 0 : 1;
}
