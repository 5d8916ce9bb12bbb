#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pinwatch-maven-plugin in real Maven builds (Maven runs on the JDK under test).

    maven_plugin.py CASE --jdk-name jdk17 --jdk-home DIR --central BUILD/maven-central
                    --repo BUILD-m2 --version 0.1.0
    maven_plugin.py --list      CASE TIMEOUT, one a line (tests/jvm/meson.build)

Each case generates a small project into a temporary directory: a JNI library
compiled here with the system cc (pwmvn.c: Native.sum releases its pin,
Native.sumLeaky does not, Native.keep makes a global reference it never
deletes), two JUnit 5 test classes, each forked into a JVM of its own
(reuseForks=false), and the plugin block a user adds.  The plugin comes by
coordinates from BUILD/maven-central (the stand-in for Maven Central that the
build deploys into) through a settings file; BUILD-m2/io/pinwatch is deleted
first so that nothing of an earlier run is used.

CASE plugin: the plugin block alone, no leak.  `mvn -B verify` passes; the two
JVMs' exit reports (target/pinwatch) hold exact counts; the console holds no
pinwatch table or log line, only the plugin's two lines.
CASE own-argline: the pom's own argLine property and @{argLine} in Surefire's
argLine: the tests see both flags (they assert them) and the agent reports.
CASE leak: three leaked pins and two kept globals with maxLiveReferences 1:
check fails the build with both tables, exact rows.
CASE overwritten: Surefire's argLine without @{argLine}: the tests pass,
check fails the build because no JVM wrote a report, saying how to keep it;
with -DskipTests the same build passes, check saying there is nothing to check.
CASE limit: the same three leaked pins under maxLeakedPins 3: the build passes.
Exit status 0 pass, 1 fail, 77 skip (JDK, mvn or cc missing).
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from maven_central import forget_pinwatch, maven_env, write_settings
from harness import TestFailure, check_invariants, exit_dump, expect, expect_row, read_dumps, source_line

SKIP = 77
JUNIT = '5.14.1'
# Counts the tests make (PinTest, RefTest below): distinct, so that a
# figure in a report or a message says where it came from.
SUMS = 7         # balanced GetIntArrayElements of int[5]
LEAKS = 3        # leaked GetIntArrayElements of int[5], 20 bytes each
KEEPS = 2        # global references never deleted

# Meson's timeout per case in seconds; the cases share BUILD-m2, so they run one at a time.
CASES = {'plugin': 600, 'own-argline': 600, 'leak': 600, 'overwritten': 600, 'limit': 600}

C_SOURCE = r'''/* SPDX-License-Identifier: Apache-2.0 */
#include <jni.h>

JNIEXPORT jint JNICALL Java_pwmvn_Native_sum(JNIEnv *env, jclass cls, jintArray a);
JNIEXPORT jint JNICALL Java_pwmvn_Native_sumLeaky(JNIEnv *env, jclass cls, jintArray a);
JNIEXPORT void JNICALL Java_pwmvn_Native_keep(JNIEnv *env, jclass cls, jobject o);

static jint
add(const jint *v, jsize n)
{
    jint s = 0;
    for (jsize i = 0; i < n; i++)
        s += v[i];
    return s;
}

JNIEXPORT jint JNICALL
Java_pwmvn_Native_sum(JNIEnv *env, jclass cls, jintArray a)
{
    (void)cls;
    jint *v = (*env)->GetIntArrayElements(env, a, NULL); /* SUM */
    jint s = add(v, (*env)->GetArrayLength(env, a));
    (*env)->ReleaseIntArrayElements(env, a, v, JNI_ABORT);
    return s;
}

JNIEXPORT jint JNICALL
Java_pwmvn_Native_sumLeaky(JNIEnv *env, jclass cls, jintArray a)
{
    (void)cls;
    jint *v = (*env)->GetIntArrayElements(env, a, NULL); /* LEAK */
    return add(v, (*env)->GetArrayLength(env, a));
}

static jobject volatile kept;

JNIEXPORT void JNICALL
Java_pwmvn_Native_keep(JNIEnv *env, jclass cls, jobject o)
{
    (void)cls;
    kept = (*env)->NewGlobalRef(env, o); /* KEEP */
}
'''

