#include "report.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

/* "%p" -> pid; "%%" -> "%". */
static bool
expand_path(const char *pattern, char *out, size_t len)
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

static bool
write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        data += w;
        len -= (size_t)w;
    }
    return true;
}

/* O_APPEND makes each report one append, so two JVMs sharing a file never
 * interleave lines; O_NOFOLLOW refuses a link planted where the report
 * goes; 0600 because a report names a process's code. */
static void
emit(const struct pw_options *opts, const struct pw_strbuf *text)
{
    if (opts->file[0] != '\0') {
        char path[PW_PATH_MAX];
        if (!expand_path(opts->file, path, sizeof(path))) {
            pw_log_error("report file name too long after expanding %%p: %.80s; report written to stderr",
                         opts->file);
        } else {
            int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (fd < 0) {
                pw_log_error("cannot open report file %s: %s; report written to stderr", path, strerror(errno));
            } else {
                bool ok = write_all(fd, text->data, text->len);
                int saved = errno;
                close(fd);
                if (ok)
                    return;
                pw_log_error("cannot write report file %s: %s; report written to stderr", path, strerror(saved));
            }
        }
    }
    if (!write_all(STDERR_FILENO, text->data, text->len))
        return; /* nowhere left to say it */
}

void
pw_report_write(const char *reason, const struct pw_options *opts)
{
    pthread_mutex_lock(&report_lock);
    struct pw_snapshot snap;
    if (!pw_snapshot_take(&snap, reason)) {
        pw_log_error("out of memory taking a %s report", reason);
        pthread_mutex_unlock(&report_lock);
        return;
    }
    struct pw_strbuf text;
    pw_strbuf_init(&text);
    if (opts->format == PW_FORMAT_JSON)
        pw_report_json(&snap, &text);
    else
        pw_report_text(&snap, &text);
    if (text.failed)
        pw_log_error("out of memory formatting a %s report", reason);
    else
        emit(opts, &text);
    pw_strbuf_free(&text);
    pw_snapshot_free(&snap);
    pthread_mutex_unlock(&report_lock);
}
