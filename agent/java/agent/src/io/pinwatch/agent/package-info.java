// SPDX-License-Identifier: Apache-2.0
/**
 * pinwatch's native agent inside a jar: {@link io.pinwatch.agent.AgentLibrary}
 * extracts the library for this machine and loads it into the running JVM,
 * and {@link io.pinwatch.agent.Premain} does so for
 * {@code java -javaagent:pinwatch-agent.jar=OPTIONS}.
 */
package io.pinwatch.agent;
