// SPDX-License-Identifier: Apache-2.0
package io.pinwatch.agent;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.Set;

/**
 * The native agent this jar carries, and the one way to load it into the
 * running JVM: extracted into a directory of this user's own, checked against
 * the jar's hash, loaded with {@link System#load}.  The agent then starts as a
 * late attach would ({@code JNI_OnLoad}), with the options of the system
 * property {@code pinwatch.options}, and says how it went in
 * {@code pinwatch.status}.
 *
 * <p>Extraction is versioned and reused: {@code BASE/VERSION-HASH/libpinwatch.so},
 * HASH being the first 16 hex digits of the library's SHA-256, so that a
 * rebuilt agent of the same version lands in a directory of its own and the
 * file a running JVM has mapped (and its reports symbolise) is never replaced
 * or deleted.  The jar's pinwatch-api.jar goes beside the library, where the
 * agent looks for its Flight Recorder classes.  No other local user can make pinwatch load their code: both
 * directories must be this user's and not writable by group or others, and
 * the file is hashed just before its path is returned; a file that does not
 * match is replaced, never loaded.
 */
public final class AgentLibrary {
    private static final String RESOURCES = "/io/pinwatch/agent/";
    private static final String LIBRARY = "libpinwatch.so";
    private static final String API_JAR = "pinwatch-api.jar";
    private static final List<String> PLATFORMS = Collections.unmodifiableList(
            java.util.Arrays.asList("linux-x86_64", "linux-aarch64"));
    private static final String EXTRACT_DIR = "pinwatch.extract.dir";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_READ_EXEC = PosixFilePermissions.fromString("r-x------");
    private static final Set<PosixFilePermission> OWNER_READ = PosixFilePermissions.fromString("r--------");

    private AgentLibrary() {
    }

