/* SPDX-License-Identifier: Apache-2.0 */
#include "jvm/symbols.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

struct pw_symbols {
    /* Made at the first address the cache does not know: a report whose
     * addresses were all named before reads no ELF or DWARF at all. */
    Dwfl *dwfl;
    bool dwfl_tried;
    /* Paths made absolute for this view, freed with it. */
    char **paths;
    size_t npaths, cap;
};

/* Names found are kept from one view to the next, keyed by return address
 * (and by how they were asked for), as long as the process maps the same
 * files at the same places.  Without it every report read the DWARF of
 * every library a symbolised stack passes through again: a native
 * thread's live local reference, whose stack runs through libc to the
 * thread's start, made each report inflate libc's compressed debug
 * sections, and interval=0.01 reports came 170 ms apart under load. */
#define CACHE_SLOTS 8192 /* a power of two */
#define CACHE_MAX (CACHE_SLOTS / 2)

struct cached {
    uintptr_t ret;
    int max; /* 0: pw_symbols_lookup; else pw_symbols_expand's max */
    int n;
    struct pw_location *where; /* n of them, strings in the same block */
    bool *inlined;
};

static struct cached *cache[CACHE_SLOTS];
static size_t cache_used;
static uint64_t cache_maps; /* the signature of the mappings it was filled under */
static uint64_t dwarf_views;

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

/* Libraries held open from the binding of their first native method, so that
 * a deleted one can still be read without privileges (see open_deleted).
 * Only libraries outside the JVM's java.home are held: the JDK's own are
 * never deleted, and holding them would spend descriptors on files that
 * stay on disk.  Bounded: past HELD_MAX libraries nothing more is held, and
 * those rows are named as without a held file.  Keyed by the library's load
 * address; a library unloaded and another loaded at the same address is
 * not held again (JNI libraries are unloaded only with their class loader,
 * and the row then falls back as it would without this table). */
#define HELD_MAX 64

struct held_library {
    uintptr_t base; /* dli_fbase */
    int fd;         /* -1: the open failed, not tried again */
    dev_t dev;      /* of the open file, as /proc/self/maps shows it */
    ino_t ino;
};

static struct held_library held[HELD_MAX];
static int nheld;
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static char java_home[4096];
static size_t java_home_len; /* 0 until the JVM has told it */

/* java.home, asked once.  The JVM answers from the OnLoad phase on; the
 * natives bound in the primordial phase, before it can, are the JDK's own. */
static bool
know_java_home(jvmtiEnv *jvmti)
{
    if (java_home_len > 0)
        return true;
    char *home = NULL;
    if (jvmti == NULL || (*jvmti)->GetSystemProperty(jvmti, "java.home", &home) != JVMTI_ERROR_NONE ||
        home == NULL)
        return false;
    size_t n = strlen(home);
    while (n > 1 && home[n - 1] == '/')
        n--;
    if (n > 0 && n < sizeof(java_home)) {
        memcpy(java_home, home, n);
        java_home[n] = '\0';
        java_home_len = n;
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)home);
    return java_home_len > 0;
}

