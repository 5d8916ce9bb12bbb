// SPDX-License-Identifier: Apache-2.0
package pinwatch.real;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.ByteBufferGetStatus;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/**
 * rocksdbjni: RocksDB.multiGetByteBuffers with KEYS direct key buffers, as
 * in rocksdb issue #10980.  The native method under it, RocksDB.multiGet
 * (JJ[J[Ljava/nio/ByteBuffer;[I[I...), pins the key offsets and key lengths
 * (two int[KEYS]) and, before 7.10, never releases them.
 */
public final class RocksMultiGet {
    static final int KEYS = 7;

    public static void main(String[] args) throws Exception {
        RocksDB.loadLibrary();
        Path dir = Files.createTempDirectory("pw-rocksdb-");
        try (Options options = new Options().setCreateIfMissing(true);
             RocksDB db = RocksDB.open(options, dir.toString())) {
            List<ByteBuffer> keys = new ArrayList<>();
            List<ByteBuffer> values = new ArrayList<>();
            for (int k = 0; k < KEYS; k++) {
                byte[] key = ("key-" + k).getBytes(StandardCharsets.UTF_8);
                db.put(key, ("value-" + k).getBytes(StandardCharsets.UTF_8));
                keys.add(ByteBuffer.allocateDirect(key.length).put(key).flip());
                values.add(ByteBuffer.allocateDirect(16));
            }
            Driver.run(args, i -> {
                long found = 0;
                for (ByteBufferGetStatus status : db.multiGetByteBuffers(keys, values)) {
                    found += status.requiredSize;
                    status.value.clear();
                }
                return found;
            });
        }
    }
}
