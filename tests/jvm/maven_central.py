# SPDX-License-Identifier: Apache-2.0
"""What every Maven case (junit.py, maven_plugin.py) needs to run Maven as a user of pinwatch
would, against this build's artifacts: a settings file that adds BUILD/maven-central (where
agent/java/build_maven.py deploys, standing for Maven Central) as repository and plugin
repository; a local repository without io/pinwatch, so that the artifacts are this build's and
never an earlier run's; and Maven's environment on the JDK under test."""

import os
import shutil

SETTINGS = """<?xml version="1.0" encoding="UTF-8"?>
<settings>
  <profiles>
    <profile>
      <id>pinwatch-build</id>
      <repositories>
        <repository><id>pinwatch-build</id><url>%(url)s</url></repository>
      </repositories>
      <pluginRepositories>
        <pluginRepository><id>pinwatch-build</id><url>%(url)s</url></pluginRepository>
      </pluginRepositories>
    </profile>
  </profiles>
  <activeProfiles><activeProfile>pinwatch-build</activeProfile></activeProfiles>
</settings>
"""


def write_settings(path, central):
    """The settings file at PATH naming CENTRAL (a directory) as the repository Maven reads."""
    with open(path, 'w', encoding='utf-8') as f:
        f.write(SETTINGS % {'url': 'file://' + os.path.abspath(central)})
    return path


def forget_pinwatch(repo):
    """io.pinwatch out of the local repository REPO: Maven keeps a release it once resolved and
    never asks again, so without this a case would test whichever build resolved it first."""
    shutil.rmtree(os.path.join(repo, 'io', 'pinwatch'), ignore_errors=True)


def maven_env(jdk_home):
    """Maven on the JDK under test, with nothing that would reach the tests' JVMs another way
    than through the pom: the checkjni setup's JAVA_TOOL_OPTIONS (Surefire's forks get their
    flags from argLine alone) and MAVEN_OPTS."""
    env = dict(os.environ, JAVA_HOME=jdk_home,
               PATH=os.path.join(jdk_home, 'bin') + os.pathsep + os.environ.get('PATH', ''))
    env.pop('JAVA_TOOL_OPTIONS', None)
    env.pop('MAVEN_OPTS', None)
    return env
