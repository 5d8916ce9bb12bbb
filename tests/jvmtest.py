"""Helpers for the pinwatch JVM tests: run a JVM with the agent, read its
JSON Lines reports, check the report invariants and compare rows.

Standard library only.  A failed expectation raises TestFailure; the runner
(cases.py) prints it together with the JVM's command line and output.
"""

import json
import os
import shutil
import subprocess
import tempfile

SKIP = 77               # meson's "skipped" exit status
JVM_TIMEOUT = 120       # seconds for any one JVM run: a hang fails, it does not block
FIXTURE_PKG = 'pinwatch.fixtures.'


class TestFailure(Exception):
    """An expectation did not hold; the message says expected vs got."""


class JvmRun:
    """What one JVM run left behind."""

    def __init__(self, argv, returncode, stdout, stderr, report_path):
        self.argv = argv
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.report_path = report_path

    def describe(self):
        return ('command: %s\nexit status: %s\n--- stdout ---\n%s\n--- stderr ---\n%s'
                % (' '.join(self.argv), self.returncode, tail(self.stdout), tail(self.stderr)))


def tail(text, lines=60):
    parts = (text or '').splitlines()
    if len(parts) > lines:
        parts = ['... (%d lines cut)' % (len(parts) - lines)] + parts[-lines:]
    return '\n'.join(parts)


class Context:
    """One test case on one JDK: paths, a scratch directory, the runs made."""

    def __init__(self, case, jdk_name, jdk_home, agent, jar, fixture_lib, fixture_src):
        self.case = case
        self.jdk_name = jdk_name
        self.jdk_home = jdk_home
        self.agent = agent
        self.jar = jar
        self.fixture_lib = fixture_lib
        self.fixture_src = fixture_src
        self.java = os.path.join(jdk_home, 'bin', 'java')
        self.jcmd = os.path.join(jdk_home, 'bin', 'jcmd')
        self.tmpdir = tempfile.mkdtemp(prefix='pw-%s-%s-' % (case, jdk_name))
        self.runs = []
        env = dict(os.environ)
        # The JDK under test comes first on PATH, and JAVA_HOME agrees with it.
        env['PATH'] = os.path.join(jdk_home, 'bin') + os.pathsep + env.get('PATH', '')
        env['JAVA_HOME'] = jdk_home
        self.env = env

    def require_jdk(self):
        if not os.access(self.java, os.X_OK):
            print('SKIP: %s not found at %s' % (self.jdk_name, self.jdk_home))
            raise SystemExit(SKIP)

    def report_path(self, name='pins.jsonl'):
        return os.path.join(self.tmpdir, name)

    def agent_arg(self, options):
        return '-agentpath:%s=%s' % (self.agent, options) if options else '-agentpath:' + self.agent

    def java_argv(self, main, args=(), agent_options=None, jvm_args=(), classpath=None,
                  library_path=None, with_agent=True):
        """The java command line.  agent_options None means the JSON report
        in the scratch directory; with_agent False runs without the agent."""
        argv = [self.java]
        if with_agent:
            if agent_options is None:
                agent_options = 'file=%s,format=json' % self.report_path()
            argv.append(self.agent_arg(agent_options))
        # Quiet JDK 24+'s restricted-method warnings; accepted by JDK 17 too.
        argv += ['--enable-native-access=ALL-UNNAMED', '-Xss2m']
        argv.append('-Djava.library.path=%s' % (library_path or os.path.dirname(self.fixture_lib)))
        argv += list(jvm_args)
        argv += ['-cp', classpath or self.jar]
        if main:
            argv.append(main if '.' in main else FIXTURE_PKG + main)
        argv += list(args)
        return argv

    def run_java(self, main, args=(), expect_rc=0, timeout=JVM_TIMEOUT, **kw):
        """Run a JVM to completion; by default it must exit 0."""
        argv = self.java_argv(main, args, **kw)
        report = self.report_path()
        try:
            proc = subprocess.run(argv, env=self.env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  timeout=timeout, universal_newlines=True, errors='replace')
            run = JvmRun(argv, proc.returncode, proc.stdout, proc.stderr, report)
        except subprocess.TimeoutExpired as e:
            run = JvmRun(argv, 'timeout after %ss' % timeout, as_text(e.stdout), as_text(e.stderr),
                         report)
            self.runs.append(run)
            raise TestFailure('JVM did not finish within %s s' % timeout)
        self.runs.append(run)
        if expect_rc is not None and run.returncode != expect_rc:
            raise TestFailure('JVM exit status: expected %s, got %s' % (expect_rc, run.returncode))
        return run

    def cleanup(self):
        shutil.rmtree(self.tmpdir, ignore_errors=True)


