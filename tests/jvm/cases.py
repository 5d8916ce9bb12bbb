#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pinwatch JVM test cases: the one list of them, and the runner of one case.

    cases.py --list
    cases.py CASE --jdk-name jdk17 --jdk-home DIR --agent libpinwatch.so \\
             --jar pwfixtures.jar --fixture-lib libpwfixture.so --fixture-src pwfixture.c ...

--list prints one case a line, `GROUP NAME TIMEOUT serial|parallel`: tests/jvm/meson.build
registers the tests from it, so a case is added to its area's CASES and nowhere else.  Groups:
`jvm` and `metrics` run here; `real` (real.py) and `junit` (junit.py) have drivers of their own
(they fetch from Maven Central and take other arguments) and so has `jfr` (jfr.py: it records
the training example), listed here all the same.

The cases live by area, each file with its CASES (name: Case(function, meson timeout, serial)):

    pins.py      pin counting: every family, release modes, threads, misuse, JNI names, checked JNI
    critical_sizes.py  critical pins sized from the array's header (the layout learned at start)
    findings.py  leaked/held/carried pins, threshold and interval reports, exit codes, suppressions,
                 findings, stacks, collapsed output
    attach.py    jcmd mid-run dumps and late attach
    options.py   the option parser on a real JVM
    refs.py      JNI references and direct buffers
    api.py       the Java API
    metrics.py   metrics for Prometheus (endpoint, textfile, a real Prometheus)
    real.py      published JNI libraries that shipped pin leaks (suite real)
    junit.py     the JUnit 5 extension in a real Maven build (suite junit)
    jfr.py       pinwatch's Flight Recorder events (suite jfr)

with harness.py (running a JVM, reading and checking reports) and common.py (helpers more
than one area uses).

Exit status: 0 pass, 1 fail (with expected vs got, the JVM command line and its output), 77 skip
(JDK not installed, or too old for the case: virtual threads need JDK 21).  The expected numbers
mirror the fixtures in tests/fixtures/pinwatch/fixtures/*.java; each count and array length is
distinct so a pin charged to the wrong row cannot pass.
"""

import os
import sys

import api
import attach
import critical_sizes
import findings
import jfr
import junit
import metrics
import options
import pins
import real
import refs
from harness import Context, case_parser, expect

# group: the areas in it.  The order is meson's order of registration.
GROUPS = {
    'jvm': (pins, critical_sizes, findings, attach, options, refs, api),
    'metrics': (metrics,),
    'real': (real,),
    'junit': (junit,),
    'jfr': (jfr,),
}


def listed():
    """[(group, name, Case)] of every case; a name in two areas is an error."""
    out, seen = [], set()
    for group, areas in GROUPS.items():
        for area in areas:
            for name, case in area.CASES.items():
                if name in seen:
                    raise SystemExit('case %s is listed twice (again in %s)' % (name, area.__name__))
                seen.add(name)
                out.append((group, name, case))
    return out


# The cases this runner runs.
CASES = {name: case for group, name, case in listed() if group in ('jvm', 'metrics')}


def main():
    if sys.argv[1:] == ['--list']:
        for group, name, case in listed():
            print(group, name, case.timeout, 'serial' if case.serial else 'parallel')
        return 0
    parser = case_parser(__doc__, CASES)
    parser.add_argument('--jar', required=True)
    parser.add_argument('--fixture-lib', required=True)
    parser.add_argument('--fixture-src', required=True)
    parser.add_argument('--other-lib', help='libpwother.so (the suppress case)')
    parser.add_argument('--deleted-lib', help='libpwdeleted.so (the deleted-library case)')
    parser.add_argument('--diag-src', help='pwdiag.c (findings, stacks, ... cases)')
    parser.add_argument('--pinwatch', help='the pinwatch command (late-prebound-cli, fleet-jvms)')
    parser.add_argument('--api-jar', help='pinwatch-api.jar (the api cases)')
    parser.add_argument('--rules', help='the example alert rules (metrics-prometheus)')
    args = parser.parse_args()

    ctx = Context(args.case, args.jdk_name, args.jdk_home, os.path.abspath(args.agent),
                  os.path.abspath(args.jar), os.path.abspath(args.fixture_lib),
                  os.path.abspath(args.fixture_src))
    ctx.other_lib = os.path.abspath(args.other_lib) if args.other_lib else None
    ctx.deleted_lib = os.path.abspath(args.deleted_lib) if args.deleted_lib else None
    ctx.pinwatch = os.path.abspath(args.pinwatch) if args.pinwatch else None
    ctx.api_jar = os.path.abspath(args.api_jar) if args.api_jar else None
    ctx.rules = os.path.abspath(args.rules) if args.rules else None
    ctx.diag_src = (os.path.abspath(args.diag_src) if args.diag_src else
                    os.path.join(os.path.dirname(ctx.fixture_src), 'pwdiag.c'))
    try:
        ctx.require_jdk()
        for label, path in (('agent', ctx.agent), ('fixture jar', ctx.jar),
                            ('fixture library', ctx.fixture_lib)):
            expect(os.path.exists(path), '%s not built: %s', label, path)
        CASES[args.case].run(ctx)
    except SystemExit:
        ctx.cleanup()
        raise
    except Exception as e:  # a crash of the checker is a failure too, with the same context
        ctx.print_failure(e)
        return 1
    ctx.cleanup()
    print('PASS: %s on %s' % (args.case, args.jdk_name))
    return 0


if __name__ == '__main__':
    sys.exit(main())
