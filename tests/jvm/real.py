#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pinwatch on published JNI libraries that shipped real pin leaks (suite real).

    real.py CASE --jdk-name jdk17 --jdk-home DIR --agent libpinwatch.so \
            --javac JAVAC --src tests/real --cache DIR [--pinwatch CLI]
    real.py --prefetch DIR      every case's artifacts into DIR, once (.ci/run)

Each case fetches the library at a leaking and at a fixed version from Maven
Central with the ordinary Maven client (mvn, into DIR/repo: a cache beside the
build directory, reused when present), compiles a few lines of Java that
drive the library through its public API (tests/real/pinwatch/real), runs
them under the agent on both versions and compares the agent's JSON with the
leak the library's own tracker describes: the Java native method, the JNI
function, the pins leaked per call times the calls, the bytes.  On the fixed
version the same method holds no live pin.

Exit status: 0 pass, 1 fail, 77 skip: the JDK is missing, or an artifact
cannot be had (no mvn, no network): one line saying which.  Under CI=true an
artifact that cannot be had is a failure: CI has the network, and a Maven
Central outage must not leave it green with the suite unrun.

One limit for the fetch: meson's timeout of the case, less RUN_RESERVE for
compiling and running the drivers.  A first fetch is about 200 MB, so .ci/run
fetches everything first with --prefetch, outside meson's timeouts
(PREFETCH_TIMEOUT); when that fails it leaves the reason in DIR/unavailable,
and the cases say it at once rather than each try again.

