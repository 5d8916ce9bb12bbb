/* SPDX-License-Identifier: Apache-2.0 */
/* The foreign library tests/jvm/agent_jar.py plants where pinwatch-agent would extract its
 * agent: were it ever loaded, its JNI_OnLoad would leave the file named by PW_PLANTED_MARKER,
 * which the test asserts is never there. */
#include <fcntl.h>
#include <jni.h>
#include <stdlib.h>
#include <unistd.h>

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved);

JNIEXPORT jint JNICALL
JNI_OnLoad(JavaVM *vm, void *reserved)
{
    const char *marker = getenv("PW_PLANTED_MARKER");
    if (marker != NULL) {
        int fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            (void)!write(fd, "planted\n", 8);
            close(fd);
        }
    }
    return JNI_VERSION_1_8;
}
