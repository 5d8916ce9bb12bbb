// SPDX-License-Identifier: Apache-2.0
package io.pinwatch.maven;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The exit reports of the JVMs that ran under prepare-agent's options: every {@code pinwatch-*.json}
 * of a directory (JSON Lines, agent/report/JSON.md), and what they left behind, summed over the JVMs
 * into rows of (native method, function) with their call sites, as the JUnit extension's tables.
 */
final class Reports {
    /** One JVM: its file, its pid, its last report (normally reason "exit"). */
    static final class Jvm {
        final Path file;
        final long pid;
        final Map<String, Object> last;

        Jvm(Path file, long pid, Map<String, Object> last) {
            this.file = file;
            this.pid = pid;
            this.last = last;
        }

        boolean exited() {
            return "exit".equals(last.get("reason"));
        }
    }

    /** A row of the table: a native method and a JNI function, its count and its sites' counts. */
    static final class Row {
        final String method;
        final String function;
        final String kind;
        long count;
        long bytes;
        /** Call site to {live, live bytes}. */
        final Map<String, long[]> sites = new LinkedHashMap<>();

        Row(String method, String function, String kind) {
            this.method = method;
            this.function = function;
            this.kind = kind;
        }

        void site(String where, long n, long nbytes) {
            long[] v = sites.computeIfAbsent(where, k -> new long[2]);
            v[0] += n;
            v[1] += nbytes;
        }
    }

    final List<Jvm> jvms = new ArrayList<>();

    private Reports() {
    }

