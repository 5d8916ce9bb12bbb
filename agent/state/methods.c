/* SPDX-License-Identifier: Apache-2.0 */
#include "state/methods.h"
#include "jvm/jni_table.h"
#include "jvm/jni_names.h"
#include "jvm/symbols.h"
#include "base/log.h"
#include "state/frame_layout.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

_Static_assert(offsetof(struct pw_method, orig) == PW_M_ORIG, "native_entry.S reads orig here");
_Static_assert(offsetof(struct pw_method, stack_words) == PW_M_STACK_WORDS,
               "native_entry.S reads stack_words here");

struct pw_method pw_method_native_thread = {.name = "<native thread>", .signature = ""};

/* Thunks must be executable; the JVM's own code cache is mapped the same
 * way.  Chunks are never unmapped: a thunk may run until the process ends. */
#define ARENA_CHUNK (64 * 1024)
#define METHOD_STRIDE ((sizeof(struct pw_method) + 15) & ~(size_t)15)

static pthread_mutex_t bind_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *arena_cur, *arena_end;
#define MAX_CHUNKS 4096
static uint8_t *chunks[MAX_CHUNKS];
static size_t chunk_count;
static struct pw_method *all_methods;
static bool thunks_disabled;

/* (jmethodID, address) -> method, so that a method bound again to the same
 * function (RegisterNatives repeated) reuses its thunk. */
static struct pw_method **by_binding;
static size_t by_binding_cap, by_binding_count;

/* The intercept layer's entries (pw_methods_set_entries): a thunk jumps to
 * one of them.  Until they are set no thunk is made. */
static void *entry_jump, *entry_call, *entry_call_stack;

void
pw_methods_set_entries(void *jump, void *call, void *call_stack)
{
    entry_jump = jump;
    entry_call = call;
    entry_call_stack = call_stack;
}

/* How many 8-byte stack words the arguments of a native method with this
 * JNI signature take, counting the JNIEnv and the class or receiver:
 * what is left once int_regs integer and vector_regs vector registers are
 * taken, every argument on the stack one word (x86-64 SysV rounds each
 * to an eightbyte; AAPCS64 on Linux rounds each to 8 bytes, unlike
 * Apple's, which packs them).  -1 for no signature (the primordial phase)
 * or a malformed one. */
static int
signature_stack_words(const char *sig, int int_regs, int vector_regs)
{
    if (sig == NULL || sig[0] != '(')
        return -1;
    int ints = 2, floats = 0;
    for (const char *p = sig + 1; *p != ')'; p++) {
        switch (*p) {
        case 'F':
        case 'D': floats++; break;
        case '[':
            while (*p == '[')
                p++;
            if (*p == 'L')
                while (*p != ';' && *p != '\0')
                    p++;
            ints++;
            break;
        case 'L':
            while (*p != ';' && *p != '\0')
                p++;
            ints++;
            break;
        default: ints++; break;
        }
        if (*p == '\0')
            return -1;
    }
    return (ints > int_regs ? ints - int_regs : 0) + (floats > vector_regs ? floats - vector_regs : 0);
}

#define BINDING_HASH_SHIFT 20

static size_t
binding_slot(jmethodID id, void *orig, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)id * PW_HASH_GOLDEN ^ (uint64_t)(uintptr_t)orig * PW_HASH_MIX2;
    /* Above the low bits, which a product takes from the inputs' low
     * (aligned, mostly zero) bits alone. */
    return (size_t)(h >> BINDING_HASH_SHIFT) & (cap - 1);
}

static struct pw_method *
binding_find(jmethodID id, void *orig)
{
    if (by_binding_cap == 0)
        return NULL;
    for (size_t i = binding_slot(id, orig, by_binding_cap);; i = (i + 1) & (by_binding_cap - 1)) {
        struct pw_method *m = by_binding[i];
        if (m == NULL)
            return NULL;
        if (m->id == id && m->orig == orig)
            return m;
    }
}

