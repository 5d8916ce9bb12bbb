#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pinwatch-agent's jar: the -javaagent route and the extraction's safety.  One case per run:

    agent_jar.py CASE --jdk-name jdk17 --jdk-home DIR --central BUILD/maven-central \
        --version 0.1.0 --build-dir BUILD --source SRC --planted libpwplanted.so \
        --mvn mvn [--local-repo DIR]

The jar is the one the build deployed into BUILD/maven-central (agent/java/build_maven.py).
Every JVM runs the training example (examples/training: every 4th step's evalStep leaks a
16-byte GetLongArrayElements pin) or a one-class program, with -Dpinwatch.extract.dir set to a
directory of the case's own.  Cases:

  javaagent  java -javaagent:pinwatch-agent-V.jar=file=X,format=json on 3000 steps: the exit
             report's evalStep row exactly as -agentpath gives it (750 live and leaked, 12000
             bytes, 3000 acquired, 2250 released, site train_jni.c at its GetLongArrayElements
             line), no WARN or ERROR from the agent, the agent extracted to
             BASE/V-HASH16/libpinwatch.so with the jar's SHA-256 and pinwatch-api.jar beside it;
             a second JVM reuses the file;
             on JDK 24+ without --enable-native-access, pinwatch's one line naming the flag.
  planted    a foreign library (libpwplanted.so, whose JNI_OnLoad would write a marker file)
             planted at that very path (with a foreign pinwatch-api.jar beside it), then a
             symbolic link to it: each time the files are replaced by the jar's, the marker
             never appears, and pinwatch starts and reports.
  directory  extraction directories refused with their one line, the program never run and
             nothing loaded: the base writable by its group, the versioned directory writable
             by others, and (as root) a base owned by another user.
  noexec     a noexec tmpfs as the extraction directory, mounted in a mount namespace of the
             JVM's own (unshare -m; root): the one line naming the directory and
             -Dpinwatch.extract.dir.  /dev/shm is tried too when it is mounted noexec.  Where
             no mount namespace can be made: one SKIP line.
  rebuild    the stale-jar trap: a second pinwatch-agent jar of the same version whose agent
             differs by one appended byte (build_maven.py again, into a repository of its own,
             made once per build dir and reused): its JVM loads the new agent from a new
             versioned directory, and the first JVM's directory and file are untouched.

