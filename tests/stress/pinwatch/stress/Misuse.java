// SPDX-License-Identifier: Apache-2.0
package pinwatch.stress;

/**
 * Releases the agent never handed out, of NULL, and through the wrong family.
 *
 *   Misuse CASE...    unmatched | null-bytes | null-utf | null-chars | wrong-family | elements-as-critical
 *
 * Counts: unmatched 5 (int[211]), null-* 7, wrong-family 9 (long[41]),
 * elements-as-critical 4 (int[59]; only safe with the agent).
 */
public final class Misuse {
    private Misuse() {
    }

    public static void main(String[] args) {
        for (String c : args) {
            switch (c) {
            case "unmatched": Natives.unmatchedCritical(new int[211], 5); break;
            case "null-bytes": Natives.releaseNull(0, new byte[50], 7); break;
            case "null-utf": Natives.releaseNull(1, "pinwatch-null-utf", 7); break;
            case "null-chars": Natives.releaseNull(2, "pinwatch-null-chars", 7); break;
            case "wrong-family": Natives.wrongFamily(new long[41], 9); break;
            case "elements-as-critical": Natives.elementsAsCritical(new int[59], 4); break;
            default: throw new IllegalArgumentException(c);
            }
            // A collection after each case: a critical left open, or a heap
            // block freed wrongly, shows here rather than by luck later.
            System.gc();
            System.out.println("OK " + c);
        }
        System.out.println("DONE");
    }
}
