#include "symbols.h"

#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pw_symbols {
    Dwfl *dwfl;
};

static char *debuginfo_path = NULL;

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

struct pw_symbols *
pw_symbols_open(void)
{
    struct pw_symbols *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    s->dwfl = dwfl_begin(&callbacks);
    if (s->dwfl != NULL) {
        dwfl_report_begin(s->dwfl);
        if (dwfl_linux_proc_report(s->dwfl, getpid()) != 0 || dwfl_report_end(s->dwfl, NULL, NULL) != 0) {
            dwfl_end(s->dwfl);
            s->dwfl = NULL;
        }
    }
    return s;
}

void
pw_symbols_close(struct pw_symbols *s)
{
    if (s == NULL)
        return;
    if (s->dwfl != NULL)
        dwfl_end(s->dwfl);
    free(s);
}

void
pw_symbols_lookup(struct pw_symbols *s, uintptr_t ret, struct pw_location *out)
{
    memset(out, 0, sizeof(*out));
    if (s == NULL || s->dwfl == NULL || ret == 0)
        return;
    Dwarf_Addr call = (Dwarf_Addr)ret - 1;
    Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, call);
    if (mod == NULL)
        return;
    const char *mainfile = NULL;
    out->library = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
    if (mainfile != NULL)
        out->library = mainfile;
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(mod, call, &off, &sym, NULL, NULL, NULL);
    if (name != NULL) {
        out->symbol = name;
        out->offset = off + 1; /* of the return address, as debuggers print it */
    }
    Dwfl_Line *line = dwfl_module_getsrc(mod, call);
    if (line != NULL) {
        int lineno = 0;
        const char *file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
        if (file != NULL && lineno > 0) {
            out->file = file;
            out->line = lineno;
        }
    }
}
