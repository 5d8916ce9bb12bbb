package io.pinwatch;

/**
 * One call site of a {@link Row}: the place in native code where its pins
 * were taken or its references made. In a difference of two snapshots
 * ({@link Snapshot#minus(Snapshot)}) the figures are changes and may be
 * negative.
 */
public final class Site {
    private final int id;
    private final long live, bytes, leaked, leakedBytes, acquired, released, suppressed;

    Site(int id, long live, long bytes, long leaked, long leakedBytes, long acquired, long released,
            long suppressed) {
        this.id = id;
        this.live = live;
        this.bytes = bytes;
        this.leaked = leaked;
        this.leakedBytes = leakedBytes;
        this.acquired = acquired;
        this.released = released;
        this.suppressed = suppressed;
    }

    /**
     * The agent's id of the site, the same in every snapshot of this JVM.
     *
     * @return the id
     */
    public int id() {
        return id;
    }

    /**
     * Live pins (or live references) taken here.
     *
     * @return the count
     */
    public long live() {
        return live;
    }

    /**
     * Bytes of the live pins taken here (0 for references).
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
     * Pins taken (or references made) here since the agent started.
     *
     * @return the count
     */
    public long acquired() {
        return acquired;
    }

    /**
     * Pins released (or references deleted) here since the agent started.
     *
     * @return the count
     */
    public long released() {
        return released;
    }

    /**
     * Live pins here that a suppression rule ({@code suppress=}) keeps out
     * of findings.
     *
     * @return the count
     */
    public long suppressed() {
        return suppressed;
    }

    /**
     * The call site as pinwatch's text report names it, for example
     * {@code Java_pkg_Cls_leak+0x40 (libnative.so) native.c:12}. Symbolises
     * the address: call it when the text is needed, not in a loop.
     *
     * @return the call site
     * @throws PinwatchNotLoadedException when the agent is not loaded
     */
    public String callSite() {
        return Pinwatch.where(id);
    }

    @Override
    public String toString() {
        return "site " + id + ": live " + live + ", bytes " + bytes + ", leaked " + leaked + ", held " + held()
                + ", acquired " + acquired + ", released " + released;
    }
}