NATIVE_JAVA = '''package pwmvn;

public final class Native {
    static {
        System.load(System.getProperty("pw.lib"));
    }

    private Native() {
    }

    public static native int sum(int[] a);

    public static native int sumLeaky(int[] a);

    public static native void keep(Object o);
}
'''

# The user's own flags, when a case sets pw.expect.*: arriving through
# argLine, they prove that argLine reached the JVM next to the agent.
PIN_TEST = '''package pwmvn;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PinTest {
    @Test
    void sums() {
        for (int i = 0; i < Integer.getInteger("pw.sums"); i++)
            assertEquals(15, Native.sum(new int[] {1, 2, 3, 4, 5}));
        for (int i = 0; i < Integer.getInteger("pw.leaks"); i++)
            assertEquals(5, Native.sumLeaky(new int[] {1, 1, 1, 1, 1}));
    }

    @Test
    void usersFlags() {
        for (String flag : new String[] {"pw.user", "pw.late"}) {
            String expected = System.getProperty("pw.expect." + flag.substring(3));
            if (expected != null && !expected.isEmpty())
                assertEquals(expected, System.getProperty(flag), flag);
        }
    }
}
'''

REF_TEST = '''package pwmvn;

import org.junit.jupiter.api.Test;

class RefTest {
    @Test
    void keeps() {
        for (int i = 0; i < Integer.getInteger("pw.keeps"); i++)
            Native.keep(new Object());
    }
}
'''

POM = '''<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>pwmvn</artifactId>
  <version>1.0</version>
  <properties>
    <maven.compiler.release>11</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <leaks>0</leaks>
    <keeps>0</keeps>
@PROPERTIES@  </properties>
  <dependencies>
    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <version>@JUNIT@</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <artifactId>maven-compiler-plugin</artifactId>
        <version>3.13.0</version>
      </plugin>
      <plugin>
        <artifactId>maven-surefire-plugin</artifactId>
        <version>3.5.2</version>
        <configuration>
          <reuseForks>false</reuseForks>
          <systemPropertyVariables>
            <pw.lib>@LIB@</pw.lib>
            <pw.sums>@SUMS@</pw.sums>
            <pw.leaks>${leaks}</pw.leaks>
            <pw.keeps>${keeps}</pw.keeps>
            <pw.expect.user>@EXPECT_USER@</pw.expect.user>
            <pw.expect.late>@EXPECT_LATE@</pw.expect.late>
          </systemPropertyVariables>
@SUREFIRE@        </configuration>
      </plugin>
      <!-- What a user adds: -->
      <plugin>
        <groupId>io.pinwatch</groupId>
        <artifactId>pinwatch-maven-plugin</artifactId>
        <version>@VERSION@</version>
        <executions>
          <execution>
            <goals>
              <goal>prepare-agent</goal>
              <goal>check</goal>
            </goals>
          </execution>
        </executions>
@PINWATCH@      </plugin>
    </plugins>
  </build>
</project>
'''

def no_report_message(directory):
    """check's failure when no JVM wrote a report (CheckMojo.noReport)."""
    return ('pinwatch: no JVM wrote a report into %s, so the tests ran without the agent.\n'
            'prepare-agent put the agent into the property argLine, but the tests\' JVMs did not get it: the pom '
            'probably overwrites argLine by giving Surefire (or Failsafe) an <argLine> of its own. Keep the agent '
            'by starting that value with @{argLine}, which Surefire replaces when it forks:\n'
            '    <argLine>@{argLine} -Xmx1g</argLine>\n'
            'or give your flags to the property instead (prepare-agent keeps them after the agent):\n'
            '    <properties><argLine>-Xmx1g</argLine></properties>\n'
            '(Tests that Surefire runs in Maven\'s own JVM, with forkCount 0, never get the agent.)' % directory)