static bool
binding_add(struct pw_method *m)
{
    if ((by_binding_count + 1) * 2 > by_binding_cap) {
        size_t cap = by_binding_cap ? by_binding_cap * 2 : 1024;
        struct pw_method **fresh = calloc(cap, sizeof(*fresh));
        if (fresh == NULL)
            return false;
        for (size_t i = 0; i < by_binding_cap; i++) {
            struct pw_method *old = by_binding[i];
            if (old == NULL)
                continue;
            size_t j = binding_slot(old->id, old->orig, cap);
            while (fresh[j] != NULL)
                j = (j + 1) & (cap - 1);
            fresh[j] = old;
        }
        free(by_binding);
        by_binding = fresh;
        by_binding_cap = cap;
    }
    size_t j = binding_slot(m->id, m->orig, by_binding_cap);
    while (by_binding[j] != NULL)
        j = (j + 1) & (by_binding_cap - 1);
    by_binding[j] = m;
    by_binding_count++;
    return true;
}

/* True for an address that is one of our own thunks: binding a method to
 * it again must not wrap it twice. */
static bool
in_arena(const void *address)
{
    const uint8_t *a = address;
    for (size_t i = 0; i < chunk_count; i++)
        if (a >= chunks[i] && a < chunks[i] + ARENA_CHUNK)
            return true;
    return false;
}