Exit status: 0 pass, 1 fail, 77 skip."""

import argparse
import fcntl
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile

SKIP = 77
EVAL = 'ai.example.TrainingSession.evalStep'
LEAK_FN = 'GetLongArrayElements'
EVAL_BYTES = 16
SHOW_AGENT = '''
public class ShowAgent {
    public static void main(String[] args) {
        System.out.println("agent=" + System.getProperty("pinwatch.agent"));
        System.out.println("status=" + System.getProperty("pinwatch.status"));
    }
}
'''


class Failure(Exception):
    pass


def expect(cond, fmt, *args):
    if not cond:
        raise Failure(fmt % args if args else fmt)


def sha256(path):
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def jdk_feature(home):
    try:
        with open(os.path.join(home, 'release'), encoding='utf-8') as f:
            m = re.search(r'^JAVA_VERSION="(\d+)', f.read(), re.M)
        return int(m.group(1)) if m else 0
    except OSError:
        return 0


class Ctx:
    def __init__(self, args, tmp):
        self.a, self.tmp = args, tmp
        self.jar = os.path.join(args.central, 'io', 'pinwatch', 'pinwatch-agent', args.version,
                                'pinwatch-agent-%s.jar' % args.version)
        expect(os.path.isfile(self.jar), 'no agent jar at %s', self.jar)
        self.feature = jdk_feature(args.jdk_home)
        self.show = os.path.join(tmp, 'ShowAgent.java')
        with open(self.show, 'w', encoding='utf-8') as f:
            f.write(SHOW_AGENT)

    def hash_of(self, jar=None, name='linux-x86_64/libpinwatch.so'):
        with zipfile.ZipFile(jar or self.jar) as z:
            return z.read('io/pinwatch/agent/%s.sha256' % name).decode().split()[0]

    def versioned(self, base, jar=None):
        return os.path.join(base, '%s-%s' % (self.a.version, self.hash_of(jar)[:16]))

    def java(self, base, options, program, jar=None, native_access=True, wrap=(), env=None):
        """program: 'training', STEPS, or 'show'."""
        argv = list(wrap) + [os.path.join(self.a.jdk_home, 'bin', 'java')]
        if native_access and self.feature >= 17:
            argv.append('--enable-native-access=ALL-UNNAMED')
        argv += ['-Dpinwatch.extract.dir=' + base, '-javaagent:%s%s' % (jar or self.jar, '=' + options if options else '')]
        if program == 'show':
            argv.append(self.show)
        else:
            examples = os.path.join(self.a.build_dir, 'examples')
            argv += ['-Dtrain.lib=train_jni', '-Djava.library.path=' + examples,
                     '-jar', os.path.join(examples, 'training.jar'), str(program)]
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120,
                           env=dict(os.environ, **(env or {})))
        p.argv = argv
        return p

    def report_row(self, report, steps, where):
        with open(report, encoding='utf-8') as f:
            dumps = [json.loads(l) for l in f if l.strip()]
        # The agent appends: the next run's report starts a file of its own.
        os.unlink(report)
        expect([d['reason'] for d in dumps] == ['exit'], '%s: report reasons %s', where, [d['reason'] for d in dumps])
        rows = [r for r in dumps[0]['rows'] if r['method'] == EVAL and r['function'] == LEAK_FN]
        expect(len(rows) == 1, '%s: expected one evalStep row, got %d', where, len(rows))
        r, live = rows[0], steps // 4
        want = dict(live=live, leaked=live, held=0, live_bytes=live * EVAL_BYTES, acquired=steps,
                    released=steps - live)
        got = {k: r[k] for k in want}
        expect(got == want, '%s: evalStep row %s, expected %s', where, got, want)
        return r

    def trained(self, p, steps, where):
        expect(p.returncode == 0, '%s: java exited %d:\n%s', where, p.returncode, p.stderr[-3000:])
        expect('trained %d steps' % steps in p.stdout, '%s: the example printed %r', where, p.stdout)

    def refused(self, p, line, where):
        """The JVM stopped before main, with pinwatch's one line and nothing else of its own."""
        ours = [l for l in p.stderr.splitlines() if l.startswith('[pinwatch]')]
        expect(p.returncode == 1 and ours == ['[pinwatch] ERROR ' + line] and 'trained' not in p.stdout,
               '%s: expected exit 1 and the one line\n  [pinwatch] ERROR %s\ngot exit %d, stdout %r, stderr:\n%s',
               where, line, p.returncode, p.stdout, p.stderr[-3000:])


def train_line(source):
    with open(os.path.join(source, 'examples', 'training', 'train_jni.c'), encoding='utf-8') as f:
        src = f.read().splitlines()
    fn = next(i for i, s in enumerate(src) if 'Java_ai_example_TrainingSession_evalStep' in s)
    return next(i + 1 for i in range(fn, len(src)) if LEAK_FN in src[i])