void
pw_symbols_hold_library(jvmtiEnv *jvmti, const void *address)
{
    Dl_info info;
    if (dladdr(address, &info) == 0 || info.dli_fbase == NULL || info.dli_fname == NULL ||
        info.dli_fname[0] != '/')
        return;
    Dl_info self;
    if (dladdr((const void *)pw_symbols_hold_library, &self) != 0 && self.dli_fbase == info.dli_fbase)
        return;
    pthread_mutex_lock(&held_lock);
    if (!know_java_home(jvmti) ||
        (strncmp(info.dli_fname, java_home, java_home_len) == 0 && info.dli_fname[java_home_len] == '/'))
        goto out;
    for (int i = 0; i < nheld; i++)
        if (held[i].base == (uintptr_t)info.dli_fbase)
            goto out;
    if (nheld == HELD_MAX)
        goto out;
    struct held_library *h = &held[nheld++];
    h->base = (uintptr_t)info.dli_fbase;
    h->fd = open(info.dli_fname, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (h->fd >= 0 && fstat(h->fd, &st) == 0) {
        h->dev = st.st_dev;
        h->ino = st.st_ino;
    } else if (h->fd >= 0) {
        close(h->fd);
        h->fd = -1;
    }
out:
    pthread_mutex_unlock(&held_lock);
}

/* A copy of the held descriptor of the file mapped from DEV:INO, for
 * elfutils to own and close; -1 when none is held. */
static int
held_copy(dev_t dev, ino_t ino)
{
    int fd = -1;
    pthread_mutex_lock(&held_lock);
    for (int i = 0; i < nheld && fd < 0; i++)
        if (held[i].fd >= 0 && held[i].dev == dev && held[i].ino == ino)
            fd = fcntl(held[i].fd, F_DUPFD_CLOEXEC, 0);
    pthread_mutex_unlock(&held_lock);
    return fd;
}

/* A library unpacked to a temporary file and deleted once loaded
 * (rocksdbjni, conscrypt, netty-tcnative) is still mapped: /proc/self/maps
 * names it "/tmp/librocksdbjni123.so (deleted)", which elfutils cannot open
 * (it reads such an image from memory only when attached to the process, and
 * the loaded segments hold no symbol table or DWARF).  The mapping's
 * /proc/self/map_files entry opens the file itself, whole, as long as the
 * process maps it, but the kernel lets only a process with CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE do it: a JVM run as an ordinary user reads the file
 * through the descriptor pw_symbols_hold_library kept, found by the device
 * and inode the mapping names.  With neither, lookup() names the function
 * from the dynamic symbols, through the loader. */
static int
open_deleted(const char *module_name)
{
    FILE *f = fopen("/proc/self/maps", "re");
    if (f == NULL)
        return -1;
    char line[4096 + 128];
    int fd = -1;
    while (fd < 0 && fgets(line, sizeof(line), f) != NULL) {
        unsigned long start, end, inode;
        unsigned int major, minor;
        int path_at = -1;
        if (sscanf(line, "%lx-%lx %*s %*s %x:%x %lu %n", &start, &end, &major, &minor, &inode, &path_at) != 5 ||
            path_at < 0)
            continue;
        char *path = line + path_at;
        path[strcspn(path, "\n")] = '\0';
        if (strcmp(path, module_name) != 0)
            continue;
        char entry[64];
        snprintf(entry, sizeof(entry), "/proc/self/map_files/%lx-%lx", start, end);
        fd = open(entry, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            fd = held_copy(makedev(major, minor), (ino_t)inode);
        break; /* every mapping of the file opens the same file */
    }
    fclose(f);
    return fd;
}

static bool
is_deleted(const char *module_name)
{
    static const char deleted[] = " (deleted)";
    size_t n = module_name != NULL ? strlen(module_name) : 0, d = sizeof(deleted) - 1;
    return n > d && module_name[0] == '/' && strcmp(module_name + n - d, deleted) == 0;
}

static int
find_elf(Dwfl_Module *mod, void **userdata, const char *module_name, Dwarf_Addr base, char **file_name,
         Elf **elfp)
{
    if (is_deleted(module_name)) {
        int fd = open_deleted(module_name);
        if (fd >= 0) {
            *file_name = NULL;
            *elfp = NULL;
            return fd;
        }
    }
    return dwfl_linux_proc_find_elf(mod, userdata, module_name, base, file_name, elfp);
}

static const Dwfl_Callbacks callbacks = {
    .find_elf = find_elf,
    .find_debuginfo = find_debuginfo_locally,
    .debuginfo_path = &debuginfo_path,
};

/* FNV-1a of every file-backed mapping line of /proc/self/maps (address
 * range, offset, device, inode and path): any library loaded, unloaded or
 * replaced changes it.  0 when the file cannot be read, which no cache
 * matches. */
static uint64_t
maps_signature(void)
{
    FILE *f = fopen("/proc/self/maps", "re");
    if (f == NULL)
        return 0;
    uint64_t h = 14695981039346656037ULL;
    char line[1024];
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strchr(line, '/') == NULL)
            continue;
        for (const char *c = line; *c != '\0'; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    }
    fclose(f);
    return h == 0 ? 1 : h;
}

static void
cache_clear(void)
{
    for (size_t i = 0; i < CACHE_SLOTS; i++) {
        free(cache[i]);
        cache[i] = NULL;
    }
    cache_used = 0;
}

static size_t
cache_slot(uintptr_t ret, int max)
{
    uint64_t h = ((uint64_t)ret ^ ((uint64_t)max << 56)) * PW_HASH_GOLDEN;
    size_t i = (size_t)(h >> 51) & (CACHE_SLOTS - 1);
    while (cache[i] != NULL && (cache[i]->ret != ret || cache[i]->max != max))
        i = (i + 1) & (CACHE_SLOTS - 1);
    return i;
}

static int
cache_get(uintptr_t ret, int max, struct pw_location *out, bool *inlined)
{
    const struct cached *c = cache[cache_slot(ret, max)];
    if (c == NULL)
        return 0;
    memcpy(out, c->where, (size_t)c->n * sizeof(*out));
    if (inlined != NULL)
        memcpy(inlined, c->inlined, (size_t)c->n * sizeof(*inlined));
    return c->n;
}

static size_t
string_size(const char *str)
{
    return str != NULL ? strlen(str) + 1 : 0;
}

static const char *
string_copy(char **to, const char *str)
{
    if (str == NULL)
        return NULL;
    size_t n = strlen(str) + 1;
    char *copy = memcpy(*to, str, n);
    *to += n;
    return copy;
}

/* One block per address: the entry, its locations, their flags and their
 * strings.  When the cache is full or memory short, the names are still
 * returned, only not kept. */
static void
cache_put(uintptr_t ret, int max, const struct pw_location *where, const bool *inlined, int n)
{
    if (cache_used >= CACHE_MAX)
        return;
    size_t strings = 0;
    for (int i = 0; i < n; i++)
        strings += string_size(where[i].symbol) + string_size(where[i].library) + string_size(where[i].file);
    size_t head = sizeof(struct cached) + (size_t)n * sizeof(struct pw_location);
    struct cached *c = malloc(head + (size_t)n * sizeof(bool) + strings);
    if (c == NULL)
        return;
    c->ret = ret;
    c->max = max;
    c->n = n;
    c->where = (struct pw_location *)(c + 1);
    c->inlined = (bool *)((char *)c + head);
    char *to = (char *)(c->inlined + n);
    for (int i = 0; i < n; i++) {
        c->where[i] = where[i];
        c->where[i].symbol = string_copy(&to, where[i].symbol);
        c->where[i].library = string_copy(&to, where[i].library);
        c->where[i].file = string_copy(&to, where[i].file);
        c->inlined[i] = inlined != NULL ? inlined[i] : false;
    }
    cache[cache_slot(ret, max)] = c;
    cache_used++;
}

struct pw_symbols *
pw_symbols_open(void)
{
    struct pw_symbols *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    pthread_mutex_lock(&dwfl_lock);
    uint64_t maps = maps_signature();
    if (maps == 0 || maps != cache_maps || cache_used >= CACHE_MAX) {
        cache_clear();
        cache_maps = maps;
    }
    return s;
}

/* The libdw view of the process, made on first need. */
static Dwfl *
view(struct pw_symbols *s)
{
    if (s->dwfl_tried)
        return s->dwfl;
    s->dwfl_tried = true;
    dwarf_views++;
    s->dwfl = dwfl_begin(&callbacks);
    if (s->dwfl != NULL) {
        dwfl_report_begin(s->dwfl);
        if (dwfl_linux_proc_report(s->dwfl, getpid()) != 0 || dwfl_report_end(s->dwfl, NULL, NULL) != 0) {
            dwfl_end(s->dwfl);
            s->dwfl = NULL;
        }
    }
    return s->dwfl;
}

uint64_t
pw_symbols_dwarf_views(void)
{
    pthread_mutex_lock(&dwfl_lock);
    uint64_t n = dwarf_views;
    pthread_mutex_unlock(&dwfl_lock);
    return n;
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

static void
lookup(struct pw_symbols *s, uintptr_t ret, struct pw_location *out)
{
    memset(out, 0, sizeof(*out));
    if (s == NULL || view(s) == NULL || ret == 0)
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
    } else if (is_deleted(out->library)) {
        /* No ELF file to read (a deleted library that map_files would not
         * open and that no held descriptor reaches): the loader still has the dynamic symbols of what it mapped,
         * and a JNI function is always one. */
        Dl_info info;
        if (dladdr((void *)call, &info) != 0 && info.dli_sname != NULL && info.dli_saddr != NULL) {
            out->symbol = info.dli_sname;
            out->offset = (uint64_t)(ret - (uintptr_t)info.dli_saddr);
        }
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

static int
expand(struct pw_symbols *s, uintptr_t ret, struct pw_location *out, bool *inlined, int max)
{
    lookup(s, ret, &out[0]);
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

void
pw_symbols_lookup(struct pw_symbols *s, uintptr_t ret, struct pw_location *out)
{
    if (s == NULL || ret == 0 || cache_get(ret, 0, out, NULL) == 0) {
        lookup(s, ret, out);
        if (s != NULL && ret != 0)
            cache_put(ret, 0, out, NULL, 1);
    }
}

int
pw_symbols_expand(struct pw_symbols *s, uintptr_t ret, struct pw_location *out, bool *inlined, int max)
{
    if (max <= 0)
        return 0;
    int n = s != NULL && ret != 0 ? cache_get(ret, max, out, inlined) : 0;
    if (n == 0) {
        n = expand(s, ret, out, inlined, max);
        if (s != NULL && ret != 0)
            cache_put(ret, max, out, inlined, n);
    }
    return n;
}
