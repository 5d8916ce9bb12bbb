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
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;

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
 * <p>Register it with {@code @ExtendWith(PinwatchExtension.class)}, with
 * {@link PinwatchCheck} (which also configures it), or for every test with
 * JUnit's auto-detection
 * ({@code junit.jupiter.extensions.autodetection.enabled=true}); without an
 * annotation it checks pins with no limit and no ignored methods.
 *
 * <p>Tests checked by this extension must not run concurrently: a snapshot
 * cannot tell which of two concurrent tests took a pin. Under JUnit's
 * parallel execution, a checked test that starts while another is running
 * fails with an {@link ExtensionConfigurationException} saying so, and so
 * does the test that was running. Run them with
 * {@code @Execution(ExecutionMode.SAME_THREAD)} or
 * {@code @ResourceLock("pinwatch")}.
 */
public final class PinwatchExtension implements BeforeEachCallback, AfterEachCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(PinwatchExtension.class);
    private static final AtomicInteger RUNNING = new AtomicInteger();
    private static final AtomicLong OVERLAPS = new AtomicLong();

    /** The extension; JUnit creates it. */
    public PinwatchExtension() {
    }

    private static final class Started {
        final Snapshot before;
        final long overlaps;

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

    private static String concurrentMessage(ExtensionContext context) {
        return "pinwatch cannot tell which of two tests running at once leaked a pin: " + testName(context)
                + " ran concurrently with another test checked by pinwatch (JUnit parallel execution). "
                + "Run tests checked by pinwatch with @Execution(ExecutionMode.SAME_THREAD) or "
                + "@ResourceLock(\"pinwatch\"), or set junit.jupiter.execution.parallel.enabled=false";
    }

    private static String testName(ExtensionContext context) {
        Optional<Method> m = context.getTestMethod();
        return m.map(method -> method.getDeclaringClass().getSimpleName() + "." + method.getName() + "()")
                .orElse(context.getDisplayName());
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
            for (Row r : diff.references()) {
                if (r.live() != 0 && !config.ignored(r.method())) {
                    count += r.live();
                    if (r.live() > 0) {
                        grew.add(r);
                    }
                }
            }
            if (count > config.referenceLimit) {
                if (out.length() > 0) {
                    out.append(String.format("%n"));
                }
                out.append(String.format(Locale.ROOT, "pinwatch: %s returned with %d more live JNI reference%s (limit %d)",
                        test, count, count == 1 ? "" : "s", config.referenceLimit));
                out.append(String.format(Locale.ROOT, "%n    %6s %-7s %-26s %s", "+LIVE", "KIND", "FUNCTION", "NATIVE METHOD"));
                for (Row r : grew) {
                    out.append(String.format(Locale.ROOT, "%n    %6d %-7s %-26s %s%s", r.live(), r.kind(), r.function(),
                            r.method(), r.signature()));
                    for (Site s : r.sites()) {
                        if (s.live() > 0) {
                            out.append(String.format(Locale.ROOT, "%n    %6d         at %s", s.live(), s.callSite()));
                        }
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