def case_javaagent(c):
    steps, base = 3000, os.path.join(c.tmp, 'base')
    report = os.path.join(c.tmp, 'report.jsonl')
    p = c.java(base, 'file=%s,format=json' % report, steps)
    c.trained(p, steps, '-javaagent')
    # The agent starts as from -agentpath: nothing it would do left out (the Flight Recorder
    # classes come from the pinwatch-api.jar put beside it).
    warnings = [l for l in p.stderr.splitlines() if l.startswith(('[pinwatch] WARN', '[pinwatch] ERROR'))]
    expect(not warnings, 'the agent warned at start:\n%s', '\n'.join(warnings))
    expect(not [l for l in p.stderr.splitlines() if l.startswith('[pinwatch]') and 'native-access' in l],
           'a native-access line although --enable-native-access was given:\n%s', p.stderr[-2000:])
    r = c.report_row(report, steps, '-javaagent')
    frame = r['sites'][0]['frames'][0]
    line = train_line(c.a.source)
    expect(frame.get('symbol') == 'Java_ai_example_TrainingSession_evalStep'
           and os.path.basename(frame.get('file') or '') == 'train_jni.c' and frame.get('line') == line,
           'the site\'s frame is %s, expected evalStep at train_jni.c:%d', frame, line)
    lib = os.path.join(c.versioned(base), 'libpinwatch.so')
    expect(os.path.isfile(lib) and sha256(lib) == c.hash_of(), '%s: not the jar\'s agent', lib)
    api = os.path.join(c.versioned(base), 'pinwatch-api.jar')
    expect(os.path.isfile(api) and sha256(api) == c.hash_of(name='pinwatch-api.jar'), '%s: not the jar\'s', api)
    mode = stat.S_IMODE(os.stat(c.versioned(base)).st_mode), stat.S_IMODE(os.stat(base).st_mode)
    expect(mode == (0o700, 0o700), 'directory modes %s, expected 0700 both', [oct(m) for m in mode])
    print('-javaagent: evalStep live %d, bytes %d, leaked %d, acquired %d, released %d at %s+%d train_jni.c:%d; '
          'agent %s' % (r['live'], r['live_bytes'], r['leaked'], r['acquired'], r['released'], frame['symbol'],
                        frame['offset'], frame['line'], os.path.relpath(lib, c.tmp)))
    # The second JVM reuses the file: same inode, nothing written.
    before = os.stat(lib)
    p = c.java(base, 'file=%s,format=json' % report, 400)
    c.trained(p, 400, 'second -javaagent run')
    c.report_row(report, 400, 'second -javaagent run')
    after = os.stat(lib)
    expect((before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns),
           'the second JVM wrote the agent again instead of reusing it')
    expect(sorted(os.listdir(base)) == [os.path.basename(c.versioned(base))], 'base holds %s', os.listdir(base))
    print('second JVM: reused %s (same inode)' % os.path.relpath(lib, c.tmp))
    if c.feature >= 24:
        p = c.java(base, 'file=%s,format=json' % report, 400, native_access=False)
        c.trained(p, 400, 'JDK %d without --enable-native-access' % c.feature)
        ours = [l for l in p.stderr.splitlines() if l.startswith('[pinwatch]') and 'native-access' in l]
        expect(len(ours) == 1 and '--enable-native-access=ALL-UNNAMED' in ours[0] and 'argLine' in ours[0],
               'JDK %d without --enable-native-access: pinwatch said %s', c.feature, ours)
        expect('WARNING: java.lang.System::load has been called by io.pinwatch.agent.AgentLibrary' in p.stderr,
               'JDK %d without --enable-native-access: no JDK warning; the line was for nothing:\n%s', c.feature,
               p.stderr[-2000:])
        print('JDK %d without --enable-native-access: %s' % (c.feature, ours[0]))


def plant(c, base, how):
    versioned = c.versioned(base)
    os.makedirs(versioned, mode=0o700, exist_ok=True)
    os.chmod(base, 0o700)
    os.chmod(versioned, 0o700)
    lib = os.path.join(versioned, 'libpinwatch.so')
    if os.path.lexists(lib):
        os.unlink(lib)
    if how == 'file':
        shutil.copyfile(c.a.planted, lib)
        os.chmod(lib, 0o755)
        # And a foreign pinwatch-api.jar, whose classes the agent would put on the class path.
        with open(os.path.join(versioned, 'pinwatch-api.jar'), 'wb') as f:
            f.write(b'PK\5\6' + bytes(18))
    else:
        os.symlink(c.a.planted, lib)
    return lib


