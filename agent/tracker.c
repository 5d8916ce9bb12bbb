#include "tracker.h"
#include "clock.h"
#include "leak_table.h"
#include "methods.h"
#include "trigger.h"

jvmtiEnv *pw_tracker_jvmti;
bool pw_tracker_attached_late;

/* Without a frame of ours the thread is either natively attached or, after
 * a late attach, inside a method bound before pinwatch came: the JVM knows
 * which (a JVMTI call, the slow path the thunks exist to avoid). */
static const struct pw_method *
method_without_frame(JNIEnv *env, struct pw_thread *t, void *ret)
{
    if (!pw_tracker_attached_late || pw_tracker_jvmti == NULL)
        return &pw_method_native_thread;
    jmethodID id = NULL;
    jlocation loc;
    jboolean native = JNI_FALSE;
    jvmtiEnv *jvmti = pw_tracker_jvmti;
    if ((*jvmti)->GetFrameLocation(jvmti, NULL, 0, &id, &loc) != JVMTI_ERROR_NONE || id == NULL ||
        (*jvmti)->IsMethodNative(jvmti, id, &native) != JVMTI_ERROR_NONE || !native)
        return &pw_method_native_thread;
    struct pw_method *m = pw_method_unbound(jvmti, id);
    if (m == NULL)
        return &pw_method_native_thread;
    /* Once per method, and never inside a critical region (a JNI call). */
    if (t->critical == 0 && !atomic_exchange(&m->rebind_tried, true))
        pw_method_rebind(jvmti, env, m, ret);
    return m;
}

uint32_t
pw_track_site(JNIEnv *env, struct pw_thread *t, uint32_t fn, void *ret)
{
    struct pw_frame *f = pw_thread_top(t);
    const struct pw_method *m = f != NULL ? f->method : method_without_frame(env, t, ret);
    uintptr_t h = ((uintptr_t)ret ^ ((uintptr_t)m >> 4) ^ fn) * 0x9E3779B97F4A7C15ull;
    struct pw_site_cache_entry *e = &t->site_cache[h >> (64 - 6)];
    if (PW_LIKELY(e->ret == ret && e->method == m && e->fn == fn && e->site != 0))
        return e->site;
    uint32_t site = pw_site_intern(m, fn, ret);
    *e = (struct pw_site_cache_entry){.ret = ret, .method = m, .fn = fn, .site = site};
    return site;
}

void
pw_track_acquire(struct pw_thread *t, uint32_t site, const void *ptr, uint64_t size)
{
    struct pw_frame *f = pw_thread_top(t);
    struct pw_pin_info info = {
        .size = size,
        .site = site,
        .serial = f != NULL ? f->serial : 0,
        .t_ms = (uint32_t)pw_clock_ms(),
    };
    struct pw_counts *c = pw_counts_of(&t->counts, site);
    pw_count_add(&c->acquired, 1);
    if (PW_UNLIKELY(!pw_pin_table_insert(&t->pins, (uintptr_t)ptr, &info))) {
        pw_count_add(&t->counts.lost, 1);
        return;
    }
    if (f != NULL)
        f->live++;
    if (!pw_site_get(site)->suppressed)
        pw_trigger_count(t, 1);
}

/* The invocation that took a pin no longer holds it. */
static void
counted_release(struct pw_thread *t, const struct pw_pin_info *info)
{
    pw_count_add(&pw_counts_of(&t->counts, info->site)->released, 1);
    if (!pw_site_get(info->site)->suppressed)
        pw_trigger_count(t, -1);
}

static void
frame_released(struct pw_thread *t, uint32_t serial)
{
    if (serial == 0)
        return;
    for (uint32_t d = t->depth; d > 0; d--) {
        struct pw_frame *f = &t->frames[d - 1];
        if (f->serial == serial) {
            if (f->live > 0)
                f->live--;
            return;
        }
    }
}

/* Finds a pin this thread does not hold.  Pins only ever move from a
 * thread's table to the leak table (at return or thread end, under that
 * thread's lock), so looking in the threads first and the leak table last
 * cannot miss one that moves meanwhile. */
static bool
remove_elsewhere(struct pw_thread *self, uintptr_t key, struct pw_pin_info *info)
{
    if (pw_leak_table_remove(key, info))
        return true;
    bool found = false;
    pw_threads_read_lock();
    for (struct pw_thread *o = pw_threads_first(); o != NULL && !found; o = o->next)
        if (o != self)
            found = pw_pin_table_remove_remote(&o->pins, key, info);
    pw_threads_read_unlock();
    return found || pw_leak_table_remove(key, info);
}

static bool
find_anywhere(struct pw_thread *t, uintptr_t key, struct pw_pin_info *info)
{
    if (pw_pin_table_find(&t->pins, key, info) || pw_leak_table_find(key, info))
        return true;
    /* Another thread's pin: read it under that thread's lock without
     * taking it out. */
    bool found = false;
    pw_threads_read_lock();
    for (struct pw_thread *o = pw_threads_first(); o != NULL && !found; o = o->next) {
        if (o == t)
            continue;
        pw_pin_table_lock(&o->pins);
        found = pw_pin_table_find(&o->pins, key, info);
        pw_pin_table_unlock(&o->pins);
    }
    pw_threads_read_unlock();
    return found;
}

void
pw_track_release(struct pw_thread *t, const void *ptr, jint mode)
{
    uintptr_t key = (uintptr_t)ptr;
    struct pw_pin_info info;
    if (mode == JNI_COMMIT) {
        /* Copy-back only: the buffer stays allocated and the pin live. */
        if (find_anywhere(t, key, &info))
            pw_count_add(&pw_counts_of(&t->counts, info.site)->commits, 1);
        return;
    }
    if (PW_LIKELY(pw_pin_table_remove(&t->pins, key, &info))) {
        counted_release(t, &info);
        frame_released(t, info.serial);
        return;
    }
    if (remove_elsewhere(t, key, &info))
        counted_release(t, &info);
    else
        pw_count_add(&t->counts.unmatched_releases, 1);
}
