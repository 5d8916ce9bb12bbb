/* SPDX-License-Identifier: Apache-2.0 */
#include "state/suppress.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum rule_kind { RULE_METHOD, RULE_LIBRARY, RULE_FUNCTION };

struct rule {
    enum rule_kind kind;
    uint32_t fn;
    char *pattern;
};

/* Loaded once before any pin is counted and never changed: read without
 * locks afterwards. */
static struct rule *rules;
static size_t nrules;

#define MAX_RULES 4096
#define MAX_LINE 4096

static char *
trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
        *--end = '\0';
    return s;
}

static bool
parse_rule(char *text, struct rule *out, const char **why)
{
    char *colon = strchr(text, ':');
    if (colon == NULL) {
        *why = "expected KIND:PATTERN (method:, library: or function:)";
        return false;
    }
    *colon = '\0';
    char *kind = trim(text), *pattern = trim(colon + 1);
    if (*pattern == '\0') {
        *why = "empty pattern";
        return false;
    }
    if (strcmp(kind, "method") == 0) {
        out->kind = RULE_METHOD;
    } else if (strcmp(kind, "library") == 0) {
        out->kind = RULE_LIBRARY;
    } else if (strcmp(kind, "function") == 0) {
        out->kind = RULE_FUNCTION;
        out->fn = PW_FN_COUNT;
        for (uint32_t fn = 0; fn < PW_FN_COUNT; fn++)
            if (strcmp(pattern, pw_function_name(fn)) == 0)
                out->fn = fn;
        if (out->fn == PW_FN_COUNT) {
            *why = "not a JNI acquire function (GetLongArrayElements, GetStringUTFChars, ...)";
            return false;
        }
    } else {
        *why = "unknown kind (method:, library: or function:)";
        return false;
    }
    out->pattern = strdup(pattern);
    if (out->pattern == NULL) {
        *why = "out of memory";
        return false;
    }
    return true;
}

bool
pw_suppress_load(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "re");
    if (f == NULL) {
        snprintf(err, errlen, "cannot read suppression file %s: %s", path, strerror(errno));
        return false;
    }
    char line[MAX_LINE];
    unsigned number = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof(line), f) != NULL) {
        number++;
        if (strchr(line, '\n') == NULL && !feof(f)) {
            snprintf(err, errlen, "suppression file %s line %u: longer than %d characters", path, number,
                     MAX_LINE - 2);
            ok = false;
            break;
        }
        char *text = trim(line);
        if (*text == '\0' || *text == '#')
            continue;
        const char *why = NULL;
        struct rule rule = {0};
        if (nrules == MAX_RULES) {
            why = "too many rules";
        } else if (parse_rule(text, &rule, &why)) {
            struct rule *grown = realloc(rules, (nrules + 1) * sizeof(*rules));
            if (grown != NULL) {
                rules = grown;
                rules[nrules++] = rule;
                continue;
            }
            free(rule.pattern);
            why = "out of memory";
        }
        snprintf(err, errlen, "suppression file %s line %u: %s", path, number, why);
        ok = false;
    }
    if (ok && ferror(f)) {
        snprintf(err, errlen, "cannot read suppression file %s", path);
        ok = false;
    }
    fclose(f);
    return ok;
}

bool
pw_suppress_any(void)
{
    return nrules > 0;
}

static bool
library_matches(const char *pattern, const char *library)
{
    if (library == NULL)
        return false;
    const char *base = strrchr(library, '/');
    return fnmatch(pattern, library, 0) == 0 || (base != NULL && fnmatch(pattern, base + 1, 0) == 0);
}

bool
pw_suppress_match(const char *method, const char *library, uint32_t fn)
{
    for (size_t i = 0; i < nrules; i++) {
        const struct rule *r = &rules[i];
        switch (r->kind) {
        case RULE_METHOD:
            if (method != NULL && fnmatch(r->pattern, method, 0) == 0)
                return true;
            break;
        case RULE_LIBRARY:
            if (library_matches(r->pattern, library))
                return true;
            break;
        case RULE_FUNCTION:
            if (r->fn == fn)
                return true;
            break;
        }
    }
    return false;
}
