// SPDX-License-Identifier: Apache-2.0
package io.pinwatch;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * pinwatch from inside the JVM it watches: whether the agent is loaded, what
 * it counts now, and a report on request.
 *
 * <p>The agent ({@code -agentpath:/path/to/libpinwatch.so}) binds this
 * class's native methods itself when the class is loaded; this jar carries no
 * native library. Without the agent, {@link #isLoaded()} is {@code false}
 * and every other method throws {@link PinwatchNotLoadedException}; so it is
 * with an agent of another version, whose protocol number (what the natives
 * answer, and how) differs from this jar's: {@code isLoaded()} then says so
 * in one line on stderr, naming both numbers.
 *
 * <p>A {@link #snapshot()} reads the agent's tables the way a report does,
 * without symbolising or writing anything: a few microseconds plus well
 * under a microsecond per call site. It costs the JNI calls of the watched
 * program nothing.
 */
public final class Pinwatch {
    /** Layout of {@code sites0}'s answer: header longs, then per site. */
    private static final int HEADER = 3;

    /**
     * The protocol this class speaks with the agent's natives; the agent's is
     * {@code PW_JAVA_PROTOCOL} in agent/report/java_api.h. Raised with it.
     */
    static final int PROTOCOL = 1;

    private static volatile boolean loaded;
    /** The mismatch line was printed. */
    private static volatile boolean told;

    /** Per site id (an index): sites never change. */
    private static volatile SiteInfo[] sites = new SiteInfo[256];
    /** One key object per row identity, shared by the row's sites. */
    private static final ConcurrentHashMap<String, Object> ROWS = new ConcurrentHashMap<>();

    private Pinwatch() {
    }

    /**
     * Whether the pinwatch agent runs in this JVM, has bound this class and
     * speaks its protocol. An agent of another protocol is not loaded for
     * this class: the first call says so on stderr.
     *
     * @return {@code true} when the agent is loaded
     */
    public static boolean isLoaded() {
        if (loaded) {
            return true;
        }
        int agent;
        try {
            agent = protocol0();
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
        if (agent != PROTOCOL) {
            if (!told) {
                told = true;
                System.err.println("[pinwatch] ERROR io.pinwatch.Pinwatch speaks protocol " + PROTOCOL
                                   + ", the agent in this JVM protocol " + agent
                                   + ": pinwatch-api and the agent are of different versions,"
                                   + " the Java API answers as if pinwatch were not loaded");
            }
            return false;
        }
        loaded = true;
        return true;
    }

    /**
     * The live pins and live JNI references now, per native method and
     * function, with each row's call sites. Writes no report.
     *
     * @return the figures now
     * @throws PinwatchNotLoadedException when the agent is not loaded
     */
    public static Snapshot snapshot() {
        requireLoaded();
        long[] v = sites0();
        int stride = (int) v[0];
        int n = (int) v[1];
        SiteInfo[] info = new SiteInfo[n];
        for (int i = 0; i < n; i++) {
            info[i] = info((int) v[HEADER + i * stride]);
        }
        return new Snapshot(v[2], v, HEADER, stride, n, info);
    }

    private static SiteInfo info(int id) {
        SiteInfo[] known = sites;
        if (id < known.length && known[id] != null) {
            return known[id];
        }
        synchronized (Pinwatch.class) {
            known = sites;
            if (id >= known.length) {
                known = java.util.Arrays.copyOf(known, Math.max(id + 1, known.length * 2));
            }
            if (known[id] == null) {
                String[] about = site0(id);
                if (about == null) {
                    about = new String[] {"?", "", "?", "pin"};
                }
                Object row = ROWS.computeIfAbsent(String.join("\0", about), k -> new Object());
                known[id] = new SiteInfo(about, row);
            }
            sites = known;
            return known[id];
        }
    }

    /**
     * What changed from {@code before} to {@code after}; the same as
     * {@code after.minus(before)}.
     *
     * @param before the earlier snapshot
     * @param after the later snapshot
     * @return a snapshot whose figures are the differences, holding only the
     *     rows and sites that changed
     */
    public static Snapshot diff(Snapshot before, Snapshot after) {
        return after.minus(before);
    }

    /**
     * Asks the agent for a report now, written where its {@code file=} and
     * {@code format=} options send reports, with {@code reason} as the
     * report's reason. Waits until it is written (at most a minute).
     *
     * @param reason the reason the report carries (at most 255 bytes of
     *     UTF-8 are kept)
     * @return {@code true} when the report was written; {@code false} when
     *     it could not be (the JVM is exiting, or the agent's thread did not
     *     answer in time)
     * @throws PinwatchNotLoadedException when the agent is not loaded
     */
    public static boolean dump(String reason) {
        Objects.requireNonNull(reason, "reason");
        requireLoaded();
        return dump0(reason);
    }

    /** The call site of a site id, symbolised: see {@link Site#callSite()}. */
    static String where(int site) {
        requireLoaded();
        String w = where0(site);
        return w != null ? w : "?";
    }

    /** Whether a site id's call lies in the JDK's own code: see {@link Site#jdk()}. */
    static boolean jdk(int site) {
        requireLoaded();
        return jdk0(site);
    }

    private static void requireLoaded() {
        if (!isLoaded()) {
            throw new PinwatchNotLoadedException();
        }
    }

    private static native int protocol0();

    private static native long[] sites0();

    private static native String[] site0(int site);

    private static native String where0(int site);

    private static native boolean jdk0(int site);

    private static native boolean dump0(String reason);
}
