// SPDX-License-Identifier: Apache-2.0
package io.pinwatch.maven;

import java.io.File;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.project.MavenProject;

/**
 * What {@code prepare-agent} and {@code check} share, so that the two goals cannot disagree on
 * where the reports are and which property carries the agent (JaCoCo's AbstractJacocoMojo).
 */
abstract class AbstractPinwatchMojo extends AbstractMojo {
    /** The project whose tests are watched. */
    @Parameter(defaultValue = "${project}", readonly = true, required = true)
    protected MavenProject project;

    /** Runs the tests without the agent and checks nothing. */
    @Parameter(property = "pinwatch.skip", defaultValue = "false")
    protected boolean skip;

    /**
     * Where the agent is extracted and the forked JVMs write their reports and logs, and where
     * {@code check} reads them. It is created mode 0700 and must not be writable by others.
     */
    @Parameter(property = "pinwatch.directory", defaultValue = "${project.build.directory}/pinwatch")
    protected File directory;

    /**
     * The project property that receives the agent's {@code -agentpath}: Surefire's and Failsafe's
     * {@code argLine}, or another that a plugin's configuration reads as {@code @{name}}.
     */
    @Parameter(property = "pinwatch.propertyName", defaultValue = "argLine")
    protected String propertyName;
}
