# SPDX-License-Identifier: Apache-2.0
"""JVM cases: the option parser on a real JVM (rejections, a soak of option sets).

Run through tests/jvm/cases.py, which holds the list; the expected numbers mirror
the fixtures in tests/fixtures/pinwatch/fixtures/*.java.
"""

import os
import re

from harness import Case, expect, load_report
from common import _write_rules


def _rejects(ctx, options, name):
    run = ctx.run_java('Hello', agent_options=options, expect_rc=None)
    expect(run.returncode != 0, 'options %r: JVM exit status expected non-zero, got 0', options)
    expect('HELLO-RAN' not in run.stdout, 'options %r: main ran', options)
    errors = [line for line in run.stderr.splitlines() if line.startswith('[pinwatch] ERROR')]
    expect(len(errors) == 1, 'options %r: expected one "[pinwatch] ERROR" line on stderr, got %d',
           options, len(errors))
    expect(name in errors[0], 'options %r: error line should name %r: %s', options, name, errors[0])


def case_options(ctx):
    _rejects(ctx, 'bogus=1', 'bogus')
    # A valid key first: the parser must not stop before the bad value.
    _rejects(ctx, 'file=%s,format=xml' % ctx.report_path('never.jsonl'), 'xml')

    run = ctx.run_java('Hello', agent_options='help', expect_rc=None)
    expect('HELLO-RAN' not in run.stdout, 'help: main ran')
    lines = (run.stdout + '\n' + run.stderr).splitlines()
    for key, default in (('file', 'stderr'), ('format', 'text')):
        expect(any(re.search(r'\b%s\b' % key, l) and default in l for l in lines),
               'help: expected a line listing %r with its default %r', key, default)

    text = ctx.report_path('pins.txt')
    run = ctx.run_java('Hello', agent_options='file=%s,format=text' % text)
    expect('HELLO-RAN' in run.stdout, 'format=text: main did not run')
    expect(os.path.exists(text) and os.path.getsize(text) > 0, 'format=text: no report in %s', text)
    with open(text, encoding='utf-8', errors='replace') as f:
        first = f.readline()
    expect(not first.lstrip().startswith('{'), 'format=text wrote JSON: %.200s', first)

    # No options: the report goes to stderr.
    run = ctx.run_java('Hello', agent_options='')
    expect('HELLO-RAN' in run.stdout, 'no options: main did not run')
    # Ignore the JVM's own note when a setup sets JAVA_TOOL_OPTIONS.
    report = [l for l in run.stderr.splitlines() if l.strip() and not l.startswith('Picked up ')]
    expect(report, 'no options: expected the exit report on stderr, stderr is empty')


def case_options_soak(ctx):
    never = ctx.report_path('never.jsonl')
    for options, name in (('threshold=-1', 'threshold'), ('threshold=abc', 'threshold'),
                          ('threshold=', 'threshold'),
                          ('interval=0.0001x', 'interval'), ('interval=abc', 'interval'),
                          ('interval=-1', 'interval'),
                          ('exitcode=0', 'exitcode'), ('exitcode=256', 'exitcode'),
                          ('exitcode=-3', 'exitcode'),
                          ('suppress=', 'suppress'), ('suppress=/nonexistent', 'suppress')):
        _rejects(ctx, options, name)
        # After a valid option too: the parser checks every item.
        _rejects(ctx, 'file=%s,format=json,%s' % (never, options), name)

    run = ctx.run_java('Hello', agent_options='help', expect_rc=None)
    expect('HELLO-RAN' not in run.stdout, 'help: main ran')
    lines = (run.stdout + '\n' + run.stderr).splitlines()
    for key in ('file', 'format', 'threshold', 'interval', 'exitcode', 'suppress', 'dump'):
        expect(any(re.search(r'\b%s\b' % key, l) for l in lines),
               'help: expected a line listing the option %r', key)
    expect(any(re.search(r'\bthreshold\b', l) and '10000' in l for l in lines),
           'help: expected the threshold line to show its default 10000')

    # Every new option at a valid edge value, together: the JVM runs.
    rules = _write_rules(ctx, 'comments.supp', ['# nothing but comments', '', '  # indented'])
    report = ctx.report_path()
    for options in ('threshold=0,interval=0,exitcode=1', 'threshold=1000000,interval=0.5,'
                    'exitcode=255,suppress=' + rules):
        if os.path.exists(report):
            os.remove(report)
        run = ctx.run_java('Hello', agent_options='file=%s,format=json,%s' % (report, options))
        expect('HELLO-RAN' in run.stdout, '%s: main did not run', options)
        load_report(report, extended=True)


# The cases of this area: name, meson timeout in seconds (each JVM run also has its
# own 120 s limit), and whether it runs alone (timings on a 2-core box stay sane).
CASES = {
    'options': Case(case_options, 300),
    'options-soak': Case(case_options_soak, 300),
}