def case_planted(c):
    base = os.path.join(c.tmp, 'base')
    report = os.path.join(c.tmp, 'report.jsonl')
    marker = os.path.join(c.tmp, 'marker')
    # The marker itself works: the planted library, loaded, leaves it.
    loader = os.path.join(c.tmp, 'Load.java')
    with open(loader, 'w', encoding='utf-8') as f:
        f.write('public class Load { public static void main(String[] a) { System.load(System.getProperty("lib")); } }\n')
    probe = subprocess.run([os.path.join(c.a.jdk_home, 'bin', 'java'), '-Dlib=' + c.a.planted, loader], text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                           env=dict(os.environ, PW_PLANTED_MARKER=marker))
    expect(probe.returncode == 0 and os.path.exists(marker), 'the planted library, loaded on purpose, left no '
           'marker (%d): %s', probe.returncode, probe.stderr[-2000:])
    os.unlink(marker)
    for how in ('file', 'symlink'):
        lib = plant(c, base, how)
        p = c.java(base, 'file=%s,format=json' % report, 400, env={'PW_PLANTED_MARKER': marker})
        expect(not os.path.exists(marker), 'planted %s: the foreign library was loaded (its marker is there)', how)
        c.trained(p, 400, 'planted ' + how)
        r = c.report_row(report, 400, 'planted ' + how)
        expect(not os.path.islink(lib) and sha256(lib) == c.hash_of(),
               'planted %s: %s is not the jar\'s agent after the run', how, lib)
        api = os.path.join(os.path.dirname(lib), 'pinwatch-api.jar')
        expect(sha256(api) == c.hash_of(name='pinwatch-api.jar'), 'planted %s: %s is not the jar\'s after the run',
               how, api)
        warnings = [l for l in p.stderr.splitlines() if l.startswith(('[pinwatch] WARN', '[pinwatch] ERROR'))]
        expect(not warnings, 'planted %s: the agent warned at start:\n%s', how, '\n'.join(warnings))
        print('planted %s at %s: replaced by the jar\'s agent (sha256 %s...), no marker, pinwatch started: evalStep '
              'live %d, acquired %d' % (how, os.path.relpath(lib, c.tmp), c.hash_of()[:16], r['live'], r['acquired']))


def case_directory(c):
    marker = os.path.join(c.tmp, 'marker')
    env = {'PW_PLANTED_MARKER': marker}
    tail = '; choose another with -Dpinwatch.extract.dir=DIR'

    base = os.path.join(c.tmp, 'group')
    os.makedirs(base)
    os.chmod(base, 0o770)
    p = c.java(base, '', 400, env=env)
    c.refused(p, 'pinwatch refuses the extraction directory %s: writable by group or others (rwxrwx---)%s'
              % (base, tail), 'a group-writable base')
    expect(os.listdir(base) == [], 'something was written into the refused %s: %s', base, os.listdir(base))
    print('group-writable base: exit 1, one line')

    base = os.path.join(c.tmp, 'others')
    versioned = c.versioned(base)
    plant(c, base, 'file')
    os.chmod(versioned, 0o777)
    p = c.java(base, '', 400, env=env)
    c.refused(p, 'pinwatch refuses the extraction directory %s: writable by group or others (rwxrwxrwx)%s'
              % (versioned, tail), 'a versioned directory writable by others')
    expect(not os.path.exists(marker), 'the library in a refused directory was loaded')
    print('versioned directory writable by others (holding a planted library): exit 1, one line, nothing loaded')

    if os.geteuid() != 0:
        print('SKIP-PART: not root: a base owned by another user cannot be made here')
        return
    base = os.path.join(c.tmp, 'foreign')
    plant(c, base, 'file')
    for d, _, files in os.walk(base):
        os.chown(d, 65534, 65534)
        for f in files:
            os.chown(os.path.join(d, f), 65534, 65534)
    p = c.java(base, '', 400, env=env)
    c.refused(p, 'pinwatch refuses the extraction directory %s: owned by uid 65534, not by this user (uid 0)%s'
              % (base, tail), 'a base owned by uid 65534')
    expect(not os.path.exists(marker), 'the library in a foreign directory was loaded')
    print('base owned by uid 65534 (holding a planted library): exit 1, one line, nothing loaded')


