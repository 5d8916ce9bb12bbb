/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * pinwatch example: the Java side of a toy training runtime.
 */
package ai.example;

import java.util.Locale;
import java.util.Random;

/**
 * A training loop over the JNI bindings of a small native runtime.
 *
 * <p>Every step uploads a batch ({@link #createTensor}), runs {@link #evalStep} and reads the
 * outputs back ({@link #readTensor}). Every {@value #VALIDATE_EVERY}th step is a validation step
 * that asks for three outputs (loss, predictions, accuracy) instead of the loss alone. In
 * {@code libtrain_jni} that multi-output path returns without releasing the input-handle array
 * it pinned with {@code GetLongArrayElements}: the results stay correct, only native memory
 * grows, so no functional test notices. {@code libtrain_jni_fixed} is the same runtime with the
 * release in place.
 *
 * <p>The library is chosen with {@code -Dtrain.lib=NAME} (default {@code train_jni}): a bare
 * name is looked up on {@code java.library.path}, a path containing '/' is loaded as is.
 */
public final class TrainingSession implements AutoCloseable {
    static {
        String lib = System.getProperty("train.lib", "train_jni");
        if (lib.indexOf('/') >= 0) {
            System.load(lib);
        } else {
            System.loadLibrary(lib);
        }
    }

    static final int DEFAULT_STEPS = 3000;
    static final int BATCH = 64;
    static final int VALIDATE_EVERY = 4;

    /* Native runtime.  Tensors and sessions are native objects passed around as handles. */
    private static native long createSession(String name, float learningRate);
    private static native void closeSession(long session);
    /** How many outputs the next {@link #evalStep} produces: 1 (loss) or 3. */
    private static native void setOutputCount(long session, int count);
    private static native long createTensor(float[] values);
    private static native void readTensor(long tensor, float[] dst);
    private static native void freeTensor(long tensor);
    /**
     * One forward/backward step on {@code inputs = {features, labels}}; returns the handles of
     * the output tensors, {loss} or {loss, predictions, accuracy}, owned by the caller.
     */
    private static native long[] evalStep(long session, long[] inputs);

    private final long handle;

    TrainingSession(String name, float learningRate) {
        handle = createSession(name, learningRate);
    }

    /** Runs one step; when {@code validate}, also returns the accuracy (else NaN). */
    float[] step(float[] features, float[] labels, boolean validate) {
        long x = createTensor(features);
        long y = createTensor(labels);
        try {
            setOutputCount(handle, validate ? 3 : 1);
            long[] outputs = evalStep(handle, new long[] {x, y});
            try {
                float[] loss = new float[1];
                readTensor(outputs[0], loss);
                float accuracy = Float.NaN;
                if (validate) {
                    float[] predictions = new float[features.length];
                    readTensor(outputs[1], predictions);
                    float[] acc = new float[1];
                    readTensor(outputs[2], acc);
                    accuracy = acc[0];
                }
                return new float[] {loss[0], accuracy};
            } finally {
                for (long out : outputs) {
                    freeTensor(out);
                }
            }
        } finally {
            freeTensor(x);
            freeTensor(y);
        }
    }

    @Override
    public void close() {
        closeSession(handle);
    }

    public static void main(String[] args) {
        int steps = DEFAULT_STEPS;
        if (args.length > 1) {
            usage();
        }
        if (args.length == 1) {
            try {
                steps = Integer.parseInt(args[0]);
            } catch (NumberFormatException e) {
                usage();
            }
            if (steps < 0) {
                usage();
            }
        }

        /* A fixed seed: every run does the same work, so leak counts are reproducible. */
        Random random = new Random(42);
        float[] features = new float[BATCH];
        float[] labels = new float[BATCH];
        float loss = Float.NaN;
        float accuracy = Float.NaN;
        int validations = 0;
        try (TrainingSession session = new TrainingSession("linear-regression", 0.1f)) {
            for (int i = 1; i <= steps; i++) {
                for (int j = 0; j < BATCH; j++) {
                    features[j] = random.nextFloat();
                    labels[j] = 3.0f * features[j] + 0.5f + 0.01f * (float) random.nextGaussian();
                }
                boolean validate = i % VALIDATE_EVERY == 0;
                float[] result = session.step(features, labels, validate);
                loss = result[0];
                if (validate) {
                    accuracy = result[1];
                    validations++;
                }
            }
        }
        System.out.printf(Locale.ROOT,
                "trained %d steps (%d validation steps): loss %.6f, accuracy %.3f%n",
                steps, validations, loss, accuracy);
    }

    private static void usage() {
        System.err.println("usage: java [-Dtrain.lib=train_jni|train_jni_fixed] "
                + "-jar training.jar [STEPS]   (default " + DEFAULT_STEPS + ")");
        System.exit(2);
    }
}
