// SPDX-License-Identifier: Apache-2.0
package io.pinwatch.junit;

import io.pinwatch.Pinwatch;
import io.pinwatch.Row;
import io.pinwatch.Site;
import io.pinwatch.Snapshot;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.DynamicTestInvocationContext;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;

/**
 * A JUnit 5 extension that fails a test which returned having leaked JNI
 * pins (or, when asked, with more new live JNI references than allowed).
 *
 * <p>It takes a {@link Pinwatch#snapshot()} before each test (before its
 * {@code @BeforeEach} methods) and another after it (after its
 * {@code @AfterEach} methods), and fails the test with pinwatch's table of
 * the rows whose leaked pins grew. The snapshots are of the whole JVM:
 * pins taken on any thread during the test count to the test. Pins held
 * by a native method that is still running (a background call) are
 * <em>held</em>, not leaked, and never fail a test. A test that already
 * failed is not checked again.
 *
 * <p>Each invocation of a {@code @ParameterizedTest}, {@code @RepeatedTest}
 * or other test template is checked alone and named as JUnit names it,
 * {@code CodecTest.param(int)[2] "[2] 8"}. Each {@link DynamicTest} of a
 * {@code @TestFactory} is checked alone too, and a leak in it fails that
 * dynamic test; the factory itself answers for what its method (and its
 * {@code @BeforeEach} and {@code @AfterEach} methods) leaked.
 *
 * <p>References made by the JDK's own native code (the JVM and the
 * libraries under {@code java.home/lib}, {@link Site#jdk()}) never count:
 * the JDK's natives cache references once, on their first use (network
 * interfaces, file systems, fonts), and whichever test came first would
 * otherwise fail for them. A reference made by any other library counts,
 * whichever Java native method it was made in.
 *
 * <p>Register it with {@code @ExtendWith(PinwatchExtension.class)}, with
 * {@link PinwatchCheck} (which also configures it), or for every test with
 * JUnit's auto-detection
 * ({@code junit.jupiter.extensions.autodetection.enabled=true}); without an
 * annotation it checks pins with no limit and no ignored methods.
 *
 * <p><b>Loading the agent.</b> In a JVM started without pinwatch (no
 * {@code -agentpath}, {@code -javaagent} or pinwatch-maven-plugin: a run
 * from an IDE, a build with only the {@code pinwatch-junit} dependency), the
 * first extension created loads the agent itself, once, from
 * {@code io.pinwatch:pinwatch-agent} on the class path
 * ({@code AgentLibrary.load}), and prints one line on stderr saying so: pins
 * and references taken before that moment are not counted. Its options
 * are the system property {@code pinwatch.options} (as after
 * {@code -agentpath:…=}) when set; otherwise its reports go to
 * {@code target/pinwatch/junit-PID.txt} when the working directory has a
 * {@code target} directory (Maven), to {@code build/pinwatch/junit-PID.txt}
 * when it has a {@code build.gradle} or {@code build.gradle.kts}, and to
 * stderr (the agent's default) elsewhere, so that a build's console does
 * not get each forked JVM's exit report. On JDK 24 and later the JDK warns
 * about the native access; pinwatch-agent's line beside it says to add
 * {@code --enable-native-access=ALL-UNNAMED} to the JVM's options.
 *
 * <p>When the agent is not loaded and cannot be loaded (no pinwatch-agent on
 * the class path, an extraction directory it cannot use), each checked test
 * fails with an {@link ExtensionConfigurationException} saying why and what
 * to do; with the JUnit configuration parameter or system property
 * {@code pinwatch.junit.notLoaded=skip} the tests run unchecked instead, and
 * one line on stderr says so.
 *
 * <p>Tests checked by this extension must not run concurrently: a snapshot
 * cannot tell which of two concurrent tests took a pin. Under JUnit's
 * parallel execution, a checked test that starts while another is running
 * fails with an {@link ExtensionConfigurationException} saying so, and so
 * does the test that was running. Run them with
 * {@code @Execution(ExecutionMode.SAME_THREAD)} or
 * {@code @ResourceLock("pinwatch")}.
 */