static struct pw_method *
method_alloc(void)
{
    if (arena_cur == NULL || arena_cur + METHOD_STRIDE > arena_end) {
        if (chunk_count == MAX_CHUNKS)
            return NULL;
        void *chunk =
            mmap(NULL, ARENA_CHUNK, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (chunk == MAP_FAILED)
            return NULL;
        arena_cur = chunk;
        chunks[chunk_count++] = chunk;
        arena_end = arena_cur + ARENA_CHUNK;
    }
    struct pw_method *m = (struct pw_method *)arena_cur;
    arena_cur += METHOD_STRIDE;
    return m;
}

#if defined(__x86_64__)
/* The entry for a method with this signature.  A call moves the stack by a
 * word, so the call-mode entry for a method with stack arguments copies
 * them below the return address it pushes (m->stack_words of them).  Swap
 * mode is left for signatures unknown at bind time and for methods whose
 * stack arguments are more than the copy's fixed reserve holds. */
static void *
choose_entry(struct pw_method *m, const char *sig)
{
    int words = signature_stack_words(sig, 6, 8);
    if (words < 0 || words > PW_CALL_STACK_WORDS)
        return entry_jump;
    m->stack_words = (uint32_t)words;
    return words == 0 ? entry_call : entry_call_stack;
}

/* movabs $m, %r11; jmp *0(%rip); .quad ENTRY */
static void
write_thunk(struct pw_method *m, void *to)
{
    uint8_t *p = m->code;
    uint64_t self = (uint64_t)(uintptr_t)m;
    uint64_t entry = (uint64_t)(uintptr_t)to;
    *p++ = 0x49;
    *p++ = 0xBB;
    memcpy(p, &self, 8);
    p += 8;
    *p++ = 0xFF;
    *p++ = 0x25;
    memset(p, 0, 4);
    p += 4;
    memcpy(p, &entry, 8);
}
#elif defined(__aarch64__)
/* A call leaves sp where it was on aarch64 (the return address goes to
 * x30), so the call-mode entry keeps stack arguments in place and copies
 * nothing: every method whose signature is known is called, whatever its
 * stack words (8 integer and 8 vector registers, AAPCS64).  Without one
 * (the primordial phase) the general entry is used, as on x86-64. */
static void *
choose_entry(struct pw_method *m, const char *sig)
{
    (void)m;
    return signature_stack_words(sig, 8, 8) < 0 ? entry_jump : entry_call;
}

/* ldr x17, 16f; ldr x16, 24f; br x16; brk #0; 16: .quad m; 24: .quad ENTRY.
 * x17 (IP1) carries the method, x16 (IP0) the branch: both are free at a
 * call, and a branch through x16 is what a "bti c" landing pad accepts. */
static void
write_thunk(struct pw_method *m, void *to)
{
    _Static_assert(sizeof(m->code) >= 32, "the aarch64 thunk is 32 bytes");
    const uint32_t insn[4] = {
        0x58000000u | (4u << 5) | 17u, /* ldr x17, pc + 16 */
        0x58000000u | (5u << 5) | 16u, /* ldr x16, pc + 20, from the second word */
        0xD61F0200u,                   /* br x16 */
        0xD4200000u,                   /* brk #0: never reached */
    };
    uint64_t self = (uint64_t)(uintptr_t)m;
    uint64_t entry = (uint64_t)(uintptr_t)to;
    memcpy(m->code, insn, sizeof(insn));
    memcpy(m->code + 16, &self, 8);
    memcpy(m->code + 24, &entry, 8);
    /* Instruction and data caches are not coherent on aarch64: the new
     * code must reach the point of unification before the JVM, told its
     * address once the bind callback returns, branches to it. */
    __builtin___clear_cache((char *)m->code, (char *)m->code + 32);
}
#else
#error "pinwatch has native method entries for x86_64 and aarch64 only"
#endif

/* Asks the JVM for the method's names; leaves them unset when it cannot
 * answer yet (primordial phase) or any more (class unloaded). */
static void
name_method(jvmtiEnv *jvmti, struct pw_method *m)
{
    if (jvmti == NULL || m->id == NULL || atomic_load(&m->name) != NULL)
        return;
    char *name = NULL, *sig = NULL, *class_sig = NULL;
    jclass klass = NULL;
    if ((*jvmti)->GetMethodName(jvmti, m->id, &name, &sig, NULL) != JVMTI_ERROR_NONE)
        return;
    if ((*jvmti)->GetMethodDeclaringClass(jvmti, m->id, &klass) == JVMTI_ERROR_NONE &&
        (*jvmti)->GetClassSignature(jvmti, klass, &class_sig, NULL) == JVMTI_ERROR_NONE) {
        char *full = pw_java_method_name(class_sig, name);
        char *signature = strdup(sig);
        if (full != NULL && signature != NULL) {
            atomic_store(&m->signature, signature);
            atomic_store(&m->name, full);
        } else {
            free(full);
            free(signature);
        }
    }
    /* klass is a local reference of the JNI frame the JVM set up for the
     * event; it goes when the callback returns. */
    (*jvmti)->Deallocate(jvmti, (unsigned char *)class_sig);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
}

static bool
can_name(jvmtiEnv *jvmti)
{
    jvmtiPhase phase;
    return (*jvmti)->GetPhase(jvmti, &phase) == JVMTI_ERROR_NONE &&
           (phase == JVMTI_PHASE_START || phase == JVMTI_PHASE_LIVE);
}

/* The method record and thunk for a binding, made on first sight.  Called
 * with bind_lock held; NULL when thunks cannot be made. */
static struct pw_method *
thunk_for(jmethodID method, void *address, const char *signature)
{
    if (thunks_disabled || entry_jump == NULL)
        return NULL;
    struct pw_method *m = binding_find(method, address);
    if (m != NULL)
        return m;
    m = method_alloc();
    if (m == NULL) {
        /* Without thunks pins are still counted, charged to the caller
         * method or to <native thread>. */
        pw_log_warn(
            "cannot map memory for native method entries; methods bound from now on are not "
            "told apart");
        thunks_disabled = true;
        return NULL;
    }
    m->orig = address;
    m->id = method;
    m->stack_words = 0;
    write_thunk(m, choose_entry(m, signature));
    if (!binding_add(m)) {
        thunks_disabled = true;
        return NULL;
    }
    m->next = all_methods;
    all_methods = m;
    return m;
}

/* The agent's own natives (the Java API, report/java_api.c) are not
 * watched: their JNI calls go to the JVM's table directly, and a snapshot
 * must not count itself. */
static bool
agent_own(void *address)
{
    Dl_info mine, theirs;
    return dladdr((void *)agent_own, &mine) != 0 && dladdr(address, &theirs) != 0 &&
           mine.dli_fbase == theirs.dli_fbase;
}

void JNICALL
pw_on_native_method_bind(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jmethodID method, void *address,
                         void **new_address)
{
    if (address == NULL || new_address == NULL)
        return;
    /* The signature decides how the thunk enters the method; in the
     * primordial phase the JVM cannot give it, and the general entry is
     * used. */
    char *name = NULL, *sig = NULL;
    bool named = can_name(jvmti) && (*jvmti)->GetMethodName(jvmti, method, &name, &sig, NULL) == JVMTI_ERROR_NONE;
    pthread_mutex_lock(&bind_lock);
    struct pw_method *m =
        in_arena(address) || agent_own(address) ? NULL : thunk_for(method, address, named ? sig : NULL);
    if (m != NULL) {
        if (named)
            name_method(jvmti, m);
        *new_address = m->code;
    }
    pthread_mutex_unlock(&bind_lock);
    /* Before the library's loader may delete its file: a report run as an
     * ordinary user reads a deleted library only through a descriptor kept
     * from now (jvm/symbols.c). */
    pw_symbols_hold_library(jvmti, address);
    if (named) {
        (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    }
}

void
pw_methods_name_all(jvmtiEnv *jvmti)
{
    pthread_mutex_lock(&bind_lock);
    if (can_name(jvmti))
        for (struct pw_method *m = all_methods; m != NULL; m = m->next)
            name_method(jvmti, m);
    pthread_mutex_unlock(&bind_lock);
}

struct pw_method *
pw_method_unbound(jvmtiEnv *jvmti, jmethodID id)
{
    pthread_mutex_lock(&bind_lock);
    struct pw_method *m = binding_find(id, NULL);
    if (m == NULL && (m = calloc(1, sizeof(*m))) != NULL) {
        m->id = id;
        if (!binding_add(m)) {
            free(m);
            m = NULL;
        } else {
            m->next = all_methods;
            all_methods = m;
        }
    }
    if (m != NULL)
        name_method(jvmti, m);
    pthread_mutex_unlock(&bind_lock);
    return m;
}

void
pw_method_rebind(jvmtiEnv *jvmti, JNIEnv *env, struct pw_method *m, void *ret)
{
    const char *name = atomic_load(&m->name), *sig = atomic_load(&m->signature);
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (name == NULL || sig == NULL || env == NULL ||
        dladdr1((char *)ret - 1, &info, (void **)&sym, RTLD_DL_SYMENT) == 0 || sym == NULL ||
        info.dli_sname == NULL || info.dli_saddr == NULL)
        return;
    uintptr_t start = (uintptr_t)info.dli_saddr, call = (uintptr_t)ret - 1;
    if (call < start || call >= start + sym->st_size)
        return; /* dladdr named the nearest exported symbol, not the caller */
    char short_name[1024], long_name[2048];
    if (!pw_jni_symbol(name, NULL, short_name, sizeof(short_name)) ||
        !pw_jni_symbol(name, sig, long_name, sizeof(long_name)))
        return;
    if (strcmp(info.dli_sname, short_name) != 0 && strcmp(info.dli_sname, long_name) != 0)
        return;
    jclass klass = NULL;
    if ((*jvmti)->GetMethodDeclaringClass(jvmti, m->id, &klass) != JVMTI_ERROR_NONE || klass == NULL)
        return;
    pw_method_bind_to_thunk(jvmti, env, m, klass, info.dli_saddr);
    pw_jni.DeleteLocalRef(env, klass);
}

bool
pw_method_bind_to_thunk(jvmtiEnv *jvmti, JNIEnv *env, struct pw_method *m, jclass klass, void *f)
{
    const char *name = atomic_load(&m->name), *sig = atomic_load(&m->signature);
    if (name == NULL || sig == NULL)
        return false;
    /* The JVM ignores a binding to the function it already has (src/hotspot/
     * share/oops/method.cpp Method::set_native_function returns before the
     * event when the address is unchanged), so the method is bound straight
     * to a thunk made for that function; the bind event then sees one of our
     * own thunks and lets it be. */
    pthread_mutex_lock(&bind_lock);
    struct pw_method *bound = thunk_for(m->id, f, sig);
    if (bound != NULL) {
        atomic_store(&bound->signature, atomic_load(&m->signature));
        atomic_store(&bound->name, atomic_load(&m->name));
    }
    pthread_mutex_unlock(&bind_lock);
    if (bound == NULL)
        return false;
    const char *dot = strrchr(name, '.');
    char *method_name = strdup(dot + 1), *method_sig = strdup(sig);
    bool ok = false;
    if (method_name != NULL && method_sig != NULL) {
        JNINativeMethod binding = {method_name, method_sig, bound->code};
        ok = pw_jni.RegisterNatives(env, klass, &binding, 1) == JNI_OK;
        if (!ok)
            pw_jni.ExceptionClear(env);
    }
    free(method_name);
    free(method_sig);
    return ok;
}

const char *
pw_method_name(const struct pw_method *m)
{
    if (m == NULL)
        return "<too many sites>";
    const char *name = atomic_load(&((struct pw_method *)m)->name);
    return name != NULL ? name : "<unnamed native method>";
}

const char *
pw_method_signature(const struct pw_method *m)
{
    const char *sig = m != NULL ? atomic_load(&((struct pw_method *)m)->signature) : NULL;
    return sig != NULL ? sig : "";
}
