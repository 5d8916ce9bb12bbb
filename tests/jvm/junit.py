#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The JUnit 5 extension in a real Maven build: examples/junit's `mvn -B test`
(Maven Central, Surefire's argLine carrying -agentpath) on one JDK.

    junit.py CASE --jdk-name jdk17 --jdk-home DIR --agent libpinwatch.so
             --api-jar pinwatch-api.jar --junit-jar pinwatch-junit.jar
             --native-dir DIR --project examples/junit --repo BUILD-m2 --version 0.1.0

CASE maven: the default run fails exactly the two leaking tests of
ChecksumTest, with pinwatch's table naming method, function, count, bytes
and call site, and passes the fixed one and the one whose background call
still holds its pin; in ConfigTest, the auto-detected extension fails the
unannotated leak, ignore=, pinLimit= and pins=false pass theirs, and
references=true with referenceLimit=1 fails two new global references.
CASE maven-noagent: the same run without the agent in argLine fails every
checked test with the API's message naming -agentpath.
CASE maven-parallel: under JUnit's parallel execution, two overlapping
checked tests are both refused with the extension's message.
Exit status 0 pass, 1 fail, 77 skip (JDK or mvn missing).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

from harness import Case

SKIP = 77
CONCURRENT = ('pinwatch cannot tell which of two tests running at once leaked a pin: ParallelTest.%s() ran '
              'concurrently with another test checked by pinwatch (JUnit parallel execution). Run tests '
              'checked by pinwatch with @Execution(ExecutionMode.SAME_THREAD) or @ResourceLock("pinwatch"), '
              'or set junit.jupiter.execution.parallel.enabled=false')


NOT_LOADED = 'pinwatch is not loaded in this JVM: start java with -agentpath:/path/to/libpinwatch.so'


class Failure(Exception):
    pass


def expect(cond, msg, *args):
    if not cond:
        raise Failure(msg % args if args else msg)


def mvn(a, env, cwd, *args):
    # The jars are installed as the build's version (--version, meson.project_version()),
    # and the example's pom takes them at that version.
    cmd = ['mvn', '-B', '-Dmaven.repo.local=' + a.repo, '-Dpinwatch.version=' + a.version] + list(args)
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=900)
    return p.returncode, p.stdout


def results(project, cls):
    """{test name: failure message or None} from Surefire's XML report."""
    path = os.path.join(project, 'target', 'surefire-reports', 'TEST-com.example.%s.xml' % cls)
    expect(os.path.exists(path), 'no Surefire report %s', path)
    out = {}
    for case in ET.parse(path).getroot().iter('testcase'):
        bad = case.find('failure')
        if bad is None:
            bad = case.find('error')
        out[case.get('name')] = None if bad is None else (bad.get('message') or '')
    return out


def get_line(source, function, marker):
    """Line of marker inside C function `function` of source."""
    with open(source, encoding='utf-8') as f:
        lines = f.read().splitlines()
    start = next(i for i, l in enumerate(lines) if function in l)
    return next(i + 1 for i in range(start, len(lines)) if marker in lines[i])


def leak_message(test, pins, nbytes, line):
    """The failure message, in shape: every figure exact, the offset any."""
    return re.compile(
        r'\Apinwatch: %s\(\) returned with %d leaked pins? \(%d bytes\) in 1 native method\n'
        r'    LEAKED      BYTES  FUNCTION                   NATIVE METHOD\n'
        r' +%d +%d  GetLongArrayElements       com\.example\.Checksum\.sumLeaky\(\[J\)J\n'
        r' +%d +%d  at Java_com_example_Checksum_sumLeaky\+0x[0-9a-f]+ \(libchecksum\.so\) checksum\.c:%d\Z'
        % (re.escape(test), pins, nbytes, pins, nbytes, pins, nbytes, line))