    /** Every JVM of every pinwatch-*.json of dir (none when dir does not exist). */
    static Reports read(Path dir) throws IOException {
        Reports r = new Reports();
        if (!Files.isDirectory(dir))
            return r;
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "pinwatch-*.json")) {
            s.forEach(files::add);
        }
        Collections.sort(files);
        for (Path f : files) {
            List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
            // A file is one JVM's (file=...-%p), or several if a pid came round again: an exit
            // report ends a JVM, and what follows it is the next one's.
            Map<String, Object> last = null;
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).isBlank())
                    continue;
                Map<String, Object> report;
                try {
                    report = asMap(Json.parse(lines.get(i)));
                } catch (IllegalArgumentException e) {
                    throw new IOException(f + ":" + (i + 1) + ": not a pinwatch JSON report: " + e.getMessage(), e);
                }
                if (!"pinwatch".equals(report.get("tool")))
                    throw new IOException(f + ":" + (i + 1) + ": not a pinwatch JSON report (no \"tool\":\"pinwatch\")");
                last = report;
                if ("exit".equals(report.get("reason"))) {
                    r.jvms.add(new Jvm(f, num(report, "pid"), report));
                    last = null;
                }
            }
            if (last != null)
                r.jvms.add(new Jvm(f, num(last, "pid"), last));
        }
        return r;
    }

    /** Leaked pins that suppress= rules do not cover, per (method, function), over every JVM. */
    List<Row> leakedPins() {
        Map<String, Row> rows = new LinkedHashMap<>();
        for (Jvm j : jvms) {
            for (Object o : list(j.last.get("rows"))) {
                Map<String, Object> row = asMap(o);
                long leaked = num(row, "leaked") - num(row, "suppressed");
                if (leaked <= 0)
                    continue;
                Row r = rows.computeIfAbsent(method(row) + "\0" + row.get("function"),
                        k -> new Row(method(row), String.valueOf(row.get("function")), null));
                r.count += leaked;
                // Bytes of the leaked pins: the row's live bytes scaled to its leaked share.
                long live = num(row, "live");
                r.bytes += live == 0 ? 0 : num(row, "live_bytes") * leaked / live;
                for (Object s : list(row.get("sites"))) {
                    Map<String, Object> site = asMap(s);
                    long n = num(site, "live");
                    if (n > 0)
                        r.site(where(site), n, num(site, "live_bytes"));
                }
            }
        }
        return sorted(rows);
    }

    /**
     * Live JNI references at exit per (method, function), over every JVM, without the JDK's own
     * (sites marked "jdk": the JDK's natives keep some on first use, and no limit could hold them).
     */
    List<Row> liveReferences() {
        Map<String, Row> rows = new LinkedHashMap<>();
        for (Jvm j : jvms) {
            Object refs = j.last.get("references");
            if (refs == null)
                continue;
            for (Object o : list(asMap(refs).get("rows"))) {
                Map<String, Object> row = asMap(o);
                for (Object s : list(row.get("sites"))) {
                    Map<String, Object> site = asMap(s);
                    long n = num(site, "live");
                    if (n <= 0 || Boolean.TRUE.equals(site.get("jdk")))
                        continue;
                    Row r = rows.computeIfAbsent(method(row) + "\0" + row.get("function") + "\0" + row.get("kind"),
                            k -> new Row(method(row), String.valueOf(row.get("function")), String.valueOf(row.get("kind"))));
                    r.count += n;
                    r.site(where(site), n, 0);
                }
            }
        }
        return sorted(rows);
    }

    /** Whether some JVM's report has no references section (refs=off). */
    boolean referencesOff() {
        return jvms.stream().anyMatch(j -> j.last.get("references") == null);
    }

    static long total(List<Row> rows) {
        return rows.stream().mapToLong(r -> r.count).sum();
    }

    /** The pins' table, as the JUnit extension prints it. */
    static String pinTable(List<Row> rows) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "    LEAKED      BYTES  %-26s %s%n", "FUNCTION", "NATIVE METHOD"));
        for (Row r : rows) {
            b.append(String.format(Locale.ROOT, "%10d %10d  %-26s %s%n", r.count, r.bytes, r.function, r.method));
            for (Map.Entry<String, long[]> s : r.sites.entrySet())
                b.append(String.format(Locale.ROOT, "%10d %10d  at %s%n", s.getValue()[0], s.getValue()[1], s.getKey()));
        }
        return b.toString();
    }

    /** The references' table, as the JUnit extension prints it. */
    static String referenceTable(List<Row> rows) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "      LIVE KIND    %-26s %s%n", "FUNCTION", "NATIVE METHOD"));
        for (Row r : rows) {
            b.append(String.format(Locale.ROOT, "%10d %-7s %-26s %s%n", r.count, r.kind, r.function, r.method));
            for (Map.Entry<String, long[]> s : r.sites.entrySet())
                b.append(String.format(Locale.ROOT, "%10d %-7s at %s%n", s.getValue()[0], "", s.getKey()));
        }
        return b.toString();
    }

    private static List<Row> sorted(Map<String, Row> rows) {
        List<Row> l = new ArrayList<>(rows.values());
        l.sort((a, b) -> a.count != b.count ? Long.compare(b.count, a.count)
                : (a.method + a.function).compareTo(b.method + b.function));
        return l;
    }

    private static String method(Map<String, Object> row) {
        Object sig = row.get("signature");
        return row.get("method") + (sig == null ? "" : String.valueOf(sig));
    }

    /** A site's call site, as the agent's text reports name it (agent/report/where.c). */
    private static String where(Map<String, Object> site) {
        List<Object> frames = list(site.get("frames"));
        if (frames.isEmpty())
            return "(no frames)";
        Map<String, Object> f = asMap(frames.get(0));
        StringBuilder b = new StringBuilder();
        Object symbol = f.get("symbol");
        if (symbol == null)
            b.append(f.get("address"));
        else if (Boolean.TRUE.equals(f.get("inlined")))
            b.append(symbol).append(" (inlined)");
        else
            b.append(symbol).append("+0x").append(Long.toHexString(num(f, "offset")));
        if (f.get("library") != null)
            b.append(" (").append(baseName(f.get("library"))).append(')');
        if (f.get("file") != null)
            b.append(' ').append(baseName(f.get("file"))).append(':').append(num(f, "line"));
        if (Boolean.TRUE.equals(f.get("tail_call")))
            b.append(" (tail call)");
        return b.toString();
    }

    private static String baseName(Object path) {
        String p = String.valueOf(path);
        return p.substring(p.lastIndexOf('/') + 1);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(Object o) {
        if (!(o instanceof Map))
            throw new IllegalArgumentException("expected an object, got " + o);
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object o) {
        return o instanceof List ? (List<Object>) o : Collections.emptyList();
    }

    private static long num(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v instanceof Number ? ((Number) v).longValue() : 0;
    }
}
