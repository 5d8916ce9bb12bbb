// SPDX-License-Identifier: Apache-2.0
/**
 * The Java API of pinwatch, a JVMTI agent that counts JNI pins and
 * references per Java native method: {@link io.pinwatch.Pinwatch} answers
 * from inside the watched JVM.
 */
package io.pinwatch;