PINWATCH_REAL_CACHE, when set, replaces --cache.
"""

import fcntl
import os
import subprocess
import sys
import time

from harness import (SKIP, Case, Context, Session, case_parser, expect, expect_row,
                     load_report, row_name, rows_of, tail)

# The Maven plugin that resolves a runtime classpath; pinned, so a new release
# cannot change what the suite runs.
DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.6.1'
RUN_RESERVE = 60            # of a case's meson timeout, kept for javac and the JVM runs
PREFETCH_TIMEOUT = 900      # all artifacts, outside meson (.ci/run)

ROCKS_SIG = ('(JJ[J[Ljava/nio/ByteBuffer;[I[I[Ljava/nio/ByteBuffer;[I[Lorg/rocksdb/Status;)V')
ROCKS_KEYS = 7              # RocksMultiGet.KEYS
ROCKS_CALLS = 13
CONSCRYPT_SIG = '(Lorg/conscrypt/NativeRef$EVP_MD_CTX;[BII)[B'
CONSCRYPT_BUFFER = 32       # ByteArrayOutputStream's initial size: the whole array is pinned
CONSCRYPT_CALLS = 17
XGB_SIG = '([J[I[FIFI[J)I'
XGB_ROWS, XGB_NNZ = 4, 6    # XgboostBadCsr: long[ROWS + 1], int[NNZ], float[NNZ]
XGB_CALLS = 9
WARM = 3                    # Driver.WARM: calls before a late attach

# case: (group, artifact, leaking version, fixed version, driver class)
LIBRARIES = {
    'rocksdb': ('org.rocksdb', 'rocksdbjni', '7.9.2', '7.10.2', 'RocksMultiGet'),
    'conscrypt': ('org.conscrypt', 'conscrypt-openjdk-uber', '2.6.0', '2.6.1', 'ConscryptEd25519'),
    'xgboost': ('ml.dmlc', 'xgboost4j_2.12', '2.0.3', '2.1.1', 'XgboostBadCsr'),
}

POM = '''<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>pinwatch.real</groupId>
  <artifactId>classpath</artifactId>
  <version>0</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>%s</groupId>
      <artifactId>%s</artifactId>
      <version>%s</version>
    </dependency>
  </dependencies>
</project>
'''


class Unavailable(Exception):
    """An artifact could not be had: the case is skipped, saying which."""


def fetch(cache, group, artifact, version, deadline):
    """The runtime classpath (jar paths) of group:artifact:version, resolved
    with mvn into cache/repo once and read from cache/classpath afterwards,
    by time.monotonic() deadline.  Cases on several JDKs run at once: one
    fetch at a time, under a lock."""
    os.makedirs(cache, exist_ok=True)
    name = '%s:%s:%s' % (group, artifact, version)
    listing = os.path.join(cache, 'classpath', '%s_%s_%s.txt' % (group, artifact, version))

    def cached():
        if not os.path.exists(listing):
            return None
        with open(listing, encoding='utf-8') as f:
            jars = [p for p in f.read().strip().split(os.pathsep) if p]
        return jars if jars and all(os.path.exists(p) for p in jars) else None

    with open(os.path.join(cache, '.lock'), 'w') as lock:
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise Unavailable('%s: another case was still fetching at this one\'s limit' % name)
                time.sleep(0.5)
        jars = cached()
        if jars:
            return jars
        marker = os.path.join(cache, 'unavailable')
        if os.path.exists(marker):
            with open(marker, encoding='utf-8', errors='replace') as f:
                raise Unavailable('%s: not in the cache, and real.py --prefetch could not fetch it: %s'
                                  % (name, f.read().strip()))
        mvn = subprocess.run(['sh', '-c', 'command -v mvn'], stdout=subprocess.PIPE,
                             universal_newlines=True).stdout.strip()
        if not mvn:
            raise Unavailable('%s: no mvn (Debian package maven) to fetch it' % name)
        project = os.path.join(cache, 'poms', '%s_%s_%s' % (group, artifact, version))
        os.makedirs(project, exist_ok=True)
        os.makedirs(os.path.dirname(listing), exist_ok=True)
        with open(os.path.join(project, 'pom.xml'), 'w', encoding='utf-8') as f:
            f.write(POM % (group, artifact, version))
        argv = [mvn, '-B', '-q', '-f', os.path.join(project, 'pom.xml'),
                '-Dmaven.repo.local=' + os.path.join(cache, 'repo'),
                DEPENDENCY_PLUGIN + ':build-classpath', '-Dmdep.includeScope=runtime',
                '-Dmdep.outputFile=' + listing + '.part']
        started = time.monotonic()
        limit = max(1, int(deadline - started))
        try:
            done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, universal_newlines=True,
                                  errors='replace', timeout=limit)
        except subprocess.TimeoutExpired:
            raise Unavailable('%s: mvn did not finish within the %d s left' % (name, limit))
        errors = [l for l in done.stdout.splitlines() if 'ERROR' in l] or done.stdout.splitlines()
        if done.returncode != 0 or not os.path.exists(listing + '.part'):
            raise Unavailable('%s: mvn exited %d: %s' % (name, done.returncode,
                                                         (errors or ['no output'])[0].strip()))
        os.replace(listing + '.part', listing)
        jars = cached()
        if not jars:
            raise Unavailable('%s: mvn listed no jar' % name)
        print('fetched %s: %d jars, %.1f MB, %.1f s' % (
            name, len(jars), sum(os.path.getsize(p) for p in jars) / 1e6, time.monotonic() - started))
        return jars


def prefetch(cache):
    """Every case's artifacts into cache, within PREFETCH_TIMEOUT in all.  On
    failure, the reason in cache/unavailable for the cases to report."""
    cache = os.path.abspath(cache)
    marker = os.path.join(cache, 'unavailable')
    if os.path.exists(marker):
        os.unlink(marker)
    deadline = time.monotonic() + PREFETCH_TIMEOUT
    failed = []
    for group, artifact, leaking, fixed, _ in LIBRARIES.values():
        for version in (leaking, fixed):
            try:
                jars = fetch(cache, group, artifact, version, deadline)
                print('%s:%s:%s: %d jars in the cache' % (group, artifact, version, len(jars)))
            except Unavailable as e:
                print('cannot fetch %s' % e)
                failed.append(str(e))
    if failed:
        with open(marker, 'w', encoding='utf-8') as f:
            f.write('; '.join(failed) + '\n')
        return 1
    return 0


def compile_driver(ctx, javac, src, jars, driver, label):
    """The case's driver compiled against one version's jars, into the
    scratch directory (javac of the build's JDK 17, class files for 11: they run on every
    JDK).  The other drivers need other libraries: not compiled."""
    out = os.path.join(ctx.tmpdir, 'classes-' + label)
    sources = [os.path.join(src, 'pinwatch', 'real', f + '.java') for f in ('Driver', driver)]
    argv = [javac, '--release', '11', '-nowarn', '-d', out, '-cp', os.pathsep.join(jars)] + sources
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, errors='replace')
    expect(done.returncode == 0, 'javac failed (%s):\n%s', ' '.join(argv), tail(done.stdout))
    return os.pathsep.join([out] + jars)


class Library:
    """One case's library on both sides: classpaths and how to run it."""

    def __init__(self, ctx, args, case):
        self.ctx = ctx
        deadline = args.started + CASES[args.case].timeout - RUN_RESERVE
        group, artifact, self.leaking, self.fixed, driver = LIBRARIES[case]
        self.name = '%s:%s' % (group, artifact)
        self.driver = driver
        self.main = 'pinwatch.real.' + driver
        self.classpath = {}
        for version in (self.leaking, self.fixed):
            jars = fetch(args.cache, group, artifact, version, deadline)
            self.classpath[version] = (jars, None)
        self.args = args

    def compiled(self, version):
        jars, cp = self.classpath[version]
        if cp is None:
            cp = compile_driver(self.ctx, self.args.javac, self.args.src, jars, self.driver, version)
            self.classpath[version] = (jars, cp)
        return cp

    def jvm_args(self):
        # The libraries unpack their .so into java.io.tmpdir: the scratch directory.
        return ['-Djava.io.tmpdir=' + self.ctx.tmpdir]

    def run(self, version, calls):
        """calls calls under the agent from the start; the exit report."""
        report = self.ctx.report_path('%s.jsonl' % version)
        run = self.ctx.run_java(self.main, args=[str(calls)], classpath=self.compiled(version),
                                agent_options='file=%s,format=json' % report,
                                jvm_args=self.jvm_args(), library_path=self.ctx.tmpdir,
                                report_path=report)
        expect(('DONE %d ' % calls) in run.stdout, 'the driver did not finish its %d calls', calls)
        _, last = load_report(report)
        return run, last


