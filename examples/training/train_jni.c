/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * train_jni.c — JNI bindings of a toy training runtime (libtrain_jni.so, and
 * libtrain_jni_fixed.so built from this file with TRAIN_JNI_FIXED defined).
 *
 * This is pinwatch's example of a pin leak, modelled on a real bug in a machine-learning
 * runtime's Java training API: evalStep() pins the long[] of tensor handles with
 * GetLongArrayElements, and its multi-output path returns before the matching
 * ReleaseLongArrayElements.  Results stay correct, so no functional test notices; every
 * validation step leaks one copy of the array (HotSpot copies it to the C heap).
 *
 * The fix is the one #ifdef TRAIN_JNI_FIXED in evalStep(): release on the path that
 * returns early too.
 */
#include <jni.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ai_example_TrainingSession.h"

enum { MAX_OUTPUTS = 3 };

struct tensor {
	jsize len;
	float data[];
};

struct session {
	char name[64];
	float weight;
	float bias;
	float learning_rate;
	int n_outputs;	/* outputs of the next evalStep: 1 (loss) or 3 (+ predictions, accuracy) */
};

static jlong
to_handle(void *p)
{
	return (jlong)(intptr_t)p;
}

static void *
from_handle(jlong handle)
{
	return (void *)(intptr_t)handle;
}

static void
throw_new(JNIEnv *env, const char *class_name, const char *message)
{
	jclass cls = (*env)->FindClass(env, class_name);

	/* If even the exception class is missing, FindClass left an error pending. */
	if (cls != NULL)
		(*env)->ThrowNew(env, cls, message);
}

static struct tensor *
tensor_new(jsize len)
{
	struct tensor *t = malloc(sizeof(*t) + (size_t)len * sizeof(t->data[0]));

	if (t != NULL)
		t->len = len;
	return t;
}

static struct tensor *
tensor_scalar(float value)
{
	struct tensor *t = tensor_new(1);

	if (t != NULL)
		t->data[0] = value;
	return t;
}

/* predictions = weight * x + bias */
static struct tensor *
model_forward(const struct session *s, const struct tensor *x)
{
	struct tensor *pred = tensor_new(x->len);

	if (pred == NULL)
		return NULL;
	for (jsize i = 0; i < x->len; i++)
		pred->data[i] = s->weight * x->data[i] + s->bias;
	return pred;
}

/* Mean squared error of pred against y; one gradient-descent step on the model. */
static float
model_backward(struct session *s, const struct tensor *x, const struct tensor *pred,
	       const struct tensor *y)
{
	float loss = 0.0f, grad_w = 0.0f, grad_b = 0.0f;

	for (jsize i = 0; i < x->len; i++) {
		float err = pred->data[i] - y->data[i];

		loss += err * err;
		grad_w += 2.0f * err * x->data[i];
		grad_b += 2.0f * err;
	}
	if (x->len > 0) {
		s->weight -= s->learning_rate * grad_w / (float)x->len;
		s->bias -= s->learning_rate * grad_b / (float)x->len;
		loss /= (float)x->len;
	}
	return loss;
}

/* Fraction of predictions within 0.05 of the label. */
static float
model_accuracy(const struct tensor *pred, const struct tensor *y)
{
	jsize hits = 0;

	for (jsize i = 0; i < pred->len; i++) {
		float err = pred->data[i] - y->data[i];

		if (err > -0.05f && err < 0.05f)
			hits++;
	}
	return pred->len > 0 ? (float)hits / (float)pred->len : 0.0f;
}

static void
free_outputs(jlong *outputs, jsize n)
{
	for (jsize i = 0; i < n; i++)
		free(from_handle(outputs[i]));
}

/* Hands the output tensors to Java as a long[]; frees them if that fails. */
static jlongArray
outputs_to_java(JNIEnv *env, jlong *outputs, jsize n)
{
	jlongArray result = (*env)->NewLongArray(env, n);

	if (result == NULL) {
		free_outputs(outputs, n);
		return NULL;
	}
	(*env)->SetLongArrayRegion(env, result, 0, n, outputs);
	return result;
}

JNIEXPORT jlong JNICALL
Java_ai_example_TrainingSession_createSession(JNIEnv *env, jclass cls, jstring name,
					      jfloat learning_rate)
{
	struct session *s = calloc(1, sizeof(*s));
	const char *utf;

	(void)cls;

	if (s == NULL) {
		throw_new(env, "java/lang/OutOfMemoryError", "training session");
		return 0;
	}
	utf = (*env)->GetStringUTFChars(env, name, NULL);
	if (utf == NULL) {
		free(s);
		return 0;
	}
	strncpy(s->name, utf, sizeof(s->name) - 1);
	(*env)->ReleaseStringUTFChars(env, name, utf);
	s->learning_rate = learning_rate;
	s->n_outputs = 1;
	return to_handle(s);
}

JNIEXPORT void JNICALL
Java_ai_example_TrainingSession_closeSession(JNIEnv *env, jclass cls, jlong session)
{
	(void)env;
	(void)cls;
	free(from_handle(session));
}

