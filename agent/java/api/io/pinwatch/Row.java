package io.pinwatch;

import java.util.List;

/**
 * One row of pinwatch's table: the pins one native method took with one
 * acquire function (kind {@code "pin"}), or the references it made of one
 * kind ({@code "global"}, {@code "weak"}, {@code "local"}) with one JNI
 * function, summed over its call sites. The figures are those of the JSON
 * report's row at the same moment. In a difference of two snapshots they
 * are changes and may be negative.
 */
public final class Row {
    private final String method, signature, function, kind;
    private final List<Site> sites;
    private final long live, bytes, leaked, leakedBytes, acquired, released, suppressed;

    Row(String method, String signature, String function, String kind, List<Site> sites) {
        this.method = method;
        this.signature = signature;
        this.function = function;
        this.kind = kind;
        this.sites = java.util.Collections.unmodifiableList(sites);
        long l = 0, b = 0, k = 0, kb = 0, a = 0, r = 0, s = 0;
        for (Site site : sites) {
            l += site.live();
            b += site.bytes();
            k += site.leaked();
            kb += site.leakedBytes();
            a += site.acquired();
            r += site.released();
            s += site.suppressed();
        }
        live = l;
        bytes = b;
        leaked = k;
        leakedBytes = kb;
        acquired = a;
        released = r;
        suppressed = s;
    }

    /**
     * The native method, as {@code package.Class.method}.
     *
     * @return the method's name
     */
    public String method() {
        return method;
    }

    /**
     * The native method's JNI signature, for example {@code ([J)V}.
     *
     * @return the signature
     */
    public String signature() {
        return signature;
    }

    /**
     * The acquire function ({@code GetLongArrayElements}, ...) or, for
     * references, the JNI function that made them.
     *
     * @return the function's name
     */
    public String function() {
        return function;
    }

    /**
     * {@code "pin"}, or the kind of reference: {@code "global"},
     * {@code "weak"} or {@code "local"}.
     *
     * @return the kind
     */
    public String kind() {
        return kind;
    }

    /**
     * Whether this is a row of references rather than pins.
     *
     * @return {@code true} for references
     */
    public boolean isReference() {
        return !"pin".equals(kind);
    }

    /**
     * Live pins (or references).
     *
     * @return the count
     */
    public long live() {
        return live;
    }

    /**
     * Bytes of the live pins.
     *
     * @return the bytes
     */
    public long bytes() {
        return bytes;
    }

    /**
     * Live pins whose native method returned without releasing them.
     *
     * @return the count
     */
    public long leaked() {
        return leaked;
    }

    /**
     * Bytes of the leaked pins.
     *
     * @return the bytes
     */
    public long leakedBytes() {
        return leakedBytes;
    }

    /**
     * Live pins whose native method is still running.
     *
     * @return the count
     */
    public long held() {
        return live - leaked;
    }

    /**
     * Pins taken (references made) since the agent started.
     *
     * @return the count
     */
    public long acquired() {
        return acquired;
    }

    /**
     * Pins released (references deleted) since the agent started.
     *
     * @return the count
     */
    public long released() {
        return released;
    }

    /**
     * Live pins that a suppression rule covers.
     *
     * @return the count
     */
    public long suppressed() {
        return suppressed;
    }

    /**
     * The row's call sites, the most live bytes first.
     *
     * @return the sites
     */
    public List<Site> sites() {
        return sites;
    }

    @Override
    public String toString() {
        return method + signature + " " + function + ": live " + live + ", bytes " + bytes + ", leaked " + leaked
                + ", held " + held() + ", acquired " + acquired + ", released " + released;
    }
}
