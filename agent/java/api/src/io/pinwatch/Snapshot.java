// SPDX-License-Identifier: Apache-2.0
package io.pinwatch;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The agent's figures at one moment ({@link Pinwatch#snapshot()}), or the
 * change between two such moments ({@link #minus(Snapshot)}). Immutable.
 */
public final class Snapshot {
    /** References: the most live first, then the most made, as the reports order them; ties by first site. */
    private static final Comparator<Row> BY_LIVE = Snapshot::byLive;
    /** Pins: the most live bytes first, then as references. */
    private static final Comparator<Row> BY_BYTES = (x, y) -> x.bytes() != y.bytes()
            ? Long.compare(y.bytes(), x.bytes()) : byLive(x, y);
    private static final Comparator<Site> SITE_ORDER = (x, y) -> x.bytes() != y.bytes()
            ? Long.compare(y.bytes(), x.bytes())
            : x.live() != y.live() ? Long.compare(y.live(), x.live()) : Integer.compare(x.id(), y.id());

    private static int byLive(Row x, Row y) {
        if (x.live() != y.live()) {
            return Long.compare(y.live(), x.live());
        }
        if (x.acquired() != y.acquired()) {
            return Long.compare(y.acquired(), x.acquired());
        }
        // Then the row's first site: the order the rows first took a pin.
        return Integer.compare(x.sites().get(0).id(), y.sites().get(0).id());
    }

    /** Per site in v: id, live, bytes, leaked, acquired, released, suppressed, leaked bytes. */
    private static final int FIELDS = 8;

    private final long uptimeMillis;
    private final boolean difference;
    private final long[] v;
    private final int offset, stride, n;
    private final SiteInfo[] info;
    private List<Row> pins, references; // made on first use

    Snapshot(long uptimeMillis, long[] v, int offset, int stride, int n, SiteInfo[] info) {
        this(uptimeMillis, false, v, offset, stride, n, info);
    }

    private Snapshot(long uptimeMillis, boolean difference, long[] v, int offset, int stride, int n,
            SiteInfo[] info) {
        this.uptimeMillis = uptimeMillis;
        this.difference = difference;
        this.v = v;
        this.offset = offset;
        this.stride = stride;
        this.n = n;
        this.info = info;
    }

    private long at(int site, int field) {
        return v[offset + site * stride + field];
    }

    private Site site(int i) {
        return new Site((int) at(i, 0), at(i, 1), at(i, 2), at(i, 3), at(i, 7), at(i, 4), at(i, 5), at(i, 6));
    }

    /** Groups the sites into rows, the first time rows are asked for. */
    private synchronized void rows() {
        if (pins != null) {
            return;
        }
        Map<Object, List<Site>> grouped = new IdentityHashMap<>();
        Map<Object, SiteInfo> rowInfo = new IdentityHashMap<>();
        for (int i = 0; i < n; i++) {
            grouped.computeIfAbsent(info[i].row, k -> new ArrayList<>()).add(site(i));
            rowInfo.putIfAbsent(info[i].row, info[i]);
        }
        List<Row> p = new ArrayList<>(), r = new ArrayList<>();
        for (Map.Entry<Object, List<Site>> e : grouped.entrySet()) {
            SiteInfo a = rowInfo.get(e.getKey());
            List<Site> s = e.getValue();
            s.sort(SITE_ORDER);
            Row row = new Row(a.method, a.signature, a.function, a.kind, s);
            (row.isReference() ? r : p).add(row);
        }
        p.sort(BY_BYTES);
        r.sort(BY_LIVE);
        pins = Collections.unmodifiableList(p);
        references = Collections.unmodifiableList(r);
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
        rows();
        return pins;
    }

    /**
     * Rows of JNI references, the most live first.
     *
     * @return the rows
     */
    public List<Row> references() {
        rows();
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
        for (List<Row> rows : List.of(pins(), references())) {
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
        return pins().stream().mapToLong(Row::live).sum();
    }

    /**
     * Bytes of the live pins in all rows.
     *
     * @return the sum
     */
    public long bytes() {
        return pins().stream().mapToLong(Row::bytes).sum();
    }

    /**
     * Leaked pins in all rows.
     *
     * @return the sum
     */
    public long leaked() {
        return pins().stream().mapToLong(Row::leaked).sum();
    }

    /**
     * Held pins in all rows.
     *
     * @return the sum
     */
    public long held() {
        return pins().stream().mapToLong(Row::held).sum();
    }

    /**
     * Live references of all kinds.
     *
     * @return the sum
     */
    public long liveReferences() {
        return references().stream().mapToLong(Row::live).sum();
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
        Map<Integer, Integer> earlier = new HashMap<>();
        for (int i = 0; i < before.n; i++) {
            earlier.put((int) before.at(i, 0), i);
        }
        long[] d = new long[(n + before.n) * FIELDS];
        SiteInfo[] dinfo = new SiteInfo[n + before.n];
        int k = 0;
        for (int i = 0; i < n; i++) {
            Integer j = earlier.remove((int) at(i, 0));
            boolean changed = false;
            d[k * FIELDS] = at(i, 0);
            for (int f = 1; f < FIELDS; f++) {
                d[k * FIELDS + f] = at(i, f) - (j != null ? before.at(j, f) : 0);
                changed |= d[k * FIELDS + f] != 0;
            }
            if (changed) {
                dinfo[k++] = info[i];
            }
        }
        for (int j : earlier.values()) { // sites the later snapshot no longer has
            boolean changed = false;
            d[k * FIELDS] = before.at(j, 0);
            for (int f = 1; f < FIELDS; f++) {
                d[k * FIELDS + f] = -before.at(j, f);
                changed |= d[k * FIELDS + f] != 0;
            }
            if (changed) {
                dinfo[k++] = before.info[j];
            }
        }
        return new Snapshot(uptimeMillis - before.uptimeMillis, true, d, 0, FIELDS, k, dinfo);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(difference ? "pinwatch difference" : "pinwatch snapshot");
        sb.append(": live ").append(live()).append(", bytes ").append(bytes()).append(", leaked ")
                .append(leaked()).append(", held ").append(held()).append(", references ")
                .append(liveReferences());
        for (Row r : pins()) {
            sb.append("\n  ").append(r);
        }
        for (Row r : references()) {
            sb.append("\n  ").append(r.kind()).append(' ').append(r);
        }
        return sb.toString();
    }
}
