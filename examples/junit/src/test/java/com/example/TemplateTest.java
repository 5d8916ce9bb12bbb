// SPDX-License-Identifier: Apache-2.0
package com.example;

import io.pinwatch.junit.PinwatchCheck;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each invocation of a template and each dynamic test is checked alone: a
 * leak in one of them fails that one, named as JUnit names it.
 */
@PinwatchCheck
class TemplateTest {
    @ParameterizedTest
    @ValueSource(ints = {3, 4, 5})
    void param(int n) {
        if (n == 4) {
            Checksum.sumLeaky(new long[n]); // fails param(int)[2] alone: 32 bytes
        } else {
            Checksum.sumFixed(new long[n]);
        }
    }

    @RepeatedTest(3)
    void repeated(RepetitionInfo info) {
        if (info.getCurrentRepetition() == 3) {
            Checksum.sumLeaky(new long[6]); // fails repetition 3 alone: 48 bytes
        } else {
            Checksum.sumFixed(new long[6]);
        }
    }

    @TestFactory
    Stream<DynamicTest> dynamic() {
        return Stream.of(
                DynamicTest.dynamicTest("first", () -> Checksum.sumFixed(new long[7])),
                DynamicTest.dynamicTest("second", () -> Checksum.sumLeaky(new long[7])), // fails: 56 bytes
                DynamicTest.dynamicTest("third", () -> Checksum.sumFixed(new long[7])));
    }
}
