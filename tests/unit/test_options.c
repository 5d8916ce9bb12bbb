/* The option table (agent/base/options.c) as one source: defaults come
 * from its default column, the parser records which rows were given (what
 * a second load refuses by), and help says what stack sampling does. */
#include "options.h"
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

int
main(void)
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
    CHECK(d.threshold == 10000 && d.stack == 16 && d.javastack == 8 && d.critical_ms == 10 && d.interval_ms == 0 &&
              d.exitcode == 0 && d.file[0] == '\0' && d.format == PW_FORMAT_TEXT,
          "the documented defaults (README) changed: threshold %llu stack %d", (unsigned long long)d.threshold,
          d.stack);

    struct pw_options o = parse("dump,format=json,file=/tmp/x");
    static const char *const allowed[] = {"dump", "file", "format", NULL};
    CHECK(o.dump && pw_options_given_outside(&o, allowed) == NULL, "a plain dump has a refused key");
    o = parse("dump,format=json,stack=16");
    const char *k = pw_options_given_outside(&o, allowed);
    CHECK(k != NULL && strcmp(k, "stack") == 0, "stack=16 (its default) given: got %s", k ? k : "NULL");
    CHECK(!pw_options_given(&o, "threshold") && pw_options_given(&o, "format"), "given bits");

    char help[8192];
    FILE *f = fmemopen(help, sizeof(help), "w");
    pw_options_print_help(f);
    fclose(f);
    char want[64];
    snprintf(want, sizeof(want), "every %d ms", PW_SAMPLE_MS);
    CHECK(strstr(help, want) != NULL && strstr(help, "1 Get in 256") == NULL, "stack= help: %s", help);
    CHECK(strstr(help, "(default: 10000)") != NULL, "threshold's default missing from help");
    puts("options: all checks passed");
    return 0;
}