def as_text(data):
    if data is None:
        return ''
    if isinstance(data, bytes):
        return data.decode('utf-8', 'replace')
    return data


# --------------------------------------------------------------------------
# Reports
# --------------------------------------------------------------------------

def read_dumps(path):
    """Every line of a JSON Lines report, parsed; a line that is not one JSON
    object is a failure (format=json promises exactly one line per dump)."""
    if not os.path.exists(path):
        raise TestFailure('no report file at %s' % path)
    dumps = []
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                raise TestFailure('%s:%d: empty line in a JSON Lines report' % (path, number))
            try:
                dump = json.loads(line)
            except ValueError as e:
                raise TestFailure('%s:%d: not JSON (%s): %.200s' % (path, number, e, line))
            if not isinstance(dump, dict):
                raise TestFailure('%s:%d: JSON value is not an object' % (path, number))
            dumps.append(dump)
    if not dumps:
        raise TestFailure('report %s is empty' % path)
    return dumps


def exit_dump(dumps):
    """The single dump with reason "exit", which must be the last line."""
    exits = [i for i, d in enumerate(dumps) if d.get('reason') == 'exit']
    if len(exits) != 1:
        raise TestFailure('expected exactly one dump with reason "exit", got %d (reasons %s)'
                          % (len(exits), [d.get('reason') for d in dumps]))
    if exits[0] != len(dumps) - 1:
        raise TestFailure('the "exit" dump is line %d of %d, expected the last line'
                          % (exits[0] + 1, len(dumps)))
    return dumps[-1]


def _num(obj, key, where):
    value = obj.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise TestFailure('%s: field "%s" should be a non-negative integer, got %r'
                          % (where, key, value))
    return value


def row_name(row):
    return '%s%s %s' % (row.get('method'), row.get('signature', ''), row.get('function'))


def check_invariants(dump, at_exit=False):
    """The invariants every dump must satisfy (and, at exit, the balance of
    every row).  Returns the dump for chaining."""
    where = 'dump reason=%s' % dump.get('reason')
    if dump.get('tool') != 'pinwatch':
        raise TestFailure('%s: "tool" expected "pinwatch", got %r' % (where, dump.get('tool')))
    if dump.get('reason') not in ('exit', 'jcmd'):
        raise TestFailure('%s: unexpected reason' % where)
    _num(dump, 'pid', where)
    _num(dump, 'uptime_ms', where)
    totals = dump.get('totals')
    rows = dump.get('rows')
    if not isinstance(totals, dict) or not isinstance(rows, list):
        raise TestFailure('%s: "totals" object and "rows" list required' % where)
    for key in ('acquired', 'released', 'live', 'live_bytes', 'unmatched_releases', 'commits'):
        _num(totals, key, where + ' totals')

    for row in rows:
        rwhere = '%s row %s' % (where, row_name(row))
        for key in ('method', 'signature', 'function'):
            if not isinstance(row.get(key), str):
                raise TestFailure('%s: "%s" should be a string' % (rwhere, key))
        for key in ('acquired', 'released', 'live', 'live_bytes', 'commits', 'oldest_age_ms'):
            _num(row, key, rwhere)
        sites = row.get('sites')
        if not isinstance(sites, list):
            raise TestFailure('%s: "sites" should be a list' % rwhere)
        site_live = sum(_num(s, 'live', rwhere + ' site') for s in sites)
        if site_live != row['live']:
            raise TestFailure('%s: live %d but its sites add up to %d'
                              % (rwhere, row['live'], site_live))
        if at_exit and row['acquired'] - row['released'] != row['live']:
            raise TestFailure('%s: acquired %d - released %d != live %d'
                              % (rwhere, row['acquired'], row['released'], row['live']))

    for key in ('live', 'live_bytes'):
        total = sum(r[key] for r in rows)
        if totals[key] != total:
            raise TestFailure('%s: totals.%s is %d but the rows add up to %d'
                              % (where, key, totals[key], total))
    for a, b in zip(rows, rows[1:]):
        if a['live_bytes'] < b['live_bytes']:
            raise TestFailure('%s: rows not sorted by live_bytes descending: %s (%d) before %s (%d)'
                              % (where, row_name(a), a['live_bytes'], row_name(b), b['live_bytes']))
    if at_exit and totals['acquired'] - totals['released'] != totals['live']:
        raise TestFailure('%s: totals acquired %d - released %d != live %d'
                          % (where, totals['acquired'], totals['released'], totals['live']))
    return dump