public final class PinwatchExtension implements BeforeEachCallback, AfterEachCallback, InvocationInterceptor {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(PinwatchExtension.class);
    private static final AtomicInteger RUNNING = new AtomicInteger();
    private static final AtomicLong OVERLAPS = new AtomicLong();

    /**
     * The extension; JUnit creates it. The first one in a JVM loads the agent
     * when it is not loaded (the class comment).
     */
    public PinwatchExtension() {
        SelfLoad.ensure();
    }

    private static final class Started {
        /* Moved past a test factory's method and past each of its dynamic
         * tests, which answer for their own windows: what is left is the
         * factory's @BeforeEach, method and @AfterEach. */
        volatile Snapshot before;
        final long overlaps;
        final AtomicInteger dynamicRunning = new AtomicInteger();

        Started(Snapshot before, long overlaps) {
            this.before = before;
            this.overlaps = overlaps;
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        if (store.get(Started.class) != null) {
            return; // registered twice (annotation and auto-detection): check once
        }
        String notLoaded = SelfLoad.ensure();
        if (notLoaded != null) {
            String mode = context.getConfigurationParameter(SelfLoad.NOT_LOADED).orElse("fail");
            if (mode.equals("skip")) {
                SelfLoad.sayUnchecked(notLoaded);
                return;
            }
            if (!mode.equals("fail")) {
                throw new ExtensionConfigurationException(SelfLoad.NOT_LOADED + "=" + mode
                        + ": expected skip or fail (the default)");
            }
            throw new ExtensionConfigurationException(SelfLoad.failure(notLoaded));
        }
        // Read before this test counts as running: a test that starts from
        // here on changes it, and this test's afterEach then sees that.
        long overlaps = OVERLAPS.get();
        if (RUNNING.incrementAndGet() > 1) {
            OVERLAPS.incrementAndGet();
            RUNNING.decrementAndGet();
            throw new ExtensionConfigurationException(concurrentMessage(context));
        }
        try {
            store.put(Started.class, new Started(Pinwatch.snapshot(), overlaps));
        } catch (RuntimeException e) {
            RUNNING.decrementAndGet();
            throw e;
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Started started = context.getStore(NAMESPACE).remove(Started.class, Started.class);
        if (started == null) {
            return;
        }
        Snapshot after;
        try {
            after = Pinwatch.snapshot();
        } finally {
            RUNNING.decrementAndGet();
        }
        if (OVERLAPS.get() != started.overlaps) {
            throw new ExtensionConfigurationException(concurrentMessage(context));
        }
        if (context.getExecutionException().isPresent()) {
            return;
        }
        Config config = Config.of(context);
        String failure = check(config, testName(context), after.minus(started.before));
        if (failure != null) {
            throw new AssertionError(failure);
        }
    }

    /**
     * Checks a test factory's own window (its {@code @BeforeEach} methods and
     * the factory method) before its dynamic tests run.
     */
    @Override
    public <T> T interceptTestFactoryMethod(Invocation<T> invocation,
            ReflectiveInvocationContext<Method> invocationContext, ExtensionContext context) throws Throwable {
        T result = invocation.proceed();
        Started started = context.getStore(NAMESPACE).get(Started.class, Started.class);
        if (started != null) {
            Snapshot now = Pinwatch.snapshot();
            String failure = check(Config.of(context), testName(context), now.minus(started.before));
            started.before = now;
            if (failure != null) {
                throw new AssertionError(failure);
            }
        }
        return result;
    }

    /**
     * Checks one dynamic test of a checked test factory: a leak in it fails
     * it, not the factory.
     */
    @Override
    public void interceptDynamicTest(Invocation<Void> invocation, DynamicTestInvocationContext invocationContext,
            ExtensionContext context) throws Throwable {
        // The factory's entry, read through the store's parents.
        Started started = context.getStore(NAMESPACE).get(Started.class, Started.class);
        if (started == null) {
            invocation.proceed();
            return;
        }
        if (started.dynamicRunning.incrementAndGet() > 1) {
            started.dynamicRunning.decrementAndGet();
            OVERLAPS.incrementAndGet();
            throw new ExtensionConfigurationException(concurrentMessage(context));
        }
        long overlaps = OVERLAPS.get();
        Snapshot before, after;
        try {
            before = Pinwatch.snapshot();
            try {
                invocation.proceed();
            } finally {
                after = Pinwatch.snapshot();
                started.before = after;
            }
        } finally {
            started.dynamicRunning.decrementAndGet();
        }
        if (OVERLAPS.get() != overlaps) {
            throw new ExtensionConfigurationException(concurrentMessage(context));
        }
        String failure = check(Config.of(context), testName(context), after.minus(before));
        if (failure != null) {
            throw new AssertionError(failure);
        }
    }

    private static String concurrentMessage(ExtensionContext context) {
        return "pinwatch cannot tell which of two tests running at once leaked a pin: " + testName(context)
                + " ran concurrently with another test checked by pinwatch (JUnit parallel execution). "
                + "Run tests checked by pinwatch with @Execution(ExecutionMode.SAME_THREAD) or "
                + "@ResourceLock(\"pinwatch\"), or set junit.jupiter.execution.parallel.enabled=false";
    }

    /* A segment of JUnit's unique id, "[type:value]". */
    private static final Pattern SEGMENT = Pattern.compile("\\[([^:\\]]+):([^\\]]*)\\]");

    /** The context's test method, or its factory's (a dynamic test has none). */
    private static ExtensionContext methodContext(ExtensionContext context) {
        for (ExtensionContext c = context; c != null; c = c.getParent().orElse(null)) {
            if (c.getTestMethod().isPresent()) {
                return c;
            }
        }
        return context;
    }

    /**
     * The test as JUnit names it: {@code Class.method(types)}, then for an
     * invocation of a test template or a dynamic test its index (one per
     * level, from JUnit's unique id, as Surefire writes it) and its display
     * name, which carries the arguments: {@code CodecTest.param(int)[2] "[2] 8"}.
     */
    static String testName(ExtensionContext context) {
        Method m = methodContext(context).getTestMethod().orElse(null);
        if (m == null) {
            return context.getDisplayName();
        }
        StringBuilder name = new StringBuilder(m.getDeclaringClass().getSimpleName()).append('.')
                .append(m.getName()).append('(');
        Class<?>[] types = m.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            name.append(i > 0 ? ", " : "").append(types[i].getSimpleName());
        }
        name.append(')');
        boolean invocation = false;
        Matcher seg = SEGMENT.matcher(context.getUniqueId());
        while (seg.find()) {
            String type = seg.group(1), value = seg.group(2);
            if ((type.equals("test-template-invocation") || type.startsWith("dynamic-")) && value.startsWith("#")) {
                name.append('[').append(value, 1, value.length()).append(']');
                invocation = true;
            }
        }
        if (invocation) {
            name.append(" \"").append(context.getDisplayName()).append('"');
        }
        return name.toString();
    }

