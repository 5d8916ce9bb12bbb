// SPDX-License-Identifier: Apache-2.0
package com.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinwatch.Pinwatch;
import io.pinwatch.Row;
import io.pinwatch.Site;
import io.pinwatch.Snapshot;
import io.pinwatch.junit.PinwatchCheck;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.GraphicsEnvironment;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.Collections;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import java.util.zip.Inflater;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JDK's first uses of networking, zip, file systems, headless AWT
 * (fonts and graphics) and sun.nio.ch, each in a test checked for
 * references: the references the JDK's natives keep from their first use
 * fail none of them.  A global reference the library under test keeps
 * still fails its test.  Each test prints how many live references the
 * JDK's own code made while it ran ("JDK-REFS name N"), so that the run
 * shows the rule at work.  With -Dpinwatch.dumps=true the class asks for
 * a report before and after its tests (the text report's suspects).
 */
@PinwatchCheck(references = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // networking first, before sun.nio.ch uses it
class JdkFirstUseTest {
    @TempDir
    static Path dir;

    @BeforeAll
    static void before() {
        if (Boolean.getBoolean("pinwatch.dumps") && Pinwatch.isLoaded()) {
            assertTrue(Pinwatch.dump("before JdkFirstUseTest"));
        }
    }

    @AfterAll
    static void after() {
        if (Boolean.getBoolean("pinwatch.dumps") && Pinwatch.isLoaded()) {
            assertTrue(Pinwatch.dump("after JdkFirstUseTest"));
        }
    }

    /** Runs work and prints the live references the JDK's own code made meanwhile. */
    private static void jdkFirstUse(String name, Work work) throws Exception {
        if (!Pinwatch.isLoaded()) {
            // Run unchecked (pinwatch.junit.notLoaded=skip): nothing to count.
            work.run();
            return;
        }
        Snapshot before = Pinwatch.snapshot();
        work.run();
        long jdk = 0;
        for (Row r : Pinwatch.snapshot().minus(before).references()) {
            for (Site s : r.sites()) {
                if (s.live() != 0 && s.jdk()) {
                    jdk += s.live();
                }
            }
        }
        System.out.println("JDK-REFS " + name + " " + jdk);
    }

    interface Work {
        void run() throws Exception;
    }

    @Test
    @Order(1)
    void networking() throws Exception {
        jdkFirstUse("networking", () -> {
            assertTrue(NetworkInterface.getNetworkInterfaces().hasMoreElements());
            InetAddress loopback = InetAddress.getByName("127.0.0.1");
            try (ServerSocket server = new ServerSocket(0, 1, loopback);
                    Socket client = new Socket(loopback, server.getLocalPort());
                    Socket accepted = server.accept()) {
                client.getOutputStream().write(42);
                assertEquals(42, accepted.getInputStream().read());
            }
        });
    }

    @Test
    @Order(2)
    void zip() throws Exception {
        jdkFirstUse("zip", () -> {
            byte[] text = "pinwatch pinwatch pinwatch".getBytes(StandardCharsets.UTF_8);
            Deflater deflater = new Deflater();
            deflater.setInput(text);
            deflater.finish();
            byte[] packed = new byte[128];
            int n = deflater.deflate(packed);
            deflater.end();
            Inflater inflater = new Inflater();
            inflater.setInput(packed, 0, n);
            byte[] unpacked = new byte[text.length];
            assertEquals(text.length, inflater.inflate(unpacked));
            inflater.end();
            CRC32 crc = new CRC32();
            crc.update(unpacked);
            ByteArrayOutputStream gz = new ByteArrayOutputStream();
            try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
                out.write(text);
            }
            try (GZIPInputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(gz.toByteArray()))) {
                assertEquals(text.length, in.readAllBytes().length);
            }
            Path zip = dir.resolve("first.zip");
            try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(zip))) {
                out.putNextEntry(new ZipEntry("a.txt"));
                out.write(text);
            }
            try (ZipFile file = new ZipFile(zip.toFile())) {
                assertEquals(1, file.size());
            }
        });
    }

    @Test
    @Order(3)
    void fileSystems() throws Exception {
        jdkFirstUse("fileSystems", () -> {
            Path file = Files.writeString(dir.resolve("first.txt"), "pinwatch");
            PosixFileAttributes attrs = Files.readAttributes(file, PosixFileAttributes.class);
            assertTrue(attrs.owner().getName().length() > 0);
            // The file store's natives run either way; only where /proc/self/mounts names no mount
            // point above the file (a chroot) does the JDK answer with an IOException.
            try {
                FileStore store = Files.getFileStore(file);
                assertTrue(store.getTotalSpace() > 0);
            } catch (IOException e) {
                assertTrue(e.getMessage().contains("Mount point not found"), e.toString());
            }
            for (FileStore s : FileSystems.getDefault().getFileStores()) {
                s.name();
            }
            Path zip = dir.resolve("fs.zip");
            try (FileSystem zipfs = FileSystems.newFileSystem(
                    java.net.URI.create("jar:" + zip.toUri()), Map.of("create", "true"))) {
                Files.writeString(zipfs.getPath("b.txt"), "pinwatch");
            }
            try (FileSystem jrt = FileSystems.getFileSystem(java.net.URI.create("jrt:/"))) {
                assertTrue(Files.exists(jrt.getPath("modules", "java.base")));
            } catch (UnsupportedOperationException e) {
                // the jrt file system cannot be closed: nothing to do
            }
        });
    }

    @Test
    @Order(4)
    void awtHeadless() throws Exception {
        jdkFirstUse("awtHeadless", () -> {
            System.setProperty("java.awt.headless", "true");
            assertTrue(GraphicsEnvironment.isHeadless());
            BufferedImage image = new BufferedImage(64, 32, BufferedImage.TYPE_INT_ARGB);
            Graphics2D g = image.createGraphics();
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            g.drawString("pinwatch", 1, 20);
            assertTrue(g.getFontMetrics().stringWidth("pinwatch") > 0);
            g.fillRect(0, 0, 8, 8);
            g.dispose();
            assertTrue(GraphicsEnvironment.getLocalGraphicsEnvironment().getAvailableFontFamilyNames().length > 0);
        });
    }

    @Test
    @Order(5)
    void nioChannels() throws Exception {
        jdkFirstUse("nioChannels", () -> {
            try (Selector selector = Selector.open();
                    ServerSocketChannel server = ServerSocketChannel.open()) {
                server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                try (SocketChannel client = SocketChannel.open(server.getLocalAddress());
                        SocketChannel accepted = server.accept()) {
                    client.write(ByteBuffer.wrap(new byte[] {7}));
                    ByteBuffer one = ByteBuffer.allocate(1);
                    assertEquals(1, accepted.read(one));
                    accepted.configureBlocking(false);
                    accepted.register(selector, java.nio.channels.SelectionKey.OP_READ);
                    selector.selectNow();
                }
            }
            try (DatagramChannel datagram = DatagramChannel.open()) {
                datagram.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            }
            Pipe pipe = Pipe.open();
            pipe.sink().close();
            pipe.source().close();
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(
                    Files.writeString(dir.resolve("map.txt"), "pinwatch"))) {
                assertEquals('p', ch.map(java.nio.channels.FileChannel.MapMode.READ_ONLY, 0, 8).get(0));
            }
        });
    }

    @Test
    @Order(6)
    void libraryKeepsGlobal() {
        // The library's own leak still fails, though this class's other
        // tests passed with the JDK's references: one global, by a tail call.
        Checksum.keepGlobal(Collections.emptyList());
    }
}
