// SPDX-License-Identifier: Apache-2.0
package io.pinwatch.maven;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;

/**
 * Fails the build on what the tests' JVMs left behind: reads the reports that {@code prepare-agent}
 * had them write (the last report of each JVM, its exit report) and fails over {@code maxLeakedPins}
 * leaked JNI pins or {@code maxLiveReferences} live JNI references, summed over the JVMs, with the
 * table of the native methods, JNI functions and call sites in the message.
 * <p>
 * It fails, and never skips, when no JVM wrote a report although tests were compiled: the tests ran
 * without the agent, most often because the pom gives Surefire an {@code <argLine>} that replaces
 * the property {@code prepare-agent} set (keep it with {@code @{argLine}}).
 */
@Mojo(name = "check", defaultPhase = LifecyclePhase.VERIFY, threadSafe = true)
public final class CheckMojo extends AbstractPinwatchMojo {
    /**
     * Leaked JNI pins the build may leave: pins whose native method returned without releasing
     * them, still unreleased when their JVM exited, summed over the JVMs. Pins that a
     * {@code suppress} rule covers do not count.
     */
    @Parameter(property = "pinwatch.maxLeakedPins", defaultValue = "0")
    private long maxLeakedPins;

    /**
     * Live JNI references (global, weak global, locals of natively attached threads) the build may
     * leave at the JVMs' exit, summed over the JVMs; not set: no limit. References that the JDK's
     * own code made (marked {@code "jdk"} in the reports) do not count.
     */
    @Parameter(property = "pinwatch.maxLiveReferences")
    private Long maxLiveReferences;

    /** Surefire's: with the tests skipped, there is no report to read and nothing to check. */
    @Parameter(property = "skipTests", defaultValue = "false", readonly = true)
    private boolean skipTests;

    /** Surefire's: with the tests skipped, there is no report to read and nothing to check. */
    @Parameter(property = "maven.test.skip", defaultValue = "false", readonly = true)
    private boolean mavenTestSkip;

    @Override
    public void execute() throws MojoExecutionException, MojoFailureException {
        if (skip) {
            getLog().info("pinwatch: skipped (pinwatch.skip)");
            return;
        }
        if (skipTests || mavenTestSkip) {
            getLog().info("pinwatch: tests skipped (" + (skipTests ? "skipTests" : "maven.test.skip")
                    + "), nothing to check");
            return;
        }
        Path dir = directory.toPath().toAbsolutePath();
        Reports reports;
        try {
            reports = Reports.read(dir);
        } catch (IOException e) {
            throw new MojoExecutionException("pinwatch: cannot read the reports in " + dir + ": " + e.getMessage(), e);
        }
        if (reports.jvms.isEmpty()) {
            if (!hasTestClasses()) {
                getLog().info("pinwatch: no test classes, nothing to check");
                return;
            }
            throw new MojoFailureException(noReport(dir));
        }
        for (Reports.Jvm j : reports.jvms)
            if (!j.exited())
                getLog().warn("pinwatch: the JVM of pid " + j.pid + " (" + j.file.getFileName()
                        + ") wrote no exit report: it was killed or halted; its last report (reason "
                        + j.last.get("reason") + ") is checked");
        int n = reports.jvms.size();
        String jvms = n + (n == 1 ? " JVM" : " JVMs");
        List<Reports.Row> pins = reports.leakedPins();
        List<Reports.Row> refs = reports.liveReferences();
        long leaked = Reports.total(pins);
        long live = Reports.total(refs);
        if (maxLiveReferences != null && reports.referencesOff())
            throw new MojoExecutionException("pinwatch: maxLiveReferences is set, but the agent ran with refs=off "
                    + "and counted no references");
        StringBuilder failure = new StringBuilder();
        if (leaked > maxLeakedPins) {
            failure.append(String.format(Locale.ROOT, "pinwatch: %d leaked JNI pin%s (maxLeakedPins %d) at the exit "
                    + "of the tests' JVMs, in %d native method%s:%n", leaked, leaked == 1 ? "" : "s",
                    maxLeakedPins, pins.size(), pins.size() == 1 ? "" : "s"));
            failure.append(Reports.pinTable(pins));
        }
        if (maxLiveReferences != null && live > maxLiveReferences) {
            failure.append(String.format(Locale.ROOT, "pinwatch: %d live JNI reference%s (maxLiveReferences %d) at "
                    + "the exit of the tests' JVMs, in %d native method%s:%n", live, live == 1 ? "" : "s",
                    maxLiveReferences, refs.size(), refs.size() == 1 ? "" : "s"));
            failure.append(Reports.referenceTable(refs));
        }
        String summary = String.format(Locale.ROOT, "the reports of %s read from %s: %d leaked JNI pin%s (limit %d), "
                + "%d live JNI reference%s (limit %s)", jvms, dir, leaked, leaked == 1 ? "" : "s", maxLeakedPins,
                live, live == 1 ? "" : "s", maxLiveReferences == null ? "none" : maxLiveReferences.toString());
        if (failure.length() > 0)
            throw new MojoFailureException(failure + summary);
        getLog().info("pinwatch: " + summary);
    }

    private boolean hasTestClasses() throws MojoExecutionException {
        Path classes = new File(project.getBuild().getTestOutputDirectory()).toPath();
        if (!Files.isDirectory(classes))
            return false;
        try (Stream<Path> s = Files.walk(classes)) {
            return s.anyMatch(p -> p.toString().endsWith(".class"));
        } catch (IOException e) {
            throw new MojoExecutionException("pinwatch: cannot read " + classes + ": " + e, e);
        }
    }

    private String noReport(Path dir) {
        String value = project.getProperties().getProperty(propertyName);
        boolean prepared = value != null && value.contains("libpinwatch.so");
        StringBuilder b = new StringBuilder();
        b.append("pinwatch: no JVM wrote a report into ").append(dir).append(", so the tests ran without the agent");
        if (!prepared) {
            b.append(": the property ").append(propertyName).append(" holds no -agentpath of pinwatch's. Add the goal "
                    + "prepare-agent to the plugin's executions (it runs before the tests, in phase initialize).");
            return b.toString();
        }
        b.append(".\nprepare-agent put the agent into the property ").append(propertyName)
                .append(", but the tests' JVMs did not get it: the pom probably overwrites ").append(propertyName)
                .append(" by giving Surefire (or Failsafe) an <argLine> of its own. Keep the agent by starting "
                        + "that value with @{").append(propertyName).append("}, which Surefire replaces when it "
                        + "forks:\n    <argLine>@{").append(propertyName).append("} -Xmx1g</argLine>\n"
                        + "or give your flags to the property instead (prepare-agent keeps them after the agent):\n"
                        + "    <properties><").append(propertyName).append(">-Xmx1g</").append(propertyName)
                .append("></properties>\n"
                        + "(Tests that Surefire runs in Maven's own JVM, with forkCount 0, never get the agent.)");
        return b.toString();
    }
}
