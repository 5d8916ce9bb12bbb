/* SPDX-License-Identifier: Apache-2.0 */
#include "html/chart.h"
#include "html/page.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHART_W 560
#define CHART_H 250
#define PAD_L 64
#define PAD_R 28
#define PAD_T 12
#define PAD_B 30

struct pw_html_series *
pw_html_series_for(struct pw_html_series **s, size_t *n, const char *method, size_t npoints)
{
    for (size_t k = 0; k < *n; k++)
        if (strcmp((*s)[k].method, method) == 0)
            return &(*s)[k];
    *s = pw_xrealloc(*s, (*n + 1) * sizeof(**s));
    struct pw_html_series *add = &(*s)[(*n)++];
    add->method = method;
    add->live = calloc(npoints ? npoints : 1, sizeof(uint64_t));
    add->bytes = calloc(npoints ? npoints : 1, sizeof(uint64_t));
    if (add->live == NULL || add->bytes == NULL) {
        pw_error("out of memory");
        exit(PW_EXIT_FAIL);
    }
    return add;
}

size_t
pw_html_series_of(const struct pw_dumps *d, struct pw_html_series **out)
{
    struct pw_html_series *s = NULL;
    size_t n = 0;
    /* Methods first, so that each is counted in every report, including
     * those where it held nothing. */
    for (size_t i = 0; i < d->n; i++)
        for (size_t j = 0; j < d->items[i].nrows; j++)
            if (d->items[i].rows[j].live > 0)
                pw_html_series_for(&s, &n, d->items[i].rows[j].method, d->n);
    for (size_t i = 0; i < d->n; i++)
        for (size_t j = 0; j < d->items[i].nrows; j++) {
            const struct pw_row *r = &d->items[i].rows[j];
            for (size_t k = 0; k < n; k++)
                if (strcmp(s[k].method, r->method) == 0) {
                    s[k].live[i] += r->live;
                    s[k].bytes[i] += r->live_bytes;
                }
        }
    *out = s;
    return n;
}

void
pw_html_series_free(struct pw_html_series *s, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        free(s[k].live);
        free(s[k].bytes);
    }
    free(s);
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
        pw_html_grouped(n, out, len);
        return;
    }
    if (v == 0)
        snprintf(out, len, "0");
    else
        snprintf(out, len, "%g %s", v / unit, uname);
}

/* One chart's scales: where a report's time and a value land. */
struct plot {
    const struct pw_dumps *d;
    const uint64_t *xs;
    uint64_t xmax; /* at least 1 */
    bool bytes;    /* live bytes, else live pins */
    double unit;   /* bytes: the axis unit (1, 1024, ...) */
    const char *uname;
    double step, top; /* y tick step and axis maximum */
};

static double
plot_x(const struct plot *p, size_t i)
{
    double pw = CHART_W - PAD_L - PAD_R;
    return PAD_L + pw * (double)p->xs[i] / (double)p->xmax;
}

static double
plot_y(const struct plot *p, double v)
{
    double ph = CHART_H - PAD_T - PAD_B;
    return PAD_T + ph - ph * v / p->top;
}

static uint64_t
value(const struct plot *p, const struct pw_html_series *s, size_t i)
{
    return p->bytes ? s->bytes[i] : s->live[i];
}

static void
plot_scale(struct plot *p, const struct pw_html_series *s, size_t ns)
{
    uint64_t ymax = 0;
    for (size_t k = 0; k < ns; k++)
        for (size_t i = 0; i < p->d->n; i++)
            if (value(p, &s[k], i) > ymax)
                ymax = value(p, &s[k], i);
    /* Bytes: ticks at round numbers of B, KiB, MiB... */
    p->unit = 1;
    p->uname = "B";
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    for (size_t u = 0; p->bytes && u < 4 && (double)ymax >= p->unit * 1024; u++) {
        p->unit *= 1024;
        p->uname = units[u];
    }
    p->step = nice_step((double)ymax / p->unit) * p->unit;
    if (!p->bytes && p->step < 1)
        p->step = 1;
    p->top = ymax == 0 ? p->step * 5 : ceil((double)ymax / p->step - 1e-9) * p->step;
}

