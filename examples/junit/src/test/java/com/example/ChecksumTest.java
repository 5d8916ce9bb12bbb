// SPDX-License-Identifier: Apache-2.0
package com.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinwatch.junit.PinwatchCheck;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Every test here is checked by pinwatch: a leaked pin fails it. */
@PinwatchCheck
class ChecksumTest {
    static final long[] DATA = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    static final CountDownLatch FINISH = new CountDownLatch(1);

    @Test
    void leakySum() {
        assertEquals(136, Checksum.sumLeaky(DATA)); // right answer, leaked pin: pinwatch fails it
    }

    @Test
    void fixedSum() {
        assertEquals(136, Checksum.sumFixed(DATA));
    }

    @Test
    void leakyOnAnotherThread() throws InterruptedException {
        // Pins taken on other threads during the test count to the test.
        Thread t = new Thread(() -> Checksum.sumLeaky(new long[3]));
        t.start();
        t.join();
    }

    @Test
    void backgroundCallStillHolding() throws InterruptedException {
        // A call that is still running holds its pin: not this test's leak.
        CountDownLatch inside = new CountDownLatch(1);
        Thread t = new Thread(() -> Checksum.sumWhile(new long[5], () -> {
            inside.countDown();
            try {
                FINISH.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        t.setDaemon(true);
        t.start();
        assertTrue(inside.await(10, TimeUnit.SECONDS));
    }

    @AfterAll
    static void finishBackground() {
        FINISH.countDown();
    }
}
