#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Builds pinwatch-junit.jar: fetches the JUnit Jupiter API with mvn from
Maven Central into a local repository beside the build directory (once;
offline after that), then compiles the extension with the JDK's javac and
packs it with jar.

    build_jar.py --mvn MVN --repo DIR --javac JAVAC --jar JAR --api-jar API.jar
                 --out OUT.jar --src DIR SOURCE...
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

JUNIT = 'org.junit.jupiter:junit-jupiter-api:5.14.1'
# What the API's class files name: its own jar, the annotations it carries,
# and the exceptions it throws.
JARS = ['org/junit/jupiter/junit-jupiter-api/5.14.1/junit-jupiter-api-5.14.1.jar',
        'org/apiguardian/apiguardian-api/*/apiguardian-api-*.jar',
        'org/opentest4j/opentest4j/*/opentest4j-*.jar',
        'org/junit/platform/junit-platform-commons/*/junit-platform-commons-*.jar']


def classpath(repo):
    found = []
    for pattern in JARS:
        hits = sorted(glob.glob(os.path.join(repo, pattern)))
        if not hits:
            return None
        found.append(hits[-1])
    return found


def main():
    p = argparse.ArgumentParser()
    for opt in ('--mvn', '--repo', '--javac', '--jar', '--api-jar', '--out', '--src'):
        p.add_argument(opt, required=True)
    p.add_argument('sources', nargs='+')
    a = p.parse_args()
    cp = classpath(a.repo)
    if cp is None:
        cmd = [a.mvn, '-B', '-q', '-Dmaven.repo.local=' + a.repo,
               'dependency:get', '-Dartifact=' + JUNIT]
        print('fetching %s into %s' % (JUNIT, a.repo), flush=True)
        if subprocess.run(cmd).returncode != 0:
            print('mvn could not fetch %s (Maven Central unreachable?)' % JUNIT, file=sys.stderr)
            return 1
        cp = classpath(a.repo)
        if cp is None:
            print('%s fetched, but its jars are not in %s' % (JUNIT, a.repo), file=sys.stderr)
            return 1
    with tempfile.TemporaryDirectory() as classes:
        rc = subprocess.run([a.javac, '--release', '11', '-Xlint:all', '-Xdoclint:all/protected', '-Werror',
                             '-cp', os.pathsep.join([a.api_jar] + cp), '-d', classes] + a.sources).returncode
        if rc != 0:
            return rc
        shutil.copytree(os.path.join(a.src, 'META-INF'), os.path.join(classes, 'META-INF'))
        return subprocess.run([a.jar, 'cf', a.out, '-C', classes, '.']).returncode


if __name__ == '__main__':
    sys.exit(main())
