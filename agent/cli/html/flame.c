/* SPDX-License-Identifier: Apache-2.0 */
/* The stacks of a report's sites are merged into a tree of frames, each
 * weighted by the live bytes beneath it, and drawn as one SVG. */
#include "html/flame.h"
#include "html/page.h"
#include "stacks.h"

#include <stdlib.h>
#include <string.h>

/* The drawing's width in SVG units; report.js reads it from data-width. */
#define FLAME_W 1100
#define FLAME_ROW 20

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
        pw_html_esc(b, name);
        return;
    }
    char *cut = pw_xstrdup(name);
    cut[chars - 1] = '\0';
    pw_html_esc(b, cut);
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
    pw_html_esc(b, n->name);
    pw_buf_printf(b, "\"><title>");
    pw_html_esc(b, n->name);
    pw_buf_printf(b,
                  " (%s)\n%s live bytes (%s), %.1f%%</title><rect x=\"%.2f\" y=\"%zu\" width=\"%.2f\" "
                  "height=\"%d\"/>"
                  "<text x=\"%.2f\" y=\"%zu\">",
                  kind_name[n->kind], pw_html_grouped(n->value, val, sizeof(val)),
                  pw_html_bytes(n->value, hb, sizeof(hb)), 100.0 * (double)n->value / (double)total, x,
                  depth * FLAME_ROW, w > 0.5 ? w - 0.5 : w, FLAME_ROW - 2, x + 4, depth * FLAME_ROW + 14);
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
            const struct dump_site *site = &last->rows[i].sites[j];
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
                      "<svg id=\"flame\" class=\"pw-flame\" data-width=\"%d\" viewBox=\"0 0 %d %zu\" "
                      "style=\"max-width:%dpx\">\n",
                      FLAME_W, FLAME_W, depth * FLAME_ROW, FLAME_W);
        flame_nodes(b, &root, root.value, 0, 0);
        pw_buf_puts(b, "</svg>\n");
    }
    tree_free(&root);
}

void
pw_html_flame_section(struct pw_buf *b, const char *heading, const struct pw_dump *latest)
{
    pw_buf_puts(b, "<section id=\"flamegraph\"><h2>");
    pw_buf_puts(b, heading);
    pw_buf_puts(b, "</h2>\n");
    flame(b, latest);
    pw_buf_puts(b,
                "<p class=\"flame-legend\">Outermost frame on top; click a frame to zoom, the top bar to "
                "reset.<i style=\"background:#8ce99a\"></i>Java<i style=\"background:#ffa94d\"></i>native method"
                "<i style=\"background:#ffd8a8\"></i>native code<i style=\"background:#da77f2\"></i>JNI "
                "function</p></section>\n");
}
