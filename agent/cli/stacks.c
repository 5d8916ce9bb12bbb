/* SPDX-License-Identifier: Apache-2.0 */
#include "stacks.h"
#include "util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void
push(struct pw_stack *s, char *name, enum pw_frame_kind kind)
{
    /* ';' separates frames in the collapsed format. */
    for (char *p = name; *p != '\0'; p++)
        if (*p == ';')
            *p = ':';
    s->names = pw_xrealloc(s->names, (s->n + 1) * sizeof(*s->names));
    s->kinds = pw_xrealloc(s->kinds, (s->n + 1) * sizeof(*s->kinds));
    s->names[s->n] = name;
    s->kinds[s->n] = kind;
    s->n++;
}

static char *
native_name(const struct dump_frame *f)
{
    struct pw_buf b = {0};
    if (f->symbol != NULL) {
        pw_buf_puts(&b, f->symbol);
    } else {
        pw_buf_puts(&b, f->address != NULL ? f->address : "?");
        if (f->library != NULL) {
            const char *base = strrchr(f->library, '/');
            pw_buf_printf(&b, " [%s]", base != NULL ? base + 1 : f->library);
        }
    }
    if (f->file != NULL) {
        const char *base = strrchr(f->file, '/');
        pw_buf_printf(&b, " (%s", base != NULL ? base + 1 : f->file);
        if (f->line >= 0)
            pw_buf_printf(&b, ":%" PRId64, f->line);
        pw_buf_puts(&b, ")");
    }
    return b.data != NULL ? b.data : pw_xstrdup("?");
}

void
pw_stack_of(const struct pw_row *row, const struct dump_site *site, struct pw_stack *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = site->njava; i-- > 0;)
        push(out, pw_xstrdup(site->java[i].method), PW_KIND_JAVA);
    /* The Java stack's innermost frame is usually the native method itself. */
    if (site->njava == 0 || strcmp(site->java[0].method, row->method) != 0)
        push(out, pw_xstrdup(row->method), PW_KIND_METHOD);
    else
        out->kinds[out->n - 1] = PW_KIND_METHOD;
    for (size_t i = site->nframes; i-- > 0;)
        push(out, native_name(&site->frames[i]), PW_KIND_NATIVE);
    push(out, pw_xstrdup(row->function), PW_KIND_FUNCTION);
}

void
pw_stack_free(struct pw_stack *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->names[i]);
    free(s->names);
    free(s->kinds);
    memset(s, 0, sizeof(*s));
}