def noexec_line(c, base, mount):
    return ('pinwatch cannot load its agent from %s: the file system there (%s) is mounted noexec; choose another '
            'directory with -Dpinwatch.extract.dir=DIR' % (c.versioned(base), mount))


def case_noexec(c):
    ran = 0
    with open('/proc/mounts', encoding='utf-8') as f:
        shm = [l.split() for l in f if l.split()[1:2] == ['/dev/shm']]
    shm_opts = shm[-1][3] if shm else None
    if shm_opts and 'noexec' in shm_opts.split(','):
        base = tempfile.mkdtemp(prefix='pwnoexec-', dir='/dev/shm')
        try:
            p = c.java(base, '', 400)
            c.refused(p, noexec_line(c, base, '/dev/shm'), '/dev/shm (noexec)')
            print('/dev/shm, mounted noexec: exit 1, one line')
            ran += 1
        finally:
            shutil.rmtree(base, ignore_errors=True)
    else:
        print('/dev/shm is mounted %s here: not noexec, not a case' % (shm_opts or 'nowhere'))

    mnt = os.path.join(c.tmp, 'mnt')
    os.makedirs(mnt)
    probe = subprocess.run(['unshare', '-m', '--propagation', 'private', 'sh', '-c',
                            'mount -t tmpfs -o noexec tmpfs "$0" && grep -q " $0 .*noexec" /proc/self/mountinfo', mnt],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if probe.returncode != 0:
        if ran:
            return
        print('SKIP: no mount namespace with a noexec tmpfs can be made here (%s): the noexec case not run'
              % probe.stdout.strip().splitlines()[-1:])
        raise Skip()
    base = os.path.join(mnt, 'pinwatch')
    wrap = ['unshare', '-m', '--propagation', 'private', 'sh', '-c',
            'mount -t tmpfs -o noexec tmpfs "$0" && exec "$@"', mnt]
    p = c.java(base, '', 400, wrap=wrap)
    c.refused(p, noexec_line(c, base, mnt), 'a noexec tmpfs')
    print('noexec tmpfs (own mount namespace): exit 1, one line: %s' % noexec_line(c, base, mnt))


class Skip(Exception):
    pass


def variant_jar(c):
    """The agent jar built again by build_maven.py from the same sources and version, its agent
    one byte longer: once per build dir (BUILD/agent-jar-rebuild), under a lock, reused while the
    build's jar is the same."""
    top = os.path.join(c.a.build_dir, 'agent-jar-rebuild')
    os.makedirs(top, exist_ok=True)
    agent = os.path.join(c.a.build_dir, 'agent', 'libpinwatch.so')
    # Made again when the build's jar changes (its agent or its Java code).
    want = sha256(c.jar)
    stamp = os.path.join(top, 'made-from')
    jar = os.path.join(top, 'central', 'io', 'pinwatch', 'pinwatch-agent', c.a.version,
                       'pinwatch-agent-%s.jar' % c.a.version)
    with open(os.path.join(top, '.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(stamp) and open(stamp).read() == want and os.path.isfile(jar):
            return jar, False
        longer = os.path.join(top, 'libpinwatch.so')
        shutil.copyfile(agent, longer)
        with open(longer, 'ab') as f:
            f.write(b'\0')
        cmd = [sys.executable, os.path.join(c.a.source, 'agent', 'java', 'build_maven.py'), '--mvn', c.a.mvn,
               '--pom', os.path.join(c.a.source, 'agent', 'java', 'pom.xml'), '--version', c.a.version,
               '--native', 'linux-x86_64=' + longer, '--build-dir', os.path.join(top, 'maven'),
               '--central', os.path.join(top, 'central'), '--local-repo', c.a.local_repo, '--no-install',
               '--mvn-arg=-pl', '--mvn-arg=api,agent', '--mvn-arg=-Dmaven.javadoc.skip=true',
               '--mvn-arg=-Dmaven.source.skip=true']
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600,
                           env=dict(os.environ, JAVA_HOME=os.environ.get('JAVA_HOME', c.a.jdk_home)))
        expect(p.returncode == 0 and os.path.isfile(jar), 'the variant build failed:\n%s', p.stdout[-3000:])
        with open(stamp, 'w') as f:
            f.write(want)
        return jar, True


def case_rebuild(c):
    jar2, made = variant_jar(c)
    h1, h2 = c.hash_of(), c.hash_of(jar2)
    expect(h1 != h2, 'the variant jar carries the same agent (%s)', h1)
    base = os.path.join(c.tmp, 'base')
    got = []
    for jar in (c.jar, jar2):
        p = c.java(base, '', 'show', jar=jar)
        expect(p.returncode == 0, 'java -javaagent:%s exited %d:\n%s', jar, p.returncode, p.stderr[-3000:])
        out = dict(l.split('=', 1) for l in p.stdout.splitlines() if '=' in l)
        got.append(out)
        if jar is c.jar:
            lib1 = os.path.join(c.versioned(base), 'libpinwatch.so')
            expect(out.get('agent') == lib1 and out.get('status') == 'started',
                   'the first JVM: pinwatch.agent %s, status %s; expected %s, started', out.get('agent'),
                   out.get('status'), lib1)
            st1 = os.stat(lib1)
    lib2 = os.path.join(c.versioned(base, jar2), 'libpinwatch.so')
    expect(got[1].get('agent') == lib2 and got[1].get('status') == 'started',
           'the rebuilt jar\'s JVM: pinwatch.agent %s, status %s; expected the new %s, started',
           got[1].get('agent'), got[1].get('status'), lib2)
    expect(os.path.dirname(lib1) != os.path.dirname(lib2), 'one directory for both agents')
    st1b = os.stat(lib1)
    expect((st1.st_ino, st1.st_mtime_ns) == (st1b.st_ino, st1b.st_mtime_ns) and sha256(lib1) == h1,
           'the first agent\'s file changed when the rebuilt jar ran')
    expect(sha256(lib2) == h2, 'the new directory holds %s, not the rebuilt agent %s', sha256(lib2), h2)
    print('rebuilt jar (%s): first JVM loaded %s, second %s; the first untouched (same inode, sha256 %s...)'
          % ('built now' if made else 'reused', os.path.relpath(lib1, c.tmp), os.path.relpath(lib2, c.tmp), h1[:16]))


CASES = {'javaagent': case_javaagent, 'planted': case_planted, 'directory': case_directory,
         'noexec': case_noexec, 'rebuild': case_rebuild}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('case', choices=sorted(CASES))
    p.add_argument('--jdk-name', required=True)
    p.add_argument('--jdk-home', required=True)
    p.add_argument('--central', required=True)
    p.add_argument('--version', required=True)
    p.add_argument('--build-dir', required=True)
    p.add_argument('--source', required=True)
    p.add_argument('--planted', required=True)
    p.add_argument('--mvn', required=True)
    p.add_argument('--local-repo', default='')
    args = p.parse_args()
    if not os.access(os.path.join(args.jdk_home, 'bin', 'java'), os.X_OK):
        print('SKIP: JDK %s absent%s: not run' % (args.jdk_name, ' at ' + args.jdk_home if args.jdk_home else ''))
        return SKIP
    tmp = tempfile.mkdtemp(prefix='pwagentjar-')
    try:
        CASES[args.case](Ctx(args, tmp))
    except Skip:
        shutil.rmtree(tmp, ignore_errors=True)
        return SKIP
    except (Failure, subprocess.TimeoutExpired) as e:
        print('FAIL: agent-jar-%s on %s: %s\nscratch files kept in %s' % (args.case, args.jdk_name, e, tmp))
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    print('PASS: agent-jar-%s on %s' % (args.case, args.jdk_name))
    return 0


if __name__ == '__main__':
    sys.exit(main())
