/* SPDX-License-Identifier: Apache-2.0 */
/* The option table (agent/base/options.c) as one source: defaults come
 * from its default column, the parser records which rows were given (what
 * a second load refuses by), and help says what stack sampling does. */
#include "base/options.h"
#include "unit_check.h"

#include <string.h>

static struct pw_options
parse(const char *text)
{
    struct pw_options o;
    char err[256];
    CHECK(pw_options_parse(text, &o, err, sizeof(err)), "'%s' refused: %s", text, err);
    return o;
}

/* README.md's option table says the same defaults as the agent's table,
 * and has a row for every key: the documentation is not a second source. */
static void
check_readme(const char *path, const struct pw_option_spec *specs, size_t n)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "cannot open %s", path);
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[len] = '\0';
    for (size_t i = 0; i < n; i++) {
        char start[80];
        snprintf(start, sizeof(start), "\n| `%s", specs[i].key);
        const char *row = text;
        while ((row = strstr(row, start)) != NULL) {
            char next = row[strlen(start)];
            if (next == '=' || next == '`')
                break;
            row++;
        }
        CHECK(row != NULL, "README.md has no row for option '%s'", specs[i].key);
        const char *cell = strstr(row, "` | ");
        CHECK(cell != NULL, "README.md row of '%s' has no default cell", specs[i].key);
        cell += 4;
        size_t dlen = strcspn(cell, " |");
        CHECK(dlen == strlen(specs[i].fallback) && memcmp(cell, specs[i].fallback, dlen) == 0,
              "README.md gives '%s' the default '%.*s', the agent '%s'", specs[i].key, (int)dlen, cell,
              specs[i].fallback);
        if (strcmp(specs[i].key, "stack") == 0) {
            char want[64];
            const char *end = strchr(row + 1, '\n');
            snprintf(want, sizeof(want), "every %d ms", PW_SAMPLE_MS);
            const char *at = strstr(row, want);
            CHECK(at != NULL && at < end, "README.md's stack= row does not say '%s'", want);
            snprintf(want, sizeof(want), "every %dth Get", PW_SAMPLE_PERIOD);
            at = strstr(row, want);
            CHECK(at != NULL && at < end, "README.md's stack= row does not say '%s'", want);
        }
    }
}

int
main(int argc, char **argv)
{
    size_t n;
    const struct pw_option_spec *specs = pw_option_specs(&n);
    CHECK(n > 0 && n <= 64, "%zu rows", n);
    struct pw_options d;
    pw_options_defaults(&d);
    CHECK(d.given == 0, "defaults given %#llx", (unsigned long long)d.given);
    /* Every numeric default is a value its row accepts and is the value
     * the defaults hold: "key=<default>" parses to the defaults. */
    for (size_t i = 0; i < n; i++) {
        const char *f = specs[i].fallback;
        if (specs[i].set == NULL || f[0] < '0' || f[0] > '9')
            continue;
        char text[128];
        snprintf(text, sizeof(text), "%s=%s", specs[i].key, f);
        struct pw_options o = parse(text);
        CHECK(o.given == UINT64_C(1) << i && pw_options_given(&o, specs[i].key), "'%s': given %#llx", text,
              (unsigned long long)o.given);
        o.given = 0;
        CHECK(memcmp(&o, &d, sizeof(o)) == 0, "'%s' is not the default it says", text);
    }
    /* The shared setters keep to each row's bounds: min and max are
     * taken, one past either is refused. */
    for (size_t i = 0; i < n; i++) {
        if (specs[i].kind != PW_OPT_UINT)
            continue;
        char text[128], err[256];
        struct pw_options o;
        snprintf(text, sizeof(text), "%s=%llu", specs[i].key, (unsigned long long)specs[i].max);
        o = parse(text);
        snprintf(text, sizeof(text), "%s=%llu", specs[i].key, (unsigned long long)specs[i].min);
        o = parse(text);
        snprintf(text, sizeof(text), "%s=%llu", specs[i].key, (unsigned long long)specs[i].max + 1);
        CHECK(!pw_options_parse(text, &o, err, sizeof(err)), "'%s' taken", text);
        snprintf(text, sizeof(text), "%s=%llu", specs[i].key, (unsigned long long)specs[i].min - 1);
        CHECK(specs[i].min == 0 || !pw_options_parse(text, &o, err, sizeof(err)), "'%s' taken", text);
    }
    CHECK(parse("stack=64").stack == 64 && parse("exitcode=255").exitcode == 255 &&
              parse("metrics_rows=7").metrics_rows == 7 && !parse("refs=off").refs &&
              strcmp(parse("suppress=/x").suppress, "/x") == 0,
          "a shared setter wrote the wrong field");
    CHECK(d.threshold == 10000 && d.stack == 16 && d.javastack == 8 && d.critical_ms == 10 &&
              d.interval_ms == 0 && d.exitcode == 0 && d.file[0] == '\0' && d.format == PW_FORMAT_TEXT,
          "the documented defaults (README) changed: threshold %llu stack %d", (unsigned long long)d.threshold,
          d.stack);

    struct pw_options o = parse("dump,format=json,file=/tmp/x");
    static const char *const allowed[] = {"dump", "file", "format", NULL};
    CHECK(o.dump && pw_options_given_outside(&o, allowed) == NULL, "a plain dump has a refused key");
    o = parse("dump,format=json,stack=16");
    const char *k = pw_options_given_outside(&o, allowed);
    CHECK(k != NULL && strcmp(k, "stack") == 0, "stack=16 (its default) given: got %s", k ? k : "NULL");
    CHECK(!pw_options_given(&o, "threshold") && pw_options_given(&o, "format"), "given bits");

    /* log=: stderr is the zeroed default, none and a path are kept, an
     * empty value is refused; help says where the lines go. */
    o = parse("log=stderr");
    CHECK(o.log[0] == '\0', "log=stderr should be the default (empty), got '%s'", o.log);
    o = parse("log=none");
    CHECK(strcmp(o.log, "none") == 0, "log=none kept as '%s'", o.log);
    o = parse("log=/tmp/pw-%p.log,file=/tmp/x");
    CHECK(strcmp(o.log, "/tmp/pw-%p.log") == 0 && strcmp(o.file, "/tmp/x") == 0, "log=PATH kept as '%s'", o.log);
    {
        struct pw_options bad;
        char err[256];
        CHECK(!pw_options_parse("log=", &bad, err, sizeof(err)) && strstr(err, "'log'") != NULL,
              "log= with no value accepted");
    }

    char help[8192];
    FILE *f = fmemopen(help, sizeof(help), "w");
    pw_options_print_help(f);
    fclose(f);
    char want[64];
    snprintf(want, sizeof(want), "every %d ms", PW_SAMPLE_MS);
    CHECK(strstr(help, want) != NULL && strstr(help, "1 Get in 256") == NULL, "stack= help: %s", help);
    CHECK(strstr(help, "(default: 10000)") != NULL, "threshold's default missing from help");
    CHECK(strstr(help, "log=stderr|none|PATH") != NULL, "log= missing from help: %s", help);
    if (argc > 1)
        check_readme(argv[1], specs, n);
    puts("options: all checks passed");
    return 0;
}
