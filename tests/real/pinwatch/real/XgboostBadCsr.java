// SPDX-License-Identifier: Apache-2.0
package pinwatch.real;

import ml.dmlc.xgboost4j.java.DMatrix;
import ml.dmlc.xgboost4j.java.XGBoostError;

/**
 * xgboost4j: a sparse DMatrix from CSR input holding an infinity, as in
 * xgboost issue #10300.  XGDMatrixCreateFromCSR pins the row pointers
 * (long[ROWS + 1]), the column indices (int[NNZ]) and the values
 * (float[NNZ]); XGBoost rejects the infinity, and before 2.1 the JNI code
 * returns the error without releasing the three.  Every call fails: the
 * driver counts the XGBoostErrors and the test compares.
 */
public final class XgboostBadCsr {
    static final int ROWS = 4;
    static final long[] ROW_HEADERS = {0, 2, 3, 5, 6};
    static final int[] COLUMNS = {0, 2, 1, 0, 2, 1};
    static final float[] VALUES = {1f, 2f, Float.POSITIVE_INFINITY, 4f, 5f, 6f};

    public static void main(String[] args) throws Exception {
        Driver.run(args, i -> {
            try {
                new DMatrix(ROW_HEADERS, COLUMNS, VALUES, DMatrix.SparseType.CSR, 3).dispose();
                return 0;
            } catch (XGBoostError e) {
                return 1;
            }
        });
    }
}