    /** The failure message for a test's difference, or null when it passes. */
    static String check(Config config, String test, Snapshot diff) {
        StringBuilder out = new StringBuilder();
        if (config.pins) {
            List<Row> leaked = new ArrayList<>();
            long count = 0, bytes = 0;
            for (Row r : diff.pins()) {
                if (r.leaked() > 0 && !config.ignored(r.method())) {
                    leaked.add(r);
                    count += r.leaked();
                    bytes += r.leakedBytes();
                }
            }
            if (count > config.pinLimit) {
                leaked.sort((a, b) -> Long.compare(b.leakedBytes(), a.leakedBytes()));
                long methods = leaked.stream().map(r -> r.method() + r.signature()).distinct().count();
                out.append(String.format(Locale.ROOT, "pinwatch: %s returned with %d leaked pin%s (%d bytes) in %d native method%s",
                        test, count, count == 1 ? "" : "s", bytes, methods, methods == 1 ? "" : "s"));
                if (config.pinLimit > 0) {
                    out.append(String.format(Locale.ROOT, " (limit %d)", config.pinLimit));
                }
                out.append(String.format(Locale.ROOT, "%n    %6s %10s  %-26s %s", "LEAKED", "BYTES", "FUNCTION", "NATIVE METHOD"));
                for (Row r : leaked) {
                    out.append(String.format(Locale.ROOT, "%n    %6d %10d  %-26s %s%s", r.leaked(), r.leakedBytes(),
                            r.function(), r.method(), r.signature()));
                    for (Site s : r.sites()) {
                        if (s.leaked() > 0) {
                            out.append(String.format(Locale.ROOT, "%n    %6d %10d  at %s", s.leaked(), s.leakedBytes(),
                                    s.callSite()));
                        }
                    }
                }
            }
        }
        if (config.references) {
            List<Row> grew = new ArrayList<>();
            long count = 0;
            List<List<Site>> grewSites = new ArrayList<>();
            List<Long> grewLive = new ArrayList<>();
            for (Row r : diff.references()) {
                if (r.live() == 0 || config.ignored(r.method())) {
                    continue;
                }
                // Only the sites outside the JDK's own code: its natives'
                // one-time caches belong to no test (the class comment).
                long live = 0;
                List<Site> sites = new ArrayList<>();
                for (Site s : r.sites()) {
                    if (s.live() != 0 && !s.jdk()) {
                        live += s.live();
                        if (s.live() > 0) {
                            sites.add(s);
                        }
                    }
                }
                count += live;
                if (live > 0) {
                    grew.add(r);
                    grewSites.add(sites);
                    grewLive.add(live);
                }
            }
            if (count > config.referenceLimit) {
                if (out.length() > 0) {
                    out.append(String.format("%n"));
                }
                out.append(String.format(Locale.ROOT, "pinwatch: %s returned with %d more live JNI reference%s (limit %d)",
                        test, count, count == 1 ? "" : "s", config.referenceLimit));
                out.append(String.format(Locale.ROOT, "%n    %6s %-7s %-26s %s", "+LIVE", "KIND", "FUNCTION", "NATIVE METHOD"));
                for (int i = 0; i < grew.size(); i++) {
                    Row r = grew.get(i);
                    out.append(String.format(Locale.ROOT, "%n    %6d %-7s %-26s %s%s", grewLive.get(i), r.kind(),
                            r.function(), r.method(), r.signature()));
                    for (Site s : grewSites.get(i)) {
                        out.append(String.format(Locale.ROOT, "%n    %6d         at %s", s.live(), s.callSite()));
                    }
                }
            }
        }
        return out.length() > 0 ? out.toString() : null;
    }

