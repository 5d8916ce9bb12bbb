/* Everything on the page is generated here: the SVG charts, the flame graph
 * and the few lines of script that sort the table and zoom the flame graph.
 * No network, no library: the file is the whole report.  Every string that
 * came from the JSON goes through esc(). */
#include "report_html.h"
#include "stacks.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHART_W 560
#define CHART_H 250
#define PAD_L 64
#define PAD_R 28
#define PAD_T 12
#define PAD_B 30
#define FLAME_W 1100
#define FLAME_ROW 20

static const char *const palette[] = {"#d9480f", "#1971c2", "#2f9e44", "#9c36b5", "#e8590c",
                                      "#0c8599", "#c2255c", "#5c940d", "#3b5bdb", "#f08c00"};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

static void
esc(struct pw_buf *b, const char *s)
{
    for (; s != NULL && *s != '\0'; s++) {
        switch (*s) {
        case '&': pw_buf_puts(b, "&amp;"); break;
        case '<': pw_buf_puts(b, "&lt;"); break;
        case '>': pw_buf_puts(b, "&gt;"); break;
        case '"': pw_buf_puts(b, "&quot;"); break;
        case '\'': pw_buf_puts(b, "&#39;"); break;
        default: pw_buf_add(b, s, 1);
        }
    }
}

/* 12345678 -> "11.8 MiB"; exact below 1 KiB. */
static const char *
human_bytes(uint64_t n, char *out, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    if (n < 1024) {
        snprintf(out, len, "%" PRIu64 " B", n);
        return out;
    }
    double v = (double)n;
    size_t u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(out, len, v < 10 ? "%.1f %s" : "%.0f %s", v, unit[u]);
    return out;
}

