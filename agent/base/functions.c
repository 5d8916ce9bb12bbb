/* SPDX-License-Identifier: Apache-2.0 */
/* The names of the twelve acquire functions, as reports print them. */
#include "base/pinwatch.h"

static const char *const function_names[PW_FN_COUNT] = {
    [PW_FN_BOOLEAN_ELEMENTS] = "GetBooleanArrayElements", [PW_FN_BYTE_ELEMENTS] = "GetByteArrayElements",
    [PW_FN_CHAR_ELEMENTS] = "GetCharArrayElements",       [PW_FN_SHORT_ELEMENTS] = "GetShortArrayElements",
    [PW_FN_INT_ELEMENTS] = "GetIntArrayElements",         [PW_FN_LONG_ELEMENTS] = "GetLongArrayElements",
    [PW_FN_FLOAT_ELEMENTS] = "GetFloatArrayElements",     [PW_FN_DOUBLE_ELEMENTS] = "GetDoubleArrayElements",
    [PW_FN_ARRAY_CRITICAL] = "GetPrimitiveArrayCritical", [PW_FN_STRING_CHARS] = "GetStringChars",
    [PW_FN_STRING_UTF_CHARS] = "GetStringUTFChars",       [PW_FN_STRING_CRITICAL] = "GetStringCritical",
};

const char *
pw_function_name(enum pw_function fn)
{
    return (unsigned)fn < PW_FN_COUNT ? function_names[fn] : "?";
}
