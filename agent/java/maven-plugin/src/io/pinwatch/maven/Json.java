// SPDX-License-Identifier: Apache-2.0
package io.pinwatch.maven;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A reader of one JSON value, enough for the agent's reports (agent/report/JSON.md): objects become
 * {@code Map<String, Object>}, arrays {@code List<Object>}, integers {@code Long}, other numbers
 * {@code Double}. A reader of our own keeps the plugin free of a JSON library that could clash with
 * another plugin's in a build; the reports are machine-written, so errors name the column and stop.
 */
final class Json {
    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    /** The value of {@code text}, which must hold exactly one. */
    static Object parse(String text) {
        Json p = new Json(text);
        p.space();
        Object v = p.value();
        p.space();
        if (p.pos != text.length())
            throw p.error("text after the value");
        return v;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at column " + (pos + 1));
    }

    private void space() {
        while (pos < text.length() && " \t\r\n".indexOf(text.charAt(pos)) >= 0)
            pos++;
    }

    private char peek() {
        if (pos >= text.length())
            throw error("unexpected end");
        return text.charAt(pos);
    }

    private void expect(char c) {
        if (peek() != c)
            throw error("expected '" + c + "'");
        pos++;
    }

    private Object value() {
        char c = peek();
        switch (c) {
        case '{':
            return object();
        case '[':
            return array();
        case '"':
            return string();
        case 't':
            return word("true", Boolean.TRUE);
        case 'f':
            return word("false", Boolean.FALSE);
        case 'n':
            return word("null", null);
        default:
            if (c == '-' || (c >= '0' && c <= '9'))
                return number();
            throw error("unexpected '" + c + "'");
        }
    }

    private Object word(String w, Object v) {
        if (!text.startsWith(w, pos))
            throw error("expected " + w);
        pos += w.length();
        return v;
    }

    private Map<String, Object> object() {
        Map<String, Object> m = new LinkedHashMap<>();
        expect('{');
        space();
        if (peek() == '}') {
            pos++;
            return m;
        }
        for (;;) {
            space();
            String k = string();
            space();
            expect(':');
            space();
            m.put(k, value());
            space();
            if (peek() == ',') {
                pos++;
                continue;
            }
            expect('}');
            return m;
        }
    }

    private List<Object> array() {
        List<Object> l = new ArrayList<>();
        expect('[');
        space();
        if (peek() == ']') {
            pos++;
            return l;
        }
        for (;;) {
            space();
            l.add(value());
            space();
            if (peek() == ',') {
                pos++;
                continue;
            }
            expect(']');
            return l;
        }
    }

    private String string() {
        expect('"');
        StringBuilder b = new StringBuilder();
        for (;;) {
            char c = peek();
            pos++;
            if (c == '"')
                return b.toString();
            if (c != '\\') {
                b.append(c);
                continue;
            }
            char e = peek();
            pos++;
            switch (e) {
            case '"':
            case '\\':
            case '/':
                b.append(e);
                break;
            case 'b':
                b.append('\b');
                break;
            case 'f':
                b.append('\f');
                break;
            case 'n':
                b.append('\n');
                break;
            case 'r':
                b.append('\r');
                break;
            case 't':
                b.append('\t');
                break;
            case 'u':
                if (pos + 4 > text.length())
                    throw error("short \\u escape");
                try {
                    b.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                } catch (NumberFormatException x) {
                    throw error("bad \\u escape");
                }
                pos += 4;
                break;
            default:
                throw error("bad escape '\\" + e + "'");
            }
        }
    }

    private Object number() {
        int start = pos;
        boolean integral = true;
        while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) {
            char c = text.charAt(pos++);
            integral &= c != '.' && c != 'e' && c != 'E';
        }
        String s = text.substring(start, pos);
        try {
            return integral ? (Object) Long.valueOf(s) : (Object) Double.valueOf(s);
        } catch (NumberFormatException x) {
            pos = start;
            throw error("bad number '" + s + "'");
        }
    }
}