/* 1234567 -> "1,234,567": readable and locale-independent. */
static const char *
grouped(uint64_t n, char *out, size_t len)
{
    char digits[32];
    int nd = snprintf(digits, sizeof(digits), "%" PRIu64, n);
    size_t o = 0;
    for (int i = 0; i < nd && o + 2 < len; i++) {
        if (i > 0 && (nd - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
    return out;
}

static const char *
duration(uint64_t ms, char *out, size_t len)
{
    if (ms < 1000)
        snprintf(out, len, "%" PRIu64 " ms", ms);
    else if (ms < 120000)
        snprintf(out, len, "%.1f s", (double)ms / 1000);
    else if (ms < 7200000)
        snprintf(out, len, "%.1f min", (double)ms / 60000);
    else
        snprintf(out, len, "%.1f h", (double)ms / 3600000);
    return out;
}

/* ---- growth chart ---- */

struct series {
    const char *method;
    uint64_t *live, *bytes; /* one per dump */
    uint64_t peak;
};

static size_t
collect_series(const struct pw_dumps *d, struct series **out)
{
    struct series *s = NULL;
    size_t n = 0;
    for (size_t i = 0; i < d->n; i++) {
        for (size_t j = 0; j < d->items[i].nrows; j++) {
            const struct pw_row *r = &d->items[i].rows[j];
            if (r->live == 0)
                continue;
            size_t k = 0;
            while (k < n && strcmp(s[k].method, r->method) != 0)
                k++;
            if (k == n) {
                s = pw_xrealloc(s, (n + 1) * sizeof(*s));
                s[n].method = r->method;
                s[n].live = calloc(d->n, sizeof(uint64_t));
                s[n].bytes = calloc(d->n, sizeof(uint64_t));
                if (s[n].live == NULL || s[n].bytes == NULL) {
                    pw_error("out of memory");
                    exit(PW_EXIT_FAIL);
                }
                s[n].peak = 0;
                n++;
            }
        }
    }
    /* Every row of a method counts (all its functions and signatures). */
    for (size_t i = 0; i < d->n; i++)
        for (size_t j = 0; j < d->items[i].nrows; j++) {
            const struct pw_row *r = &d->items[i].rows[j];
            for (size_t k = 0; k < n; k++)
                if (strcmp(s[k].method, r->method) == 0) {
                    s[k].live[i] += r->live;
                    s[k].bytes[i] += r->live_bytes;
                }
        }
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < d->n; i++)
            if (s[k].bytes[i] > s[k].peak)
                s[k].peak = s[k].bytes[i];
    *out = s;
    return n;
}

/* 1, 2 or 5 times a power of ten, so that about five steps reach max. */
static double
nice_step(double max)
{
    double want = max / 5 > 0 ? max / 5 : 1, p = 1;
    while (p * 10 <= want)
        p *= 10;
    while (p > want)
        p /= 10;
    if (want > 5 * p)
        return 10 * p;
    if (want > 2 * p)
        return 5 * p;
    if (want > p)
        return 2 * p;
    return p;
}

/* A tick label: pins as integers; bytes in the unit of the axis maximum. */
static void
tick_label(char *out, size_t len, double v, bool bytes, double unit, const char *uname)
{
    if (!bytes) {
        uint64_t n = (uint64_t)(v + 0.5);
        grouped(n, out, len);
        return;
    }
    if (v == 0)
        snprintf(out, len, "0");
    else
        snprintf(out, len, "%g %s", v / unit, uname);
}

static void
chart(struct pw_buf *b, const struct pw_dumps *d, const struct series *s, size_t ns, bool bytes,
      const uint64_t *xs, uint64_t xmax)
{
    const char *id = bytes ? "bytes" : "live";
    uint64_t ymax = 0;
    for (size_t k = 0; k < ns; k++)
        for (size_t i = 0; i < d->n; i++) {
            uint64_t v = bytes ? s[k].bytes[i] : s[k].live[i];
            if (v > ymax)
                ymax = v;
        }
    /* Bytes: ticks at round numbers of B, KiB, MiB... */
    double unit = 1;
    const char *uname = "B";
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    for (size_t u = 0; bytes && u < 4 && (double)ymax >= unit * 1024; u++) {
        unit *= 1024;
        uname = units[u];
    }
    double step = nice_step((double)ymax / unit) * unit;
    if (!bytes && step < 1)
        step = 1;
    double top = ymax == 0 ? step * 5 : ceil((double)ymax / step - 1e-9) * step;
    if (xmax == 0)
        xmax = 1;
    double pw = CHART_W - PAD_L - PAD_R, ph = CHART_H - PAD_T - PAD_B;

    pw_buf_printf(b,
                  "<svg class=\"pw-chart\" id=\"chart-%s\" data-chart=\"%s\" viewBox=\"0 0 %d %d\" "
                  "role=\"img\" aria-label=\"%s per native method\">\n",
                  id, id, CHART_W, CHART_H, bytes ? "live bytes" : "live pins");
    /* Grid and y labels. */
    for (int i = 0; i * step <= top + step / 2; i++) {
        double v = i * step;
        double y = PAD_T + ph - ph * v / top;
        char label[32];
        tick_label(label, sizeof(label), v, bytes, unit, uname);
        pw_buf_printf(b,
                      "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
                      "<text class=\"ylab\" x=\"%d\" y=\"%.1f\">%s</text>\n",
                      PAD_L, CHART_W - PAD_R, y, y, PAD_L - 8, y + 4, label);
    }
    /* x labels: about six, in seconds. */
    for (int i = 0; i <= 4; i++) {
        double x = PAD_L + pw * i / 4;
        char label[32];
        duration((uint64_t)((double)xmax * i / 4 + 0.5), label, sizeof(label));
        pw_buf_printf(b, "<text class=\"xlab\" x=\"%.1f\" y=\"%d\">%s</text>\n", x, CHART_H - 10, label);
    }
    pw_buf_printf(b, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n", PAD_L,
                  CHART_W - PAD_R, PAD_T + ph, PAD_T + ph);
    for (size_t k = 0; k < ns; k++) {
        const char *color = palette[k % NPALETTE];
        pw_buf_puts(b, "<g class=\"pw-series\" data-chart=\"");
        pw_buf_puts(b, id);
        pw_buf_puts(b, "\" data-method=\"");
        esc(b, s[k].method);
        pw_buf_printf(b, "\" style=\"--c:%s\">\n<title>", color);
        esc(b, s[k].method);
        pw_buf_puts(b, "</title>\n<polyline points=\"");
        for (size_t i = 0; i < d->n; i++) {
            uint64_t v = bytes ? s[k].bytes[i] : s[k].live[i];
            pw_buf_printf(b, "%s%.1f,%.1f", i ? " " : "", PAD_L + pw * (double)xs[i] / (double)xmax,
                          PAD_T + ph - ph * (double)v / top);
        }
        pw_buf_puts(b, "\"/>\n");
        /* Points only while there are few enough to see. */
        for (size_t i = 0; d->n <= 200 && i < d->n; i++) {
            uint64_t v = bytes ? s[k].bytes[i] : s[k].live[i];
            char val[32], at[32];
            if (bytes)
                grouped(v, val, sizeof(val));
            else
                grouped(v, val, sizeof(val));
            pw_buf_printf(b,
                          "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"><title>%s %s at %s (%s)</title></circle>\n",
                          PAD_L + pw * (double)xs[i] / (double)xmax, PAD_T + ph - ph * (double)v / top, val,
                          bytes ? "bytes" : "pins", duration(xs[i], at, sizeof(at)), d->items[i].reason);
        }
        pw_buf_puts(b, "</g>\n");
    }
    pw_buf_puts(b, "</svg>\n");
}

/* ---- flame graph ---- */

struct node {
    char *name;
    enum pw_frame_kind kind;
    uint64_t value;
    struct node *kids;
    size_t nkids;
};

static void
tree_add(struct node *root, const struct pw_stack *s, uint64_t value)
{
    struct node *at = root;
    at->value += value;
    for (size_t i = 0; i < s->n; i++) {
        size_t k = 0;
        while (k < at->nkids && !(at->kids[k].kind == s->kinds[i] && strcmp(at->kids[k].name, s->names[i]) == 0))
            k++;
        if (k == at->nkids) {
            at->kids = pw_xrealloc(at->kids, (at->nkids + 1) * sizeof(*at->kids));
            at->kids[k] = (struct node){.name = pw_xstrdup(s->names[i]), .kind = s->kinds[i]};
            at->nkids++;
        }
        at = &at->kids[k];
        at->value += value;
    }
}

static void
tree_free(struct node *n)
{
    for (size_t i = 0; i < n->nkids; i++)
        tree_free(&n->kids[i]);
    free(n->kids);
    free(n->name);
}

static int
by_value(const void *a, const void *b)
{
    const struct node *x = a, *y = b;
    if (x->value != y->value)
        return x->value > y->value ? -1 : 1;
    return strcmp(x->name, y->name);
}

static size_t
tree_depth(const struct node *n)
{
    size_t d = 0;
    for (size_t i = 0; i < n->nkids; i++) {
        size_t k = tree_depth(&n->kids[i]);
        if (k > d)
            d = k;
    }
    return d + 1;
}

static const char *const kind_class[] = {"f-root", "f-java", "f-method", "f-native", "f-function"};
static const char *const kind_name[] = {"all", "Java frame", "native method", "native frame", "JNI function"};

/* Rendered text fits about one character per 7 px at 12 px. */
static void
fitted(struct pw_buf *b, const char *name, double width)
{
    int chars = (int)((width - 8) / 7);
    size_t len = strlen(name);
    if (chars < 3)
        return;
    if (len <= (size_t)chars) {
        esc(b, name);
        return;
    }
    char *cut = pw_xstrdup(name);
    cut[chars - 1] = '\0';
    esc(b, cut);
    pw_buf_puts(b, "\xe2\x80\xa6");
    free(cut);
}

static void
flame_nodes(struct pw_buf *b, struct node *n, uint64_t total, uint64_t before, size_t depth)
{
    double x0 = (double)before / (double)total, x1 = (double)(before + n->value) / (double)total;
    double x = x0 * FLAME_W, w = (x1 - x0) * FLAME_W;
    char val[32], hb[32];
    pw_buf_printf(b, "<g class=\"pw-frame %s\" data-x0=\"%.6f\" data-x1=\"%.6f\" data-depth=\"%zu\" data-name=\"",
                  kind_class[n->kind], x0, x1, depth);
    esc(b, n->name);
    pw_buf_printf(b, "\"><title>");
    esc(b, n->name);
    pw_buf_printf(b,
                  " (%s)\n%s live bytes (%s), %.1f%%</title><rect x=\"%.2f\" y=\"%zu\" width=\"%.2f\" "
                  "height=\"%d\"/>"
                  "<text x=\"%.2f\" y=\"%zu\">",
                  kind_name[n->kind], grouped(n->value, val, sizeof(val)), human_bytes(n->value, hb, sizeof(hb)),
                  100.0 * (double)n->value / (double)total, x, depth * FLAME_ROW, w > 0.5 ? w - 0.5 : w,
                  FLAME_ROW - 2, x + 4, depth * FLAME_ROW + 14);
    fitted(b, n->name, w);
    pw_buf_puts(b, "</text></g>\n");
    if (n->nkids > 1)
        qsort(n->kids, n->nkids, sizeof(*n->kids), by_value);
    uint64_t at = before;
    for (size_t i = 0; i < n->nkids; i++) {
        flame_nodes(b, &n->kids[i], total, at, depth + 1);
        at += n->kids[i].value;
    }
}

static void
flame(struct pw_buf *b, const struct pw_dump *last)
{
    struct node root = {.name = pw_xstrdup("all live bytes"), .kind = PW_KIND_ROOT};
    for (size_t i = 0; i < last->nrows; i++)
        for (size_t j = 0; j < last->rows[i].nsites; j++) {
            const struct pw_site *site = &last->rows[i].sites[j];
            if (site->live_bytes == 0)
                continue;
            struct pw_stack s;
            pw_stack_of(&last->rows[i], site, &s);
            tree_add(&root, &s, site->live_bytes);
            pw_stack_free(&s);
        }
    if (root.value == 0) {
        pw_buf_puts(b, "<p class=\"empty\">No live bytes in the latest report: nothing to draw.</p>\n");
    } else {
        size_t depth = tree_depth(&root);
        pw_buf_printf(b,
                      "<svg id=\"flame\" class=\"pw-flame\" viewBox=\"0 0 %d %zu\" "
                      "style=\"max-width:%dpx\">\n",
                      FLAME_W, depth * FLAME_ROW, FLAME_W);
        flame_nodes(b, &root, root.value, 0, 0);
        pw_buf_puts(b, "</svg>\n");
    }
    tree_free(&root);
}

/* ---- tables ---- */

static int
rows_by_bytes(const void *a, const void *b)
{
    const struct pw_row *x = *(const struct pw_row *const *)a, *y = *(const struct pw_row *const *)b;
    if (x->live_bytes != y->live_bytes)
        return x->live_bytes > y->live_bytes ? -1 : 1;
    if (x->live != y->live)
        return x->live > y->live ? -1 : 1;
    return strcmp(x->method, y->method);
}

static void
num_cell(struct pw_buf *b, uint64_t v)
{
    char g[32];
    pw_buf_printf(b, "<td class=\"num\" data-v=\"%" PRIu64 "\">%s</td>", v, grouped(v, g, sizeof(g)));
}

static void
site_cell(struct pw_buf *b, const struct pw_row *r)
{
    /* The site holding most live pins, by its innermost frame. */
    const struct pw_site *best = NULL;
    for (size_t i = 0; i < r->nsites; i++)
        if (best == NULL || r->sites[i].live > best->live)
            best = &r->sites[i];
    pw_buf_puts(b, "<td class=\"site\">");
    if (best != NULL && best->nframes > 0) {
        const struct pw_frame *f = &best->frames[0];
        if (f->file != NULL) {
            const char *base = strrchr(f->file, '/');
            esc(b, base != NULL ? base + 1 : f->file);
            if (f->line >= 0)
                pw_buf_printf(b, ":%" PRId64, f->line);
        } else if (f->symbol != NULL) {
            esc(b, f->symbol);
            pw_buf_printf(b, "+%" PRId64, f->offset);
        } else {
            esc(b, f->address);
        }
        if (r->nsites > 1)
            pw_buf_printf(b, " <span class=\"more\">+%zu sites</span>", r->nsites - 1);
    }
    pw_buf_puts(b, "</td>");
}

/* Live pins of row r's (method, function, signature) in report d (NULL: none). */
static uint64_t
live_in(const struct pw_dump *d, const struct pw_row *r)
{
    uint64_t n = 0;
    for (size_t j = 0; d != NULL && j < d->nrows; j++)
        if (strcmp(d->rows[j].method, r->method) == 0 && strcmp(d->rows[j].function, r->function) == 0 &&
            strcmp(d->rows[j].signature, r->signature) == 0)
            n += d->rows[j].live;
    return n;
}

/* The cells both leak tables share: method, function, live, live bytes,
 * leaked, held and growth. */
static void
pin_row_cells(struct pw_buf *b, const struct pw_row *r, int64_t growth)
{
    char sg[32];
    pw_buf_puts(b, "<td class=\"method\" title=\"");
    esc(b, r->signature);
    pw_buf_puts(b, "\">");
    esc(b, r->method);
    pw_buf_puts(b, "</td><td class=\"fn\">");
    esc(b, r->function);
    pw_buf_puts(b, "</td>");
    num_cell(b, r->live);
    num_cell(b, r->live_bytes);
    num_cell(b, r->leaked);
    num_cell(b, r->held);
    pw_buf_printf(b, "<td class=\"num%s\" data-v=\"%" PRId64 "\">%s</td>", growth > 0 ? " up" : "", growth,
                  pw_signed(growth, sg, sizeof(sg)));
}

static void
leak_table(struct pw_buf *b, const struct pw_dumps *d)
{
    const struct pw_dump *last = &d->items[d->n - 1], *first = &d->items[0];
    const struct pw_row **rows = pw_xmalloc(last->nrows * sizeof(*rows));
    size_t n = 0;
    for (size_t i = 0; i < last->nrows; i++)
        if (last->rows[i].live > 0)
            rows[n++] = &last->rows[i];
    qsort(rows, n, sizeof(*rows), rows_by_bytes);
    if (n == 0) {
        pw_buf_puts(b, "<p class=\"empty\">No live pins in the latest report.</p>\n");
        free(rows);
        return;
    }
    pw_buf_puts(b,
                "<div class=\"scroll\"><table id=\"leaks\" class=\"pw-table sortable\">\n<thead><tr>"
                "<th data-type=\"str\">Native method</th><th data-type=\"str\">JNI function</th>"
                "<th data-type=\"num\" class=\"num\">Live</th><th data-type=\"num\" class=\"num\">Live bytes</th>"
                "<th data-type=\"num\" class=\"num\">Leaked</th><th data-type=\"num\" class=\"num\">Held</th>"
                "<th data-type=\"num\" class=\"num\">Growth</th><th data-type=\"num\" class=\"num\">Acquired</th>"
                "<th data-type=\"num\" class=\"num\">Released</th><th data-type=\"num\" class=\"num\">Oldest</th>"
                "<th data-type=\"str\">Taken at</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < n; i++) {
        const struct pw_row *r = rows[i];
        /* Growth across the file: the same row in the first report. */
        uint64_t before = d->n > 1 ? live_in(first, r) : 0;
        char age[32];
        pw_buf_puts(b, "<tr class=\"pw-row\">");
        pin_row_cells(b, r, (int64_t)r->live - (int64_t)before);
        num_cell(b, r->acquired);
        num_cell(b, r->released);
        pw_buf_printf(b, "<td class=\"num\" data-v=\"%" PRIu64 "\">%s</td>", r->oldest_age_ms,
                      duration(r->oldest_age_ms, age, sizeof(age)));
        site_cell(b, r);
        pw_buf_puts(b, "</tr>\n");
    }
    pw_buf_puts(b, "</tbody></table></div>\n");
    size_t quiet = last->nrows - n;
    if (quiet > 0)
        pw_buf_printf(b, "<p class=\"note\">%zu more row%s with no live pins not shown.</p>\n", quiet,
                      quiet == 1 ? "" : "s");
    free(rows);
}

/* The latest report's live JNI references (refs=on), with their growth
 * since the first report. */
static void
references_section(struct pw_buf *b, const struct pw_dumps *d)
{
    const struct pw_dump *last = &d->items[d->n - 1], *first = &d->items[0];
    if (!last->has_refs)
        return;
    pw_buf_puts(b, "<section id=\"references\"><h2>Live JNI references in the latest report</h2>\n");
    size_t shown = 0;
    for (size_t i = 0; i < last->nrefs; i++) {
        const struct pw_ref_row *r = &last->refs[i];
        if (r->live == 0)
            continue;
        if (shown++ == 0)
            pw_buf_puts(b,
                        "<div class=\"scroll\"><table id=\"refs\" class=\"pw-table sortable\">\n<thead><tr>"
                        "<th data-type=\"str\">Kind</th><th data-type=\"str\">Native method</th>"
                        "<th data-type=\"str\">JNI function</th><th data-type=\"num\" class=\"num\">Live</th>"
                        "<th data-type=\"num\" class=\"num\">Growth</th>"
                        "<th data-type=\"num\" class=\"num\">Created</th>"
                        "<th data-type=\"num\" class=\"num\">Deleted</th>"
                        "<th data-type=\"num\" class=\"num\">Freed</th></tr></thead>\n<tbody>\n");
        uint64_t before = 0;
        if (d->n > 1)
            for (size_t j = 0; j < first->nrefs; j++)
                if (strcmp(first->refs[j].method, r->method) == 0 &&
                    strcmp(first->refs[j].function, r->function) == 0)
                    before += first->refs[j].live;
        int64_t growth = (int64_t)r->live - (int64_t)before;
        char sg[32];
        pw_buf_puts(b, "<tr class=\"pw-ref\"><td class=\"kind\">");
        esc(b, r->kind);
        pw_buf_puts(b, "</td><td class=\"method\">");
        esc(b, r->method);
        pw_buf_puts(b, "</td><td class=\"fn\">");
        esc(b, r->function);
        pw_buf_puts(b, "</td>");
        num_cell(b, r->live);
        pw_buf_printf(b, "<td class=\"num%s\" data-v=\"%" PRId64 "\">%s</td>", growth > 0 ? " up" : "", growth,
                      pw_signed(growth, sg, sizeof(sg)));
        num_cell(b, r->created);
        num_cell(b, r->deleted);
        num_cell(b, r->freed);
        pw_buf_puts(b, "</tr>\n");
    }
    if (shown == 0)
        pw_buf_puts(b, "<p class=\"empty\">No live references in the latest report.</p>\n");
    else
        pw_buf_puts(b, "</tbody></table></div>\n");
    pw_buf_puts(b, "</section>\n");
}

static void
findings_section(struct pw_buf *b, const struct pw_dump *last)
{
    if (!last->has_findings)
        return;
    pw_buf_puts(b, "<section><h2>Findings</h2>\n");
    if (last->nfindings == 0) {
        pw_buf_puts(b, "<p class=\"empty\">None in the latest report.</p></section>\n");
        return;
    }
    pw_buf_puts(b,
                "<table id=\"findings\" class=\"pw-table sortable\">\n<thead><tr><th data-type=\"str\">Kind</th>"
                "<th data-type=\"str\">Native method</th><th data-type=\"str\">JNI function</th>"
                "<th data-type=\"num\" class=\"num\">Count</th><th data-type=\"str\">Taken at</th></tr></thead>\n"
                "<tbody>\n");
    for (size_t i = 0; i < last->nfindings; i++) {
        const struct pw_finding *f = &last->findings[i];
        pw_buf_puts(b, "<tr class=\"pw-finding\"><td class=\"kind\">");
        esc(b, f->kind);
        pw_buf_puts(b, "</td><td class=\"method\">");
        esc(b, f->method);
        pw_buf_puts(b, "</td><td class=\"fn\">");
        esc(b, f->function);
        pw_buf_puts(b, "</td>");
        num_cell(b, f->count);
        struct pw_row fake = {.nsites = f->nsites, .sites = f->sites};
        site_cell(b, &fake);
        pw_buf_puts(b, "</tr>\n");
    }
    pw_buf_puts(b, "</tbody></table></section>\n");
}

static const char style[] =
    "<style>\n"
    ":root{--fg:#1d2230;--muted:#667085;--line:#e4e7ec;--bg:#f6f7f9;--card:#fff;--accent:#d9480f}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;font:14px/1.45 'DejaVu Sans',system-ui,sans-serif;color:var(--fg);background:var(--bg)}\n"
    "header{background:#1d2230;color:#fff;padding:18px 32px 16px}\n"
    "header h1{margin:0;font-size:21px;font-weight:600;letter-spacing:.2px}\n"
    "header h1 span{color:#ffa94d}\n"
    "header p{margin:4px 0 0;color:#c5cad3;font-size:13px}\n"
    "main{padding:18px 32px 40px;max-width:1240px}\n"
    ".cards{display:flex;gap:12px;flex-wrap:wrap;margin-bottom:16px}\n"
    ".card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px "
    "16px;min-width:150px}\n"
    ".card b{display:block;font-size:22px;font-weight:600}\n"
    ".card.alert b{color:var(--accent)}\n"
    ".card span{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.5px}\n"
    "section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 18px;"
    "margin-bottom:16px}\n"
    "h2{font-size:16px;margin:0 0 8px;font-weight:600}\n"
    ".charts{display:grid;grid-template-columns:1fr 1fr;gap:8px 20px}\n"
    ".charts h3{font-size:13px;font-weight:600;color:var(--muted);margin:0}\n"
    "svg.pw-chart{width:100%;height:auto;display:block}\n"
    ".grid{stroke:#eef0f3}.axis{stroke:#98a2b3}\n"
    ".ylab{font-size:11px;fill:var(--muted);text-anchor:end}\n"
    ".xlab{font-size:11px;fill:var(--muted);text-anchor:middle}\n"
    ".pw-series polyline{fill:none;stroke:var(--c);stroke-width:2.5;stroke-linejoin:round}\n"
    ".pw-series circle{fill:#fff;stroke:var(--c);stroke-width:2}\n"
    ".legend{list-style:none;padding:0;margin:10px 0 0;display:flex;flex-wrap:wrap;gap:6px 20px;font-size:13px}\n"
    ".legend i{display:inline-block;width:12px;height:12px;border-radius:3px;margin-right:6px;"
    "vertical-align:-1px;background:var(--c)}\n"
    ".legend b{font-weight:600}\n"
    ".pw-table{border-collapse:collapse;width:100%;font-size:13px}\n"
    ".pw-table th{text-align:left;font-weight:600;color:var(--muted);border-bottom:2px solid var(--line);"
    "padding:6px 6px;cursor:pointer;user-select:none;white-space:nowrap}\n"
    ".pw-table th:hover{color:var(--fg)}\n"
    ".pw-table th.asc::after{content:' \\25B2'}.pw-table th.desc::after{content:' \\25BC'}\n"
    ".pw-table td{padding:5px 6px;border-bottom:1px solid var(--line)}\n"
    ".scroll{overflow-x:auto}\n"
    ".pw-table .num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    ".pw-table td.method{font-family:'DejaVu Sans Mono',monospace;font-size:12px;word-break:break-all}\n"
    ".pw-table td.up{color:var(--accent);font-weight:600}\n"
    ".pw-table td.site{color:var(--muted);font-family:'DejaVu Sans Mono',monospace;font-size:12px}\n"
    ".more{font-family:'DejaVu Sans',sans-serif;font-size:11px}\n"
    ".note,.empty{color:var(--muted);font-size:13px;margin:8px 0 0}\n"
    "svg.pw-flame{width:100%;height:auto;display:block;font-family:'DejaVu Sans Mono',monospace}\n"
    ".pw-frame rect{stroke:#fff;stroke-width:.5;cursor:pointer}\n"
    ".pw-frame text{font-size:12px;fill:#1d2230;pointer-events:none}\n"
    ".f-root rect{fill:#d0d5dd}.f-java rect{fill:#8ce99a}.f-method rect{fill:#ffa94d}\n"
    ".f-native rect{fill:#ffd8a8}.f-function rect{fill:#da77f2}\n"
    ".pw-frame:hover rect{fill-opacity:.75}\n"
    ".flame-legend{font-size:12px;color:var(--muted);margin:6px 0 0}\n"
    ".flame-legend i{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px;vertical-align:-1px}\n"
    "</style>\n";

/* Sorting: numbers by data-v, text by content; zoom: a click on a frame
 * widens it to the full width, a click on the root goes back. */
static const char script[] =
    "<script>\n"
    "document.querySelectorAll('table.sortable').forEach(function(t){\n"
    " t.querySelectorAll('th').forEach(function(th,i){\n"
    "  th.addEventListener('click',function(){\n"
    "   var was=th.classList.contains('asc')?'asc':th.classList.contains('desc')?'desc':'';\n"
    "   var asc=was?was==='desc':th.dataset.type==='str';\n"
    "   t.querySelectorAll('th').forEach(function(h){h.classList.remove('asc','desc');});\n"
    "   th.classList.add(asc?'asc':'desc');\n"
    "   var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows);\n"
    "   rows.sort(function(a,b){var x=a.cells[i],y=b.cells[i],c;\n"
    "    if(th.dataset.type==='num')c=Number(x.dataset.v)-Number(y.dataset.v);\n"
    "    else c=x.textContent.localeCompare(y.textContent);\n"
    "    return asc?c:-c;});\n"
    "   rows.forEach(function(r){body.appendChild(r);});\n"
    "  });\n"
    " });\n"
    "});\n"
    "(function(){var svg=document.getElementById('flame');if(!svg)return;\n"
    " var W="
    "1100"
    ",frames=svg.querySelectorAll('.pw-frame');\n"
    " function fit(name,w){var n=Math.floor((w-8)/7);if(n<3)return '';\n"
    "  return name.length<=n?name:name.slice(0,n-1)+'\\u2026';}\n"
    " function zoom(a,b,d){frames.forEach(function(g){\n"
    "  var x0=(g.dataset.x0-a)/(b-a),x1=(g.dataset.x1-a)/(b-a),r=g.querySelector('rect'),\n"
    "   t=g.querySelector('text');\n"
    "  var show=x1>1e-9&&x0<1-1e-9;g.style.display=show?'':'none';if(!show)return;\n"
    "  x0=Math.max(0,x0);x1=Math.min(1,x1);var w=(x1-x0)*W;\n"
    "  r.setAttribute('x',x0*W);r.setAttribute('width',Math.max(w-0.5,0));\n"
    "  t.setAttribute('x',x0*W+4);t.textContent=fit(g.dataset.name,w);\n"
    "  g.style.opacity=(+g.dataset.depth<d)?'0.6':'';});}\n"
    " frames.forEach(function(g){g.addEventListener('click',function(){\n"
    "  zoom(+g.dataset.x0,+g.dataset.x1,+g.dataset.depth);});});\n"
    "})();\n"
    "</script>\n";

void
pw_report_html(struct pw_buf *b, const char *file, const struct pw_dumps *d)
{
    const struct pw_dump *last = &d->items[d->n - 1], *first = &d->items[0];
    bool one_pid = true;
    for (size_t i = 1; i < d->n; i++)
        if (d->items[i].pid != first->pid)
            one_pid = false;

    const char *base = strrchr(file, '/');
    base = base != NULL ? base + 1 : file;
    pw_buf_puts(b,
                "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
                "<meta name=\"generator\" content=\"pinwatch " PINWATCH_VERSION "\">\n<title>pinwatch: ");
    esc(b, base);
    pw_buf_puts(b, "</title>\n");
    pw_buf_puts(b, style);
    pw_buf_puts(b, "</head>\n<body>\n<header><h1><span>pinwatch</span> JNI pin report</h1><p>");
    esc(b, file);
    char when[64] = "";
    time_t t = (time_t)(last->time_ms / 1000);
    struct tm tm;
    if (gmtime_r(&t, &tm) != NULL)
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
    char span[32];
    pw_buf_printf(b, " &middot; %zu report%s over %s", d->n, d->n == 1 ? "" : "s",
                  duration(last->time_ms >= first->time_ms ? last->time_ms - first->time_ms : 0, span,
                           sizeof(span)));
    if (one_pid)
        pw_buf_printf(b, " &middot; pid %" PRId64, last->pid);
    else
        pw_buf_puts(b, " &middot; several JVMs");
    pw_buf_puts(b, " &middot; latest: ");
    esc(b, last->reason);
    pw_buf_printf(b, " at %s &middot; agent ", when);
    esc(b, last->version);
    pw_buf_puts(b, "</p></header>\n<main>\n");

    char v1[32], v2[32], v3[32], v4[32], v5[32], v6[32];
    pw_buf_printf(b,
                  "<div class=\"cards\">"
                  "<div class=\"card%s\" id=\"total-live\"><b>%s</b><span>live pins</span></div>"
                  "<div class=\"card%s\"><b>%s</b><span>live bytes</span></div>"
                  "<div class=\"card\"><b>%s</b><span>leaked (returned holding)</span></div>"
                  "<div class=\"card\"><b>%s</b><span>held by running code</span></div>"
                  "<div class=\"card\" id=\"total-carried\"><b>%s</b><span>carried across calls (released "
                  "later, not leaked)</span></div>"
                  "<div class=\"card\"><b>%s</b><span>pins taken</span></div>"
                  "</div>\n",
                  last->totals.live ? " alert" : "", grouped(last->totals.live, v1, sizeof(v1)),
                  last->totals.live_bytes ? " alert" : "", human_bytes(last->totals.live_bytes, v2, sizeof(v2)),
                  grouped(last->totals.leaked, v3, sizeof(v3)), grouped(last->totals.held, v4, sizeof(v4)),
                  grouped(last->totals.carried, v6, sizeof(v6)), grouped(last->totals.acquired, v5, sizeof(v5)));

    /* Growth: x is time since the first report (uptime within one JVM). */
    uint64_t *xs = pw_xmalloc(d->n * sizeof(*xs));
    uint64_t xmax = 0;
    for (size_t i = 0; i < d->n; i++) {
        const struct pw_dump *x = &d->items[i];
        if (one_pid)
            xs[i] = x->uptime_ms >= first->uptime_ms ? x->uptime_ms - first->uptime_ms : 0;
        else
            xs[i] = x->time_ms >= first->time_ms ? x->time_ms - first->time_ms : 0;
        if (xs[i] > xmax)
            xmax = xs[i];
    }
    struct series *s;
    size_t ns = collect_series(d, &s);
    pw_buf_puts(b, "<section id=\"growth\"><h2>Live pins per native method</h2>\n");
    if (ns == 0) {
        pw_buf_puts(b, "<p class=\"empty\">No native method held a pin in any report.</p>\n");
    } else {
        pw_buf_puts(b, "<div class=\"charts\"><div><h3>Live pins</h3>\n");
        chart(b, d, s, ns, false, xs, xmax);
        pw_buf_puts(b, "</div><div><h3>Live bytes</h3>\n");
        chart(b, d, s, ns, true, xs, xmax);
        pw_buf_puts(b, "</div></div>\n<ul class=\"legend\">\n");
        for (size_t k = 0; k < ns; k++) {
            char g[32], h[32];
            pw_buf_printf(b, "<li style=\"--c:%s\"><i></i>", palette[k % NPALETTE]);
            esc(b, s[k].method);
            pw_buf_printf(b, " &middot; <b>%s</b> pins, %s now</li>\n",
                          grouped(s[k].live[d->n - 1], g, sizeof(g)),
                          human_bytes(s[k].bytes[d->n - 1], h, sizeof(h)));
        }
        pw_buf_puts(b, "</ul>\n");
    }
    pw_buf_printf(b,
                  "<p class=\"note\">%s since the first report%s; one line per native method that ever held a "
                  "pin.</p></section>\n",
                  one_pid ? "JVM uptime" : "Wall-clock time", d->n == 1 ? " (one report: one point)" : "");

    findings_section(b, last);

    pw_buf_puts(b, "<section id=\"table\"><h2>Live pins in the latest report</h2>\n");
    leak_table(b, d);
    pw_buf_puts(b, "</section>\n");

    references_section(b, d);

    pw_buf_puts(b, "<section id=\"flamegraph\"><h2>Live bytes by stack</h2>\n");
    flame(b, last);
    pw_buf_puts(b,
                "<p class=\"flame-legend\">Outermost frame on top; click a frame to zoom, the top bar to "
                "reset.<i style=\"background:#8ce99a\"></i>Java<i style=\"background:#ffa94d\"></i>native method"
                "<i style=\"background:#ffd8a8\"></i>native code<i style=\"background:#da77f2\"></i>JNI "
                "function</p></section>\n");
    pw_buf_puts(b, "</main>\n");
    pw_buf_puts(b, script);
    pw_buf_puts(b, "</body>\n</html>\n");

    for (size_t k = 0; k < ns; k++) {
        free(s[k].live);
        free(s[k].bytes);
    }
    free(s);
    free(xs);
}

/* ---- many JVMs ---- */

struct fleet_row {
    const struct pw_process *proc;
    const struct pw_row *row;
    int64_t growth; /* since the JVM's first report (or its start) */
};

static int
fleet_rows_by_bytes(const void *a, const void *b)
{
    const struct fleet_row *x = a, *y = b;
    int c = rows_by_bytes(&x->row, &y->row);
    if (c != 0)
        return c;
    c = strcmp(x->proc->host, y->proc->host);
    return c != 0 ? c : (x->proc->pid > y->proc->pid) - (x->proc->pid < y->proc->pid);
}

static void
jvm_cell(struct pw_buf *b, const struct pw_process *p)
{
    pw_buf_puts(b, "<td class=\"host\">");
    esc(b, p->host[0] != '\0' ? p->host : "?");
    pw_buf_printf(b, "</td><td class=\"num pid\" data-v=\"%" PRId64 "\">%" PRId64 "</td>", p->pid, p->pid);
}

static void
jvms_table(struct pw_buf *b, const struct pw_fleet *f)
{
    pw_buf_puts(b,
                "<section id=\"jvms\"><h2>JVMs</h2>\n<div class=\"scroll\"><table id=\"jvm-table\" "
                "class=\"pw-table sortable\">\n<thead><tr><th data-type=\"str\">Host</th>"
                "<th data-type=\"num\" class=\"num\">PID</th><th data-type=\"num\" class=\"num\">Reports</th>"
                "<th data-type=\"num\" class=\"num\">Uptime</th><th data-type=\"str\">Latest</th>"
                "<th data-type=\"num\" class=\"num\">Live</th><th data-type=\"num\" class=\"num\">Live bytes</th>"
                "<th data-type=\"num\" class=\"num\">Leaked</th><th data-type=\"num\" class=\"num\">Growth</th>"
                "<th data-type=\"num\" class=\"num\">Findings</th></tr></thead>\n<tbody>\n");
    for (size_t k = 0; k < f->nprocs; k++) {
        const struct pw_process *p = &f->procs[k];
        const struct pw_dump *last = p->dumps[p->n - 1], *first = p->n > 1 ? p->dumps[0] : NULL;
        int64_t growth = (int64_t)last->totals.live - (int64_t)(first != NULL ? first->totals.live : 0);
        uint64_t findings = 0;
        for (size_t i = 0; i < last->nfindings; i++)
            findings += last->findings[i].count;
        char up[32], sg[32];
        pw_buf_puts(b, "<tr class=\"pw-jvm\">");
        jvm_cell(b, p);
        num_cell(b, p->n);
        pw_buf_printf(b, "<td class=\"num\" data-v=\"%" PRIu64 "\">%s</td><td class=\"where\">", last->uptime_ms,
                      duration(last->uptime_ms, up, sizeof(up)));
        esc(b, last->reason);
        pw_buf_puts(b, " &middot; ");
        esc(b, last->file);
        pw_buf_printf(b, ":%ld</td>", last->line);
        num_cell(b, last->totals.live);
        num_cell(b, last->totals.live_bytes);
        num_cell(b, last->totals.leaked);
        pw_buf_printf(b, "<td class=\"num%s\" data-v=\"%" PRId64 "\">%s</td>", growth > 0 ? " up" : "", growth,
                      pw_signed(growth, sg, sizeof(sg)));
        num_cell(b, findings);
        pw_buf_puts(b, "</tr>\n");
    }
    pw_buf_puts(b,
                "</tbody></table></div>\n<p class=\"note\">Growth: live pins in the JVM's latest report less "
                "those in its first (or at its start, when it wrote one report).</p></section>\n");
}

static void
fleet_leak_table(struct pw_buf *b, const struct pw_fleet *f)
{
    struct fleet_row *rows = NULL;
    size_t n = 0, quiet = 0;
    for (size_t k = 0; k < f->nprocs; k++) {
        const struct pw_process *p = &f->procs[k];
        const struct pw_dump *last = p->dumps[p->n - 1], *first = p->n > 1 ? p->dumps[0] : NULL;
        for (size_t i = 0; i < last->nrows; i++) {
            const struct pw_row *r = &last->rows[i];
            if (r->live == 0) {
                quiet++;
                continue;
            }
            rows = pw_xrealloc(rows, (n + 1) * sizeof(*rows));
            rows[n++] = (struct fleet_row){p, r, (int64_t)r->live - (int64_t)live_in(first, r)};
        }
    }
    if (n == 0) {
        pw_buf_puts(b, "<p class=\"empty\">No live pins in any JVM's latest report.</p>\n");
        free(rows);
        return;
    }
    qsort(rows, n, sizeof(*rows), fleet_rows_by_bytes);
    pw_buf_puts(b,
                "<div class=\"scroll\"><table id=\"leaks\" class=\"pw-table sortable\">\n<thead><tr>"
                "<th data-type=\"str\">Host</th><th data-type=\"num\" class=\"num\">PID</th>"
                "<th data-type=\"str\">Native method</th><th data-type=\"str\">JNI function</th>"
                "<th data-type=\"num\" class=\"num\">Live</th><th data-type=\"num\" class=\"num\">Live bytes</th>"
                "<th data-type=\"num\" class=\"num\">Leaked</th><th data-type=\"num\" class=\"num\">Held</th>"
                "<th data-type=\"num\" class=\"num\">Growth</th><th data-type=\"num\" class=\"num\">Acquired</th>"
                "<th data-type=\"str\">Taken at</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < n; i++) {
        const struct pw_row *r = rows[i].row;
        pw_buf_puts(b, "<tr class=\"pw-row\">");
        jvm_cell(b, rows[i].proc);
        pin_row_cells(b, r, rows[i].growth);
        num_cell(b, r->acquired);
        site_cell(b, r);
        pw_buf_puts(b, "</tr>\n");
    }
    pw_buf_puts(b, "</tbody></table></div>\n");
    if (quiet > 0)
        pw_buf_printf(b, "<p class=\"note\">%zu more row%s with no live pins not shown.</p>\n", quiet,
                      quiet == 1 ? "" : "s");
    free(rows);
}

struct summed {
    const char *method, *signature, *function;
    uint64_t live, live_bytes, leaked, acquired;
    size_t jvms;
};

static int
summed_by_bytes(const void *a, const void *b)
{
    const struct summed *x = a, *y = b;
    if (x->live_bytes != y->live_bytes)
        return x->live_bytes > y->live_bytes ? -1 : 1;
    if (x->live != y->live)
        return x->live > y->live ? -1 : 1;
    int c = strcmp(x->method, y->method);
    return c != 0 ? c : strcmp(x->function, y->function);
}

static void
summed_table(struct pw_buf *b, const struct pw_fleet *f)
{
    struct summed *s = NULL;
    size_t n = 0;
    for (size_t k = 0; k < f->nprocs; k++) {
        const struct pw_dump *last = f->procs[k].dumps[f->procs[k].n - 1];
        for (size_t i = 0; i < last->nrows; i++) {
            const struct pw_row *r = &last->rows[i];
            if (r->live == 0)
                continue;
            size_t j = 0;
            while (j < n && !(strcmp(s[j].method, r->method) == 0 && strcmp(s[j].signature, r->signature) == 0 &&
                              strcmp(s[j].function, r->function) == 0))
                j++;
            if (j == n) {
                s = pw_xrealloc(s, (n + 1) * sizeof(*s));
                s[n++] = (struct summed){.method = r->method, .signature = r->signature, .function = r->function};
            }
            s[j].live += r->live;
            s[j].live_bytes += r->live_bytes;
            s[j].leaked += r->leaked;
            s[j].acquired += r->acquired;
            s[j].jvms++;
        }
    }
    pw_buf_puts(b, "<section id=\"summed\"><h2>Live pins summed over the JVMs</h2>\n");
    if (n == 0) {
        pw_buf_puts(b, "<p class=\"empty\">No live pins in any JVM's latest report.</p></section>\n");
        return;
    }
    qsort(s, n, sizeof(*s), summed_by_bytes);
    pw_buf_puts(b,
                "<div class=\"scroll\"><table id=\"summed-table\" class=\"pw-table sortable\">\n<thead><tr>"
                "<th data-type=\"str\">Native method</th><th data-type=\"str\">JNI function</th>"
                "<th data-type=\"num\" class=\"num\">JVMs</th>"
                "<th data-type=\"num\" class=\"num\">Live</th><th data-type=\"num\" class=\"num\">Live bytes</th>"
                "<th data-type=\"num\" class=\"num\">Leaked</th><th data-type=\"num\" class=\"num\">Acquired</th>"
                "</tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < n; i++) {
        pw_buf_puts(b, "<tr class=\"pw-sum\"><td class=\"method\" title=\"");
        esc(b, s[i].signature);
        pw_buf_puts(b, "\">");
        esc(b, s[i].method);
        pw_buf_puts(b, "</td><td class=\"fn\">");
        esc(b, s[i].function);
        pw_buf_puts(b, "</td>");
        num_cell(b, s[i].jvms);
        num_cell(b, s[i].live);
        num_cell(b, s[i].live_bytes);
        num_cell(b, s[i].leaked);
        num_cell(b, s[i].acquired);
        pw_buf_puts(b, "</tr>\n");
    }
    pw_buf_puts(b, "</tbody></table></div></section>\n");
    free(s);
}

static int
dumps_by_time(const void *a, const void *b)
{
    const struct pw_dump *x = *(const struct pw_dump *const *)a, *y = *(const struct pw_dump *const *)b;
    if (x->time_ms != y->time_ms)
        return x->time_ms < y->time_ms ? -1 : 1;
    return x < y ? -1 : x > y;
}

void
pw_report_html_fleet(struct pw_buf *b, const struct pw_fleet *f)
{
    /* Every report in wall-clock order; at each, the fleet's figure is the
     * sum over the JVMs of their latest report so far. */
    const struct pw_dump **order = pw_xmalloc(f->ndumps * sizeof(*order));
    size_t nd = 0;
    size_t *owner = pw_xmalloc(f->ndumps * sizeof(*owner));
    for (size_t k = 0; k < f->nprocs; k++)
        for (size_t i = 0; i < f->procs[k].n; i++)
            order[nd++] = f->procs[k].dumps[i];
    qsort(order, nd, sizeof(*order), dumps_by_time);
    for (size_t i = 0; i < nd; i++)
        for (size_t k = 0; k < f->nprocs; k++)
            for (size_t j = 0; j < f->procs[k].n; j++)
                if (f->procs[k].dumps[j] == order[i])
                    owner[i] = k;

    /* The chart reads live[i] and bytes[i] per point, and each point's
     * reason: a shallow list of the reports in that order. */
    struct pw_dumps timeline = {.items = pw_xmalloc(nd * sizeof(struct pw_dump)), .n = nd};
    for (size_t i = 0; i < nd; i++)
        timeline.items[i] = *order[i];
    struct series *s = NULL;
    size_t ns = 0;
    const struct pw_dump **latest = pw_xmalloc(f->nprocs * sizeof(*latest));
    for (size_t k = 0; k < f->nprocs; k++)
        latest[k] = NULL;
    for (size_t i = 0; i < nd; i++)
        for (size_t j = 0; j < order[i]->nrows; j++) {
            const struct pw_row *r = &order[i]->rows[j];
            if (r->live == 0)
                continue;
            size_t k = 0;
            while (k < ns && strcmp(s[k].method, r->method) != 0)
                k++;
            if (k == ns) {
                s = pw_xrealloc(s, (ns + 1) * sizeof(*s));
                s[ns].method = r->method;
                s[ns].live = calloc(nd ? nd : 1, sizeof(uint64_t));
                s[ns].bytes = calloc(nd ? nd : 1, sizeof(uint64_t));
                if (s[ns].live == NULL || s[ns].bytes == NULL) {
                    pw_error("out of memory");
                    exit(PW_EXIT_FAIL);
                }
                s[ns].peak = 0;
                ns++;
            }
        }
    for (size_t i = 0; i < nd; i++) {
        latest[owner[i]] = order[i];
        for (size_t p = 0; p < f->nprocs; p++)
            for (size_t j = 0; latest[p] != NULL && j < latest[p]->nrows; j++) {
                const struct pw_row *r = &latest[p]->rows[j];
                for (size_t k = 0; k < ns; k++)
                    if (strcmp(s[k].method, r->method) == 0) {
                        s[k].live[i] += r->live;
                        s[k].bytes[i] += r->live_bytes;
                    }
            }
    }
    uint64_t *xs = pw_xmalloc((nd ? nd : 1) * sizeof(*xs)), xmax = 0;
    for (size_t i = 0; i < nd; i++) {
        xs[i] = order[i]->time_ms - order[0]->time_ms;
        if (xs[i] > xmax)
            xmax = xs[i];
    }

    /* Totals: each JVM's latest report, summed. */
    struct pw_totals sum = {0};
    for (size_t k = 0; k < f->nprocs; k++) {
        const struct pw_totals *t = &f->procs[k].dumps[f->procs[k].n - 1]->totals;
        sum.live += t->live;
        sum.live_bytes += t->live_bytes;
        sum.leaked += t->leaked;
        sum.held += t->held;
        sum.carried += t->carried;
        sum.acquired += t->acquired;
    }

    pw_buf_puts(b,
                "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
                "<meta name=\"generator\" content=\"pinwatch " PINWATCH_VERSION "\">\n<title>pinwatch: ");
    pw_buf_printf(b, "%zu JVMs</title>\n", f->nprocs);
    pw_buf_puts(b, style);
    pw_buf_puts(b, "</head>\n<body>\n<header><h1><span>pinwatch</span> JNI pin report</h1><p>");
    char span[32];
    pw_buf_printf(b,
                  "<span id=\"fleet\">%zu JVM%s on %zu host%s</span> &middot; %zu report%s in %zu file%s over %s",
                  f->nprocs, f->nprocs == 1 ? "" : "s", f->nhosts, f->nhosts == 1 ? "" : "s", nd,
                  nd == 1 ? "" : "s", f->nfiles, f->nfiles == 1 ? "" : "s", duration(xmax, span, sizeof(span)));
    pw_buf_puts(b, "</p></header>\n<main>\n");
    char v1[32], v2[32], v3[32], v4[32], v5[32], v6[32];
    pw_buf_printf(b,
                  "<div class=\"cards\">"
                  "<div class=\"card%s\" id=\"total-live\"><b>%s</b><span>live pins, all JVMs</span></div>"
                  "<div class=\"card%s\"><b>%s</b><span>live bytes</span></div>"
                  "<div class=\"card\"><b>%s</b><span>leaked (returned holding)</span></div>"
                  "<div class=\"card\"><b>%s</b><span>held by running code</span></div>"
                  "<div class=\"card\" id=\"total-carried\"><b>%s</b><span>carried across calls (released "
                  "later, not leaked)</span></div>"
                  "<div class=\"card\"><b>%s</b><span>pins taken</span></div>"
                  "</div>\n",
                  sum.live ? " alert" : "", grouped(sum.live, v1, sizeof(v1)), sum.live_bytes ? " alert" : "",
                  human_bytes(sum.live_bytes, v2, sizeof(v2)), grouped(sum.leaked, v3, sizeof(v3)),
                  grouped(sum.held, v4, sizeof(v4)), grouped(sum.carried, v6, sizeof(v6)),
                  grouped(sum.acquired, v5, sizeof(v5)));

    jvms_table(b, f);

    pw_buf_puts(b, "<section id=\"growth\"><h2>Live pins per native method, summed over the JVMs</h2>\n");
    if (ns == 0) {
        pw_buf_puts(b, "<p class=\"empty\">No native method held a pin in any report.</p>\n");
    } else {
        pw_buf_puts(b, "<div class=\"charts\"><div><h3>Live pins</h3>\n");
        chart(b, &timeline, s, ns, false, xs, xmax);
        pw_buf_puts(b, "</div><div><h3>Live bytes</h3>\n");
        chart(b, &timeline, s, ns, true, xs, xmax);
        pw_buf_puts(b, "</div></div>\n<ul class=\"legend\">\n");
        for (size_t k = 0; k < ns; k++) {
            char g[32], h[32];
            pw_buf_printf(b, "<li style=\"--c:%s\"><i></i>", palette[k % NPALETTE]);
            esc(b, s[k].method);
            pw_buf_printf(b, " &middot; <b>%s</b> pins, %s now</li>\n", grouped(s[k].live[nd - 1], g, sizeof(g)),
                          human_bytes(s[k].bytes[nd - 1], h, sizeof(h)));
        }
        pw_buf_puts(b, "</ul>\n");
    }
    pw_buf_puts(b,
                "<p class=\"note\">Wall-clock time since the first report; at each report, the sum over the JVMs "
                "of their latest report so far.</p></section>\n");

    pw_buf_puts(b, "<section id=\"table\"><h2>Live pins in each JVM's latest report</h2>\n");
    fleet_leak_table(b, f);
    pw_buf_puts(b, "</section>\n");
    summed_table(b, f);

    /* One flame graph of every JVM's latest live bytes: a report made of
     * all their rows (shallow copies, not freed as a report). */
    size_t nrows = 0;
    for (size_t k = 0; k < f->nprocs; k++)
        nrows += f->procs[k].dumps[f->procs[k].n - 1]->nrows;
    struct pw_dump all = {.rows = pw_xmalloc((nrows ? nrows : 1) * sizeof(struct pw_row))};
    for (size_t k = 0; k < f->nprocs; k++) {
        const struct pw_dump *last = f->procs[k].dumps[f->procs[k].n - 1];
        for (size_t i = 0; i < last->nrows; i++)
            all.rows[all.nrows++] = last->rows[i];
    }
    pw_buf_puts(b, "<section id=\"flamegraph\"><h2>Live bytes by stack, all JVMs</h2>\n");
    flame(b, &all);
    pw_buf_puts(b,
                "<p class=\"flame-legend\">Outermost frame on top; click a frame to zoom, the top bar to "
                "reset.<i style=\"background:#8ce99a\"></i>Java<i style=\"background:#ffa94d\"></i>native method"
                "<i style=\"background:#ffd8a8\"></i>native code<i style=\"background:#da77f2\"></i>JNI "
                "function</p></section>\n");
    pw_buf_puts(b, "</main>\n");
    pw_buf_puts(b, script);
    pw_buf_puts(b, "</body>\n</html>\n");

    free(all.rows);
    for (size_t k = 0; k < ns; k++) {
        free(s[k].live);
        free(s[k].bytes);
    }
    free(s);
    free(xs);
    free(latest);
    free(timeline.items);
    free(owner);
    free(order);
}