static void
axes(struct pw_buf *b, const struct plot *p)
{
    for (int i = 0; i * p->step <= p->top + p->step / 2; i++) {
        double v = i * p->step;
        double y = plot_y(p, v);
        char label[32];
        tick_label(label, sizeof(label), v, p->bytes, p->unit, p->uname);
        pw_buf_printf(b,
                      "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
                      "<text class=\"ylab\" x=\"%d\" y=\"%.1f\">%s</text>\n",
                      PAD_L, CHART_W - PAD_R, y, y, PAD_L - 8, y + 4, label);
    }
    /* x labels at the ends and quarters of the span: five are enough to read
     * a time off the chart and stay apart at 11 px even when each needs a
     * unit ("10.5 min"); pw_html_duration picks the unit that reads best. */
    double pw = CHART_W - PAD_L - PAD_R;
    for (int i = 0; i <= 4; i++) {
        double x = PAD_L + pw * i / 4;
        char label[32];
        pw_html_duration((uint64_t)((double)p->xmax * i / 4 + 0.5), label, sizeof(label));
        pw_buf_printf(b, "<text class=\"xlab\" x=\"%.1f\" y=\"%d\">%s</text>\n", x, CHART_H - 10, label);
    }
    double base = plot_y(p, 0);
    pw_buf_printf(b, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n", PAD_L,
                  CHART_W - PAD_R, base, base);
}

static void
series_line(struct pw_buf *b, const struct plot *p, const struct pw_html_series *s, size_t k)
{
    const struct pw_dumps *d = p->d;
    pw_buf_printf(b, "<g class=\"pw-series\" data-chart=\"%s\" data-method=\"", p->bytes ? "bytes" : "live");
    pw_html_esc(b, s->method);
    pw_buf_printf(b, "\" style=\"--c:%s\">\n<title>", pw_html_color(k));
    pw_html_esc(b, s->method);
    pw_buf_puts(b, "</title>\n<polyline points=\"");
    for (size_t i = 0; i < d->n; i++)
        pw_buf_printf(b, "%s%.1f,%.1f", i ? " " : "", plot_x(p, i), plot_y(p, (double)value(p, s, i)));
    pw_buf_puts(b, "\"/>\n");
    /* Points only while there are few enough to see. */
    for (size_t i = 0; d->n <= 200 && i < d->n; i++) {
        char val[32], at[32];
        /* Exact in the tooltip, bytes too: the axis already rounds. */
        pw_html_grouped(value(p, s, i), val, sizeof(val));
        pw_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"><title>%s %s at %s (%s)</title></circle>\n",
                      plot_x(p, i), plot_y(p, (double)value(p, s, i)), val, p->bytes ? "bytes" : "pins",
                      pw_html_duration(p->xs[i], at, sizeof(at)), d->items[i].reason);
    }
    pw_buf_puts(b, "</g>\n");
}

static void
chart(struct pw_buf *b, const struct pw_dumps *d, const struct pw_html_series *s, size_t ns, bool bytes,
      const uint64_t *xs, uint64_t xmax)
{
    struct plot p = {.d = d, .xs = xs, .xmax = xmax == 0 ? 1 : xmax, .bytes = bytes};
    plot_scale(&p, s, ns);
    const char *id = bytes ? "bytes" : "live";
    pw_buf_printf(b,
                  "<svg class=\"pw-chart\" id=\"chart-%s\" data-chart=\"%s\" viewBox=\"0 0 %d %d\" "
                  "role=\"img\" aria-label=\"%s per native method\">\n",
                  id, id, CHART_W, CHART_H, bytes ? "live bytes" : "live pins");
    axes(b, &p);
    for (size_t k = 0; k < ns; k++)
        series_line(b, &p, &s[k], k);
    pw_buf_puts(b, "</svg>\n");
}

void
pw_html_growth_section(struct pw_buf *b, const char *heading, const char *note, const struct pw_dumps *points,
                       const struct pw_html_series *s, size_t ns, const uint64_t *xs, uint64_t xmax)
{
    pw_buf_puts(b, "<section id=\"growth\"><h2>");
    pw_buf_puts(b, heading);
    pw_buf_puts(b, "</h2>\n");
    if (ns == 0) {
        pw_buf_puts(b, "<p class=\"empty\">No native method held a pin in any report.</p>\n");
    } else {
        pw_buf_puts(b, "<div class=\"charts\"><div><h3>Live pins</h3>\n");
        chart(b, points, s, ns, false, xs, xmax);
        pw_buf_puts(b, "</div><div><h3>Live bytes</h3>\n");
        chart(b, points, s, ns, true, xs, xmax);
        pw_buf_puts(b, "</div></div>\n<ul class=\"legend\">\n");
        size_t now = points->n - 1;
        for (size_t k = 0; k < ns; k++) {
            char g[32], h[32];
            pw_buf_printf(b, "<li style=\"--c:%s\"><i></i>", pw_html_color(k));
            pw_html_esc(b, s[k].method);
            pw_buf_printf(b, " &middot; <b>%s</b> pins, %s now</li>\n",
                          pw_html_grouped(s[k].live[now], g, sizeof(g)),
                          pw_html_bytes(s[k].bytes[now], h, sizeof(h)));
        }
        pw_buf_puts(b, "</ul>\n");
    }
    pw_buf_printf(b, "<p class=\"note\">%s</p></section>\n", note);
}
