/* SPDX-License-Identifier: Apache-2.0 */
#include "jvm/symbols.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pw_symbols {
    Dwfl *dwfl;
    /* Paths made absolute for this view, freed with it. */
    char **paths;
    size_t npaths, cap;
};

/* elfutils is not thread-safe as Debian builds it: two Dwfl handles used at
 * once (a report and an UNRELEASED line) were seen to lose symbols.  One view of
 * the process at a time, from open to close. */
static pthread_mutex_t dwfl_lock = PTHREAD_MUTEX_INITIALIZER;

static char *debuginfo_path = NULL;

/* Separate debug files are looked for by build id under the debuginfo path
 * (/usr/lib/debug/.build-id/, where Debian's, Ubuntu's and Fedora's debug
 * packages put them), and nowhere else.  dwfl_standard_find_debuginfo ends,
 * for any library without local debug information (libjvm.so, libc), with
 * a debuginfod query: in elfutils 0.188 that dlopens libdebuginfod and its
 * libcurl, GnuTLS and Kerberos (7.3 MB of resident memory, measured, kept
 * for the life of the process), and with DEBUGINFOD_URLS set (Debian's
 * profile sets it) it would download debug files from the report thread of
 * a production JVM.  A library's own symbol table still names its frames. */
static int
find_debuginfo_locally(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                       const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                       char **debuginfo_file_name)
{
    return dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file, debuglink_crc,
                                        debuginfo_file_name);
}

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = find_debuginfo_locally,
    .debuginfo_path = &debuginfo_path,
};

struct pw_symbols *
pw_symbols_open(void)
{
    struct pw_symbols *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    pthread_mutex_lock(&dwfl_lock);
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
    pthread_mutex_unlock(&dwfl_lock);
    for (size_t i = 0; i < s->npaths; i++)
        free(s->paths[i]);
    free(s->paths);
    free(s);
}

/* A source path as the compiler recorded it is often relative to the
 * directory it ran in (Meson writes "../src/x.c"): join it to DW_AT_comp_dir
 * so that a report names the file wherever it is read. */
static const char *
absolute(struct pw_symbols *s, Dwarf_Die *cu, const char *file)
{
    if (file == NULL || file[0] == '/')
        return file;
    Dwarf_Attribute attr;
    const char *dir =
        cu != NULL && dwarf_attr(cu, DW_AT_comp_dir, &attr) != NULL ? dwarf_formstring(&attr) : NULL;
    if (dir == NULL)
        return file;
    if (s->npaths == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        char **grown = realloc(s->paths, cap * sizeof(*grown));
        if (grown == NULL)
            return file;
        s->paths = grown;
        s->cap = cap;
    }
    size_t dlen = strlen(dir), flen = strlen(file);
    char *path = malloc(dlen + 1 + flen + 1);
    if (path == NULL)
        return file;
    memcpy(path, dir, dlen);
    path[dlen] = '/';
    memcpy(path + dlen + 1, file, flen + 1);
    /* Fold "dir/../" pairs that Meson's relative paths leave. */
    char *p;
    while ((p = strstr(path, "/../")) != NULL && p > path) {
        char *prev = p - 1;
        while (prev > path && *prev != '/')
            prev--;
        if (*prev != '/' || strncmp(prev, "/..", 3) == 0)
            break;
        memmove(prev, p + 3, strlen(p + 3) + 1);
    }
    s->paths[s->npaths++] = path;
    return path;
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
            out->file = absolute(s, dwfl_linecu(line), file);
            out->line = lineno;
        }
    }
}

/* The name of a (possibly inlined, possibly abstract) function DIE. */
static const char *
die_name(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    const char *name = NULL;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) != NULL)
        name = dwarf_formstring(&attr);
    if (name == NULL && dwarf_attr_integrate(die, DW_AT_name, &attr) != NULL)
        name = dwarf_formstring(&attr);
    return name;
}

/* Where an inlined call was made: DW_AT_call_file / DW_AT_call_line. */
static void
call_site(Dwarf_Die *cudie, Dwarf_Die *inlined, const char **file, int *line)
{
    Dwarf_Attribute attr;
    Dwarf_Word value;
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    *file = NULL;
    *line = 0;
    if (dwarf_attr(inlined, DW_AT_call_line, &attr) != NULL && dwarf_formudata(&attr, &value) == 0)
        *line = (int)value;
    if (dwarf_attr(inlined, DW_AT_call_file, &attr) != NULL && dwarf_formudata(&attr, &value) == 0 &&
        dwarf_getsrcfiles(cudie, &files, &nfiles) == 0 && value < nfiles)
        *file = dwarf_filesrc(files, value, NULL, NULL);
}

int
pw_symbols_expand(struct pw_symbols *s, uintptr_t ret, struct pw_location *out, bool *inlined, int max)
{
    if (max <= 0)
        return 0;
    pw_symbols_lookup(s, ret, &out[0]);
    inlined[0] = false;
    if (s == NULL || s->dwfl == NULL || ret == 0 || max == 1)
        return 1;
    Dwarf_Addr call = (Dwarf_Addr)ret - 1, bias = 0;
    Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, call);
    Dwarf_Die *cudie = mod != NULL ? dwfl_module_addrdie(mod, call, &bias) : NULL;
    Dwarf_Die *scopes = NULL;
    int nscopes = cudie != NULL ? dwarf_getscopes(cudie, call - bias, &scopes) : 0;
    if (nscopes <= 0) {
        free(scopes);
        return 1;
    }
    /* scopes[] runs innermost to outermost.  Each inlined subroutine is a
     * frame whose line is the line table's (for the innermost) or the call
     * site recorded by the inlined subroutine inside it. */
    struct pw_location real = out[0];
    int n = 0;
    const char *file = real.file;
    int line = real.line;
    for (int i = 0; i < nscopes && n < max - 1; i++) {
        if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
            continue;
        out[n] = (struct pw_location){
            .symbol = die_name(&scopes[i]),
            .library = real.library,
            .file = file,
            .line = line,
        };
        inlined[n] = true;
        n++;
        call_site(cudie, &scopes[i], &file, &line);
        file = absolute(s, cudie, file);
    }
    free(scopes);
    /* The real function: its ELF symbol, at the line the outermost inlined
     * call was made from. */
    real.file = file != NULL ? file : real.file;
    real.line = file != NULL ? line : real.line;
    out[n] = real;
    inlined[n] = false;
    return n + 1;
}
