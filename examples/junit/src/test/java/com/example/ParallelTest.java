// SPDX-License-Identifier: Apache-2.0
package com.example;

import io.pinwatch.junit.PinwatchCheck;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Two tests that wait for each other, so that under JUnit's parallel
 * execution they certainly overlap: pinwatch refuses to guess which one a
 * pin belongs to and fails both, saying why.  Excluded from the default run.
 */
@Tag("parallel")
@PinwatchCheck
class ParallelTest {
    static final CountDownLatch BOTH = new CountDownLatch(2);

    @Test
    void one() throws InterruptedException {
        BOTH.countDown();
        BOTH.await(3, TimeUnit.SECONDS);
        Checksum.sumFixed(new long[7]);
    }

    @Test
    void two() throws InterruptedException {
        BOTH.countDown();
        BOTH.await(3, TimeUnit.SECONDS);
        Checksum.sumFixed(new long[9]);
    }
}