def no_live_pins(dump, method, what):
    live = [(row_name(r), r['live']) for r in rows_of(dump, method) if r['live']]
    expect(not live, '%s: %s still holds live pins: %s', what, method, live)


def show(dump, method, what):
    rows = rows_of(dump, method)
    print('%s: %s' % (what, '; '.join('%s acquired=%d released=%d live=%d leaked=%d live_bytes=%d'
                                       % (row_name(r), r['acquired'], r['released'], r['live'],
                                          r['leaked'], r['live_bytes']) for r in rows) or 'no row'))


def sites_in(row, library_part, sites, calls):
    """The row's live pins come from `sites` call sites (one per Get in the
    library's code), each holding one pin per call, innermost frame in the
    library's own .so (unpacked from the jar)."""
    live = [s for s in row['sites'] if s['live']]
    expect(len(live) == sites, 'row %s: expected %d live sites, got %d', row_name(row), sites,
           len(live))
    for site in live:
        expect(site['live'] == calls, 'row %s: a site holds %d live pins, expected %d (one per call)',
               row_name(row), site['live'], calls)
        frames = site.get('frames') or []
        expect(frames and library_part in os.path.basename(frames[0].get('library') or ''),
               'row %s: innermost frame expected in a %s library, got %r', row_name(row),
               library_part, frames[:1])


def case_rocksdb(ctx, args):
    """rocksdb #10980: two GetIntArrayElements per multiGetByteBuffers call,
    key offsets and key lengths, int[KEYS] each; fixed in 7.10 (#10981)."""
    lib = Library(ctx, args, 'rocksdb')
    method = 'org.rocksdb.RocksDB.multiGet'
    _, last = lib.run(lib.leaking, ROCKS_CALLS)
    show(last, method, lib.name + ':' + lib.leaking)
    n = 2 * ROCKS_CALLS
    row = expect_row(last, method, 'GetIntArrayElements', ROCKS_SIG, acquired=n, released=0,
                     live=n, leaked=n, held=0, live_bytes=n * ROCKS_KEYS * 4)
    sites_in(row, 'librocksdbjni', 2, ROCKS_CALLS)
    _, last = lib.run(lib.fixed, ROCKS_CALLS)
    show(last, method, lib.name + ':' + lib.fixed)
    expect_row(last, method, 'GetIntArrayElements', ROCKS_SIG, acquired=n, released=n, live=0,
               leaked=0, live_bytes=0)
    no_live_pins(last, method, lib.name + ':' + lib.fixed)