def load_report(path):
    """Read a report, check every dump, return (all dumps, the exit dump)."""
    dumps = read_dumps(path)
    last = exit_dump(dumps)
    for dump in dumps:
        check_invariants(dump, at_exit=dump is last)
    return dumps, last


def rows_of(dump, method):
    return [r for r in dump['rows'] if r.get('method') == method]


def find_row(dump, method, function):
    """The one row for (method, function); failure lists what the method has."""
    if method[:1].isupper():          # "Pairs.leakInt": a fixture class
        method = FIXTURE_PKG + method
    found = [r for r in dump['rows'] if r.get('method') == method and r.get('function') == function]
    if len(found) == 1:
        return found[0]
    if found:
        raise TestFailure('%d rows for %s %s, expected one' % (len(found), method, function))
    others = [row_name(r) for r in rows_of(dump, method)]
    raise TestFailure('no row for method %s function %s in dump reason=%s; rows of that method: %s'
                      % (method, function, dump.get('reason'), others or 'none'))


def expect_row(dump, method, function, signature=None, **expected):
    """Compare the named fields of a row exactly; report all mismatches."""
    row = find_row(dump, method, function)
    wrong = []
    if signature is not None and row.get('signature') != signature:
        wrong.append('signature: expected %r, got %r' % (signature, row.get('signature')))
    for key, value in expected.items():
        if row.get(key) != value:
            wrong.append('%s: expected %r, got %r' % (key, value, row.get(key)))
    if wrong:
        raise TestFailure('row %s %s (dump reason=%s):\n  %s'
                          % (row.get('method'), function, dump.get('reason'), '\n  '.join(wrong)))
    return row


def expect(condition, message, *args):
    if not condition:
        raise TestFailure(message % args if args else message)


def source_line(path, marker):
    """1-based line of the unique marker comment in a fixture source."""
    with open(path, encoding='utf-8') as f:
        hits = [n for n, line in enumerate(f, 1) if marker in line]
    if len(hits) != 1:
        raise TestFailure('marker %r found %d times in %s' % (marker, len(hits), path))
    return hits[0]


def modified_utf8_size(text):
    """Bytes of JNI modified UTF-8 plus the terminating NUL (BMP text)."""
    size = 1
    for ch in text:
        cp = ord(ch)
        if cp > 0xFFFF:
            size += 6      # a surrogate pair, 3 bytes per half
        elif cp == 0 or cp > 0x7FF:
            size += 2 if cp == 0 else 3
        elif cp > 0x7F:
            size += 2
        else:
            size += 1
    return size


