// SPDX-License-Identifier: Apache-2.0
package io.pinwatch;

import java.util.List;

/**
 * The figures that a {@link Row} and each of its {@link Site}s carry, a row's
 * being the sums of its sites'. For a row of references, "pins" reads
 * "references" and there are no bytes. In a difference of two snapshots
 * ({@link Snapshot#minus(Snapshot)}) the figures are changes and may be
 * negative.
 */
public abstract class Figures {
    private final long live, bytes, leaked, leakedBytes, acquired, released, suppressed;

    Figures(long live, long bytes, long leaked, long leakedBytes, long acquired, long released, long suppressed) {
        this.live = live;
        this.bytes = bytes;
        this.leaked = leaked;
        this.leakedBytes = leakedBytes;
        this.acquired = acquired;
        this.released = released;
        this.suppressed = suppressed;
    }

    /** The sums of the parts' figures. */
    Figures(List<? extends Figures> parts) {
        long l = 0, b = 0, k = 0, kb = 0, a = 0, r = 0, s = 0;
        for (Figures f : parts) {
            l += f.live;
            b += f.bytes;
            k += f.leaked;
            kb += f.leakedBytes;
            a += f.acquired;
            r += f.released;
            s += f.suppressed;
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
     * Live pins (or live references).
     *
     * @return the count
     */
    public long live() {
        return live;
    }

    /**
     * Bytes of the live pins (0 for references).
     *
     * @return the bytes
     */
    public long bytes() {
        return bytes;
    }

    /**
     * Live pins whose native method returned (or whose thread ended)
     * without releasing them.
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
     * Live pins whose native method is still running: {@code live - leaked}.
     *
     * @return the count
     */
    public long held() {
        return live - leaked;
    }

    /**
     * Pins taken (or references made) since the agent started.
     *
     * @return the count
     */
    public long acquired() {
        return acquired;
    }

    /**
     * Pins released (or references deleted) since the agent started.
     *
     * @return the count
     */
    public long released() {
        return released;
    }

    /**
     * Live pins that a suppression rule ({@code suppress=}) keeps out of
     * findings.
     *
     * @return the count
     */
    public long suppressed() {
        return suppressed;
    }

    /** The figures as the subclasses' {@code toString} shows them. */
    String figuresText() {
        return "live " + live + ", bytes " + bytes + ", leaked " + leaked + ", held " + held() + ", acquired "
                + acquired + ", released " + released;
    }
}