def case_conscrypt(ctx, args):
    """conscrypt #1519: Ed25519 sign pins the signer's buffer with
    GetByteArrayElements and never releases it; its natives are registered
    with RegisterNatives in JNI_OnLoad, and still named by the Java method."""
    lib = Library(ctx, args, 'conscrypt')
    method = 'org.conscrypt.NativeCrypto.EVP_DigestSign'
    _, last = lib.run(lib.leaking, CONSCRYPT_CALLS)
    show(last, method, lib.name + ':' + lib.leaking)
    n = CONSCRYPT_CALLS
    row = expect_row(last, method, 'GetByteArrayElements', CONSCRYPT_SIG, acquired=n, released=0,
                     live=n, leaked=n, held=0, live_bytes=n * CONSCRYPT_BUFFER)
    sites_in(row, 'conscrypt', 1, CONSCRYPT_CALLS)
    _, last = lib.run(lib.fixed, CONSCRYPT_CALLS)
    show(last, method, lib.name + ':' + lib.fixed)
    expect_row(last, method, 'GetByteArrayElements', CONSCRYPT_SIG, acquired=n, released=n,
               live=0, leaked=0, live_bytes=0)
    no_live_pins(last, method, lib.name + ':' + lib.fixed)


def case_xgboost(ctx, args):
    """xgboost #10300: a CSR matrix with an infinity fails in
    XGDMatrixCreateFromCSR, whose error path returns before releasing the
    three arrays it pinned; fixed in 2.1 (#10307).  Every call fails."""
    lib = Library(ctx, args, 'xgboost')
    method = 'ml.dmlc.xgboost4j.java.XGBoostJNI.XGDMatrixCreateFromCSR'
    run, last = lib.run(lib.leaking, XGB_CALLS)
    # The driver's check value is the number of XGBoostErrors: every call failed.
    expect(('DONE %d %d' % (XGB_CALLS, XGB_CALLS)) in run.stdout,
           'expected every one of the %d calls to fail with XGBoostError', XGB_CALLS)
    show(last, method, lib.name + ':' + lib.leaking)
    n = XGB_CALLS
    for function, size in (('GetLongArrayElements', (XGB_ROWS + 1) * 8),
                           ('GetIntArrayElements', XGB_NNZ * 4),
                           ('GetFloatArrayElements', XGB_NNZ * 4)):
        row = expect_row(last, method, function, XGB_SIG, acquired=n, released=0, live=n,
                         leaked=n, held=0, live_bytes=n * size)
        sites_in(row, 'xgboost4j', 1, XGB_CALLS)
    run, last = lib.run(lib.fixed, XGB_CALLS)
    expect(('DONE %d %d' % (XGB_CALLS, XGB_CALLS)) in run.stdout,
           'expected every one of the %d calls to fail with XGBoostError on %s too', XGB_CALLS,
           lib.fixed)
    show(last, method, lib.name + ':' + lib.fixed)
    for function in ('GetLongArrayElements', 'GetIntArrayElements', 'GetFloatArrayElements'):
        expect_row(last, method, function, XGB_SIG, acquired=n, released=n, live=0, leaked=0,
                   live_bytes=0)
    no_live_pins(last, method, lib.name + ':' + lib.fixed)