JNIEXPORT void JNICALL
Java_ai_example_TrainingSession_setOutputCount(JNIEnv *env, jclass cls, jlong session,
					       jint count)
{
	struct session *s = from_handle(session);

	(void)cls;

	if (count != 1 && count != MAX_OUTPUTS) {
		throw_new(env, "java/lang/IllegalArgumentException", "output count must be 1 or 3");
		return;
	}
	s->n_outputs = count;
}

JNIEXPORT jlong JNICALL
Java_ai_example_TrainingSession_createTensor(JNIEnv *env, jclass cls, jfloatArray values)
{
	jsize len = (*env)->GetArrayLength(env, values);
	struct tensor *t = tensor_new(len);
	jfloat *elems;

	(void)cls;

	if (t == NULL) {
		throw_new(env, "java/lang/OutOfMemoryError", "tensor");
		return 0;
	}
	elems = (*env)->GetFloatArrayElements(env, values, NULL);
	if (elems == NULL) {
		free(t);
		return 0;
	}
	memcpy(t->data, elems, (size_t)len * sizeof(t->data[0]));
	/* Only read: JNI_ABORT spares the copy-back. */
	(*env)->ReleaseFloatArrayElements(env, values, elems, JNI_ABORT);
	return to_handle(t);
}

JNIEXPORT void JNICALL
Java_ai_example_TrainingSession_readTensor(JNIEnv *env, jclass cls, jlong tensor,
					   jfloatArray dst)
{
	const struct tensor *t = from_handle(tensor);
	jsize len = (*env)->GetArrayLength(env, dst);
	void *elems;

	(void)cls;

	if (len > t->len)
		len = t->len;
	/* A plain memcpy and no JNI call inside: what critical regions are for. */
	elems = (*env)->GetPrimitiveArrayCritical(env, dst, NULL);
	if (elems == NULL)
		return;
	memcpy(elems, t->data, (size_t)len * sizeof(t->data[0]));
	(*env)->ReleasePrimitiveArrayCritical(env, dst, elems, 0);
}

JNIEXPORT void JNICALL
Java_ai_example_TrainingSession_freeTensor(JNIEnv *env, jclass cls, jlong tensor)
{
	(void)env;
	(void)cls;
	free(from_handle(tensor));
}

JNIEXPORT jlongArray JNICALL
Java_ai_example_TrainingSession_evalStep(JNIEnv *env, jclass cls, jlong session,
					 jlongArray inputs)
{
	struct session *s = from_handle(session);
	jlong outputs[MAX_OUTPUTS];
	jsize n_outputs = 0;
	const struct tensor *x, *y;
	struct tensor *pred, *loss;
	jlong *handles;

	(void)cls;

	if ((*env)->GetArrayLength(env, inputs) != 2) {
		throw_new(env, "java/lang/IllegalArgumentException", "inputs must be {features, labels}");
		return NULL;
	}
	handles = (*env)->GetLongArrayElements(env, inputs, NULL);
	if (handles == NULL)
		return NULL;
	x = from_handle(handles[0]);
	y = from_handle(handles[1]);
	if (x->len != y->len) {
		(*env)->ReleaseLongArrayElements(env, inputs, handles, JNI_ABORT);
		throw_new(env, "java/lang/IllegalArgumentException", "features and labels differ in length");
		return NULL;
	}

	pred = model_forward(s, x);
	loss = pred != NULL ? tensor_scalar(model_backward(s, x, pred, y)) : NULL;
	if (loss == NULL) {
		free(pred);
		(*env)->ReleaseLongArrayElements(env, inputs, handles, JNI_ABORT);
		throw_new(env, "java/lang/OutOfMemoryError", "evalStep outputs");
		return NULL;
	}
	outputs[n_outputs++] = to_handle(loss);

	if (s->n_outputs > 1) {
		/* Validation step: the predictions and the accuracy go back to Java too. */
		struct tensor *accuracy = tensor_scalar(model_accuracy(pred, y));

		outputs[n_outputs++] = to_handle(pred);
		if (accuracy == NULL) {
			free_outputs(outputs, n_outputs);
			(*env)->ReleaseLongArrayElements(env, inputs, handles, JNI_ABORT);
			throw_new(env, "java/lang/OutOfMemoryError", "evalStep outputs");
			return NULL;
		}
		outputs[n_outputs++] = to_handle(accuracy);
#ifdef TRAIN_JNI_FIXED
		/* The fix: this path releases the handles too before it returns. */
		(*env)->ReleaseLongArrayElements(env, inputs, handles, JNI_ABORT);
#else
		/* BUG: returns with `handles` still pinned; the release below is skipped. */
#endif
		return outputs_to_java(env, outputs, n_outputs);
	}

	free(pred);
	(*env)->ReleaseLongArrayElements(env, inputs, handles, JNI_ABORT);
	return outputs_to_java(env, outputs, n_outputs);
}
