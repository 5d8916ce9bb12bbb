// SPDX-License-Identifier: Apache-2.0
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
public final class Row extends Figures {
    private final String method, signature, function, kind;
    private final List<Site> sites;

    Row(String method, String signature, String function, String kind, List<Site> sites) {
        super(sites);
        this.method = method;
        this.signature = signature;
        this.function = function;
        this.kind = kind;
        this.sites = java.util.Collections.unmodifiableList(sites);
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
     * The row's call sites, the most live bytes first.
     *
     * @return the sites
     */
    public List<Site> sites() {
        return sites;
    }

    @Override
    public String toString() {
        return method + signature + " " + function + ": " + figuresText();
    }
}