def failure_message(log):
    """The message of the goal that failed the build, as Maven prints it (its first line after the project)."""
    m = re.search(r'^\[ERROR\] Failed to execute goal io\.pinwatch:pinwatch-maven-plugin:[^ ]+:check \(default\) '
                  r'on project pwmvn: (.*?)\n\[ERROR\] -> \[Help 1\]$', log, re.M | re.S)
    # Maven prefixes the message's later lines with "[ERROR] " too.
    return re.sub(r'^\[ERROR\] ', '', m.group(1), flags=re.M) if m else None


LAST_LOG = ['']  # the last mvn run's output, printed when a case fails


class Project:
    def __init__(self, a, tmp, properties='', surefire='', pinwatch='', expect_user='', expect_late=''):
        self.a = a
        self.dir = os.path.join(tmp, 'pwmvn')
        self.reports = os.path.join(self.dir, 'target', 'pinwatch')
        java = os.path.join(self.dir, 'src', 'main', 'java', 'pwmvn')
        tests = os.path.join(self.dir, 'src', 'test', 'java', 'pwmvn')
        os.makedirs(java)
        os.makedirs(tests)
        self.c_file = os.path.join(tmp, 'pwmvn.c')
        lib = os.path.join(tmp, 'libpwmvn.so')
        for path, text in ((self.c_file, C_SOURCE), (os.path.join(java, 'Native.java'), NATIVE_JAVA),
                           (os.path.join(tests, 'PinTest.java'), PIN_TEST),
                           (os.path.join(tests, 'RefTest.java'), REF_TEST)):
            with open(path, 'w', encoding='utf-8') as f:
                f.write(text)
        inc = os.path.join(a.jdk_home, 'include')
        # -O0: each JNI call is a call, so the sites are the marked lines.
        subprocess.run(['cc', '-shared', '-fPIC', '-O0', '-g', '-I' + inc, '-I' + os.path.join(inc, 'linux'),
                        '-o', lib, self.c_file], check=True)
        pom = POM
        for key, value in (('@PROPERTIES@', properties), ('@SUREFIRE@', surefire), ('@PINWATCH@', pinwatch),
                           ('@JUNIT@', JUNIT), ('@LIB@', lib), ('@SUMS@', str(SUMS)), ('@VERSION@', a.version),
                           ('@EXPECT_USER@', expect_user), ('@EXPECT_LATE@', expect_late)):
            pom = pom.replace(key, value)
        with open(os.path.join(self.dir, 'pom.xml'), 'w', encoding='utf-8') as f:
            f.write(pom)
        self.settings = write_settings(os.path.join(tmp, 'settings.xml'), a.central)

    def mvn(self, env, *args):
        cmd = ['mvn', '-B', '-s', self.settings, '-Dmaven.repo.local=' + self.a.repo] + list(args)
        p = subprocess.run(cmd, cwd=self.dir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=540)
        LAST_LOG[0] = p.stdout
        return p.returncode, p.stdout

    def line(self, marker):
        return source_line(self.c_file, '/* %s */' % marker)

    def jvms(self):
        """{test class: its JVM's exit report} from target/pinwatch, every report checked."""
        files = sorted(glob.glob(os.path.join(self.reports, 'pinwatch-*.json')))
        out = {}
        for path in files:
            dump = exit_dump(read_dumps(path))
            check_invariants(dump, at_exit=True)
            # Which test class the JVM ran: the native method it called.
            methods = {r['method'] for r in dump['rows']} | {r['method'] for r in dump['references']['rows']}
            cls = 'PinTest' if 'pwmvn.Native.sum' in methods else 'RefTest'
            expect(cls not in out, 'two JVMs ran %s: %s', cls, files)
            out[cls] = dump
        expect(sorted(out) == ['PinTest', 'RefTest'],
               'expected the exit reports of two JVMs, PinTest\'s and RefTest\'s, got %s in %s', sorted(out), files)
        logs = sorted(glob.glob(os.path.join(self.reports, 'pinwatch-*.log')))
        print('%s: %d JVMs\' reports (%s), logs %s' % (self.reports, len(files),
                                                     ', '.join(os.path.basename(f) for f in files),
                                                     ', '.join('%s %d bytes' % (os.path.basename(l),
                                                                                os.path.getsize(l)) for l in logs)))
        return out

    def check_counts(self, leaks, keeps):
        """The exit reports' exact counts: SUMS balanced pins, `leaks` leaked, `keeps` live globals."""
        jvms = self.jvms()
        pins = jvms['PinTest']
        expect_row(pins, 'pwmvn.Native.sum', 'GetIntArrayElements', signature='([I)I',
                   acquired=SUMS, released=SUMS, live=0, leaked=0)
        if leaks:
            row = expect_row(pins, 'pwmvn.Native.sumLeaky', 'GetIntArrayElements', signature='([I)I',
                             acquired=leaks, released=0, live=leaks, leaked=leaks, live_bytes=leaks * 20)
            frame = row['sites'][0]['frames'][0]
            expect((frame.get('symbol'), frame.get('line')) == ('Java_pwmvn_Native_sumLeaky', self.line('LEAK')),
                   'the leak\'s site is %s, expected Java_pwmvn_Native_sumLeaky at line %d', frame, self.line('LEAK'))
        else:
            expect(not [r for r in pins['rows'] if r['method'] == 'pwmvn.Native.sumLeaky'],
                   'sumLeaky has a row, though the test never called it')
        expect(pins['totals']['leaked'] == leaks, 'PinTest\'s JVM: %d leaked pins, expected %d',
               pins['totals']['leaked'], leaks)
        refs = jvms['RefTest']
        kept = [r for r in refs['references']['rows'] if r['method'] == 'pwmvn.Native.keep']
        expect(not keeps and not kept or len(kept) == 1 and kept[0]['kind'] == 'global' and kept[0]['function'] == 'NewGlobalRef'
               and kept[0]['created'] == keeps and kept[0]['live'] == keeps,
               'RefTest\'s JVM: expected one row of %d live globals made by NewGlobalRef in Native.keep, got %s',
               keeps, kept)
        expect(not [r for r in refs['rows'] if r['method'].startswith('pwmvn.')],
               'RefTest\'s JVM has pin rows of pwmvn: %s', [r for r in refs['rows'] if r['method'].startswith('pwmvn.')])
        print('PinTest JVM: Native.sum %d acquired/%d released, Native.sumLeaky %d leaked; '
              'RefTest JVM: Native.keep %d live globals' % (SUMS, SUMS, leaks, keeps))
        return jvms


