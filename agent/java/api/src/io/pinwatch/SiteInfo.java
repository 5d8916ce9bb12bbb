// SPDX-License-Identifier: Apache-2.0
package io.pinwatch;

/**
 * What never changes about a site: its row's identity. One instance per
 * site id; sites of one row share one {@code row} key object, so grouping
 * compares references.
 */
final class SiteInfo {
    final String method, signature, function, kind;
    final Object row;

    SiteInfo(String[] about, Object row) {
        method = about[0];
        signature = about[1];
        function = about[2];
        kind = about[3];
        this.row = row;
    }
}