def case_conscrypt_late_attach(ctx, args):
    """conscrypt 2.6.0 signing before pinwatch is there (its natives bound
    through RegisterNatives long before), `pinwatch attach`, then
    CONSCRYPT_CALLS more signatures: exactly those calls' pins, as from the
    start; the WARM pins taken before the attach are not the agent's to see."""
    expect(ctx.pinwatch and os.path.exists(ctx.pinwatch), 'pinwatch command not built: %s',
           ctx.pinwatch)
    lib = Library(ctx, args, 'conscrypt')
    method = 'org.conscrypt.NativeCrypto.EVP_DigestSign'
    report = ctx.report_path('attach.jsonl')
    argv = ctx.java_argv(lib.main, [str(CONSCRYPT_CALLS), '--wait'], with_agent=False,
                         jvm_args=['-XX:+EnableDynamicAgentLoading'] + lib.jvm_args(),
                         classpath=lib.compiled(lib.leaking), library_path=ctx.tmpdir)
    with Session(ctx, argv) as s:
        s.run.report_path = report
        s.wait_for(r'^READY (\d+)$')
        attach = [ctx.pinwatch, 'attach', str(s.pid), '--agent', ctx.agent, '--format', 'json',
                  '--file', report]
        s.command(attach, 'pinwatch attach')
        s.send('go')
        s.wait_for(r'^DONE %d ' % CONSCRYPT_CALLS)
        rc = s.finish()
    expect(rc == 0, 'JVM exit status: expected 0, got %s', rc)
    _, last = load_report(report)
    show(last, method, lib.name + ':' + lib.leaking + ' attached late')
    n = CONSCRYPT_CALLS
    row = expect_row(last, method, 'GetByteArrayElements', CONSCRYPT_SIG, acquired=n, released=0,
                     live=n, leaked=n, held=0, live_bytes=n * CONSCRYPT_BUFFER)
    sites_in(row, 'conscrypt', 1, n)
    expect(last['totals']['unmatched_releases'] == 0, 'unmatched releases: expected 0, got %d',
           last['totals']['unmatched_releases'])


# The cases (group `real` of tests/jvm/cases.py --list): name, meson timeout in seconds.
CASES = {
    'rocksdb': Case(case_rocksdb, 300),
    'conscrypt': Case(case_conscrypt, 300),
    'xgboost': Case(case_xgboost, 300),
    # conscrypt's natives, registered in its JNI_OnLoad, bound before a late
    # `pinwatch attach`: the calls after it counted exactly.
    'conscrypt-late-attach': Case(case_conscrypt_late_attach, 300),
}


def main():
    if sys.argv[1:2] == ['--prefetch'] and len(sys.argv) == 3:
        return prefetch(sys.argv[2])
    started = time.monotonic()
    parser = case_parser(__doc__, CASES)
    parser.add_argument('--javac', required=True, help='javac of JDK 17 or later')
    parser.add_argument('--src', required=True, help='tests/real: the Java drivers')
    parser.add_argument('--cache', required=True, help='Maven cache, beside the build directory')
    parser.add_argument('--pinwatch', help='the pinwatch command (late attach)')
    args = parser.parse_args()
    args.started = started
    # .ci/run points every build (native, cross) at one cache: one fetch per machine.
    args.cache = os.path.abspath(os.environ.get('PINWATCH_REAL_CACHE') or args.cache)
    ctx = Context(args.case, args.jdk_name, args.jdk_home, os.path.abspath(args.agent),
                  None, os.path.join(os.path.abspath(args.src), 'none.so'), None)
    ctx.pinwatch = os.path.abspath(args.pinwatch) if args.pinwatch else None
    try:
        ctx.require_jdk()
        expect(os.path.exists(ctx.agent), 'agent not built: %s', ctx.agent)
        CASES[args.case].run(ctx, args)
    except Unavailable as e:
        ctx.cleanup()
        if os.environ.get('CI'):
            print('FAIL: %s on %s: %s (CI=true: an artifact CI cannot fetch is a failure, not a skip)'
                  % (args.case, args.jdk_name, e))
            return 1
        print('SKIP: %s on %s: %s' % (args.case, args.jdk_name, e))
        return SKIP
    except SystemExit:
        ctx.cleanup()
        raise
    except Exception as e:
        ctx.print_failure(e)
        return 1
    ctx.cleanup()
    print('PASS: %s on %s (%.1f s)' % (args.case, args.jdk_name, time.monotonic() - started))
    return 0


if __name__ == '__main__':
    sys.exit(main())