def leak_table(project):
    """check's message for LEAKS leaked pins and KEEPS globals over maxLiveReferences 1, the offsets any."""
    return re.compile(re.escape(
        'pinwatch: %d leaked JNI pins (maxLeakedPins 0) at the exit of the tests\' JVMs, in 1 native method:\n'
        '    LEAKED      BYTES  FUNCTION                   NATIVE METHOD\n'
        '         %d         %d  GetIntArrayElements        pwmvn.Native.sumLeaky([I)I\n'
        '         %d         %d  at Java_pwmvn_Native_sumLeaky+0x@ (libpwmvn.so) pwmvn.c:%d\n'
        'pinwatch: %d live JNI references (maxLiveReferences 1) at the exit of the tests\' JVMs, in 1 native method:\n'
        '      LIVE KIND    FUNCTION                   NATIVE METHOD\n'
        '         %d global  NewGlobalRef               pwmvn.Native.keep(Ljava/lang/Object;)V\n'
        '         %d         at Java_pwmvn_Native_keep+0x@ (libpwmvn.so) pwmvn.c:%d\n'
        'the reports of 2 JVMs read from %s: %d leaked JNI pins (limit 0), %d live JNI references (limit 1)'
        % (LEAKS, LEAKS, LEAKS * 20, LEAKS, LEAKS * 20, project.line('LEAK'), KEEPS, KEEPS, KEEPS,
           project.line('KEEP'), project.reports, LEAKS, KEEPS)).replace('@', '[0-9a-f]+') + r'\Z')


def summary(project, leaks, pin_limit, keeps, ref_limit):
    return ('[INFO] pinwatch: the reports of 2 JVMs read from %s: %d leaked JNI pin%s (limit %d), '
            '%d live JNI reference%s (limit %s)' % (project.reports, leaks, '' if leaks == 1 else 's', pin_limit,
                                                    keeps, '' if keeps == 1 else 's', ref_limit))