# --------------------------------------------------------------------------
# Self-test (suite "unit"): the checker must reject broken dumps, or every
# JVM test built on it could pass vacuously.
# --------------------------------------------------------------------------

def _sample_dump():
    def row(method, function, acquired, released, live, nbytes):
        return {'method': method, 'signature': '([I)V', 'function': function,
                'acquired': acquired, 'released': released, 'live': live,
                'live_bytes': nbytes, 'commits': 0, 'oldest_age_ms': 3,
                'sites': [{'live': live, 'acquired': acquired,
                           'frames': [{'address': '0x1', 'symbol': 'f'}]}]}
    rows = [row('a.B.c', 'GetIntArrayElements', 5, 2, 3, 300),
            row('a.B.d', 'GetByteArrayElements', 4, 3, 1, 10),
            row('a.B.e', 'GetStringChars', 9, 9, 0, 0)]
    return {'tool': 'pinwatch', 'version': '0.1.0', 'pid': 1, 'reason': 'exit', 'uptime_ms': 5,
            'totals': {'acquired': 18, 'released': 14, 'live': 4, 'live_bytes': 310,
                       'unmatched_releases': 0, 'commits': 0},
            'rows': rows}


def self_test():
    import copy
    check_invariants(_sample_dump(), at_exit=True)

    def breaks(mutate, what):
        dump = copy.deepcopy(_sample_dump())
        mutate(dump)
        try:
            check_invariants(dump, at_exit=True)
        except TestFailure:
            return
        raise AssertionError('checker accepted a dump with ' + what)

    breaks(lambda d: d['totals'].update(live=5), 'totals.live != sum of rows')
    breaks(lambda d: d['totals'].update(live_bytes=1), 'totals.live_bytes != sum of rows')
    breaks(lambda d: d['rows'][0]['sites'][0].update(live=2), 'row live != sum of sites')
    breaks(lambda d: d['rows'][0].update(released=1), 'acquired - released != live')
    breaks(lambda d: d['rows'].reverse(), 'rows out of order')
    breaks(lambda d: d['totals'].update(released=13), 'totals acquired - released != live')
    breaks(lambda d: d.update(tool='other'), 'a wrong tool name')
    breaks(lambda d: d['rows'][1].pop('live'), 'a missing field')
    breaks(lambda d: d['rows'][1].update(live=True), 'a boolean count')

    dump = _sample_dump()
    dump['rows'][2]['method'] = FIXTURE_PKG + 'Pairs$Strings.leakUtf'
    find_row(dump, 'Pairs$Strings.leakUtf', 'GetStringChars')
    expect_row(dump, 'a.B.c', 'GetIntArrayElements', '([I)V', live=3, live_bytes=300)
    for wrong in ({'live': 4}, {'live_bytes': 301}):
        try:
            expect_row(dump, 'a.B.c', 'GetIntArrayElements', **wrong)
        except TestFailure:
            continue
        raise AssertionError('expect_row accepted %r' % wrong)
    try:
        find_row(dump, 'a.B.c', 'GetByteArrayElements')
    except TestFailure:
        pass
    else:
        raise AssertionError('find_row matched on method alone')

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'r.jsonl')
        jcmd = dict(_sample_dump(), reason='jcmd')
        with open(path, 'w') as f:
            f.write(json.dumps(_sample_dump()) + '\n' + json.dumps(jcmd) + '\n')
        try:
            load_report(path)
        except TestFailure:
            pass
        else:
            raise AssertionError('accepted an "exit" dump that is not the last line')
        with open(path, 'w') as f:
            f.write(json.dumps(jcmd) + '\n' + json.dumps(_sample_dump()) + '\n')
        dumps, last = load_report(path)
        assert len(dumps) == 2 and last['reason'] == 'exit'

    assert modified_utf8_size('pw-utf-\u00e9\u00e8\u20ac\u4e2d-end') == 22
    assert modified_utf8_size('a\0') == 4
    print('PASS: jvmtest self-test')


if __name__ == '__main__':
    self_test()
