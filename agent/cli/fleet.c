/* SPDX-License-Identifier: Apache-2.0 */
#include "fleet.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Two reports whose start times (time_ms - uptime_ms) agree within this are
 * of one JVM; a pid reused later on the same host starts a new one.  The
 * two clocks are read microseconds apart, so a second is ample, and no JVM
 * restarts with the same pid that fast. */
#define SAME_START_MS 2000

static bool
wanted(const char *name)
{
    size_t n = strlen(name);
    return name[0] != '.' &&
           ((n > 6 && strcmp(name + n - 6, ".jsonl") == 0) || (n > 5 && strcmp(name + n - 5, ".json") == 0));
}

static int
by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
add_path(struct pw_fleet *f, char *path, size_t *cap)
{
    if (f->nfiles == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        f->paths = pw_xrealloc(f->paths, *cap * sizeof(*f->paths));
        f->files = pw_xrealloc(f->files, *cap * sizeof(*f->files));
    }
    f->paths[f->nfiles] = path;
    memset(&f->files[f->nfiles], 0, sizeof(f->files[f->nfiles]));
    f->nfiles++;
}

static bool
list_directory(struct pw_fleet *f, const char *dir, size_t *cap)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        pw_error("cannot open %s: %s", dir, strerror(errno));
        return false;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!wanted(e->d_name))
            continue;
        names = pw_xrealloc(names, (n + 1) * sizeof(*names));
        names[n++] = pw_xstrdup(e->d_name);
    }
    closedir(d);
    if (n == 0) {
        pw_error("%s: no .jsonl or .json file in it", dir);
        free(names);
        return false;
    }
    qsort(names, n, sizeof(*names), by_name);
    size_t dlen = strlen(dir);
    bool slash = dlen > 0 && dir[dlen - 1] == '/';
    for (size_t i = 0; i < n; i++) {
        struct pw_buf p = {0};
        pw_buf_printf(&p, "%s%s%s", dir, slash ? "" : "/", names[i]);
        add_path(f, p.data, cap);
        free(names[i]);
    }
    free(names);
    return true;
}

static const char *
host_of(const struct pw_dump *d)
{
    return d->host != NULL ? d->host : "";
}

static uint64_t
start_of(const struct pw_dump *d)
{
    return d->time_ms >= d->uptime_ms ? d->time_ms - d->uptime_ms : 0;
}

static int
by_uptime(const void *a, const void *b)
{
    const struct pw_dump *x = *(const struct pw_dump *const *)a, *y = *(const struct pw_dump *const *)b;
    if (x->uptime_ms != y->uptime_ms)
        return x->uptime_ms < y->uptime_ms ? -1 : 1;
    /* Same uptime: keep the order they were read in. */
    return x < y ? -1 : x > y;
}

static int
by_identity(const void *a, const void *b)
{
    const struct pw_process *x = a, *y = b;
    int c = strcmp(x->host, y->host);
    if (c != 0)
        return c;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->start_ms < y->start_ms ? -1 : x->start_ms > y->start_ms;
}

static void
group(struct pw_fleet *f)
{
    for (size_t i = 0; i < f->nfiles; i++)
        for (size_t j = 0; j < f->files[i].n; j++) {
            const struct pw_dump *d = &f->files[i].items[j];
            uint64_t start = start_of(d);
            struct pw_process *p = NULL;
            for (size_t k = 0; k < f->nprocs && p == NULL; k++) {
                struct pw_process *q = &f->procs[k];
                uint64_t gap = q->start_ms > start ? q->start_ms - start : start - q->start_ms;
                if (q->pid == d->pid && strcmp(q->host, host_of(d)) == 0 && gap <= SAME_START_MS)
                    p = q;
            }
            if (p == NULL) {
                f->procs = pw_xrealloc(f->procs, (f->nprocs + 1) * sizeof(*f->procs));
                p = &f->procs[f->nprocs++];
                *p = (struct pw_process){.host = host_of(d), .pid = d->pid, .start_ms = start};
            }
            p->dumps = pw_xrealloc(p->dumps, (p->n + 1) * sizeof(*p->dumps));
            p->dumps[p->n++] = d;
            f->ndumps++;
        }
    for (size_t k = 0; k < f->nprocs; k++)
        qsort(f->procs[k].dumps, f->procs[k].n, sizeof(*f->procs[k].dumps), by_uptime);
    qsort(f->procs, f->nprocs, sizeof(*f->procs), by_identity);
    /* Reports of agents that did not write "host" name none. */
    for (size_t k = 0; k < f->nprocs; k++)
        f->nhosts +=
            f->procs[k].host[0] != '\0' && (k == 0 || strcmp(f->procs[k].host, f->procs[k - 1].host) != 0);
}

bool
pw_fleet_read(char *const *args, int nargs, struct pw_fleet *out)
{
    memset(out, 0, sizeof(*out));
    size_t cap = 0;
    for (int i = 0; i < nargs; i++) {
        struct stat st;
        if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            out->had_directory = true;
            if (!list_directory(out, args[i], &cap)) {
                pw_fleet_free(out);
                return false;
            }
        } else {
            add_path(out, pw_xstrdup(args[i]), &cap);
        }
    }
    for (size_t i = 0; i < out->nfiles; i++)
        if (!pw_dumps_read(out->paths[i], &out->files[i])) {
            pw_fleet_free(out);
            return false;
        }
    group(out);
    return true;
}

void
pw_fleet_free(struct pw_fleet *f)
{
    for (size_t i = 0; i < f->nfiles; i++) {
        pw_dumps_free(&f->files[i]);
        free(f->paths[i]);
    }
    free(f->files);
    free(f->paths);
    for (size_t k = 0; k < f->nprocs; k++)
        free(f->procs[k].dumps);
    free(f->procs);
    memset(f, 0, sizeof(*f));
}

const char *
pw_process_name(const struct pw_process *p, char *out, size_t len)
{
    if (p->host[0] != '\0')
        snprintf(out, len, "%s:%" PRId64, p->host, p->pid);
    else
        snprintf(out, len, "%" PRId64, p->pid);
    return out;
}

bool
pw_fleet_file_single(const struct pw_fleet *f, size_t file)
{
    const struct pw_dumps *d = &f->files[file];
    const struct pw_process *first = NULL;
    for (size_t j = 0; j < d->n; j++)
        for (size_t k = 0; k < f->nprocs; k++)
            for (size_t i = 0; i < f->procs[k].n; i++)
                if (f->procs[k].dumps[i] == &d->items[j]) {
                    if (first == NULL)
                        first = &f->procs[k];
                    else if (first != &f->procs[k])
                        return false;
                }
    return true;
}