    /**
     * The version this jar was built as, which is the version of the agent it carries.
     *
     * @return the version, such as {@code 0.1.0}
     */
    public static String version() {
        Properties p = new Properties();
        try (InputStream in = AgentLibrary.class.getResourceAsStream(RESOURCES + "agent.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new IllegalStateException("pinwatch-agent: cannot read its agent.properties: " + e.getMessage(), e);
        }
        String v = p.getProperty("version");
        if (v == null || v.isEmpty() || v.startsWith("${")) {
            throw new IllegalStateException("pinwatch-agent: this jar was built without its version (agent.properties)");
        }
        return v;
    }

    /**
     * This machine's platform, as the jar names its agents.
     *
     * @return {@code linux-x86_64} or {@code linux-aarch64}
     * @throws IllegalStateException on any other system, naming its {@code os.name} and {@code os.arch}
     */
    public static String platform() {
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        if (os.equals("Linux")) {
            if (arch.equals("amd64") || arch.equals("x86_64")) {
                return "linux-x86_64";
            }
            if (arch.equals("aarch64")) {
                return "linux-aarch64";
            }
        }
        throw new IllegalStateException("pinwatch has no agent for os.name=" + os + ", os.arch=" + arch
                + " (it runs on linux-x86_64 and linux-aarch64)");
    }

    /**
     * The platforms this jar carries an agent for.  A jar made by an ordinary
     * build carries its machine's; a release jar carries both.
     *
     * @return a subset of {@code linux-x86_64}, {@code linux-aarch64}
     */
    public static List<String> platforms() {
        List<String> have = new ArrayList<>();
        for (String p : PLATFORMS) {
            if (AgentLibrary.class.getResource(RESOURCES + p + "/" + LIBRARY) != null) {
                have.add(p);
            }
        }
        return Collections.unmodifiableList(have);
    }

    /**
     * Whether a pinwatch agent already runs in this JVM, loaded by any route
     * ({@code -agentpath}, {@code -javaagent}, an attach, {@link #load}).
     *
     * @return true when the system property {@code pinwatch.agent} is set
     */
    public static boolean running() {
        return System.getProperty("pinwatch.agent") != null;
    }

    /**
     * Where {@link #load} extracts the agent: the system property
     * {@code pinwatch.extract.dir} when set, else
     * {@code $XDG_CACHE_HOME/pinwatch}, else {@code ~/.cache/pinwatch}.  Not
     * the temporary directory: it is shared by every user, and often mounted
     * {@code noexec} on hardened hosts.
     *
     * @return an absolute path, which need not exist yet
     */
    public static Path defaultDirectory() {
        String dir = System.getProperty(EXTRACT_DIR);
        if (dir != null && !dir.isEmpty()) {
            return Paths.get(dir).toAbsolutePath();
        }
        // The XDG specification: a relative value is invalid and ignored.
        String cache = System.getenv("XDG_CACHE_HOME");
        Path base = cache != null && !cache.isEmpty() && Paths.get(cache).isAbsolute()
                ? Paths.get(cache) : Paths.get(System.getProperty("user.home"), ".cache");
        return base.resolve("pinwatch").toAbsolutePath();
    }

    /**
     * Extracts this platform's agent under {@code base}, or finds it there
     * from an earlier JVM: {@code base/VERSION-HASH/libpinwatch.so}.  Both
     * directories are created {@code 0700} and refused when they are not this
     * user's own or are writable by group or others; the file is written under
     * a temporary name in its directory and renamed, never deleted; its SHA-256
     * is checked against the jar's just before the path is returned, and a
     * file that does not match (planted, damaged, half-written) is replaced.
     * The jar's {@code pinwatch-api.jar} is placed beside it the same way.
     *
     * @param base the directory to extract under, such as {@link #defaultDirectory()}
     * @return the library's absolute path, its content the jar's
     * @throws IOException with a one-line message: no agent for this platform in
     *     the jar, a directory that cannot be used, a failed write
     */
    public static synchronized Path extract(Path base) throws IOException {
        String platform;
        try {
            platform = platform();
        } catch (IllegalStateException e) {
            throw new IOException(e.getMessage(), e);
        }
        String resource = RESOURCES + platform + "/" + LIBRARY;
        String expected = expectedHash(resource, platform);
        Path dir = ownDirectory(base.toAbsolutePath().normalize(), true);
        Path versioned = ownDirectory(dir.resolve(version() + "-" + expected.substring(0, 16)), false);
        Path lib = versioned.resolve(LIBRARY);
        // Two JVMs extracting at once would each rename a complete copy over
        // the other's; the lock makes the second find the first's instead.
        try (FileChannel lockFile = FileChannel.open(versioned.resolve(".lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            FileLock lock = null;
            try {
                lock = lockFile.lock();
            } catch (OverlappingFileLockException e) {
                // This JVM holds it already (another class loader's copy of this class).
            }
            try {
                place(resource, expected, lib, OWNER_READ_EXEC);
                // The agent's Flight Recorder thread runs io.pinwatch.jfr.Recorder from the
                // pinwatch-api.jar beside it (on the class path it appends to): checked the same way.
                try (InputStream in = AgentLibrary.class.getResourceAsStream(RESOURCES + API_JAR + ".sha256")) {
                    if (in != null) {
                        place(RESOURCES + API_JAR, hashIn(in, RESOURCES + API_JAR), versioned.resolve(API_JAR), OWNER_READ);
                    }
                }
            } finally {
                if (lock != null) {
                    lock.release();
                }
            }
        }
        return lib;
    }

    /**
     * Loads the agent into this JVM unless one runs already: {@link #extract}
     * into {@link #defaultDirectory()}, the system property
     * {@code pinwatch.options} set to {@code options}, {@link System#load},
     * then the agent's {@code pinwatch.status} read.  On JDK 24 and later,
     * unless native access is enabled for this class's module, one line on
     * stderr says what to add ({@code --enable-native-access=ALL-UNNAMED}) to
     * quiet the JDK's warning about {@code System.load}.
     *
     * <p>Pins and references taken before this call are not counted: the
     * agent starts as a late attach does.
     *
     * @param options pinwatch's options, as after {@code -agentpath:...=}; null
     *     leaves {@code pinwatch.options} as it is (unset: the defaults)
     * @return the loaded library's path, or the running agent's
     * @throws AgentLoadException with a one-line message: no agent for this
     *     platform, a directory it cannot use, a {@code noexec} file system (it
     *     names the directory and {@code -Dpinwatch.extract.dir}), or the
     *     agent's own line when it refused to start
     */
    public static synchronized Path load(String options) {
        String running = System.getProperty("pinwatch.agent");
        if (running != null) {
            return Paths.get(running);
        }
        Path lib;
        try {
            lib = extract(defaultDirectory());
        } catch (IOException e) {
            throw new AgentLoadException(oneLine(e.getMessage()), e);
        }
        String mount = noexecMount(lib.getParent());
        if (mount != null) {
            throw noexec(lib, mount);
        }
        nativeAccessHint();
        if (options != null) {
            System.setProperty("pinwatch.options", options);
        }
        try {
            System.load(lib.toString());
        } catch (UnsatisfiedLinkError e) {
            String why = String.valueOf(e.getMessage());
            // glibc's words for a mapping that PROT_EXEC is refused on.
            if (why.contains("failed to map segment")) {
                throw noexec(lib, null);
            }
            throw new AgentLoadException("pinwatch cannot load its agent: System.load(" + lib + ") failed: " + oneLine(why), e);
        } catch (IllegalCallerException e) {
            throw new AgentLoadException("the JVM denies native access to " + AgentLibrary.class.getName()
                    + ": add --enable-native-access=" + moduleName() + " to its options", e);
        }
        String status = System.getProperty("pinwatch.status");
        if ("started".equals(status)) {
            return lib;
        }
        if (status != null && status.startsWith("running ")) {
            return Paths.get(status.substring("running ".length()));
        }
        if (status != null && status.startsWith("failed: ")) {
            throw new AgentLoadException("pinwatch did not start: " + oneLine(status.substring("failed: ".length())));
        }
        throw new AgentLoadException("pinwatch's agent " + lib + " was loaded but did not start (pinwatch.status "
                + (status == null ? "unset" : "'" + oneLine(status) + "'") + ")");
    }

    private static AgentLoadException noexec(Path lib, String mount) {
        return new AgentLoadException("pinwatch cannot load its agent from " + lib.getParent()
                + ": the file system there" + (mount == null ? "" : " (" + mount + ")")
                + " is mounted noexec; choose another directory with -Dpinwatch.extract.dir=DIR");
    }

    /** The JDK 24+ line, unless native access is already enabled for this module. */
    private static void nativeAccessHint() {
        if (Runtime.version().feature() < 24) {
            return;
        }
        try {
            Method enabled = Module.class.getMethod("isNativeAccessEnabled");
            if (Boolean.TRUE.equals(enabled.invoke(AgentLibrary.class.getModule()))) {
                return;
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            return;
        }
        System.err.println("[pinwatch] INFO the JDK warns that pinwatch loads its agent with System.load: add "
                + "--enable-native-access=" + moduleName() + " to the JVM's options (Maven Surefire: its argLine)");
    }

    private static String moduleName() {
        Module m = AgentLibrary.class.getModule();
        return m.isNamed() ? m.getName() : "ALL-UNNAMED";
    }

    /**
     * The mount point of {@code dir}'s file system when it is mounted
     * {@code noexec} (/proc/self/mountinfo: the last, topmost mount of the
     * longest matching mount point), else null, also when it cannot be told.
     */
    private static String noexecMount(Path dir) {
        String path;
        try {
            path = dir.toRealPath().toString();
        } catch (IOException e) {
            return null;
        }
        String best = null;
        boolean bestNoexec = false;
        try (BufferedReader r = Files.newBufferedReader(Paths.get("/proc/self/mountinfo"), StandardCharsets.UTF_8)) {
            for (String line; (line = r.readLine()) != null;) {
                String[] f = line.split(" ");
                if (f.length < 6) {
                    continue;
                }
                String point = unescape(f[4]);
                boolean under = path.equals(point) || point.equals("/")
                        || path.startsWith(point.endsWith("/") ? point : point + "/");
                if (under && (best == null || point.length() >= best.length())) {
                    best = point;
                    bestNoexec = (',' + f[5] + ',').contains(",noexec,");
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return bestNoexec ? best : null;
    }

    /** mountinfo's octal escapes (\040 for a space). */
    private static String unescape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 3 < s.length()) {
                try {
                    b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                    i += 3;
                    continue;
                } catch (NumberFormatException e) {
                    // not an escape: the backslash as it is
                }
            }
            b.append(c);
        }
        return b.toString();
    }

    /** The jar's hash of the resource, from the .sha256 file the build wrote beside it. */
    private static String expectedHash(String resource, String platform) throws IOException {
        try (InputStream in = AgentLibrary.class.getResourceAsStream(resource + ".sha256")) {
            if (in == null || AgentLibrary.class.getResource(resource) == null) {
                throw new IOException("this pinwatch-agent jar has no agent for " + platform
                        + " (it has: " + (platforms().isEmpty() ? "none" : String.join(", ", platforms())) + ")");
            }
            return hashIn(in, resource);
        }
    }

    /** The hash a .sha256 resource holds (Ant's checksum format: the hex digits, a newline). */
    private static String hashIn(InputStream in, String resource) throws IOException {
        String text = new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
        String hash = text.split("\\s+")[0].toLowerCase(java.util.Locale.ROOT);
        if (!hash.matches("[0-9a-f]{64}")) {
            throw new IOException(resource + ".sha256 in the pinwatch-agent jar is not a SHA-256: '" + oneLine(text) + "'");
        }
        return hash;
    }

    /**
     * {@code dir} made when absent ({@code 0700}; its parents as the umask
     * says, when {@code parents}) and checked: a real directory (the base may
     * be reached through a symbolic link, the versioned one may not be one),
     * this user's, not writable by group or others.  No ancestor may be
     * writable by others without the sticky bit (/tmp has it), since whoever
     * can write there can rename the directory away and put theirs instead.
     */
    private static Path ownDirectory(Path dir, boolean parents) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            if (parents && dir.getParent() != null) {
                Files.createDirectories(dir.getParent());
            }
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            } catch (java.nio.file.FileAlreadyExistsException e) {
                // Another JVM made it meanwhile: checked below like any other.
            }
        }
        Path real = parents ? dir.toRealPath() : dir;
        PosixFileAttributes a = Files.readAttributes(real, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isDirectory()) {
            throw refused(dir, "not a directory" + (a.isSymbolicLink() ? " (a symbolic link)" : ""));
        }
        int owner = uidOf(real);
        int me = myUid();
        if (owner != me && me >= 0) {
            throw refused(dir, "owned by uid " + owner + ", not by this user (uid " + me + ")");
        }
        Set<PosixFilePermission> mode = a.permissions();
        if (mode.contains(PosixFilePermission.GROUP_WRITE) || mode.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw refused(dir, "writable by group or others (" + PosixFilePermissions.toString(mode) + ")");
        }
        for (Path up = real.getParent(); up != null; up = up.getParent()) {
            int m = (Integer) Files.getAttribute(up, "unix:mode");
            if ((m & 0002) != 0 && (m & 01000) == 0) {
                throw refused(dir, "its parent " + up + " is writable by others without the sticky bit");
            }
        }
        return real;
    }

    private static IOException refused(Path dir, String why) {
        return new IOException("pinwatch refuses the extraction directory " + dir + ": " + why
                + "; choose another with -Dpinwatch.extract.dir=DIR");
    }

    private static int uidOf(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    }

    /** The effective uid, from /proc/self/status; -1 when it cannot be read. */
    private static int myUid() {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"), StandardCharsets.UTF_8)) {
                if (line.startsWith("Uid:")) {
                    return Integer.parseInt(line.substring(4).trim().split("\\s+")[1]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // below
        }
        return -1;
    }

    /** {@code target} made the resource's bytes unless it has them already; its hash checked after. */
    private static void place(String resource, String expected, Path target, Set<PosixFilePermission> mode)
            throws IOException {
        if (!expected.equals(hashOf(target))) {
            write(resource, expected, target, mode);
            String got = hashOf(target);
            if (!expected.equals(got)) {
                throw new IOException(target + " has SHA-256 " + got + " after extraction, not the jar's "
                        + expected + ": something else writes into " + target.getParent());
            }
        }
    }

    /** The resource written to a temporary file beside {@code target} and renamed to it. */
    private static void write(String resource, String expected, Path target, Set<PosixFilePermission> mode)
            throws IOException {
        Path tmp = Files.createTempFile(target.getParent(), target.getFileName() + ".", ".tmp",
                PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        try {
            MessageDigest md = sha256();
            try (InputStream in = AgentLibrary.class.getResourceAsStream(resource);
                 FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                if (in == null) {
                    throw new IOException(resource + " vanished from the pinwatch-agent jar");
                }
                byte[] buf = new byte[1 << 16];
                for (int n; (n = in.read(buf)) > 0;) {
                    md.update(buf, 0, n);
                    ByteBuffer bb = ByteBuffer.wrap(buf, 0, n);
                    while (bb.hasRemaining()) {
                        out.write(bb);
                    }
                }
                // The rename must not publish a file whose blocks a crash loses.
                out.force(true);
            }
            String got = hex(md.digest());
            if (!got.equals(expected)) {
                throw new IOException("the pinwatch-agent jar's " + resource + " has SHA-256 " + got
                        + ", not the " + expected + " written beside it: a damaged jar");
            }
            Files.setPosixFilePermissions(tmp, mode);
            // rename(2): replaces whatever had the name (a foreign or damaged
            // file, a link), and a JVM that mapped that file keeps its mapping.
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The SHA-256 of a regular file (not through a link), or null when there is none. */
    private static String hashOf(Path file) throws IOException {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        MessageDigest md = sha256();
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0;) {
                md.update(buf, 0, n);
            }
        }
        return hex(md.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no SHA-256 in this JVM", e);
        }
    }

    private static String hex(byte[] bytes) {
        StringBuilder b = new StringBuilder(bytes.length * 2);
        for (byte x : bytes) {
            b.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
        }
        return b.toString();
    }

    private static String oneLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return (nl < 0 ? s : s.substring(0, nl)).trim();
    }
}
