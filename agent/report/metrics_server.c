/* SPDX-License-Identifier: Apache-2.0 */
/* metrics=: the HTTP endpoint Prometheus scrapes, served by a thread of the
 * agent's own (as the Prometheus JMX exporter serves /metrics from inside
 * the JVM).  It is built to be left open on a busy host:
 *   - loopback unless an address is given;
 *   - one connection at a time, a small listen backlog: a scrape costs one
 *     pass over the tables, and a flood queues up rather than multiplies;
 *   - a request head of at most PW_METRICS_REQUEST_MAX bytes, read within
 *     REQUEST_MS of the connection (a client sending a byte a second is cut
 *     off, and the next one waits at most that long);
 *   - the answer written within WRITE_MS, then the connection closed;
 *   - nothing but GET /metrics answered with figures (400, 404, 405, 408,
 *     431 otherwise).
 * No figure is taken on an application thread: the scrape thread reads the
 * tables as a report does. */
#include "report/metrics_server.h"
#include "base/clock.h"
#include "base/threads.h"
#include "base/log.h"
#include "report/metrics_http.h"
#include "report/report.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define REQUEST_MS 2000
#define WRITE_MS 5000
#define BACKLOG 8

/* A copy: written once by pw_metrics_server_start, before the thread starts. */
static struct pw_options options;
static int listen_fd = -1;

/* Waits for fd to be ready for events until deadline; false when the time
 * ran out or the connection failed. */
static bool
wait_for(int fd, short events, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - pw_clock_monotonic_ms();
        if (left <= 0)
            return false;
        struct pollfd p = {.fd = fd, .events = events};
        int rc = poll(&p, 1, (int)left);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc <= 0)
            return false;
        return (p.revents & (events | POLLHUP)) != 0 && (p.revents & POLLNVAL) == 0;
    }
}

static bool
send_all(int fd, const char *data, size_t len, int64_t deadline)
{
    while (len > 0) {
        ssize_t w = send(fd, data, len, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!wait_for(fd, POLLOUT, deadline))
                return false;
            continue;
        }
        if (w <= 0)
            return false;
        data += w;
        len -= (size_t)w;
    }
    return true;
}

static const char *
reason_phrase(int status)
{
    switch (status) {
    case 200: return "OK";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    default: return "Bad Request";
    }
}

static void
respond(int fd, int status, const char *type, const char *body, size_t len)
{
    char head[512];
    int n = snprintf(head, sizeof(head),
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%sConnection: close\r\n\r\n",
                     status, reason_phrase(status), type, len, status == 405 ? "Allow: GET\r\n" : "");
    int64_t deadline = pw_clock_monotonic_ms() + WRITE_MS;
    if (send_all(fd, head, (size_t)n, deadline))
        (void)send_all(fd, body, len, deadline);
}

static void
respond_error(int fd, int status)
{
    char body[64];
    int n = snprintf(body, sizeof(body), "%d %s\n", status, reason_phrase(status));
    respond(fd, status, "text/plain; charset=utf-8", body, (size_t)n);
}

static void
serve(int fd)
{
    char buf[PW_METRICS_REQUEST_MAX];
    size_t len = 0, head = 0;
    int64_t deadline = pw_clock_monotonic_ms() + REQUEST_MS;
    while (head == 0) {
        if (len == sizeof(buf)) {
            respond_error(fd, 431);
            return;
        }
        ssize_t r = recv(fd, buf + len, sizeof(buf) - len, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!wait_for(fd, POLLIN, deadline)) {
                respond_error(fd, 408);
                return;
            }
            continue;
        }
        if (r <= 0)
            return; /* gone before asking anything whole */
        len += (size_t)r;
        head = pw_http_head_end(buf, len);
    }
    struct pw_http_answer answer = pw_http_answer(buf, head);
    if (answer.status != 200) {
        respond_error(fd, answer.status);
        return;
    }
    struct pw_strbuf text;
    pw_strbuf_init(&text);
    if (pw_report_metrics(&options, answer.openmetrics, &text))
        respond(fd, 200,
                answer.openmetrics ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                   : "text/plain; version=0.0.4; charset=utf-8",
                text.data, text.len);
    else
        respond_error(fd, 500);
    pw_strbuf_free(&text);
}

/* Closing a socket with unread input makes the kernel reset the
 * connection, which can destroy the answer before the client reads it:
 * say we are done, read what is left for a moment, then close. */
static void
finish(int fd)
{
    shutdown(fd, SHUT_WR);
    int64_t deadline = pw_clock_monotonic_ms() + 200;
    char sink[4096];
    size_t drained = 0;
    while (drained < 65536 && wait_for(fd, POLLIN, deadline)) {
        ssize_t r = recv(fd, sink, sizeof(sink), 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        drained += (size_t)r;
    }
    close(fd);
}

static void *
server_thread(void *arg)
{
    (void)arg;
    for (;;) {
        int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            /* A client that gave up before we took it: next.  Anything else
             * (out of descriptors or memory) leaves the connection queued:
             * pause rather than spin until the process frees some. */
            if (errno != EINTR && errno != ECONNABORTED && errno != EAGAIN) {
                struct timespec pause = {0, 100 * 1000000L};
                nanosleep(&pause, NULL);
            }
            continue;
        }
        serve(fd);
        finish(fd);
    }
    return NULL;
}

static void
describe(char *out, size_t len, const struct pw_options *opts)
{
    bool v6 = strchr(opts->metrics_host, ':') != NULL;
    snprintf(out, len, "%s%s%s:%u", v6 ? "[" : "", opts->metrics_host, v6 ? "]" : "", opts->metrics_port);
}

bool
pw_metrics_server_start(const struct pw_options *opts)
{
    if (opts->metrics_port == 0)
        return true;
    options = *opts;
    char where[96];
    describe(where, sizeof(where), opts);
    struct sockaddr_storage addr;
    socklen_t addrlen;
    memset(&addr, 0, sizeof(addr));
    struct sockaddr_in *a4 = (struct sockaddr_in *)&addr;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&addr;
    if (inet_pton(AF_INET, opts->metrics_host, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons(opts->metrics_port);
        addrlen = sizeof(*a4);
    } else if (inet_pton(AF_INET6, opts->metrics_host, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons(opts->metrics_port);
        addrlen = sizeof(*a6);
    } else {
        pw_log_error("cannot serve metrics on %s: not a numeric address; no metrics endpoint", where);
        return false;
    }
    int fd = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        pw_log_error("cannot serve metrics on %s: socket: %s; no metrics endpoint", where, strerror(errno));
        return false;
    }
    int one = 1;
    /* A restarted JVM can take its port back while the old connections
     * linger in TIME_WAIT. */
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (addr.ss_family == AF_INET6)
        (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&addr, addrlen) != 0 || listen(fd, BACKLOG) != 0) {
        pw_log_error("cannot serve metrics on %s: %s; no metrics endpoint, the JVM runs on", where,
                     strerror(errno));
        close(fd);
        return false;
    }
    listen_fd = fd;

    int rc = pw_daemon_spawn("pinwatch-http", 0, server_thread, NULL);
    if (rc != 0) {
        pw_log_error("cannot serve metrics on %s: no thread (error %d); no metrics endpoint", where, rc);
        close(fd);
        listen_fd = -1;
        return false;
    }
    return true;
}