    /** What to check: the test's annotation, its class's, or the defaults. */
    static final class Config {
        final boolean pins, references;
        final long pinLimit, referenceLimit;
        final List<Pattern> ignore = new ArrayList<>();

        private Config(PinwatchCheck a) {
            pins = a == null || a.pins();
            pinLimit = a == null ? 0 : a.pinLimit();
            references = a != null && a.references();
            referenceLimit = a == null ? 0 : a.referenceLimit();
            if (a != null) {
                for (String glob : a.ignore()) {
                    List<String> parts = new ArrayList<>();
                    for (String part : glob.split("\\*", -1)) {
                        parts.add(Pattern.quote(part));
                    }
                    ignore.add(Pattern.compile(String.join(".*", parts)));
                }
            }
        }

        static Config of(ExtensionContext context) {
            context = methodContext(context);
            PinwatchCheck a = context.getTestMethod().map(m -> m.getAnnotation(PinwatchCheck.class)).orElse(null);
            for (Class<?> c = context.getTestClass().orElse(null); a == null && c != null; c = c.getEnclosingClass()) {
                a = ((AnnotatedElement) c).getAnnotation(PinwatchCheck.class);
            }
            return new Config(a);
        }

        boolean ignored(String method) {
            for (Pattern p : ignore) {
                if (p.matcher(method).matches()) {
                    return true;
                }
            }
            return false;
        }
    }
}
