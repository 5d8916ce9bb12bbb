package io.pinwatch.jfr;

import io.pinwatch.Pinwatch;
import io.pinwatch.Row;
import io.pinwatch.Snapshot;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;

/**
 * Registers pinwatch's events with the Flight Recorder. The agent calls
 * {@link #start()} once, after the JVM has initialised (or at once when
 * attached): it only adds a listener, so a JVM in which no recording ever
 * starts does not initialise the Flight Recorder for pinwatch. When the
 * recorder initialises (the first recording, from the command line or
 * {@code jcmd JFR.start}), the periodic events are registered; JFR then
 * runs their hooks on its own periodic thread, only while a recording
 * enables them, never on an application thread.
 */
final class Recorder {
    /** Live figure of each row at its previous event, by row identity. */
    private static final Map<String, Long> PREVIOUS = new HashMap<>();
    private static boolean started;
    private static volatile boolean registered;

    private Recorder() {
    }

    /** Called by the agent (entry/agent.c, report/jfr.c); never throws. */
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
            });
        } catch (Throwable t) { // no jdk.jfr in this runtime, or JFR disabled
            System.err.println("[pinwatch] WARN no Flight Recorder events: " + t);
        }
    }

    private static void register() {
        FlightRecorder.addPeriodicEvent(PinRowEvent.class, Recorder::pinRows);
        FlightRecorder.addPeriodicEvent(ReferenceRowEvent.class, Recorder::referenceRows);
        FlightRecorder.register(ReportEvent.class);
        FlightRecorder.register(ThresholdEvent.class);
        registered = true;
    }

    /**
     * Called by the agent (report/jfr.c) on the thread that wrote a report,
     * after writing it: commits a {@link ReportEvent}, and for a threshold
     * report a {@link ThresholdEvent} first. Does nothing until the recorder
     * has started, or while no recording enables the events.
     */
    static void report(String reason, long[] t, long threshold) {
        if (!registered) {
            return;
        }
        if (threshold > 0 && "threshold".equals(reason)) {
            ThresholdEvent e = new ThresholdEvent();
            if (e.isEnabled()) {
                long level = threshold;
                while (level <= Long.MAX_VALUE / 2 && level * 2 <= t[0]) {
                    level *= 2;
                }
                e.threshold = threshold;
                e.level = level;
                e.live = t[0];
                e.bytes = t[1];
                e.commit();
            }
        }
        ReportEvent e = new ReportEvent();
        if (!e.isEnabled()) {
            return;
        }
        e.reason = reason;
        e.live = t[0];
        e.bytes = t[1];
        e.leaked = t[2];
        e.held = t[3];
        e.acquired = t[4];
        e.released = t[5];
        e.findings = t[6];
        e.liveReferences = t[7];
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
