// SPDX-License-Identifier: Apache-2.0
package io.pinwatch.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Checks each test of the annotated class (or the annotated test) with
 * pinwatch: a test that returns having leaked JNI pins, or with more new
 * live JNI references than {@link #referenceLimit()}, fails with pinwatch's
 * table of what leaked. A test method's annotation replaces its class's; a
 * {@code @Nested} class without one uses its enclosing class's.
 *
 * <p>Registers {@link PinwatchExtension}, which loads the agent itself when
 * the JVM was started without it (see there).
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@ExtendWith(PinwatchExtension.class)
public @interface PinwatchCheck {
    /**
     * Whether leaked pins fail the test.
     *
     * @return {@code true} (the default) to check pins
     */
    boolean pins() default true;

    /**
     * Leaked pins a test may leave before it fails.
     *
     * @return the limit, 0 by default
     */
    long pinLimit() default 0;

    /**
     * Whether growth of live JNI references (global, weak, and locals of
     * natively attached threads) fails the test. References made by the
     * JDK's own native code (the JVM and the libraries under
     * {@code java.home/lib}), which caches them once on first use, never
     * count.
     *
     * @return {@code false} (the default): references are not checked
     */
    boolean references() default false;

    /**
     * New live references a test may leave before it fails, when
     * {@link #references()} is on.
     *
     * @return the limit, 0 by default
     */
    long referenceLimit() default 0;

    /**
     * Native methods whose pins and references are not the test's concern,
     * matched against the native method's name, {@code package.Class.method}
     * without its signature; {@code *} matches any run of characters
     * ({@code com.example.Cache.*}).
     *
     * @return the patterns, none by default
     */
    String[] ignore() default {};
}
