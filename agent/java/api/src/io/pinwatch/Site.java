// SPDX-License-Identifier: Apache-2.0
package io.pinwatch;

/**
 * One call site of a {@link Row}: the place in native code where its pins
 * were taken or its references made. In a difference of two snapshots
 * ({@link Snapshot#minus(Snapshot)}) the figures are changes and may be
 * negative.
 */
public final class Site extends Figures {
    private final int id;

    Site(int id, long live, long bytes, long leaked, long leakedBytes, long acquired, long released,
            long suppressed) {
        super(live, bytes, leaked, leakedBytes, acquired, released, suppressed);
        this.id = id;
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

    /**
     * Whether the call site lies in the JDK's own native code: the JVM and
     * the libraries of the JDK it runs in ({@code java.home/lib}). The
     * JDK's natives keep references of their own, made once on first use
     * (the network interfaces, the zip and file system natives, fonts);
     * the JUnit extension and the text report never count those against a
     * test or a library.
     *
     * @return {@code true} when the JDK's own code made the call
     * @throws PinwatchNotLoadedException when the agent is not loaded
     */
    public boolean jdk() {
        return Pinwatch.jdk(id);
    }

    @Override
    public String toString() {
        return "site " + id + ": " + figuresText();
    }
}
