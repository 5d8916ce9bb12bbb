// SPDX-License-Identifier: Apache-2.0
package io.pinwatch.jfr;

import io.pinwatch.Pinwatch;
import io.pinwatch.Row;
import io.pinwatch.Snapshot;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;
import jdk.jfr.Recording;

/**
 * Registers pinwatch's events with the Flight Recorder. The agent calls
 * {@link #start()} once, after the JVM has initialised (or at once when
 * attached): it only adds a listener, so a JVM in which no recording ever
 * starts does not initialise the Flight Recorder for pinwatch. When the
 * recorder initialises (the first recording, from the command line or
 * {@code jcmd JFR.start}), the events are registered: JFR runs the periodic
 * row events' hooks on its own periodic thread, and a daemon thread of
 * pinwatch's, "pinwatch JFR", commits findings and reports as the agent
 * hands them over. No agent thread runs Java code.
 */
final class Recorder {
    /** Live figure of each row at its previous event, by row identity. */
    private static final Map<String, Long> PREVIOUS = new HashMap<>();
    private static boolean started;
    private static volatile boolean registered;

    private Recorder() {
    }

    /** Called by the agent (report/jfr.c); never throws. */
    static synchronized void start() {
        if (started) {
            return;
        }
        started = true;
        try {
            FlightRecorder.addListener(new FlightRecorderListener() {
                @Override
                public void recorderInitialized(FlightRecorder recorder) {
                    register();
                }

                @Override
                public void recordingStateChanged(Recording recording) {
                    if (registered) {
                        tellWants();
                    }
                }
            });
        } catch (Throwable t) { // no jdk.jfr in this runtime, or JFR disabled
            System.err.println("[pinwatch] WARN no Flight Recorder events: " + t);
        }
    }

    private static void register() {
        FlightRecorder.addPeriodicEvent(PinRowEvent.class, Recorder::pinRows);
        FlightRecorder.addPeriodicEvent(ReferenceRowEvent.class, Recorder::referenceRows);
        // Findings and reports are committed as they come (the thread below)
        // and, as periodic events of period endChunk, whatever is still
        // queued when a chunk ends: JFR runs these hooks before it closes the
        // chunk, also as the JVM exits, so a finding made just before exit
        // is in the recording.
        FlightRecorder.addPeriodicEvent(FindingEvent.class, Recorder::drain);
        FlightRecorder.addPeriodicEvent(ReportEvent.class, Recorder::drain);
        FlightRecorder.register(ThresholdEvent.class);
        registered = true;
        // From here on the agent queues what a recording wants, even before
        // the thread below first asks; each recording that starts or stops
        // says it again (the listener above), and so does the thread while
        // it has nothing to commit.
        tellWants();
        Thread t = new Thread(Recorder::commitLoop, "pinwatch JFR");
        t.setDaemon(true);
        t.start();
    }

    private static void tellWants() {
        want0(new FindingEvent().isEnabled(), new ReportEvent().isEnabled() || new ThresholdEvent().isEnabled());
    }

    /**
     * Tells the agent which events recordings enable now: it queues nothing
     * else, and takes no stack for a finding nobody records.
     */
    private static native void want0(boolean findings, boolean reports);

    /**
     * Waits up to {@code waitMs} for the agent to queue a finding or a
     * report, in native code (no safepoint waits for it); true when one is
     * queued. Takes nothing from the queue.
     */
    private static native boolean await0(long waitMs);

    /**
     * Takes the oldest finding or report the agent queued, without waiting;
     * null when there is none: its strings, and its figures in
     * {@code numbers} (positions in report/jfr.c).
     */
    private static native String[] next0(long[] numbers);

    /**
     * Commits what comes, and every half second without any tells the agent
     * again what recordings want: a recording whose settings change while it
     * runs (JMC, {@code Recording.enable}) changes no state, so the listener
     * does not hear of it.
     */
    private static void commitLoop() {
        try {
            for (;;) {
                if (await0(500)) {
                    drain();
                } else {
                    tellWants();
                }
            }
        } catch (Throwable t) { // out of memory in the agent's hand-over: no more events
            System.err.println("[pinwatch] WARN Flight Recorder events stopped: " + t);
        }
    }

    /**
     * Commits everything queued. Taking from the queue and committing are
     * one step under this class's lock, so that a chunk's end (the periodic
     * hooks) finds each event either queued or committed, never in between.
     */
    private static synchronized void drain() {
        long[] n = new long[12];
        for (String[] s = next0(n); s != null; s = next0(n)) {
            if ("finding".equals(s[0])) {
                finding(s, n);
            } else {
                report(s[1], n);
            }
        }
    }

    private static void finding(String[] s, long[] n) {
        FindingEvent e = new FindingEvent();
        if (!e.isEnabled()) {
            return;
        }
        e.kind = s[1];
        e.method = s[2];
        e.signature = s[3];
        e.function = s[4];
        e.call = s[5];
        e.callSite = s[6];
        e.javaStack = s[7] != null ? s[7] : "";
        e.thread = s[8] != null ? s[8] : "";
        e.when = n[0];
        e.occurrences = n[1];
        e.commit();
    }

    /** numbers: time, live, bytes, leaked, held, acquired, released, findings, references, threshold, dropped. */
    private static void report(String reason, long[] n) {
        long threshold = n[9];
        if (threshold > 0 && "threshold".equals(reason)) {
            ThresholdEvent e = new ThresholdEvent();
            if (e.isEnabled()) {
                long level = threshold;
                while (level <= Long.MAX_VALUE / 2 && level * 2 <= n[1]) {
                    level *= 2;
                }
                e.threshold = threshold;
                e.level = level;
                e.live = n[1];
                e.bytes = n[2];
                e.when = n[0];
                e.commit();
            }
        }
        ReportEvent e = new ReportEvent();
        if (!e.isEnabled()) {
            return;
        }
        e.reason = reason;
        e.when = n[0];
        e.live = n[1];
        e.bytes = n[2];
        e.leaked = n[3];
        e.held = n[4];
        e.acquired = n[5];
        e.released = n[6];
        e.findings = n[7];
        e.liveReferences = n[8];
        e.eventsDropped = n[10];
        e.commit();
    }

    private static long growth(Row r) {
        String key = r.kind() + '\0' + r.method() + '\0' + r.signature() + '\0' + r.function();
        synchronized (PREVIOUS) {
            Long before = PREVIOUS.put(key, r.live());
            return r.live() - (before != null ? before : 0L);
        }
    }

    private static List<Row> rows(boolean references) {
        if (!Pinwatch.isLoaded()) {
            return List.of();
        }
        Snapshot s = Pinwatch.snapshot();
        return references ? s.references() : s.pins();
    }

    private static void pinRows() {
        for (Row r : rows(false)) {
            PinRowEvent e = new PinRowEvent();
            e.method = r.method();
            e.signature = r.signature();
            e.function = r.function();
            e.live = r.live();
            e.bytes = r.bytes();
            e.leaked = r.leaked();
            e.leakedBytes = r.leakedBytes();
            e.held = r.held();
            e.growth = growth(r);
            e.acquired = r.acquired();
            e.released = r.released();
            e.commit();
        }
    }

    private static void referenceRows() {
        for (Row r : rows(true)) {
            ReferenceRowEvent e = new ReferenceRowEvent();
            e.method = r.method();
            e.signature = r.signature();
            e.kind = r.kind();
            e.function = r.function();
            e.live = r.live();
            e.leaked = r.leaked();
            e.held = r.held();
            e.growth = growth(r);
            e.created = r.acquired();
            e.deleted = r.released();
            e.commit();
        }
    }
}
