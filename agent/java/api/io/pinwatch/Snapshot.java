package io.pinwatch;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The agent's figures at one moment ({@link Pinwatch#snapshot()}), or the
 * change between two such moments ({@link #minus(Snapshot)}). Immutable.
 */
public final class Snapshot {
    private static final Comparator<Row> BY_LIVE = Comparator.comparingLong(Row::live).reversed()
            .thenComparing(Comparator.comparingLong(Row::acquired).reversed())
            .thenComparing(Row::method).thenComparing(Row::function);
    private static final Comparator<Row> BY_BYTES = Comparator.comparingLong(Row::bytes).reversed()
            .thenComparing(BY_LIVE);
    private static final Comparator<Site> SITE_ORDER = Comparator.comparingLong(Site::bytes).reversed()
            .thenComparing(Comparator.comparingLong(Site::live).reversed()).thenComparingInt(Site::id);

    private final long uptimeMillis;
    private final boolean difference;
    private final List<Row> pins, references;
    /** Every site by id with its row's identity, for minus. */
    private final Map<Integer, Site> sites;
    private final Map<Integer, String[]> about;

    private Snapshot(long uptimeMillis, boolean difference, Map<Integer, Site> sites, Map<Integer, String[]> about) {
        this.uptimeMillis = uptimeMillis;
        this.difference = difference;
        this.sites = sites;
        this.about = about;
        Map<String, List<Site>> grouped = new LinkedHashMap<>();
        Map<String, String[]> rowAbout = new HashMap<>();
        for (Map.Entry<Integer, Site> e : sites.entrySet()) {
            String[] a = about.get(e.getKey());
            String key = a[0] + '\0' + a[1] + '\0' + a[2] + '\0' + a[3];
            grouped.computeIfAbsent(key, k -> new ArrayList<>()).add(e.getValue());
            rowAbout.putIfAbsent(key, a);
        }
        List<Row> p = new ArrayList<>(), r = new ArrayList<>();
        for (Map.Entry<String, List<Site>> e : grouped.entrySet()) {
            String[] a = rowAbout.get(e.getKey());
            List<Site> s = e.getValue();
            s.sort(SITE_ORDER);
            Row row = new Row(a[0], a[1], a[2], a[3], s);
            (row.isReference() ? r : p).add(row);
        }
        p.sort(BY_BYTES);
        r.sort(BY_LIVE);
        pins = Collections.unmodifiableList(p);
        references = Collections.unmodifiableList(r);
    }

    /** Collects the sites of one snapshot; Pinwatch.snapshot() uses it. */
    static final class Builder {
        private final long uptimeMillis;
        private final Map<Integer, Site> sites = new HashMap<>();
        private final Map<Integer, String[]> about = new HashMap<>();

        Builder(long uptimeMillis) {
            this.uptimeMillis = uptimeMillis;
        }

        void add(String[] siteAbout, Site site) {
            sites.put(site.id(), site);
            about.put(site.id(), siteAbout);
        }

        Snapshot build() {
            return new Snapshot(uptimeMillis, false, sites, about);
        }
    }

    /**
     * Milliseconds since the agent started, when the snapshot was taken (for
     * a difference: the time between the two).
     *
     * @return the uptime
     */
    public long uptimeMillis() {
        return uptimeMillis;
    }

    /**
     * Whether this snapshot is the difference of two.
     *
     * @return {@code true} for a result of {@link #minus(Snapshot)}
     */
    public boolean isDifference() {
        return difference;
    }

    /**
     * Rows of pins, the most live bytes first (the text report's order).
     *
     * @return the rows
     */
    public List<Row> pins() {
        return pins;
    }

    /**
     * Rows of JNI references, the most live first.
     *
     * @return the rows
     */
    public List<Row> references() {
        return references;
    }

    /**
     * The pin row of one native method and acquire function, or of one
     * reference kind and function when {@code function} names a reference
     * function.
     *
     * @param method the method as {@code package.Class.method}; a row of
     *     any signature matches, the first in order
     * @param function the function, for example {@code GetLongArrayElements}
     * @return the row, or {@code null} when there is none
     */
    public Row row(String method, String function) {
        for (List<Row> rows : List.of(pins, references)) {
            for (Row row : rows) {
                if (row.method().equals(method) && row.function().equals(function)) {
                    return row;
                }
            }
        }
        return null;
    }

    /**
     * Live pins in all rows.
     *
     * @return the sum
     */
    public long live() {
        return pins.stream().mapToLong(Row::live).sum();
    }

    /**
     * Bytes of the live pins in all rows.
     *
     * @return the sum
     */
    public long bytes() {
        return pins.stream().mapToLong(Row::bytes).sum();
    }

    /**
     * Leaked pins in all rows.
     *
     * @return the sum
     */
    public long leaked() {
        return pins.stream().mapToLong(Row::leaked).sum();
    }

    /**
     * Held pins in all rows.
     *
     * @return the sum
     */
    public long held() {
        return pins.stream().mapToLong(Row::held).sum();
    }

    /**
     * Live references of all kinds.
     *
     * @return the sum
     */
    public long liveReferences() {
        return references.stream().mapToLong(Row::live).sum();
    }

    /**
     * The change from {@code before} to this snapshot: every figure is this
     * one's minus {@code before}'s, per site, and only sites (and rows) with
     * a change are kept.
     *
     * @param before an earlier snapshot of the same JVM
     * @return the difference
     * @throws IllegalArgumentException when either snapshot is a difference
     */
    public Snapshot minus(Snapshot before) {
        if (difference || before.difference) {
            throw new IllegalArgumentException("minus takes two snapshots, not differences");
        }
        Map<Integer, Site> changed = new HashMap<>();
        Map<Integer, String[]> a = new HashMap<>();
        for (Map.Entry<Integer, Site> e : sites.entrySet()) {
            Site d = e.getValue().minus(before.sites.get(e.getKey()));
            if (!d.isZero()) {
                changed.put(e.getKey(), d);
                a.put(e.getKey(), about.get(e.getKey()));
            }
        }
        for (Map.Entry<Integer, Site> e : before.sites.entrySet()) {
            if (!sites.containsKey(e.getKey()) && !e.getValue().isZero()) {
                changed.put(e.getKey(), e.getValue().negated());
                a.put(e.getKey(), before.about.get(e.getKey()));
            }
        }
        return new Snapshot(uptimeMillis - before.uptimeMillis, true, changed, a);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(difference ? "pinwatch difference" : "pinwatch snapshot");
        sb.append(": live ").append(live()).append(", bytes ").append(bytes()).append(", leaked ")
                .append(leaked()).append(", held ").append(held()).append(", references ")
                .append(liveReferences());
        for (Row r : pins) {
            sb.append("\n  ").append(r);
        }
        for (Row r : references) {
            sb.append("\n  ").append(r.kind()).append(' ').append(r);
        }
        return sb.toString();
    }
}
