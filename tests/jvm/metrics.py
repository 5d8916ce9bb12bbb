# SPDX-License-Identifier: Apache-2.0
"""JVM cases: metrics for Prometheus (metrics=, format=openmetrics).  Run through
tests/jvm/cases.py, which holds the list (these are its group `metrics`):

    cases.py CASE --jdk-name jdk17 --jdk-home DIR --agent libpinwatch.so \
             --jar pwfixtures.jar --fixture-lib libpwfixture.so --fixture-src pwfixture.c \
             [--rules examples/prometheus/pinwatch-rules.yml] [--pinwatch pinwatch]

Exit status: 0 pass, 1 fail, 77 skip.  Figures are compared exactly with the
JSON report of the same JVM: JcmdMidrun leaks 23 short[199] pins (398 bytes
each), says READY, and holds them until a line on stdin.
"""

import json
import os
import re
import socket
import stat
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request

from harness import (SKIP, Case, Session, TestFailure, expect, find_row, load_report,
                     read_dumps, tail)

HOLD = 'pinwatch.fixtures.JcmdMidrun.hold'
HOLD_SIG = '([S)V'
HOLD_FN = 'GetShortArrayElements'
HOLD_PINS, HOLD_BYTES = 23, 23 * 199 * 2
DRIP = 'pinwatch.fixtures.SlowLeak.drip'
PROMETHEUS = '/usr/bin/prometheus'
PROMTOOL = '/usr/bin/promtool'
TEXT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'
OM_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8'
# What Prometheus 2.42 sends.
PROM_ACCEPT = ('application/openmetrics-text;version=1.0.0,application/openmetrics-text;'
               'version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1')