def quiet_console(log):
    """Nothing of the agent's in Maven's output: no [pinwatch] log line, no table, no message of
    pinwatch's but the plugin's two lines (argLine, the summary)."""
    loud = [l for l in log.splitlines()
            if ('[pinwatch]' in l or 'LEAKED' in l or 'NATIVE METHOD' in l or 'pinwatch:' in l)
            and not l.startswith('[INFO] pinwatch: argLine set to ')
            and not l.startswith('[INFO] pinwatch: the reports of ')]
    expect(not loud, 'pinwatch lines in the console:\n%s', '\n'.join(loud))


def surefire_summary(log, tests, failures=0):
    want = 'Tests run: %d, Failures: %d, Errors: 0, Skipped: 0' % (tests, failures)
    expect(('[INFO] ' if not failures else '[ERROR] ') + want in log.splitlines()
           or '[WARNING] ' + want in log.splitlines(),
           'Surefire\'s summary is not "%s"', want)


def run(a, env, tmp):
    if a.case == 'plugin':
        p = Project(a, tmp)
        # An earlier build's report, with a leak: prepare-agent deletes it, or check reads it as this build's.
        os.makedirs(p.reports, mode=0o700)
        with open(os.path.join(p.reports, 'pinwatch-1.json'), 'w', encoding='utf-8') as f:
            f.write(json.dumps({'tool': 'pinwatch', 'pid': 1, 'reason': 'exit', 'totals': {'leaked': 1},
                                'rows': [{'method': 'stale.Earlier.build', 'signature': '()V',
                                          'function': 'GetIntArrayElements', 'leaked': 1, 'live': 1,
                                          'live_bytes': 4, 'suppressed': 0, 'sites': []}]}) + '\n')
        rc, log = p.mvn(env, 'verify', '-Dkeeps=%d' % KEEPS)
        expect(rc == 0, 'mvn verify exited %d', rc)
        surefire_summary(log, 3)
        p.check_counts(0, KEEPS)
        expect(summary(p, 0, 0, KEEPS, 'none') in log.splitlines(), 'no line %r', summary(p, 0, 0, KEEPS, 'none'))
        m = re.search(r'^\[INFO\] pinwatch: argLine set to (-agentpath:([^=\s]+)=\S+)$', log, re.M)
        expect(m is not None, 'prepare-agent printed no argLine')
        expect(m.group(2).startswith(p.reports + '/') and os.path.isfile(m.group(2)),
               'the agent %s is not a file under %s', m.group(2), p.reports)
        quiet_console(log)
        print('argLine: ' + m.group(1))
    elif a.case == 'own-argline':
        # The user's property and Surefire's own argLine, both with a flag the test asserts.
        p = Project(a, tmp, properties='    <argLine>-Dpw.user=from-property</argLine>\n',
                    surefire='          <argLine>@{argLine} -Dpw.late=from-surefire</argLine>\n',
                    expect_user='from-property', expect_late='from-surefire')
        rc, log = p.mvn(env, 'verify', '-Dkeeps=%d' % KEEPS)
        expect(rc == 0, 'mvn verify exited %d (the tests assert -Dpw.user and -Dpw.late)', rc)
        surefire_summary(log, 3)
        p.check_counts(0, KEEPS)
        m = re.search(r'^\[INFO\] pinwatch: argLine set to (-agentpath:\S+ -Dpw\.user=from-property)$', log, re.M)
        expect(m is not None, 'prepare-agent did not keep the pom\'s argLine after the agent')
        quiet_console(log)
        print('argLine: %s; the tests saw pw.user=from-property and pw.late=from-surefire' % m.group(1))
    elif a.case == 'leak':
        p = Project(a, tmp)
        rc, log = p.mvn(env, 'verify', '-Dleaks=%d' % LEAKS, '-Dkeeps=%d' % KEEPS, '-Dpinwatch.maxLiveReferences=1')
        expect(rc == 1, 'mvn verify exited %d, expected 1 (check fails the build)', rc)
        surefire_summary(log, 3)
        p.check_counts(LEAKS, KEEPS)
        msg = failure_message(log)
        expect(msg is not None and leak_table(p).match(msg),
               'check\'s message: expected\n%s\ngot\n%s', leak_table(p).pattern, msg)
        print('check failed the build (exit 1) with:\n' + msg)
    elif a.case == 'overwritten':
        p = Project(a, tmp, surefire='          <argLine>-Dpw.user=from-surefire</argLine>\n',
                    expect_user='from-surefire')
        rc, log = p.mvn(env, 'verify', '-Dleaks=%d' % LEAKS)
        expect(rc == 1, 'mvn verify exited %d, expected 1 (check fails: no report)', rc)
        surefire_summary(log, 3)
        expect(not glob.glob(os.path.join(p.reports, 'pinwatch-*')), 'reports were written: %s',
               glob.glob(os.path.join(p.reports, 'pinwatch-*')))
        msg = failure_message(log)
        expect(msg == no_report_message(p.reports), 'check\'s message: expected\n%s\ngot\n%s',
               no_report_message(p.reports), msg)
        print('check failed the build (exit 1) with:\n' + msg)
        # With the tests skipped there is nothing to report, and check says so instead of failing.
        rc, log = p.mvn(env, 'verify', '-DskipTests')
        skipped = '[INFO] pinwatch: tests skipped (skipTests), nothing to check'
        expect(rc == 0 and skipped in log.splitlines(), 'mvn verify -DskipTests: exit %d, line %r %s', rc, skipped,
               'present' if skipped in log.splitlines() else 'absent')
        print('mvn verify -DskipTests: exit 0, ' + skipped)
    else:
        p = Project(a, tmp, pinwatch='        <configuration>\n          <maxLeakedPins>%d</maxLeakedPins>\n'
                                     '        </configuration>\n' % LEAKS)
        rc, log = p.mvn(env, 'verify', '-Dleaks=%d' % LEAKS)
        expect(rc == 0, 'mvn verify exited %d, though maxLeakedPins is %d', rc, LEAKS)
        surefire_summary(log, 3)
        p.check_counts(LEAKS, 0)
        expect(summary(p, LEAKS, LEAKS, 0, 'none') in log.splitlines(), 'no line %r',
               summary(p, LEAKS, LEAKS, 0, 'none'))
        quiet_console(log)
        print(summary(p, LEAKS, LEAKS, 0, 'none'))


