// SPDX-License-Identifier: Apache-2.0
package io.pinwatch.junit;

import io.pinwatch.Pinwatch;
import io.pinwatch.PinwatchNotLoadedException;
import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * The agent loaded by the extension itself when the JVM was started without
 * it (an IDE run, a build with no {@code argLine}): once per JVM, through
 * {@code io.pinwatch.agent.AgentLibrary} of {@code pinwatch-agent}.
 *
 * <p>AgentLibrary is reached by reflection: the jar is a dependency of the
 * published {@code pinwatch-junit}, but the release archive's
 * {@code lib/pinwatch-junit.jar} is used without it, and there the extension
 * must say what is missing rather than fail with a NoClassDefFoundError.
 */
final class SelfLoad {
    /** The JUnit configuration parameter (or system property) that turns "not loaded" into unchecked tests. */
    static final String NOT_LOADED = "pinwatch.junit.notLoaded";
    /** The options of a self-loaded agent, as after {@code -agentpath:…=}. */
    static final String OPTIONS = "pinwatch.options";
    private static final String AGENT_LIBRARY = "io.pinwatch.agent.AgentLibrary";

    private static boolean tried;
    /* null once the API works; otherwise why not, one line. */
    private static volatile String problem;
    private static boolean skipSaid;

    private SelfLoad() {
    }

    /**
     * Loads the agent unless it runs (the first call only).
     *
     * @return null when pinwatch's API works in this JVM, else why not
     */
    static synchronized String ensure() {
        if (!tried) {
            tried = true;
            try {
                problem = load();
            } catch (RuntimeException | LinkageError e) {
                problem = e.toString();
            }
        }
        return problem;
    }

    private static String load() {
        if (Pinwatch.isLoaded()) {
            return null;
        }
        String options = System.getProperty(OPTIONS);
        String reports = null;
        if (options == null) {
            reports = reportFile();
            options = reports == null ? "" : "file=" + reports;
        }
        Object path;
        try {
            Class<?> library = Class.forName(AGENT_LIBRARY, true, SelfLoad.class.getClassLoader());
            Method load = library.getMethod("load", String.class);
            path = load.invoke(null, options);
        } catch (ClassNotFoundException e) {
            return AGENT_LIBRARY + " is not on the class path (the artifact io.pinwatch:pinwatch-agent)";
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            return cause.getMessage() != null ? cause.getMessage() : cause.toString();
        } catch (ReflectiveOperationException e) {
            return "pinwatch-agent on the class path has no " + AGENT_LIBRARY + ".load(String): " + e;
        }
        if (!Pinwatch.isLoaded()) {
            // The library runs (another copy, or a start that failed late) but
            // the API is not bound: its exception says why (another version).
            try {
                Pinwatch.snapshot();
            } catch (PinwatchNotLoadedException e) {
                return "the agent " + path + " runs, but " + e.getMessage();
            }
        }
        // One line, on stderr beside the JDK's own warnings: a report file, or
        // the agent's own output, is where the figures go.
        System.err.println("pinwatch: the JUnit extension loaded the agent " + path + " into this JVM: pins and "
                + "references taken before this moment are not counted"
                + (reports != null ? "; reports go to " + reports
                        : System.getProperty(OPTIONS) != null ? "; options " + System.getProperty(OPTIONS) : ""));
        return null;
    }

    /**
     * Where a self-loaded agent writes its reports when {@code pinwatch.options}
     * does not say: under the build's output directory of the working
     * directory (Maven's {@code target/}, Gradle's {@code build/}), so that
     * a forked test JVM does not write its whole exit report into the
     * build's console; null (the agent's default, stderr) elsewhere, where
     * nothing tells which directory is the build's.
     */
    static String reportFile() {
        File dir = new File(System.getProperty("user.dir", ".")).getAbsoluteFile();
        File out;
        if (new File(dir, "target").isDirectory()) {
            out = new File(dir, "target/pinwatch");
        } else if (new File(dir, "build.gradle").isFile() || new File(dir, "build.gradle.kts").isFile()) {
            out = new File(dir, "build/pinwatch");
        } else {
            return null;
        }
        String file = new File(out, "junit-%p.txt").getPath();
        // The options are comma-separated KEY=VALUE: a path with either cannot be said.
        if (file.indexOf(',') >= 0 || file.indexOf('=') >= 0 || (!out.isDirectory() && !out.mkdirs())) {
            return null;
        }
        return file;
    }

    /** The failure of a checked test when the agent is not loaded. */
    static String failure(String why) {
        return "pinwatch is not loaded in this JVM and the JUnit extension could not load it: " + why
                + ". Load it with pinwatch-maven-plugin's prepare-agent, -javaagent:pinwatch-agent.jar or "
                + "-agentpath:/path/to/libpinwatch.so, or set " + NOT_LOADED + "=skip to run the tests unchecked";
    }

    /** Says once per JVM that the tests run unchecked. */
    static synchronized void sayUnchecked(String why) {
        if (!skipSaid) {
            skipSaid = true;
            System.err.println("pinwatch: not loaded (" + why + "); " + NOT_LOADED
                    + "=skip: the tests run, their JNI pins and references are not checked");
        }
    }
}
