// SPDX-License-Identifier: Apache-2.0
package com.example;

import io.pinwatch.junit.PinwatchCheck;
import org.junit.jupiter.api.Test;

/**
 * What each test checks, set per test; the class has no annotation, so its
 * tests without one are checked by the auto-detected extension (the pom
 * sets junit.jupiter.extensions.autodetection.enabled) with the defaults.
 */
class ConfigTest {
    @Test
    void autoDetected() {
        Checksum.sumLeaky(new long[2]); // fails: one leaked pin, 16 bytes
    }

    @Test
    @PinwatchCheck(ignore = "com.example.Checksum.sumLeak*")
    void ignored() {
        Checksum.sumLeaky(new long[2]); // passes: the method is ignored
    }

    @Test
    @PinwatchCheck(pinLimit = 1)
    void withinLimit() {
        Checksum.sumLeaky(new long[2]); // passes: one leaked pin is allowed
    }

    @Test
    @PinwatchCheck(pins = false)
    void pinsNotChecked() {
        Checksum.sumLeaky(new long[2]); // passes: pins are not checked
    }

    @Test
    @PinwatchCheck(references = true, referenceLimit = 1)
    void references() {
        Checksum.remember(this); // fails: two new global references, one allowed
        Checksum.remember(this);
    }
}
