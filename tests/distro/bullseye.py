#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pinwatch's release archive on another distribution: Debian 11 (bullseye), chrooted.

  bullseye.py --arch x64|arm64 --root ROOT --archive pinwatch-VERSION-linux-ARCH.tar.gz
              --build BUILD_DIR --source SRC [--testlog FILE] [--keep]

ROOT is a bullseye tree holding only bullseye's OpenJDK 11 and 17 and what they need
(.ci/debian-jdks [--arch arm64] bullseye ROOT openjdk-11-jdk-headless
openjdk-17-jdk-headless): no compiler, no Meson, no libunwind, libdw or json-c, which this
script checks first.  The archive is unpacked into ROOT/opt/pinwatch-proof with the training
example (BUILD_DIR/examples: training.jar, libtrain_jni.so) and the command tests' driver of it
(BUILD_DIR/tests/cli: pwclidriver.jar, libpwclidriver.so), whose libraries must need no glibc
newer than the root's (checked with objdump).  Then, on each JDK, every program chrooted into
ROOT (in a mount namespace of its own, with /proc and /dev mounted for it alone):

  1. java -agentpath:.../lib/libpinwatch.so -jar training.jar 400: no WARN or ERROR line from
     the agent (a jar it cannot find costs the Flight Recorder events), the text table's
     evalStep row (100 live, 1600 bytes, 100 leaked, 400 acquired, 300 released) and its site,
     Java_ai_example_TrainingSession_evalStep+0x.. (libtrain_jni.so) train_jni.c:N, N being
     the line of train_jni.c that calls GetLongArrayElements;
  2. bin/pinwatch run --format json (the agent found next to the command) of the same: the
     exit report's row and the site's symbol, file and line;
  3. bin/pinwatch report of that file writes the HTML page, which names the site;
  4. bin/pinwatch attach to the running driver after 8 steps, 40 more steps, bin/pinwatch dump:
     exactly 10 live and leaked, 40 acquired, 30 released, and the same at exit;
  5. with --agent-jar (the release's io.pinwatch:pinwatch-agent jar, as Maven users get it):
     java -javaagent:pinwatch-agent.jar=file=...,format=json of the same example: the jar's
     agent for this processor extracted and loaded, no WARN or ERROR, the exit report's row.

For arm64 every program runs under the host's qemu-aarch64-static, copied into the staging
directory; `pinwatch run` starts java through a small static x86-64 program (compiled here with
CC) that executes qemu, since the root's own shell cannot run without binfmt_misc.

Where no chroot can be made (not root; no mount namespace), one SKIP line says so with the count
of runs not made.  Exit status 0 pass, 1 fail, 77 skip.  --testlog appends one line per JDK
in the format of meson's testlog.json (name, result), for .ci/run's summary."""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time

SKIP = 77
STEPS = 400                 # the training run: every 4th step's evalStep leaks one long[2]
EVAL = 'ai.example.TrainingSession.evalStep'
EVAL_BYTES = 16
STAGE = '/opt/pinwatch-proof'
QEMU_ENV = {'QEMU_CPU': 'max,pauth-impdef=on'}
JVM_RUNS = 5                # per JDK: agentpath, run, report, attach, javaagent


class Fail(Exception):
    pass


class NoRoot(Exception):
    """No bullseye root to chroot into: a skip, as for a JDK that cannot be had."""


def expect(cond, fmt, *args):
    if not cond:
        raise Fail(fmt % args if args else fmt)


def glibc_of(libc):
    """"2.31" from a C library's banner."""
    with open(libc, 'rb') as f:
        m = re.search(rb'release version (\d+\.\d+)', f.read())
    return m.group(1).decode() if m else None


def version_key(v):
    return tuple(int(x) for x in v.split('.'))


def newest_glibc_needed(objdump, lib):
    out = subprocess.run([objdump, '-T', lib], capture_output=True, text=True, check=True).stdout
    versions = set(re.findall(r'GLIBC_(\d+(?:\.\d+)+)', out))
    return max(versions, key=version_key) if versions else '0'


class Proof:
    def __init__(self, a):
        self.a = a
        self.root = os.path.realpath(a.root)
        self.deb_arch = 'amd64' if a.arch == 'x64' else 'arm64'
        self.triplet = 'x86_64-linux-gnu' if a.arch == 'x64' else 'aarch64-linux-gnu'
        self.stage = self.root + STAGE
        self.log = []

    # ---- the root ------------------------------------------------------------------------
    def check_root(self):
        jdks = {}
        for feature in (11, 17):
            home = '/usr/lib/jvm/java-%d-openjdk-%s' % (feature, self.deb_arch)
            if not os.access(self.root + home + '/bin/java', os.X_OK):
                raise NoRoot('no JDK %d in %s (.ci/debian-jdks could not unpack it?)' % (feature, self.root + home))
            jdks['jdk%d' % feature] = home
        # Nothing a build would need: the archive must bring everything itself.
        found = []
        for pattern in ('usr/bin/gcc*', 'usr/bin/cc', 'usr/bin/meson', 'usr/bin/ninja',
                        '**/libunwind*.so*', '**/libdw.so*', '**/libdw-*.so', '**/libjson-c.so*',
                        '**/libelf.so*'):
            found += glob.glob(os.path.join(self.root, pattern), recursive='**' in pattern)
        expect(not found, 'the bullseye root holds what a build needs: %s', found[:5])
        libc = None
        for d in ('lib', 'usr/lib'):
            path = os.path.join(self.root, d, self.triplet, 'libc.so.6')
            if os.path.exists(path):
                libc = path
                break
        expect(libc, 'no libc.so.6 in %s', self.root)
        self.glibc = glibc_of(libc)
        expect(self.glibc, '%s names no glibc version', libc)
        return jdks

    def stage_files(self):
        shutil.rmtree(self.stage, ignore_errors=True)
        os.makedirs(self.stage + '/out')
        os.makedirs(self.stage + '/example')
        os.makedirs(os.path.join(self.root, 'proc'), exist_ok=True)
        os.makedirs(os.path.join(self.root, 'dev'), exist_ok=True)
        with tarfile.open(self.a.archive) as t:
            names = t.getnames()
            top = {n.split('/')[0] for n in names}
            expect(len(top) == 1, '%s: expected one top directory, got %s', self.a.archive, sorted(top))
            top = top.pop()
            for want in ('bin/pinwatch', 'lib/libpinwatch.so', 'lib/pinwatch-api.jar', 'LICENSE'):
                expect(top + '/' + want in names, '%s has no %s', self.a.archive, want)
            expect(any(re.match(re.escape(top) + r'/README', n) for n in names), '%s has no README',
                   self.a.archive)
            t.extractall(self.stage)
        os.rename(os.path.join(self.stage, top), self.stage + '/pinwatch')
        os.chmod(self.stage + '/out', 0o1777)
        example = os.path.join(self.a.build, 'examples')
        cli = os.path.join(self.a.build, 'tests', 'cli')
        libs = [os.path.join(example, 'libtrain_jni.so'), os.path.join(cli, 'libpwclidriver.so')]
        for f in libs + [os.path.join(example, 'training.jar'), os.path.join(cli, 'pwclidriver.jar')]:
            expect(os.path.exists(f), '%s is missing: build first', f)
            shutil.copy(f, self.stage + '/example/')
        # The example's own libraries are the user's: they must load on bullseye's glibc.
        objdump = self.a.objdump or ('objdump' if self.a.arch == 'x64' else 'aarch64-linux-gnu-objdump')
        for lib in libs:
            need = newest_glibc_needed(objdump, lib)
            expect(version_key(need) <= version_key(self.glibc),
                   '%s needs GLIBC_%s, newer than bullseye\'s %s', lib, need, self.glibc)
            self.note('%s needs %s (bullseye has glibc %s)' % (
                os.path.basename(lib), 'GLIBC_%s at most' % need if need != '0' else 'no versioned glibc symbol',
                self.glibc))
        if self.a.agent_jar:
            expect(os.path.isfile(self.a.agent_jar), '%s is missing', self.a.agent_jar)
            shutil.copy(self.a.agent_jar, self.stage + '/pinwatch-agent.jar')
        if self.a.arch == 'arm64':
            qemu = shutil.which('qemu-aarch64-static')
            expect(qemu, 'qemu-aarch64-static is not installed')
            shutil.copy(qemu, self.stage + '/qemu-aarch64-static')

    def java_launcher(self, home):
        """The java a command line names: the JDK's own on x64; on arm64 a
        static host program that executes qemu with it, keeping the pid."""
        if self.a.arch == 'x64':
            return home + '/bin/java'
        name = 'java-' + os.path.basename(home)
        src = os.path.join(self.stage, name + '.c')
        with open(src, 'w', encoding='utf-8') as f:
            f.write('#include <stdlib.h>\n#include <unistd.h>\n'
                    'int main(int argc, char **argv) {\n'
                    '    char **v = calloc((size_t)argc + 2, sizeof(*v));\n'
                    '    if (v == NULL) return 127;\n'
                    '    v[0] = "%s/qemu-aarch64-static"; v[1] = "%s/bin/java";\n'
                    '    for (int i = 1; i < argc; i++) v[i + 1] = argv[i];\n'
                    '    execv(v[0], v);\n    return 127;\n}\n' % (STAGE, home))
        cc = self.a.cc or 'cc'
        done = subprocess.run([cc, '-static', '-O1', '-o', os.path.join(self.stage, name), src],
                              capture_output=True, text=True)
        expect(done.returncode == 0, '%s -static could not build the qemu launcher: %s', cc, done.stderr[-800:])
        return STAGE + '/' + name

    # ---- chrooted programs ----------------------------------------------------------------
    def chrooted(self, argv, qemu=False):
        """argv run chrooted into the root.  This script runs in a mount
        namespace of its own (main), where the root's /proc and /dev are
        mounted: every program shares it, as the JVM and pinwatch attach
        must, and nothing stays mounted in the tree when it ends."""
        if qemu and self.a.arch == 'arm64':
            argv = [STAGE + '/qemu-aarch64-static'] + argv
        return ['chroot', self.root] + argv

    def env(self):
        env = {'PATH': '/usr/sbin:/usr/bin:/sbin:/bin', 'HOME': '/tmp', 'LC_ALL': 'C'}
        env.update(QEMU_ENV)
        return env

    def run(self, argv, qemu=True, timeout=300, stdin=subprocess.DEVNULL):
        full = self.chrooted(argv, qemu)
        p = subprocess.run(full, env=self.env(), stdin=stdin, capture_output=True, text=True,
                           timeout=timeout * self.a.time_scale)
        self.log.append('$ %s\n[status %d]\n%s%s' % (' '.join(argv), p.returncode, p.stdout[-4000:],
                                                     p.stderr[-4000:]))
        return p

    def note(self, text):
        print(text)
        self.log.append(text)

    def mount_root(self):
        """/proc and /dev in the root, in this process's own mount namespace;
        None, or why they could not be mounted."""
        for argv in (['mount', '-t', 'proc', 'proc', self.root + '/proc'],
                     ['mount', '--rbind', '/dev', self.root + '/dev']):
            p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True)
            if p.returncode != 0:
                return (p.stderr.strip() or 'status %d' % p.returncode).splitlines()[-1]
        return None

    def can_chroot(self, java):
        """None when a program runs chrooted here (the root's java -version),
        else why not: what chroot said."""
        try:
            p = subprocess.run(self.chrooted([java, '-version'], False), env=self.env(),
                               stdin=subprocess.DEVNULL, capture_output=True, text=True,
                               timeout=120 * self.a.time_scale)
        except (OSError, subprocess.TimeoutExpired) as e:
            return str(e)
        m = re.search(r'^chroot: .*$', p.stderr, re.M)
        if p.returncode != 0 and m:
            return m.group(0)
        return None

    # ---- the cases --------------------------------------------------------------------------
    def training_argv(self, java, *agent):
        return [java] + list(agent) + ['-Dtrain.lib=train_jni', '-Djava.library.path=%s/example' % STAGE,
                                       '-jar', STAGE + '/example/training.jar', str(STEPS)]

    def expect_row(self, dump, live, acquired, where):
        rows = [r for r in dump['rows'] if r['method'] == EVAL and r['function'] == 'GetLongArrayElements']
        expect(len(rows) == 1, '%s: expected one evalStep row, got %d', where, len(rows))
        r = rows[0]
        want = dict(live=live, leaked=live, held=0, live_bytes=live * EVAL_BYTES, acquired=acquired,
                    released=acquired - live)
        got = {k: r[k] for k in want}
        expect(got == want, '%s: evalStep row %s, expected %s', where, got, want)
        return r

    def case_agentpath(self, name, home, java):
        p = self.run(self.training_argv(java, '-agentpath:%s/pinwatch/lib/libpinwatch.so' % STAGE),
                     qemu=False)
        expect(p.returncode == 0, '%s: java -agentpath exited %d: %s', name, p.returncode,
               (p.stdout + p.stderr)[-2000:])
        expect('trained %d steps (%d validation steps)' % (STEPS, STEPS // 4) in p.stdout,
               '%s: the example printed %r', name, p.stdout)
        # The archive's agent starts as the build's does: nothing it would do is left out
        # (its jar beside it gives the Flight Recorder events, its libraries are all inside).
        warnings = [l for l in p.stderr.splitlines() if l.startswith(('[pinwatch] WARN', '[pinwatch] ERROR'))]
        expect(not warnings, '%s: the agent warned at start:\n%s', name, '\n'.join(warnings))
        live = STEPS // 4
        row = re.search(r'^ +%d +%d +%d +0 +%d +%d +\S+ +GetLongArrayElements +%s\(J\[J\)\[J$'
                        % (live, live * EVAL_BYTES, live, STEPS, STEPS - live, re.escape(EVAL)), p.stderr, re.M)
        expect(row, '%s: no evalStep row with %d live, %d acquired in the text report:\n%s', name, live, STEPS,
               p.stderr[-3000:])
        site = re.search(r'^ +%d +%d +at (Java_ai_example_TrainingSession_evalStep\+0x[0-9a-f]+ '
                         r'\(libtrain_jni\.so\) train_jni\.c:(\d+))$' % (live, live * EVAL_BYTES),
                         p.stderr, re.M)
        expect(site, '%s: the evalStep site is not named with file:line:\n%s', name, p.stderr[-3000:])
        expect(int(site.group(2)) == self.line, '%s: site at train_jni.c:%s, the GetLongArrayElements of evalStep '
               'is line %d', name, site.group(2), self.line)
        self.note('%s: -agentpath: %s' % (name, row.group(0).strip()))
        self.note('%s: -agentpath: at %s' % (name, site.group(1)))
        return p.stderr

    def case_run(self, name, home, java):
        out = '%s/out/run-%s.jsonl' % (STAGE, name)
        p = self.run([STAGE + '/pinwatch/bin/pinwatch', 'run', '--format', 'json', '--file', out, '--'] +
                     self.training_argv(java))
        expect(p.returncode == 0, '%s: pinwatch run exited %d: %s', name, p.returncode, p.stderr[-2000:])
        with open(self.root + out, encoding='utf-8') as f:
            dumps = [json.loads(line) for line in f if line.strip()]
        expect([d['reason'] for d in dumps] == ['exit'], '%s: pinwatch run: reasons %s', name,
               [d['reason'] for d in dumps])
        r = self.expect_row(dumps[0], STEPS // 4, STEPS, '%s: pinwatch run' % name)
        frame = r['sites'][0]['frames'][0]
        expect(frame.get('symbol') == 'Java_ai_example_TrainingSession_evalStep'
               and os.path.basename(frame.get('file') or '') == 'train_jni.c' and frame.get('line') == self.line,
               '%s: pinwatch run: the site\'s frame is %s', name, frame)
        self.note('%s: pinwatch run: live %d, acquired %d, released %d, at %s+%d %s:%d'
                  % (name, r['live'], r['acquired'], r['released'], frame['symbol'], frame['offset'],
                     os.path.basename(frame['file']), frame['line']))
        return out

    def case_javaagent(self, name, home, java):
        out = '%s/out/javaagent-%s.jsonl' % (STAGE, name)
        # A directory of the run's own: the user's cache directory is not part of the root.
        extract = '%s/out/extract-%s' % (STAGE, name)
        p = self.run(self.training_argv(java, '-javaagent:%s/pinwatch-agent.jar=file=%s,format=json' % (STAGE, out),
                                        '-Dpinwatch.extract.dir=' + extract), qemu=False)
        expect(p.returncode == 0, '%s: java -javaagent exited %d: %s', name, p.returncode,
               (p.stdout + p.stderr)[-2000:])
        warnings = [l for l in p.stderr.splitlines() if l.startswith(('[pinwatch] WARN', '[pinwatch] ERROR'))]
        expect(not warnings, '%s: -javaagent: the agent warned at start:\n%s', name, '\n'.join(warnings))
        with open(self.root + out, encoding='utf-8') as f:
            dumps = [json.loads(line) for line in f if line.strip()]
        expect([d['reason'] for d in dumps] == ['exit'], '%s: -javaagent: reasons %s', name,
               [d['reason'] for d in dumps])
        r = self.expect_row(dumps[0], STEPS // 4, STEPS, '%s: -javaagent' % name)
        loaded = glob.glob(self.root + extract + '/*/libpinwatch.so')
        expect(len(loaded) == 1, '%s: -javaagent: extracted %s', name, loaded)
        self.note('%s: -javaagent: live %d, acquired %d, released %d, agent %s'
                  % (name, r['live'], r['acquired'], r['released'], loaded[0][len(self.root):]))

    def case_report(self, name, jsonl):
        page = '%s/out/run-%s.html' % (STAGE, name)
        p = self.run([STAGE + '/pinwatch/bin/pinwatch', 'report', jsonl, '-o', page])
        expect(p.returncode == 0 and re.match(r'^%s: 1 reports?\n$' % re.escape(page), p.stdout),
               '%s: pinwatch report: status %d, %r %r', name, p.returncode, p.stdout, p.stderr)
        with open(self.root + page, encoding='utf-8') as f:
            html = f.read()
        expect(html.lstrip().lower().startswith('<!doctype html') and EVAL in html
               and 'train_jni.c:%d' % self.line in html,
               '%s: %s does not name evalStep and train_jni.c:%d', name, page, self.line)
        self.note('%s: pinwatch report wrote %s (%d bytes), naming train_jni.c:%d'
                  % (name, page, len(html), self.line))

    def case_attach(self, name, home, java):
        out = '%s/out/attach-%s.jsonl' % (STAGE, name)
        argv = [java, '-XX:+EnableDynamicAgentLoading', '-cp',
                '%s/example/pwclidriver.jar:%s/example/training.jar' % (STAGE, STAGE),
                '-Djava.library.path=%s/example' % STAGE, 'pinwatch.cli.Driver']
        jvm = subprocess.Popen(self.chrooted(argv, False), env=self.env(), stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        try:
            def reply(pattern):
                deadline = time.monotonic() + 120 * self.a.time_scale
                while time.monotonic() < deadline:
                    line = jvm.stdout.readline()
                    if not line:
                        break
                    m = re.match(pattern, line.strip())
                    if m:
                        return m
                raise Fail('%s: the driver did not answer %s (status %s): %s' % (name, pattern, jvm.poll(),
                                                                                  jvm.stderr.read()[-2000:]
                                                                                  if jvm.poll() is not None else ''))

            def send(cmd):
                jvm.stdin.write(cmd + '\n')
                jvm.stdin.flush()
                reply('^OK ' + re.escape(cmd) + '$')

            pid = int(reply(r'^READY (\d+)$').group(1))
            send('train 8')      # two leaks before the attach: not seen
            p = self.run([STAGE + '/pinwatch/bin/pinwatch', 'attach', str(pid), '--format', 'json', '--file', out])
            expect(p.returncode == 0 and re.match(r'^JVM %d: agent .*libpinwatch\.so loaded, return code 0' % pid,
                                                  p.stdout),
                   '%s: pinwatch attach: status %d: %r %r', name, p.returncode, p.stdout, p.stderr)
            send('train 40')     # ten leaks
            p = self.run([STAGE + '/pinwatch/bin/pinwatch', 'dump', str(pid), '--format', 'json'])
            expect(p.returncode == 0, '%s: pinwatch dump: status %d: %s', name, p.returncode, p.stderr)
            r = self.expect_row(json.loads(p.stdout.splitlines()[0]), 10, 40, '%s: pinwatch dump' % name)
            jvm.stdin.write('exit 0\n')     # the driver exits: no OK line
            jvm.stdin.flush()
            expect(jvm.wait(timeout=120 * self.a.time_scale) == 0, '%s: the driver exited %s: %s', name,
                   jvm.returncode, jvm.stderr.read()[-2000:])
        finally:
            if jvm.poll() is None:
                jvm.kill()
                jvm.wait()
        with open(self.root + out, encoding='utf-8') as f:
            dumps = [json.loads(line) for line in f if line.strip()]
        expect([d['reason'] for d in dumps] == ['exit'], '%s: attach: reasons %s', name,
               [d['reason'] for d in dumps])
        self.expect_row(dumps[0], 10, 40, '%s: pinwatch attach, exit report' % name)
        self.note('%s: pinwatch attach + dump: live %d, acquired %d, released %d (and the same at exit)'
                  % (name, r['live'], r['acquired'], r['released']))


def private_mounts(argv):
    """Runs this script again in a mount namespace of its own (unshare), so
    that what it mounts in the root goes away with it; None when that
    cannot be done here, with why (exit status 77 then)."""
    if os.geteuid() != 0:
        return 'not root'
    for tool in ('unshare', 'chroot', 'mount'):
        if shutil.which(tool, path='/usr/sbin:/usr/bin:/sbin:/bin') is None:
            return 'no %s' % tool
    probe = subprocess.run(['unshare', '--mount', '--propagation', 'private', '--', 'true'],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if probe.returncode != 0:
        return (probe.stderr.strip() or 'status %d' % probe.returncode).splitlines()[-1]
    env = dict(os.environ, PW_DISTRO_NAMESPACE='1')
    return subprocess.run(['unshare', '--mount', '--propagation', 'private', '--', sys.executable,
                           os.path.abspath(__file__)] + argv, env=env).returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--arch', choices=('x64', 'arm64'), required=True)
    ap.add_argument('--root', required=True)
    ap.add_argument('--archive', required=True)
    ap.add_argument('--build', required=True, help='the build dir of the example (the cross build for arm64)')
    ap.add_argument('--source', required=True, help='the source tree (for train_jni.c)')
    ap.add_argument('--agent-jar', help="the release's pinwatch-agent jar: also run the example under -javaagent")
    ap.add_argument('--objdump')
    ap.add_argument('--cc', help='host C compiler for the arm64 qemu launcher (default cc)')
    ap.add_argument('--testlog', help='append meson-style result lines here')
    ap.add_argument('--keep', action='store_true', help='keep ROOT%s' % STAGE)
    ap.add_argument('--time-scale', type=float, default=None)
    a = ap.parse_args()
    if a.time_scale is None:
        a.time_scale = 4 if a.arch == 'arm64' else 1
    jdk_names = ['jdk11', 'jdk17']

    def record(result, said=''):
        # said: the SKIP line, which .ci/run's summary gives as the reason.
        if a.testlog:
            with open(a.testlog, 'a', encoding='utf-8') as f:
                for jdk in jdk_names:
                    f.write(json.dumps({'name': 'bullseye-%s-%s' % (a.arch, jdk), 'result': result,
                                        'stdout': said}) + '\n')

    def skip(text):
        print(text)
        record('SKIP', text)
        return SKIP

    if not os.environ.get('PW_DISTRO_NAMESPACE'):
        rc = private_mounts(sys.argv[1:])
        if isinstance(rc, int):
            return rc
        return skip('SKIP: no chroot into the bullseye %s root here (%s): %d runs on JDK 11 and 17 not made'
                    % (a.arch, rc, 2 * JVM_RUNS))
    proof = Proof(a)
    with open(os.path.join(a.source, 'examples', 'training', 'train_jni.c'), encoding='utf-8') as f:
        src = f.read().splitlines()
    fn = next(i for i, s in enumerate(src) if 'Java_ai_example_TrainingSession_evalStep' in s)
    proof.line = next(i + 1 for i in range(fn, len(src)) if 'GetLongArrayElements' in src[i])
    try:
        try:
            jdks = proof.check_root()
        except NoRoot as e:
            return skip('SKIP: no bullseye %s root: %s: %d runs on JDK 11 and 17 not made' % (a.arch, e, 2 * JVM_RUNS))
        proof.stage_files()
        why = proof.mount_root() or proof.can_chroot(proof.java_launcher(jdks['jdk11']))
        if why is not None:
            return skip('SKIP: no chroot into the bullseye %s root here (%s): %d runs on JDK 11 and 17 not made'
                        % (a.arch, why, JVM_RUNS * len(jdks)))
        for name, home in jdks.items():
            java = proof.java_launcher(home)
            text = proof.case_agentpath(name, home, java)
            if name == 'jdk11':
                proof.report_text = text
            jsonl = proof.case_run(name, home, java)
            proof.case_report(name, jsonl)
            proof.case_attach(name, home, java)
            if a.agent_jar:
                proof.case_javaagent(name, home, java)
        print('PASS: pinwatch %s on Debian 11 (glibc %s), JDK 11 and 17, chrooted%s'
              % (a.arch, proof.glibc, ', the archive and the pinwatch-agent jar' if a.agent_jar else ''))
        print('--- the -agentpath run\'s report on JDK 11, inside the root ---')
        print('\n'.join(l for l in proof.report_text.splitlines()))
        record('OK')
        return 0
    except (Fail, subprocess.TimeoutExpired, OSError, StopIteration) as e:
        print('FAIL: bullseye %s: %s' % (a.arch, e))
        print('--- commands ---')
        print('\n'.join(proof.log[-12:]))
        record('FAIL')
        return 1
    finally:
        if not a.keep:
            shutil.rmtree(proof.stage, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