def main():
    if sys.argv[1:] == ['--list']:
        for name, timeout in CASES.items():
            print(name, timeout)
        return 0
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('case', choices=sorted(CASES))
    for opt in ('--jdk-name', '--jdk-home', '--central', '--repo', '--version'):
        p.add_argument(opt, required=True)
    a = p.parse_args()
    if not os.access(os.path.join(a.jdk_home, 'bin', 'java'), os.X_OK):
        print('SKIP: JDK %s absent%s: not run' % (a.jdk_name, ' at ' + a.jdk_home if a.jdk_home else ''))
        return SKIP
    for tool, package in (('mvn', 'maven'), ('cc', 'gcc')):
        if shutil.which(tool) is None:
            print('SKIP: %s (Debian package %s) not installed' % (tool, package))
            return SKIP
    plugin = os.path.join(a.central, 'io', 'pinwatch', 'pinwatch-maven-plugin', a.version)
    if not os.path.isdir(plugin):
        print('FAIL: %s: the build deployed no pinwatch-maven-plugin %s' % (plugin, a.version))
        return 1
    env = maven_env(a.jdk_home)
    forget_pinwatch(a.repo)
    tmp = tempfile.mkdtemp(prefix='pw-mvnplugin-%s-%s-' % (a.case, a.jdk_name))
    try:
        run(a, env, tmp)
    except (TestFailure, subprocess.TimeoutExpired, subprocess.CalledProcessError) as e:
        print('FAIL: %s on %s: %s' % (a.case, a.jdk_name, e))
        log = LAST_LOG[0]
        print('\n--- mvn output (tail) ---\n' + '\n'.join([l for l in log.splitlines() if 'Download' not in l][-80:]))
        print('\nproject kept in ' + tmp)
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    print('PASS: %s on %s' % (a.case, a.jdk_name))
    return 0


if __name__ == '__main__':
    sys.exit(main())
