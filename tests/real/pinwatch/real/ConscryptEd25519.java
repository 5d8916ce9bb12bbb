// SPDX-License-Identifier: Apache-2.0
package pinwatch.real;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Provider;
import java.security.Signature;
import org.conscrypt.Conscrypt;

/**
 * conscrypt: Ed25519 Signature.sign(), as in conscrypt issue #1519.  The
 * signer buffers the message in a ByteArrayOutputStream and hands its whole
 * backing array to NativeCrypto.EVP_DigestSign, which pins it with
 * GetByteArrayElements and, in 2.6.0, never releases it.  The message is
 * shorter than the stream's initial 32 bytes, so the pinned array is 32.
 */
public final class ConscryptEd25519 {
    static final byte[] MESSAGE = "pinwatch real leak, ed25519".getBytes(StandardCharsets.UTF_8);

    public static void main(String[] args) throws Exception {
        Provider conscrypt = Conscrypt.newProvider();
        KeyPair pair = KeyPairGenerator.getInstance("Ed25519", conscrypt).generateKeyPair();
        Signature signer = Signature.getInstance("Ed25519", conscrypt);
        Driver.run(args, i -> {
            signer.initSign(pair.getPrivate());
            signer.update(MESSAGE);
            return signer.sign().length;
        });
    }
}
