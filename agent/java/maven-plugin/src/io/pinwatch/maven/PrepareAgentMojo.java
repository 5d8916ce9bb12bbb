// SPDX-License-Identifier: Apache-2.0
package io.pinwatch.maven;

import io.pinwatch.agent.AgentLibrary;
import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;

/**
 * Runs the tests under pinwatch: extracts this machine's agent from pinwatch-agent into
 * {@code directory} and prepends {@code -agentpath:<agent>=<options>} to the project property
 * {@code argLine}, which Surefire and Failsafe pass to the JVMs they fork (as JaCoCo's
 * {@code prepare-agent}). A value the pom gives the property itself is kept after the agent; a
 * plugin configured with an {@code <argLine>} of its own must start it with {@code @{argLine}}
 * (Surefire's late replacement), or the agent never reaches the tests and {@code check} fails.
 * <p>
 * Each forked JVM writes its reports as JSON Lines to {@code directory/pinwatch-<pid>.json} and
 * pinwatch's own log lines to {@code directory/pinwatch-<pid>.log}, so nothing of pinwatch's reaches
 * the console; {@code check} reads the reports. Reports of an earlier build in that directory are
 * deleted first.
 */
@Mojo(name = "prepare-agent", defaultPhase = LifecyclePhase.INITIALIZE, threadSafe = true)
public final class PrepareAgentMojo extends AbstractPinwatchMojo {
    /** A pinwatch -agentpath already in the property, quoted or not, removed before ours is added. */
    private static final Pattern OURS =
            Pattern.compile("(?:\"-agentpath:[^\"]*/libpinwatch\\.so(?:=[^\"]*)?\"|-agentpath:\\S*/libpinwatch\\.so(?:=\\S*)?)\\s*");

    /**
     * A file of rules for pins kept on purpose ({@code suppress=}, README "Suppressing pins kept on
     * purpose"): suppressed pins are reported but never fail {@code check}.
     */
    @Parameter(property = "pinwatch.suppress")
    private File suppress;

    /**
     * More agent options, {@code key=value} separated by commas (README "Options"), after those the
     * plugin sets; e.g. {@code stack=32,javastack=16} or {@code log=stderr} to see pinwatch's log
     * lines in the console. {@code file=} and {@code format=} are the plugin's: {@code check} reads
     * the JSON reports it asks for.
     */
    @Parameter(property = "pinwatch.options")
    private String options;

    @Override
    public void execute() throws MojoExecutionException {
        if (skip) {
            getLog().info("pinwatch: skipped (pinwatch.skip)");
            // Surefire would pass a bare "@{argLine}" to java when the property does not exist.
            if (project.getProperties().getProperty(propertyName) == null)
                project.getProperties().setProperty(propertyName, "");
            return;
        }
        Path dir = directory.toPath().toAbsolutePath();
        if (dir.toString().indexOf(',') >= 0)
            throw new MojoExecutionException("pinwatch: the directory " + dir + " has a comma in its path, "
                    + "which the agent's options cannot carry; set <directory> to another");
        Path agent = extract(dir);
        deleteEarlierReports(dir);
        String arg = quote("-agentpath:" + agent + "=" + agentOptions(dir));
        String old = project.getProperties().getProperty(propertyName);
        String rest = old == null ? "" : OURS.matcher(old).replaceAll("").trim();
        String value = rest.isEmpty() ? arg : arg + " " + rest;
        project.getProperties().setProperty(propertyName, value);
        getLog().info("pinwatch: " + propertyName + " set to " + value);
    }

    private Path extract(Path dir) throws MojoExecutionException {
        String platform;
        try {
            platform = AgentLibrary.platform();
        } catch (IllegalStateException e) {
            throw new MojoExecutionException("pinwatch: " + e.getMessage()
                    + "; build without pinwatch with -Dpinwatch.skip=true", e);
        }
        List<String> carried = AgentLibrary.platforms();
        if (!carried.contains(platform))
            throw new MojoExecutionException(String.format(Locale.ROOT,
                    "pinwatch: pinwatch-agent %s carries no agent for %s (it carries: %s); build without "
                            + "pinwatch with -Dpinwatch.skip=true",
                    AgentLibrary.version(), platform, carried.isEmpty() ? "none" : String.join(", ", carried)));
        try {
            return AgentLibrary.extract(dir);
        } catch (IOException e) {
            throw new MojoExecutionException("pinwatch: cannot extract the agent for " + platform + " into "
                    + dir + ": " + e.getMessage(), e);
        }
    }

    /** Reports left by an earlier build would be read by check as this one's. */
    private void deleteEarlierReports(Path dir) throws MojoExecutionException {
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "pinwatch-*.{json,log}")) {
            for (Path p : s)
                Files.delete(p);
        } catch (IOException e) {
            throw new MojoExecutionException("pinwatch: cannot delete an earlier build's reports in " + dir
                    + ": " + e, e);
        }
    }

    private String agentOptions(Path dir) throws MojoExecutionException {
        StringBuilder b = new StringBuilder();
        b.append("file=").append(dir.resolve("pinwatch-%p.json"))
                .append(",format=json")
                .append(",log=").append(dir.resolve("pinwatch-%p.log"));
        if (suppress != null) {
            String path = suppress.getAbsolutePath();
            if (path.indexOf(',') >= 0)
                throw new MojoExecutionException("pinwatch: the suppress file " + path
                        + " has a comma in its path, which the agent's options cannot carry");
            b.append(",suppress=").append(path);
        }
        if (options != null && !options.isBlank()) {
            for (String item : options.trim().split(",", -1)) {
                String key = item.trim();
                int eq = key.indexOf('=');
                key = eq < 0 ? key : key.substring(0, eq);
                if (key.equals("file") || key.equals("format"))
                    throw new MojoExecutionException("pinwatch: <options> sets " + key + "=, which is the plugin's: "
                            + "the forked JVMs write JSON reports into " + dir + " for check to read");
            }
            b.append(',').append(options.trim());
        }
        return b.toString();
    }

    /** As Surefire splits argLine: a path with a blank or a quote travels in double quotes. */
    private static String quote(String arg) {
        if (!arg.matches(".*[\\s\"'].*"))
            return arg;
        return "\"" + arg.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