def _server_ms(name):
    """A #define of agent/report/metrics_server.c, in seconds."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'agent', 'report',
                        'metrics_server.c')
    with open(path, encoding='utf-8') as f:
        return int(re.search(r'^#define %s (\d+)$' % name, f.read(), re.M).group(1)) / 1000


# The endpoint's limits: a request head must arrive within REQUEST_MS of the
# connection, and finish() drains a closed connection for up to 200 ms.  The
# bounds below are these, plus SLACK_S for what a loaded 2-core machine may
# add (a JVM thread that waits for a core), minus CLOCK_S for the millisecond
# clocks on either side.
REQUEST_S = _server_ms('REQUEST_MS')
DRAIN_S = 0.2
SLACK_S = 5.0
CLOCK_S = 0.05


def free_ports(n):
    """n distinct ports free a moment ago.  The sockets stay bound until all
    n are chosen: one closed before the next bind(0) lets the kernel hand
    the same port out twice (metrics-prometheus once gave the agent and
    Prometheus's own listener both 47587)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            socks.append(s)
            s.bind(('127.0.0.1', 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def free_port():
    return free_ports(1)[0]


# --------------------------------------------------------------------------
# HTTP by hand: the tests must control every byte sent.
# --------------------------------------------------------------------------

def exchange(port, data, timeout=10.0, pace=None):
    """Send data (all at once, or one byte every `pace` seconds), read until
    the server closes.  Returns (reply bytes, seconds until closed)."""
    start = time.monotonic()
    with socket.create_connection(('127.0.0.1', port), timeout=timeout) as s:
        got = bytearray()
        try:
            if pace is None:
                s.sendall(data)
            else:
                for i in range(len(data)):
                    s.sendall(data[i:i + 1])
                    time.sleep(pace)
        except (BrokenPipeError, ConnectionResetError):
            pass                    # cut off while sending: read what it said
        try:
            read_to_close(s, got)
        except ConnectionResetError:
            pass
        except socket.timeout:
            raise TestFailure('the endpoint kept the connection open for %.0f s' % timeout)
    return bytes(got), time.monotonic() - start


def read_to_close(sock, into=None):
    """What the endpoint sends until it closes the connection, appended to
    into (which keeps what came before an error) and returned as bytes."""
    into = bytearray() if into is None else into
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return bytes(into)
        into += chunk


def parse_reply(reply):
    head, _, body = reply.partition(b'\r\n\r\n')
    lines = head.decode('latin-1').split('\r\n')
    m = re.match(r'HTTP/1\.1 (\d{3}) ', lines[0]) if lines else None
    expect(m, 'not an HTTP reply: %r', reply[:200])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(':')
        headers[name.strip().lower()] = value.strip()
    return int(m.group(1)), headers, body


def get(port, path='/metrics', accept=None):
    req = 'GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n' % (path, port)
    if accept:
        req += 'Accept: %s\r\n' % accept
    reply, _ = exchange(port, (req + '\r\n').encode())
    status, headers, body = parse_reply(reply)
    if status == 200:
        expect(int(headers.get('content-length', -1)) == len(body),
               'Content-Length %s but %d bytes of body', headers.get('content-length'), len(body))
    return status, headers, body


# --------------------------------------------------------------------------
# The exposition, parsed strictly enough to catch a broken one.
# --------------------------------------------------------------------------

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)')


def unescape(value):
    return re.sub(r'\\(.)', lambda m: '\n' if m.group(1) == 'n' else m.group(1), value)


def parse_exposition(text, openmetrics):
    """{(name, frozenset(labels.items())): value}, {family: type}."""
    samples, types = {}, {}
    lines = text.split('\n')
    expect(lines[-1] == '', 'the exposition does not end in a newline')
    lines = lines[:-1]
    if openmetrics:
        expect(lines and lines[-1] == '# EOF', 'OpenMetrics exposition does not end in "# EOF"')
        lines = lines[:-1]
    else:
        expect('# EOF' not in lines, 'text 0.0.4 exposition carries "# EOF"')
    for line in lines:
        if line.startswith('# TYPE '):
            _, _, name, kind = line.split(' ')
            types[name] = kind
            continue
        if line.startswith('#'):
            expect(line.startswith(('# HELP ', '# UNIT ')), 'stray comment line: %r', line)
            continue
        m = SAMPLE.match(line)
        expect(m, 'not a sample line: %r', line)
        labels = {}
        rest = m.group(3) or ''
        while rest:
            lm = LABEL.match(rest)
            expect(lm, 'bad labels in %r', line)
            labels[lm.group(1)] = unescape(lm.group(2))
            rest = rest[lm.end():]
        key = (m.group(1), frozenset(labels.items()))
        expect(key not in samples, 'duplicate series: %r', line)
        samples[key] = int(m.group(4))
    for (name, _), _ in samples.items():
        family = name
        if name.endswith('_total'):
            family = name[:-6] if openmetrics else name
        expect(types.get(family) in ('counter', 'gauge'), 'sample %s has no # TYPE %s', name, family)
        expect((types[family] == 'counter') == name.endswith('_total'),
               '%s: counters and only counters end in _total', name)
    return samples, types


def series(samples, name, **labels):
    """{frozenset(labels): value} of the samples of name whose labels
    include the given ones."""
    want = set(labels.items())
    return {ls: v for (n, ls), v in samples.items() if n == name and want <= set(ls)}


def row_value(samples, name, method, signature, function, extra=()):
    labels = frozenset([('method', method), ('signature', signature), ('function', function)]
                       + list(extra))
    key = (name, labels)
    expect(key in samples, 'no sample %s{%s}', name, dict(labels))
    return samples[key]


def need_tool(path):
    """Debian's prometheus package: .ci/run installs it, so under CI its absence
    fails the case; elsewhere the case says what is missing and skips."""
    if os.access(path, os.X_OK):
        return
    if os.environ.get('CI'):
        raise TestFailure('%s missing: .ci/run installs the prometheus package' % path)
    print('SKIP: %s missing (apt-get install prometheus)' % path)
    raise SystemExit(SKIP)


def promtool_check_metrics(text):
    if not os.access(PROMTOOL, os.X_OK):
        need_tool(PROMTOOL)
    done = subprocess.run([PROMTOOL, 'check', 'metrics'], input=text, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=60)
    expect(done.returncode == 0 and not done.stdout.strip(),
           'promtool check metrics (exit %d):\n%s', done.returncode, tail(done.stdout))


def jcmd_dump(session, report):
    before = len([d for d in read_dumps(report) if d['reason'] == 'jcmd']) \
        if os.path.exists(report) else 0
    session.jcmd('JVMTI.data_dump')
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if os.path.exists(report):
            try:
                dumps = [d for d in read_dumps(report) if d['reason'] == 'jcmd']
            except TestFailure:
                dumps = []          # a line still being written
            if len(dumps) > before:
                return dumps[-1]
        time.sleep(0.05)
    raise TestFailure('no jcmd dump in %s within 30 s' % report)


def start_midrun(ctx, options):
    report = ctx.report_path()
    argv = ctx.java_argv('JcmdMidrun', agent_options='file=%s,format=json,%s' % (report, options))
    session = Session(ctx, argv)
    session.run.report_path = report
    return session, report


# --------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------

def case_metrics_http(ctx):
    """The figures served equal the JSON report's; scrapes do not disturb
    the reports' deltas; the row bound holds."""
    port = free_port()
    session, report = start_midrun(ctx, 'metrics=127.0.0.1:%d,metrics_rows=2' % port)
    with session:
        session.wait_for(r'^READY \d+$')
        # The endpoint is a thread of the agent's own, signals blocked.
        threads = {}
        for tid in os.listdir('/proc/%d/task' % session.pid):
            with open('/proc/%d/task/%s/status' % (session.pid, tid)) as f:
                fields = dict(line.rstrip('\n').split(':\t', 1) for line in f if ':\t' in line)
            threads.setdefault(fields['Name'], []).append(fields)
        http = threads.get('pinwatch-http', [])
        expect(len(http) == 1, 'threads named pinwatch-http: %d of %s', len(http), sorted(threads))
        # Signals 1-31 but SIGKILL and SIGSTOP, which cannot be blocked.
        blockable = 0x7fffffff & ~(1 << (9 - 1)) & ~(1 << (19 - 1))
        expect(int(http[0]['SigBlk'], 16) & blockable == blockable,
               'pinwatch-http does not block signals: SigBlk %s', http[0]['SigBlk'])
        status, headers, body = get(port)
        expect(status == 200, 'GET /metrics: status %d', status)
        expect(headers.get('content-type') == TEXT_TYPE, 'Content-Type %r', headers.get('content-type'))
        expect(headers.get('connection') == 'close', 'Connection %r', headers.get('connection'))
        text = body.decode('utf-8')
        promtool_check_metrics(text)
        samples, types = parse_exposition(text, openmetrics=False)
        expect(types.get('pinwatch_acquired_total') == 'counter', 'TYPE of pinwatch_acquired_total: %r',
               types.get('pinwatch_acquired_total'))
        expect(types.get('pinwatch_live_pins') == 'gauge', 'TYPE of pinwatch_live_pins')

        status, headers, body = get(port, accept=PROM_ACCEPT)
        expect(status == 200 and headers.get('content-type') == OM_TYPE,
               'GET with Prometheus\'s Accept: status %d, Content-Type %r', status, headers.get('content-type'))
        om, om_types = parse_exposition(body.decode('utf-8'), openmetrics=True)
        expect(om_types.get('pinwatch_acquired') == 'counter', 'OpenMetrics TYPE of pinwatch_acquired: %r',
               om_types.get('pinwatch_acquired'))

        dump = jcmd_dump(session, report)
        after, _ = parse_exposition(get(port)[2].decode('utf-8'), openmetrics=False)
        row = find_row(dump, HOLD, HOLD_FN)
        expect(row['live'] == HOLD_PINS and row['live_bytes'] == HOLD_BYTES,
               'JSON row: live %d, %d bytes', row['live'], row['live_bytes'])
        for got, what in ((samples, 'text'), (om, 'OpenMetrics'), (after, 'after the jcmd dump')):
            for name, want in (('pinwatch_live_pins', row['live']), ('pinwatch_live_bytes', row['live_bytes']),
                               ('pinwatch_leaked_pins', row['leaked']),
                               ('pinwatch_acquired_total', row['acquired']),
                               ('pinwatch_released_total', row['released'])):
                value = row_value(got, name, HOLD, HOLD_SIG, HOLD_FN)
                expect(value == want, '%s (%s): %s is %d, the JSON report says %d', name, what, HOLD, value, want)

        # metrics_rows=2: two rows named, the rest summed as "other".
        nrows = dump['totals']['rows']
        expect(nrows > 2, 'the JVM has only %d rows: the bound is not exercised', nrows)
        expect(after[('pinwatch_rows', frozenset())] == nrows, 'pinwatch_rows %d, JSON totals.rows %d',
               after[('pinwatch_rows', frozenset())], nrows)
        for name, field in (('pinwatch_live_pins', 'live'), ('pinwatch_acquired_total', 'acquired'),
                            ('pinwatch_released_total', 'released')):
            rows = series(after, name)
            names = sorted(dict(ls)['method'] for ls in rows)
            expect(len(rows) == 3 and 'other' in names, '%s: expected 2 rows and "other", got %s', name, names)
            other = rows[frozenset([('method', 'other'), ('signature', ''), ('function', 'other')])]
            named = [r for r in dump['rows'][:2]]
            want_other = sum(r[field] for r in dump['rows'][2:])
            expect(other == want_other, '%s{method="other"} is %d, the JSON rows past the first two add up to %d',
                   name, other, want_other)
            expect(sum(rows.values()) == dump['totals'][field], '%s adds up to %d, JSON totals.%s %d',
                   name, sum(rows.values()), field, dump['totals'][field])
            expect(named[0]['method'] == HOLD, 'largest row is %s', named[0]['method'])
        kinds = series(after, 'pinwatch_findings_total')
        expect(sorted(dict(ls)['kind'] for ls in kinds) ==
               sorted(['double_release', 'wrong_object', 'wrong_function', 'jni_in_critical', 'long_critical',
                       'double_delete', 'local_limit']),
               'finding kinds: %s', sorted(dict(ls)['kind'] for ls in kinds))
        expect(sum(kinds.values()) == dump['totals']['findings'], 'findings %d, JSON %d',
               sum(kinds.values()), dump['totals']['findings'])

        session.send('go')
        expect(session.finish() == 0, 'JVM exit status %s', session.proc.returncode)
    dumps, last = load_report(report)
    jcmds = [d for d in dumps if d['reason'] == 'jcmd']
    expect(len(jcmds) == 1, '%d jcmd dumps', len(jcmds))
    # Three scrapes before the jcmd dump and one after: the file reports'
    # "since the previous report" must not have seen any of them.
    r = find_row(jcmds[0], HOLD, HOLD_FN)
    expect(r['live_delta'] == HOLD_PINS and r['acquired_delta'] == HOLD_PINS,
           'jcmd dump: live_delta %d, acquired_delta %d, expected %d (a scrape moved "previous")',
           r['live_delta'], r['acquired_delta'], HOLD_PINS)
    r = find_row(last, HOLD, HOLD_FN)
    expect(r['live'] == 32 and r['live_delta'] == 9 and r['acquired_delta'] == 9,
           'exit dump: live %d, live_delta %d, acquired_delta %d; expected 32, 9, 9',
           r['live'], r['live_delta'], r['acquired_delta'])
    expect(isinstance(last.get('host'), str) and last['host'] == socket.gethostname(),
           'JSON "host" %r, expected %r', last.get('host'), socket.gethostname())
    expect('[pinwatch] ERROR' not in session.stderr_text(), 'stderr: %s', tail(session.stderr_text()))


def case_metrics_hardening(ctx):
    """Garbage, wrong paths and methods, oversized and slow requests are
    refused, each in bounded time, and the endpoint serves on."""
    port = free_port()
    session, report = start_midrun(ctx, 'metrics=%d' % port)
    with session:
        session.wait_for(r'^READY \d+$')

        def refused(data, status, what, within=3.0):
            reply, took = exchange(port, data)
            got, headers, _ = parse_reply(reply)
            expect(got == status, '%s: status %d, expected %d', what, got, status)
            expect(took < within, '%s: answered after %.1f s', what, took)
            return headers

        refused(b'GET /metricsx HTTP/1.1\r\n\r\n', 404, 'wrong path')
        refused(b'GET / HTTP/1.1\r\n\r\n', 404, 'root path')
        headers = refused(b'POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n', 405, 'POST')
        expect(headers.get('allow') == 'GET', 'Allow %r on 405', headers.get('allow'))
        refused(b'HEAD /metrics HTTP/1.1\r\n\r\n', 405, 'HEAD')
        refused(b'\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n', 400, 'TLS-looking garbage')
        refused(b'GET /metrics\r\n\r\n', 400, 'HTTP/0.9 request line')
        refused(b'GET /metrics HTTP/1.1\r\nno colon here\r\n\r\n', 400, 'bad header line')
        refused(b'GET /metrics HTTP/1.1\r\nX: ' + b'a' * 9000 + b'\r\n\r\n', 431, 'oversized request')
        # A client that says nothing whole: cut off after the request
        # deadline, not before it (load only makes it later).
        reply, took = exchange(port, b'GET /metrics HTTP/1.1\r\n', timeout=REQUEST_S + SLACK_S)
        expect(parse_reply(reply)[0] == 408 and REQUEST_S - CLOCK_S <= took < REQUEST_S + SLACK_S,
               'idle client: %r after %.1f s, expected 408 after %.0f s (REQUEST_MS)', reply[:40], took,
               REQUEST_S)

        # Slowloris: a byte every 0.25 s would take 7 s for this request.
        # The endpoint cuts it off, and a scraper arriving meanwhile is
        # answered once it has.
        import threading
        slow = {}

        def loris():
            try:
                slow['reply'], slow['took'] = exchange(port, b'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n',
                                                       timeout=15, pace=0.25)
            except Exception as e:      # reported below
                slow['error'] = e
        t = threading.Thread(target=loris)
        t.start()
        time.sleep(0.5)
        t0 = time.monotonic()
        status, _, body = get(port)
        waited = time.monotonic() - t0
        t.join(30)
        expect('error' not in slow, 'slowloris client: %s', slow.get('error'))
        # The whole request would take 7 s: a 408 proves the deadline is the
        # request's, not a byte's; the scrape queued behind waits that long
        # at most, plus its own answer.
        expect(parse_reply(slow['reply'])[0] == 408, 'slowloris: %r', slow['reply'][:60])
        expect(slow['took'] < REQUEST_S + SLACK_S, 'slowloris held the connection %.1f s, REQUEST_MS is '
               '%.0f s', slow['took'], REQUEST_S)
        expect(status == 200 and waited < REQUEST_S + SLACK_S, 'a scrape during slowloris: status %d '
               'after %.1f s', status, waited)
        samples, _ = parse_exposition(body.decode('utf-8'), openmetrics=False)
        expect(row_value(samples, 'pinwatch_live_pins', HOLD, HOLD_SIG, HOLD_FN) == HOLD_PINS,
               'live pins after the abuse')

        # Many connections at once that send nothing: all are cut off in
        # turn, one at a time, each after its whole deadline (the k-th not
        # before k deadlines have passed); none is answered with figures.
        t0 = time.monotonic()
        socks = [socket.create_connection(('127.0.0.1', port), timeout=3 * REQUEST_S + SLACK_S)
                 for _ in range(3)]
        cut = []
        for s in socks:
            data = read_to_close(s)
            s.close()
            cut.append(time.monotonic() - t0)
            expect(data.startswith(b'HTTP/1.1 408 '), 'silent client: %r', data[:40])
        expect(all(at >= k * (REQUEST_S - CLOCK_S) for k, at in enumerate(cut, 1)),
               'three silent clients cut off after %s s: expected one at a time, the k-th after '
               'at least k x %.0f s (REQUEST_MS)', ['%.1f' % at for at in cut], REQUEST_S)
        expect(cut[-1] < 3 * (REQUEST_S + DRAIN_S) + SLACK_S, 'three silent clients held the endpoint '
               '%.1f s', cut[-1])
        expect(get(port)[0] == 200, 'endpoint gone after the abuse')
        session.send('go')
        expect(session.finish() == 0, 'JVM exit status %s', session.proc.returncode)
    _, last = load_report(report)
    expect(find_row(last, HOLD, HOLD_FN)['live'] == 32, 'exit live')


def case_metrics_port_taken(ctx):
    """A taken port: one clear error line, the JVM runs on, its report is
    right.  A bad address is refused at start like any bad option."""
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        taken.bind(('127.0.0.1', 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        report = ctx.report_path()
        run = ctx.run_java('SlowLeak', args=['7', '1', '0'],
                           agent_options='file=%s,format=json,metrics=127.0.0.1:%d' % (report, port))
    errors = [line for line in run.stderr.splitlines() if '[pinwatch] ERROR' in line]
    want = ('[pinwatch] ERROR cannot serve metrics on 127.0.0.1:%d: Address already in use; '
            'no metrics endpoint, the JVM runs on' % port)
    expect(errors == [want], 'error lines %r, expected [%r]', errors, want)
    expect('DONE 7' in run.stdout, 'the fixture did not finish: %r', run.stdout)
    _, last = load_report(report)
    row = find_row(last, DRIP, 'GetIntArrayElements')
    expect(row['live'] == 7 and row['live_bytes'] == 7 * 263 * 4, 'drip row: %d live, %d bytes',
           row['live'], row['live_bytes'])

    for value in ('localhost:9404', '127.0.0.1:0', '127.0.0.1:65536', '300.1.1.1:9404', ':9404',
                  '127.0.0.1:', '[::1]9404', 'x'):
        run = ctx.run_java('Hello', agent_options='metrics=' + value, expect_rc=None)
        expect(run.returncode != 0, 'metrics=%s: the JVM started', value)
        want = "[pinwatch] ERROR bad value '%s' for option 'metrics' (expected [HOST:]PORT)" % value
        expect(want in run.stderr.splitlines(), 'metrics=%s: stderr %s', value, tail(run.stderr, 5))
    run = ctx.run_java('Hello', agent_options='help', expect_rc=None)
    lines = run.stderr.splitlines()
    for key, default in (('metrics=[HOST:]PORT', 'off'), ('metrics_rows=N', '20'),
                         ('format=text|json|collapsed|openmetrics', 'text')):
        expect(any(line.strip().startswith(key + ' ') and line.endswith('(default: %s)' % default) for line in lines),
               'help lists no %s with default %s:\n%s', key, default, run.stderr)
    run = ctx.run_java('Hello', agent_options='metrics_rows=0', expect_rc=None)
    expect(run.returncode != 0 and "bad value '0' for option 'metrics_rows'" in run.stderr,
           'metrics_rows=0 accepted: %s', tail(run.stderr, 5))


def case_metrics_ipv6(ctx):
    """metrics=[::1]:PORT serves on IPv6 loopback only."""
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(('::1', 0))
            port = s.getsockname()[1]
    except OSError as e:
        print('SKIP: no IPv6 loopback here: %s' % e)
        raise SystemExit(77)
    session, report = start_midrun(ctx, 'metrics=[::1]:%d' % port)
    with session:
        session.wait_for(r'^READY \d+$')
        with socket.create_connection(('::1', port), timeout=10) as c:
            c.sendall(b'GET /metrics HTTP/1.1\r\n\r\n')
            reply = read_to_close(c)
        status, _, body = parse_reply(reply)
        samples, _ = parse_exposition(body.decode('utf-8'), openmetrics=False)
        expect(status == 200 and row_value(samples, 'pinwatch_live_pins', HOLD, HOLD_SIG, HOLD_FN) == HOLD_PINS,
               'IPv6 scrape: status %d', status)
        refused = False
        try:
            socket.create_connection(('127.0.0.1', port), timeout=5).close()
        except OSError:
            refused = True
        expect(refused, 'metrics=[::1] also answers on 127.0.0.1')
        session.send('go')
        expect(session.finish() == 0, 'JVM exit status %s', session.proc.returncode)


def case_metrics_textfile(ctx):
    """format=openmetrics with file=: each report replaces the file whole,
    with a pid label, in the dialect node_exporter's textfile collector reads."""
    os.umask(0o022)
    outdir = os.path.join(ctx.tmpdir, 'textfile')
    os.mkdir(outdir)
    pattern = os.path.join(outdir, 'pinwatch-%p.prom')
    argv = ctx.java_argv('SlowLeak', args=['40', '25', '300'],
                         agent_options='file=%s,format=openmetrics,interval=0.05' % pattern)
    seen, pid = 0, None
    with Session(ctx, argv) as session:
        path = pattern.replace('%p', str(session.pid))
        last_live = -1
        while session.proc.poll() is None:
            try:
                with open(path, encoding='utf-8') as f:
                    text = f.read()
            except FileNotFoundError:
                time.sleep(0.01)
                continue
            # Read while the agent rewrites it: never a half-written file.
            samples, _ = parse_exposition(text, openmetrics=False)
            found = series(samples, 'pinwatch_live_pins', method=DRIP, pid=str(session.pid))
            expect(len(found) <= 1, 'drip rows: %s', found)
            live = sum(found.values())      # no row before the first drip
            expect(live >= last_live, 'live pins went back from %d to %d', last_live, live)
            last_live = live
            seen += 1
            time.sleep(0.01)
        expect(session.finish() == 0, 'JVM exit status %s', session.proc.returncode)
    expect(seen >= 5, 'only %d reads of the textfile while the JVM ran', seen)
    expect(os.listdir(outdir) == [os.path.basename(path)], 'files left: %s', os.listdir(outdir))
    mode = stat.S_IMODE(os.stat(path).st_mode)
    expect(mode == 0o644, 'textfile mode %o, expected 644', mode)
    with open(path, encoding='utf-8') as f:
        text = f.read()
    promtool_check_metrics(text)
    samples, _ = parse_exposition(text, openmetrics=False)
    pid = ('pid', str(session.pid))
    expect(all(pid in ls for (_, ls) in samples), 'a sample without pid="%d"', session.pid)
    for name, want in (('pinwatch_live_pins', 40), ('pinwatch_live_bytes', 40 * 263 * 4),
                       ('pinwatch_acquired_total', 40), ('pinwatch_released_total', 0)):
        got = row_value(samples, name, DRIP, '([I)V', 'GetIntArrayElements', [pid])
        expect(got == want, 'exit textfile: %s %d, expected %d', name, got, want)


def query(api, promql):
    url = api + '/api/v1/query?' + urllib.parse.urlencode({'query': promql})
    with urllib.request.urlopen(url, timeout=10) as r:
        answer = json.load(r)
    expect(answer.get('status') == 'success', 'query %s: %s', promql, answer)
    return answer['data']['result']


def case_metrics_prometheus(ctx):
    """A real Prometheus scrapes a JVM; its value for the leaking method
    equals the JSON report's count.  The example rules load and evaluate."""
    need_tool(PROMETHEUS)
    port, prom_port = free_ports(2)
    work = tempfile.mkdtemp(prefix='prom-', dir=ctx.tmpdir)
    config = os.path.join(work, 'prometheus.yml')
    with open(config, 'w') as f:
        f.write('global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n'
                'rule_files:\n  - %s\n'
                'scrape_configs:\n  - job_name: pinwatch\n    static_configs:\n'
                '      - targets: ["127.0.0.1:%d"]\n' % (ctx.rules, port))
    session, report = start_midrun(ctx, 'metrics=%d' % port)
    prom_log = open(os.path.join(work, 'prometheus.log'), 'w+')
    prom = subprocess.Popen([PROMETHEUS, '--config.file=' + config, '--storage.tsdb.path=' + work + '/data',
                             '--web.listen-address=127.0.0.1:%d' % prom_port, '--log.level=warn'],
                            stdin=subprocess.DEVNULL, stdout=prom_log, stderr=subprocess.STDOUT)
    api = 'http://127.0.0.1:%d' % prom_port
    try:
        with session:
            session.wait_for(r'^READY \d+$')
            promql = 'pinwatch_live_pins{job="pinwatch",method="%s",function="%s"}' % (HOLD, HOLD_FN)
            deadline, result = time.monotonic() + 60, []
            while time.monotonic() < deadline and not result:
                try:
                    result = query(api, promql)
                except (OSError, ValueError):
                    pass            # Prometheus still starting
                if not result:
                    time.sleep(0.5)
            expect(result, 'Prometheus had no %s within 60 s' % promql)
            expect(len(result) == 1, 'series: %s', result)
            scraped = int(result[0]['value'][1])
            dump = jcmd_dump(session, report)
            row = find_row(dump, HOLD, HOLD_FN)
            expect(scraped == row['live'] == HOLD_PINS, 'Prometheus has %d, the JSON report %d, the fixture %d',
                   scraped, row['live'], HOLD_PINS)
            acquired = query(api, 'pinwatch_acquired_total{method="%s"}' % HOLD)
            expect([int(a['value'][1]) for a in acquired] == [row['acquired']], 'acquired_total %s, JSON %d',
                   acquired, row['acquired'])
            with urllib.request.urlopen(api + '/api/v1/targets', timeout=10) as r:
                targets = json.load(r)['data']['activeTargets']
            expect(len(targets) == 1 and targets[0]['health'] == 'up' and not targets[0]['lastError'],
                   'target: %s', targets)
            with urllib.request.urlopen(api + '/api/v1/rules', timeout=10) as r:
                groups = json.load(r)['data']['groups']
            rules = [rule for g in groups for rule in g['rules']]
            expect(rules and all(rule['health'] in ('ok', 'unknown') for rule in rules)
                   and any(rule['health'] == 'ok' for rule in rules),
                   'rules: %s', [(rule['name'], rule['health'], rule.get('lastError')) for rule in rules])
            session.send('go')
            expect(session.finish() == 0, 'JVM exit status %s', session.proc.returncode)
    finally:
        prom.terminate()
        try:
            prom.wait(20)
        except subprocess.TimeoutExpired:
            prom.kill()
            prom.wait()
        prom_log.seek(0)
        ctx.runs[-1].extra += '--- prometheus log ---\n' + tail(prom_log.read(), 30)
        prom_log.close()
    _, last = load_report(report)
    expect(find_row(last, HOLD, HOLD_FN)['live'] == 32, 'exit live')


def case_fleet_jvms(ctx):
    """Three JVMs leak 3, 5 and 8 pins into one directory; pinwatch diff and
    report on the directory name each JVM and add them up, exactly as the
    JSON files say."""
    expect(ctx.pinwatch, '--pinwatch not given')
    d = os.path.join(ctx.tmpdir, 'fleet')
    os.mkdir(d)
    counts = (3, 5, 8)
    sessions = [Session(ctx, ctx.java_argv('SlowLeak', args=[str(n), '20', '100'],
                                            agent_options='file=%s/pins-%%p.jsonl,format=json,interval=0.05' % d))
                for n in counts]
    try:
        for s in sessions:
            expect(s.finish() == 0, 'JVM %d exit status %s', s.pid, s.proc.returncode)
    finally:
        for s in sessions:
            s.__exit__(None, None, None)
    host = socket.gethostname()
    expected = {}
    for s, n in zip(sessions, counts):
        dumps, last = load_report(os.path.join(d, 'pins-%d.jsonl' % s.pid))
        expect(all(x['pid'] == s.pid and x['host'] == host for x in dumps), 'pid/host of %d', s.pid)
        expect(len(dumps) >= 2, 'JVM %d wrote %d reports', s.pid, len(dumps))
        first = [r for r in dumps[0]['rows'] if r['method'] == DRIP]
        before = first[0]['live'] if first else 0
        expect(find_row(last, DRIP, 'GetIntArrayElements')['live'] == n, 'JVM %d exit live', s.pid)
        expected[s.pid] = (before, n, last['uptime_ms'] - dumps[0]['uptime_ms'])

    def pw(*args):
        done = subprocess.run([ctx.pinwatch] + list(args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
        ctx.runs[-1].extra += '$ pinwatch %s\n%s%s' % (' '.join(args), done.stdout, done.stderr)
        expect(done.returncode == 0 and done.stderr == '', 'pinwatch %s: status %d, %s', ' '.join(args),
               done.returncode, done.stderr)
        return done.stdout
    out = pw('diff', d)
    expect(out.startswith('JVMs: 3 on 1 host, '), 'diff header:\n%s', out)
    for pid, (before, after, _) in expected.items():
        pattern = r'^%s:%d +%s +GetIntArrayElements +%d +%d +%s +%s ' % (
            re.escape(host), pid, re.escape(DRIP), before, after,
            re.escape('%+d' % (after - before) if after != before else '0'),
            re.escape('%+d' % ((after - before) * 263 * 4) if after != before else '0'))
        expect(re.search(pattern, out, re.M), 'diff: no row %r:\n%s', pattern, out)
    before_all = sum(v[0] for v in expected.values())
    expect(re.search(r'^%s +GetIntArrayElements +3 +%d +16 ' % (re.escape(DRIP), before_all), out, re.M),
           'diff: summed drip row:\n%s', out)
    page = os.path.join(ctx.tmpdir, 'fleet.html')
    out = pw('report', d, '-o', page)
    n = sum(len(read_dumps(os.path.join(d, f))) for f in os.listdir(d))
    expect(out == '%s: %d reports of 3 JVMs\n' % (page, n), 'report: %r', out)
    with open(page, encoding='utf-8') as f:
        text = f.read()
    for pid, (_, after, _) in expected.items():
        expect(re.search(r'<tr class="pw-jvm"><td class="host">%s</td><td class="num pid" data-v="%d">' %
                         (re.escape(host), pid), text), 'page: no JVM row for %d', pid)
    expect(re.search(r'<div class="card alert" id="total-live"><b>16</b>', text), 'page: total live card')


# The cases of this area: name, meson timeout in seconds, and each runs alone (the
# slowloris and textfile cases time what they see).
CASES = {
    'fleet-jvms': Case(case_fleet_jvms, 150, serial=True),
    'metrics-http': Case(case_metrics_http, 150, serial=True),
    'metrics-hardening': Case(case_metrics_hardening, 150, serial=True),
    'metrics-port-taken': Case(case_metrics_port_taken, 150, serial=True),
    'metrics-textfile': Case(case_metrics_textfile, 150, serial=True),
    'metrics-ipv6': Case(case_metrics_ipv6, 150, serial=True),
    'metrics-prometheus': Case(case_metrics_prometheus, 200, serial=True),
}