# The cases (group `junit` of tests/jvm/cases.py --list), each a branch of main():
# meson's timeout in seconds, and one at a time (they share BUILD_DIR-m2).
CASES = {case: Case(None, 900, serial=True) for case in ('maven', 'maven-parallel', 'maven-noagent')}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('case', choices=sorted(CASES))
    for opt in ('--jdk-name', '--jdk-home', '--agent', '--api-jar', '--junit-jar', '--native-dir',
                '--project', '--repo', '--version'):
        p.add_argument(opt, required=True)
    a = p.parse_args()
    if not os.access(os.path.join(a.jdk_home, 'bin', 'java'), os.X_OK):
        print('SKIP: JDK %s absent%s: not run' % (a.jdk_name, ' at ' + a.jdk_home if a.jdk_home else ''))
        return SKIP
    if shutil.which('mvn') is None:
        print('SKIP: mvn (Debian package maven) not installed')
        return SKIP
    env = dict(os.environ, JAVA_HOME=a.jdk_home,
               PATH=os.path.join(a.jdk_home, 'bin') + os.pathsep + os.environ.get('PATH', ''))
    env.pop('JAVA_TOOL_OPTIONS', None)  # the checkjni setup: Surefire's forks get it from argLine alone
    tmp = tempfile.mkdtemp(prefix='pw-%s-%s-' % (a.case, a.jdk_name))
    project = os.path.join(tmp, 'junit')
    log = ''
    try:
        shutil.copytree(a.project, project, ignore=shutil.ignore_patterns('target'))
        # What README tells a user to do with the two jars.
        for artifact, jar in (('pinwatch-api', a.api_jar), ('pinwatch-junit', a.junit_jar)):
            rc, log = mvn(a, env, project, '-q', 'install:install-file', '-Dfile=' + os.path.abspath(jar),
                          '-DgroupId=io.pinwatch', '-DartifactId=' + artifact, '-Dversion=' + a.version,
                          '-Dpackaging=jar')
            expect(rc == 0, 'mvn install:install-file %s exited %d', artifact, rc)
        props = ['-Dpinwatch.agent=' + os.path.abspath(a.agent), '-Dnative.dir=' + os.path.abspath(a.native_dir)]
        if a.case == 'maven':
            rc, log = mvn(a, env, project, 'test', *props)
            expect(rc != 0, 'mvn test passed, though two tests leak')
            expect('Tests run: 9, Failures: 4, Errors: 0, Skipped: 0' in log,
                   'Surefire\'s summary is not "Tests run: 9, Failures: 4, Errors: 0, Skipped: 0"')
            got = results(project, 'ChecksumTest')
            expect(sorted(got) == ['backgroundCallStillHolding', 'fixedSum', 'leakyOnAnotherThread', 'leakySum'],
                   'tests run: %s', sorted(got))
            expect(got['fixedSum'] is None, 'fixedSum failed: %s', got['fixedSum'])
            expect(got['backgroundCallStillHolding'] is None,
                   'a background call\'s held pin failed the test: %s', got['backgroundCallStillHolding'])
            line = get_line(os.path.join(a.project, 'src/main/c/checksum.c'), 'Checksum_sumLeaky',
                            'GetLongArrayElements')
            config = results(project, 'ConfigTest')
            expect(sorted(config) == ['autoDetected', 'ignored', 'pinsNotChecked', 'references', 'withinLimit'],
                   'ConfigTest ran: %s', sorted(config))
            for test in ('ignored', 'pinsNotChecked', 'withinLimit'):
                expect(config[test] is None, 'ConfigTest.%s failed: %s', test, config[test])
            got['ConfigTest.autoDetected'] = config['autoDetected']
            for test, pins, nbytes in (('leakySum', 1, 16 * 8), ('leakyOnAnotherThread', 1, 3 * 8),
                                       ('ConfigTest.autoDetected', 1, 2 * 8)):
                msg = got[test]
                expect(msg is not None, '%s passed, though it leaked', test)
                expect(leak_message(test if '.' in test else 'ChecksumTest.' + test, pins, nbytes, line).match(msg),
                       '%s: the message is not pinwatch\'s table of 1 leaked pin, %d bytes, at checksum.c:%d:\n%s',
                       test, nbytes, line, msg)
            # References: the JVM may make global references of its own during the
            # test, so the total is at least 2; remember's row is exactly 2.
            msg = config['references'] or ''
            ref_line = get_line(os.path.join(a.project, 'src/main/c/checksum.c'), 'Checksum_remember',
                                'NewGlobalRef')
            head = re.match(r'\Apinwatch: ConfigTest\.references\(\) returned with (\d+) more live JNI '
                            r'references \(limit 1\)\n     \+LIVE KIND    FUNCTION                   NATIVE METHOD\n', msg)
            expect(head is not None and int(head.group(1)) >= 2,
                   'ConfigTest.references: not pinwatch\'s reference table:\n%s', msg)
            expect(re.search(r'^ +2 global  NewGlobalRef               com\.example\.Checksum\.remember\('
                             r'Ljava/lang/Object;\)V\n +2         at Java_com_example_Checksum_remember\+0x[0-9a-f]+ '
                             r'\(libchecksum\.so\) checksum\.c:%d$' % ref_line, msg, re.M),
                   'ConfigTest.references: no row of 2 global references at checksum.c:%d:\n%s', ref_line, msg)
        elif a.case == 'maven-noagent':
            # The same tests, the agent left out of Surefire's argLine.
            rc, log = mvn(a, env, project, 'test', '-Dpinwatch.jvmarg=-Dpinwatch.absent=true', *props)
            expect(rc != 0, 'mvn test passed without the agent')
            for cls, tests in (('ChecksumTest', 4), ('ConfigTest', 5)):
                got = results(project, cls)
                expect(len(got) == tests, '%s ran %d tests, not %d', cls, len(got), tests)
                for test, msg in sorted(got.items()):
                    expect(msg == NOT_LOADED, '%s.%s without the agent: expected %r, got %r',
                           cls, test, NOT_LOADED, msg)
        else:
            rc, log = mvn(a, env, project, 'test', '-Dgroups=parallel', '-Dpinwatch.excluded=',
                          '-Djunit.parallel=true', *props)
            expect(rc != 0, 'mvn test passed, though two checked tests ran at once')
            got = results(project, 'ParallelTest')
            expect(sorted(got) == ['one', 'two'], 'tests run: %s', sorted(got))
            for test in ('one', 'two'):
                expect(got[test] == CONCURRENT % test, 'ParallelTest.%s: expected the refusal, got %r',
                       test, got[test])
    except (Failure, subprocess.TimeoutExpired, StopIteration) as e:
        print('FAIL: %s on %s: %s' % (a.case, a.jdk_name, e))
        print('\n--- mvn output (tail) ---\n' + '\n'.join([l for l in log.splitlines() if 'Download' not in l][-80:]))
        print('\nproject kept in ' + project)
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    print('PASS: %s on %s' % (a.case, a.jdk_name))
    return 0


if __name__ == '__main__':
    sys.exit(main())
