#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The JUnit 5 extension in a real Maven build: examples/junit's `mvn -B test`
on one JDK, with pinwatch's artifacts taken by their coordinates from this
build's stand-in for Maven Central (tests/jvm/meson.build's junit block).

    junit.py CASE --jdk-name jdk17 --jdk-home DIR --central BUILD/maven-central
             --repo BUILD-m2 --native-dir BUILD/examples --project examples/junit
             --version 0.1.0 --readme README.md

Maven runs as a user's would, on the JDK under test: a settings file adds
--central as a repository and plugin repository (Maven Central's role), and
the local repository --repo loses io/pinwatch first, so the artifacts are this
build's.  The project is copied to DIR/examples/junit beside DIR/build/examples
(a link to --native-dir), so that the pom's default java.library.path
(../../build/examples) is what finds libchecksum.so: no -D of the pom's.

CASE maven: the example as it is (pinwatch-maven-plugin's prepare-agent, the
pinwatch-junit dependency).  The default run fails exactly the two leaking
tests of ChecksumTest, with pinwatch's table naming method, function, count,
bytes and call site, and passes the fixed one and the one whose background
call still holds its pin; in ConfigTest, the auto-detected extension fails the
unannotated leak, ignore=, pinLimit= and pins=false pass theirs, and
references=true with referenceLimit=1 fails two new global references.
In TemplateTest, one invocation of a @ParameterizedTest and of a
@RepeatedTest, and one dynamic test of a @TestFactory, leak: exactly those
fail, named as JUnit names them (index and display name), and the factory
passes.  In JdkFirstUseTest (references = true) the JDK's first uses of
networking, zip, file systems, headless AWT and sun.nio.ch pass, though the
JDK's natives kept references meanwhile, and the library's global, made by
a tail call, fails with its call site named "+0x0 ... (tail call)".  The
extension loads nothing (the agent came with the argLine).
CASE maven-selfload: the pom without the plugin (only the dependency, no
argLine of pinwatch's): the extension loads the agent itself, says so in one
line, and every assertion of `maven` holds, exact counts and tables; its
reports go to target/pinwatch/junit-PID.txt, not to the console; on JDK 24+
pinwatch-agent's native-access line appears once.
CASE maven-reports: JdkFirstUseTest alone, a report asked for before and
after it: in the text report the library's global is the one suspect and
every other growing row is counted as the JDK's own; in the JSON the
global's site is its native method with "tail_call": true, and "jdk": true
marks exactly the live sites under java.home/lib.
CASE maven-noagent: no plugin, and an extraction directory the agent refuses
(writable by others): every checked test fails with the extension's message
saying why and naming pinwatch.junit.notLoaded=skip.
CASE maven-skip: the same with -Dpinwatch.junit.notLoaded=skip: every test
runs and passes, unchecked, and one line says so.
CASE maven-readme: a new project whose pom is README's two fragments as
printed ("With Maven": the plugin block, then the dependency alone), with
examples/junit's sources and its library in native/: ChecksumTest fails
exactly its two leaks with the exact tables either way, the agent comes from
the plugin, then from the extension, and `mvn verify` (test failures
ignored) runs check, which fails the plugin route on the 2 leaked pins.
CASE maven-parallel: under JUnit's parallel execution, two overlapping
checked tests are both refused with the extension's message.
Exit status 0 pass, 1 fail, 77 skip (JDK or mvn missing).
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
import xml.etree.ElementTree as ET

from harness import Case
from maven_central import forget_pinwatch, maven_env, write_settings

SKIP = 77
CONCURRENT = ('pinwatch cannot tell which of two tests running at once leaked a pin: ParallelTest.%s() ran '
              'concurrently with another test checked by pinwatch (JUnit parallel execution). Run tests '
              'checked by pinwatch with @Execution(ExecutionMode.SAME_THREAD) or @ResourceLock("pinwatch"), '
              'or set junit.jupiter.execution.parallel.enabled=false')


# The extension's failure when it cannot load the agent (SelfLoad.failure): the
# reason, AgentLibrary's one line, between these.
NOT_LOADED_HEAD = 'pinwatch is not loaded in this JVM and the JUnit extension could not load it: '
NOT_LOADED_TAIL = ('. Load it with pinwatch-maven-plugin\'s prepare-agent, -javaagent:pinwatch-agent.jar or '
                   '-agentpath:/path/to/libpinwatch.so, or set pinwatch.junit.notLoaded=skip to run the tests '
                   'unchecked')
LOADED_LINE = re.compile(r'^pinwatch: the JUnit extension loaded the agent (/\S+/libpinwatch\.so) into this JVM: '
                         r'pins and references taken before this moment are not counted; reports go to '
                         r'(\S+/target/pinwatch/junit-%p\.txt)$', re.M)
SKIP_LINE = re.compile(r'^pinwatch: not loaded \((.+)\); pinwatch\.junit\.notLoaded=skip: the tests run, their '
                       r'JNI pins and references are not checked$', re.M)


class Failure(Exception):
    pass


def expect(cond, msg, *args):
    if not cond:
        raise Failure(msg % args if args else msg)


def mvn(a, env, cwd, *args):
    """mvn as a user runs it, but for the local repository and the settings
    that stand for ~/.m2 and Maven Central (a.settings, written by main)."""
    cmd = ['mvn', '-B', '-s', a.settings, '-Dmaven.repo.local=' + a.repo] + list(args)
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


def template_message(test, pins, nbytes, line):
    """A template invocation's or dynamic test's failure: leak_message's table, the name JUnit's."""
    return re.compile(leak_message('@', pins, nbytes, line).pattern.replace(r'@\(\)', re.escape(test)))


def keep_global_message(line):
    """JdkFirstUseTest.libraryKeepsGlobal's failure: one global, made by a tail call."""
    return ('pinwatch: JdkFirstUseTest.libraryKeepsGlobal() returned with 1 more live JNI reference (limit 0)\n'
            '     +LIVE KIND    FUNCTION                   NATIVE METHOD\n'
            '         1 global  NewGlobalRef               '
            'com.example.Checksum.keepGlobal(Ljava/lang/Object;)Ljava/lang/Object;\n'
            '         1         at Java_com_example_Checksum_keepGlobal+0x0 (libchecksum.so) checksum.c:%d (tail call)'
            % line)


def system_out(project, cls):
    """{test name: its system-out} from Surefire's XML report."""
    path = os.path.join(project, 'target', 'surefire-reports', 'TEST-com.example.%s.xml' % cls)
    return {c.get('name'): ''.join(o.text or '' for o in c.iter('system-out'))
            for c in ET.parse(path).getroot().iter('testcase')}


JDK_FIRST_USES = ['networking', 'zip', 'fileSystems', 'awtHeadless', 'nioChannels']


def check_jdk_first_use(a, project):
    """JdkFirstUseTest: the JDK's first uses pass; the library's tail-called global fails."""
    got = results(project, 'JdkFirstUseTest')
    expect(sorted(got) == sorted(JDK_FIRST_USES + ['libraryKeepsGlobal']), 'JdkFirstUseTest ran: %s', sorted(got))
    for test in JDK_FIRST_USES:
        expect(got[test] is None, 'JdkFirstUseTest.%s failed for the JDK\'s own references: %s', test, got[test])
    line = get_line(os.path.join(a.project, 'src/main/c/checksum.c'), 'Checksum_keepGlobal', 'NewGlobalRef')
    expect(got['libraryKeepsGlobal'] == keep_global_message(line),
           'JdkFirstUseTest.libraryKeepsGlobal: expected\n%s\ngot\n%s', keep_global_message(line),
           got['libraryKeepsGlobal'])
    # What the JDK's code kept during each first use, as the test printed it.
    out = system_out(project, 'JdkFirstUseTest')
    made = {}
    for test in JDK_FIRST_USES:
        m = re.search(r'^JDK-REFS %s (-?\d+)$' % test, out[test], re.M)
        expect(m is not None, 'JdkFirstUseTest.%s printed no JDK-REFS line: %r', test, out[test])
        made[test] = int(m.group(1))
    print('live references the JDK\'s own code made during each first use: %s'
          % ', '.join('%s %d' % (t, made[t]) for t in JDK_FIRST_USES))
    # Networking's first use (libnet.so's init methods) and AWT's (fonts, graphics)
    # keep references on every JDK: the rule was at work, not idle.
    for test in ('networking', 'awtHeadless'):
        expect(made[test] > 0, 'JdkFirstUseTest.%s: the JDK kept no reference, so the test proves nothing', test)


def text_reports(path):
    """[(reason, text)] of a format=text file."""
    with open(path, encoding='utf-8') as f:
        blocks = re.split(r'^(?=pinwatch: )', f.read(), flags=re.M)
    return [(re.search(r'\(reason: ([^,]+),', b).group(1), b) for b in blocks if b.startswith('pinwatch: ')]


def check_reports(a, env, project):
    """JdkFirstUseTest alone, with a report before and after it, in text then in JSON:
    the pom without the plugin, the options given to the self-loaded agent by
    pinwatch.options (Surefire hands mvn's -D properties to the forked JVM)."""
    line = get_line(os.path.join(a.project, 'src/main/c/checksum.c'), 'Checksum_keepGlobal', 'NewGlobalRef')
    log = ''
    for fmt in ('text', 'json'):
        out = os.path.join(project, 'report-%s' % fmt)
        rc, log = mvn(a, env, project, 'test', '-Dtest=JdkFirstUseTest', '-Dpinwatch.dumps=true',
                      '-Dpinwatch.options=file=%s-%%p,format=%s' % (out, fmt))
        expect(rc != 0 and 'Tests run: 6, Failures: 1, Errors: 0, Skipped: 0' in log,
               'mvn test -Dtest=JdkFirstUseTest (%s): exit %d, the summary is not "Tests run: 6, Failures: 1"',
               fmt, rc)
        check_jdk_first_use(a, project)
        files = glob.glob(out + '-*')
        expect(len(files) == 1, 'expected one report file %s-PID, found %s', out, files)
        if fmt == 'text':
            reports = dict(text_reports(files[0]))
            after = reports.get('after JdkFirstUseTest')
            expect(after is not None, 'no report "after JdkFirstUseTest" in %s: %s', files[0], sorted(reports))
            block = after[after.index('  references:'):]
            suspects = re.findall(r'^ +\d+ +\d+ +\d+ +\S+ +\d+ +([+-]\d+) +(\w+) +(\S+) +(\S+)$', block, re.M)
            expect(suspects == [('+1', 'global', 'NewGlobalRef',
                                 'com.example.Checksum.keepGlobal(Ljava/lang/Object;)Ljava/lang/Object;')],
                   'the text report\'s suspects should be keepGlobal\'s global alone, got %s:\n%s', suspects, block)
            site = ('           1  at Java_com_example_Checksum_keepGlobal+0x0 (libchecksum.so) checksum.c:%d '
                    '(tail call)' % line)
            expect(site in block.splitlines(), 'the suspect\'s site is not %r:\n%s', site, block)
            quiet = re.search(r"^    not suspects: (\d+) rows? holding \d+ live references?, (\d+) of them the "
                              r"JDK's own, none growing since the previous report", block, re.M)
            expect(quiet is not None and quiet.group(1) == quiet.group(2),
                   'every other row holding references should be the JDK\'s own:\n%s', block)
            print('text report after JdkFirstUseTest: 1 suspect; not suspects: %s rows, all the JDK\'s own'
                  % quiet.group(1))
        else:
            with open(files[0], encoding='utf-8') as f:
                dumps = [json.loads(l) for l in f if l.strip()]
            after = [d for d in dumps if d.get('reason') == 'after JdkFirstUseTest']
            expect(len(after) == 1, 'no JSON report "after JdkFirstUseTest": %s', [d.get('reason') for d in dumps])
            rows = after[0]['references']['rows']
            mine = [r for r in rows if r['method'] == 'com.example.Checksum.keepGlobal']
            expect(len(mine) == 1 and mine[0]['live'] == 1 and len(mine[0]['sites']) == 1,
                   'keepGlobal: expected one row of 1 live reference, got %s', mine)
            frame = mine[0]['sites'][0]['frames'][0]
            expect(frame.get('symbol') == 'Java_com_example_Checksum_keepGlobal' and frame.get('offset') == 0
                   and frame.get('tail_call') is True and frame.get('line') == line
                   and 'jdk' not in mine[0]['sites'][0],
                   'keepGlobal\'s site: expected its native method, offset 0, line %d, "tail_call": true and no '
                   '"jdk", got %s', line, mine[0]['sites'][0])
            lib = os.path.realpath(os.path.join(a.jdk_home, 'lib')) + os.sep
            jdk = 0
            for r in rows:
                for s in r['sites']:
                    if s['live'] > 0:
                        where = os.path.realpath((s['frames'] or [{}])[0].get('library') or '/')
                        expect(bool(s.get('jdk')) == where.startswith(lib), '%s %s: "jdk" is %s for a site in %s',
                               r['method'], r['function'], s.get('jdk'), where)
                        jdk += bool(s.get('jdk'))
            net = [r for r in rows if r['method'].startswith('java.net.') and r['live'] > 0]
            expect(net and all(s.get('jdk') for r in net for s in r['sites'] if s['live'] > 0),
                   'the JDK\'s networking rows are missing or not marked "jdk": %s',
                   [(r['method'], r['live']) for r in net])
            print('JSON after JdkFirstUseTest: keepGlobal tail_call at checksum.c:%d; %d live sites marked jdk, '
                  'among them %s' % (line, jdk, ', '.join(sorted(r['method'] for r in net))))
    return log


def check_maven(a, project, log):
    """Every test class of the default run: exact failures, tables and passes."""
    expect('Tests run: 24, Failures: 8, Errors: 0, Skipped: 0' in log,
           'Surefire\'s summary is not "Tests run: 24, Failures: 8, Errors: 0, Skipped: 0"')
    got = results(project, 'ChecksumTest')
    expect(sorted(got) == ['backgroundCallStillHolding', 'fixedSum', 'leakyOnAnotherThread', 'leakySum'],
           'tests run: %s', sorted(got))
    expect(got['fixedSum'] is None, 'fixedSum failed: %s', got['fixedSum'])
    expect(got['backgroundCallStillHolding'] is None,
           'a background call\'s held pin failed the test: %s', got['backgroundCallStillHolding'])
    line = get_line(os.path.join(a.project, 'src/main/c/checksum.c'), 'Checksum_sumLeaky', 'GetLongArrayElements')
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
    ref_line = get_line(os.path.join(a.project, 'src/main/c/checksum.c'), 'Checksum_remember', 'NewGlobalRef')
    head = re.match(r'\Apinwatch: ConfigTest\.references\(\) returned with (\d+) more live JNI '
                    r'references \(limit 1\)\n     \+LIVE KIND    FUNCTION                   NATIVE METHOD\n', msg)
    expect(head is not None and int(head.group(1)) >= 2,
           'ConfigTest.references: not pinwatch\'s reference table:\n%s', msg)
    expect(re.search(r'^ +2 global  NewGlobalRef               com\.example\.Checksum\.remember\('
                     r'Ljava/lang/Object;\)V\n +2         at Java_com_example_Checksum_remember\+0x[0-9a-f]+ '
                     r'\(libchecksum\.so\) checksum\.c:%d$' % ref_line, msg, re.M),
           'ConfigTest.references: no row of 2 global references at checksum.c:%d:\n%s', ref_line, msg)
    # One invocation of each template and one dynamic test leak: those alone
    # fail, named as JUnit names them; the factory itself passes.
    template = results(project, 'TemplateTest')
    leaks = {'param(int)[2]': ('TemplateTest.param(int)[2] "[2] 4"', 4),
             'repeated(RepetitionInfo)[3]': ('TemplateTest.repeated(RepetitionInfo)[3] "repetition 3 of 3"', 6),
             'dynamic()[2]': ('TemplateTest.dynamic()[2] "second"', 7)}
    expect(sorted(template) == sorted(['param(int)[%d]' % i for i in (1, 2, 3)]
                                      + ['repeated(RepetitionInfo)[%d]' % i for i in (1, 2, 3)]
                                      + ['dynamic()[%d]' % i for i in (1, 2, 3)]),
           'TemplateTest ran: %s', sorted(template))
    for test, msg in sorted(template.items()):
        if test not in leaks:
            expect(msg is None, 'TemplateTest.%s failed, though it leaked nothing: %s', test, msg)
            continue
        name, longs = leaks[test]
        expect(msg is not None and template_message(name, 1, longs * 8, line).match(msg),
               'TemplateTest.%s: the message is not pinwatch\'s table of 1 leaked pin, %d bytes, '
               'named %s:\n%s', test, longs * 8, name, msg)
    check_jdk_first_use(a, project)


# Every checked test class of the default run and its number of tests.
# TemplateTest: 3 + 3 invocations, and the factory, which fails before it
# makes its dynamic tests when the agent is not loaded.
CLASSES = (('ChecksumTest', 4), ('ConfigTest', 5), ('TemplateTest', 7), ('JdkFirstUseTest', 6))


def without_plugin(project):
    """The project's pom with pinwatch-maven-plugin's block taken out: the
    dependency alone (README's second route)."""
    pom = os.path.join(project, 'pom.xml')
    with open(pom, encoding='utf-8') as f:
        text = f.read()
    plugins = re.findall(r'\n *<plugin>\n.*?</plugin>', text, re.S)
    ours = [p for p in plugins if '<artifactId>pinwatch-maven-plugin</artifactId>' in p]
    expect(len(ours) == 1, 'the example\'s pom has %d pinwatch-maven-plugin blocks, not 1', len(ours))
    text = text.replace(ours[0], '')
    expect('pinwatch-maven-plugin' not in text.split('<build>')[1], 'the plugin is still in the pom')
    with open(pom, 'w', encoding='utf-8') as f:
        f.write(text)


def unusable_dir(tmp):
    """An extraction directory AgentLibrary must refuse: writable by others."""
    d = os.path.join(tmp, 'shared-extract')
    os.mkdir(d)
    os.chmod(d, 0o777)
    return d


def check_not_loaded_console(log, jdk_home):
    """No exit report in the console; on JDK 24+ the native-access line once."""
    expect('(reason: exit' not in log, 'an exit report reached the Maven console')
    from harness import jdk_feature
    access = [l for l in log.splitlines() if '--enable-native-access=ALL-UNNAMED' in l and 'pinwatch' in l]
    if jdk_feature(jdk_home) >= 24:
        expect(len(access) == 1, 'JDK %d: expected pinwatch-agent\'s native-access line once, got %s',
               jdk_feature(jdk_home), access)
        print('native access: %s' % access[0].strip())
    else:
        expect(not access, 'a native-access line on JDK %d: %s', jdk_feature(jdk_home), access)


POM_HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId>
  <artifactId>new-project</artifactId>
  <version>1.0</version>
"""


def readme_fragments(readme):
    """README's two pom fragments of "With Maven": the plugin route's whole, and the
    dependency route's <build> (it takes the first one's properties and dependencies)."""
    with open(readme, encoding='utf-8') as f:
        text = f.read()
    section = text[text.index('### With Maven\n'):]
    section = section[:section.index('\n### ', 1)]
    blocks = re.findall(r'```xml\n(.*?)```', section, re.S)
    expect(len(blocks) == 2, 'README\'s "With Maven" has %d XML blocks, not 2', len(blocks))
    return blocks


def check_checksum_only(a, project, log):
    """ChecksumTest alone: its two leaks fail with their exact tables, the two others pass."""
    expect('Tests run: 4, Failures: 2, Errors: 0, Skipped: 0' in log,
           'Surefire\'s summary is not "Tests run: 4, Failures: 2, Errors: 0, Skipped: 0"')
    got = results(project, 'ChecksumTest')
    line = get_line(os.path.join(a.project, 'src/main/c/checksum.c'), 'Checksum_sumLeaky', 'GetLongArrayElements')
    expect(got['fixedSum'] is None and got['backgroundCallStillHolding'] is None, 'ChecksumTest: %s', got)
    for test, nbytes in (('leakySum', 16 * 8), ('leakyOnAnotherThread', 3 * 8)):
        expect(got[test] is not None and leak_message('ChecksumTest.' + test, 1, nbytes, line).match(got[test]),
               '%s: not pinwatch\'s table of 1 leaked pin, %d bytes:\n%s', test, nbytes, got[test])


def check_readme(a, env, tmp, extract):
    """The README's fragments pasted into a new project, each route in turn."""
    plugin, dependency = readme_fragments(a.readme)
    deps = plugin[:plugin.index('<build>')]
    log = ''
    for route, body in (('plugin', plugin), ('dependency', deps + dependency)):
        project = os.path.join(tmp, 'new-' + route)
        shutil.copytree(os.path.join(a.project, 'src'), os.path.join(project, 'src'))
        os.symlink(os.path.abspath(a.native_dir), os.path.join(project, 'native'))
        with open(os.path.join(project, 'pom.xml'), 'w', encoding='utf-8') as f:
            f.write(POM_HEAD + body + '</project>\n')
        # Past the failed tests to verify, where the plugin route's check runs.
        rc, log = mvn(a, env, project, 'verify', extract, '-Dtest=ChecksumTest', '-Dmaven.test.failure.ignore=true')
        check_checksum_only(a, project, log)
        loaded = LOADED_LINE.findall(log)
        if route == 'plugin':
            expect('pinwatch-maven-plugin:%s:prepare-agent' % a.version in log and not loaded,
                   'plugin route: the agent did not come from prepare-agent (extension loaded: %s)', loaded)
            reports = glob.glob(os.path.join(project, 'target', 'pinwatch', 'pinwatch-*.json'))
            expect(len(reports) == 1, 'plugin route: expected one report in target/pinwatch, found %s', reports)
            check = ('pinwatch: 2 leaked JNI pins (maxLeakedPins 0) at the exit of the tests\' JVMs, '
                     'in 1 native method:')
            expect(rc != 0 and check in log, 'plugin route: check did not fail the build with %r (exit %d)', check, rc)
        else:
            expect(rc == 0, 'dependency route: mvn verify exited %d, with test failures ignored', rc)
            expect(len(loaded) == 1, 'dependency route: the extension\'s "loaded" line %d times', len(loaded))
        print('README\'s %s route: ChecksumTest fails its 2 leaks with their tables' % route)
    return log


# The cases (group `junit` of tests/jvm/cases.py --list), each a branch of main():
# meson's timeout in seconds, and one at a time (they share BUILD_DIR-m2).
CASES = {case: Case(None, 900, serial=True)
         for case in ('maven', 'maven-selfload', 'maven-parallel', 'maven-noagent', 'maven-skip', 'maven-reports',
                      'maven-readme')}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('case', choices=sorted(CASES))
    for opt in ('--jdk-name', '--jdk-home', '--central', '--native-dir', '--project', '--repo', '--version',
                '--readme'):
        p.add_argument(opt, required=True)
    a = p.parse_args()
    if not os.access(os.path.join(a.jdk_home, 'bin', 'java'), os.X_OK):
        print('SKIP: JDK %s absent%s: not run' % (a.jdk_name, ' at ' + a.jdk_home if a.jdk_home else ''))
        return SKIP
    if shutil.which('mvn') is None:
        print('SKIP: mvn (Debian package maven) not installed')
        return SKIP
    env = maven_env(a.jdk_home)
    # Extraction into this case's own directory: the user's cache is not the test's to fill.
    env.pop('XDG_CACHE_HOME', None)
    tmp = tempfile.mkdtemp(prefix='pw-%s-%s-' % (a.case, a.jdk_name))
    os.chmod(tmp, 0o700)
    project = os.path.join(tmp, 'examples', 'junit')
    log = ''
    try:
        shutil.copytree(a.project, project, ignore=shutil.ignore_patterns('target'))
        os.mkdir(os.path.join(tmp, 'build'))
        os.symlink(os.path.abspath(a.native_dir), os.path.join(tmp, 'build', 'examples'))
        with open(os.path.join(project, 'pom.xml'), encoding='utf-8') as f:
            version = re.search(r'<pinwatch\.version>([^<]*)</pinwatch\.version>', f.read()).group(1)
        expect(version == a.version, 'examples/junit/pom.xml takes pinwatch %s; the build is %s (meson.build)',
               version, a.version)
        a.settings = write_settings(os.path.join(tmp, 'settings.xml'), a.central)
        forget_pinwatch(a.repo)
        # The user's cache stands outside the test: AgentLibrary extracts under here.
        extract = '-Dpinwatch.extract.dir=' + os.path.join(tmp, 'extract')
        if a.case == 'maven':
            rc, log = mvn(a, env, project, 'test', extract)
            expect(rc != 0, 'mvn test passed, though two tests leak')
            check_maven(a, project, log)
            expect(not LOADED_LINE.search(log), 'the extension loaded the agent, though prepare-agent had')
        elif a.case == 'maven-selfload':
            without_plugin(project)
            rc, log = mvn(a, env, project, 'test', extract)
            expect(rc != 0, 'mvn test passed, though two tests leak')
            loaded = LOADED_LINE.findall(log)
            expect(len(loaded) == 1, 'expected the extension\'s "loaded the agent" line once, got %d:\n%s',
                   len(loaded), '\n'.join(l for l in log.splitlines() if 'pinwatch' in l))
            lib, reports = loaded[0]
            expect(lib.startswith(os.path.join(tmp, 'extract') + os.sep),
                   'the agent was not extracted under pinwatch.extract.dir: %s', lib)
            check_maven(a, project, log)
            check_not_loaded_console(log, a.jdk_home)
            files = glob.glob(os.path.join(project, 'target', 'pinwatch', 'junit-*.txt'))
            expect(len(files) == 1, 'expected one report file target/pinwatch/junit-PID.txt, found %s', files)
            with open(files[0], encoding='utf-8') as f:
                text = f.read()
            expect('(reason: exit' in text, 'no exit report in %s', files[0])
            print('self-loaded %s; exit report in %s' % (lib, os.path.relpath(files[0], project)))
        elif a.case == 'maven-readme':
            log = check_readme(a, env, tmp, extract)
        elif a.case == 'maven-reports':
            without_plugin(project)
            log = check_reports(a, env, project)
        elif a.case in ('maven-noagent', 'maven-skip'):
            without_plugin(project)
            refused = unusable_dir(tmp)
            args = ['test', '-Dpinwatch.extract.dir=' + refused]
            if a.case == 'maven-skip':
                args.append('-Dpinwatch.junit.notLoaded=skip')
            rc, log = mvn(a, env, project, *args)
            expect(not LOADED_LINE.search(log), 'the extension loaded the agent from %s', refused)
            if a.case == 'maven-skip':
                expect(rc == 0 and 'Tests run: 24, Failures: 0, Errors: 0, Skipped: 0' in log,
                       'mvn test with pinwatch.junit.notLoaded=skip: exit %d, the summary is not '
                       '"Tests run: 24, Failures: 0, Errors: 0, Skipped: 0"', rc)
                said = SKIP_LINE.findall(log)
                expect(len(said) == 1 and refused in said[0],
                       'expected the skip line once, naming %s: %s', refused, said)
                print('skip line: %s' % SKIP_LINE.search(log).group(0))
            else:
                expect(rc != 0, 'mvn test passed without the agent')
                for cls, tests in CLASSES:
                    got = results(project, cls)
                    expect(len(got) == tests, '%s ran %d tests, not %d', cls, len(got), tests)
                    for test, msg in sorted(got.items()):
                        expect(msg is not None and msg.startswith(NOT_LOADED_HEAD) and msg.endswith(NOT_LOADED_TAIL)
                               and refused in msg,
                               '%s.%s without the agent: expected %r...%r naming %s, got %r',
                               cls, test, NOT_LOADED_HEAD, NOT_LOADED_TAIL, refused, msg)
                print('not loaded: %s' % msg)
        else:
            rc, log = mvn(a, env, project, 'test', extract, '-Dgroups=parallel', '-Dpinwatch.excluded=',
                          '-Djunit.parallel=true')
            expect(rc != 0, 'mvn test passed, though two checked tests ran at once')
            got = results(project, 'ParallelTest')
            expect(sorted(got) == ['one', 'two'], 'tests run: %s', sorted(got))
            for test in ('one', 'two'):
                expect(got[test] == CONCURRENT % test, 'ParallelTest.%s: expected the refusal, got %r',
                       test, got[test])
    except (Failure, subprocess.TimeoutExpired, StopIteration, OSError) as e:
        print('FAIL: %s on %s: %s' % (a.case, a.jdk_name, e))
        print('\n--- mvn output (tail) ---\n' + '\n'.join([l for l in log.splitlines() if 'Download' not in l][-80:]))
        print('\nproject kept in ' + project)
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    print('PASS: %s on %s' % (a.case, a.jdk_name))
    return 0


if __name__ == '__main__':
    sys.exit(main())
