import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Just enough JSON for the peer, with no library beside Lucene: a reader giving maps, lists,
 * strings, doubles, booleans and null, and a string quoter for the answers the peer writes by hand.
 */
final class Json {
  private final String text;
  private int at;

  private Json(String text) {
    this.text = text;
  }

  static Object parse(String text) {
    Json json = new Json(text);
    json.space();
    Object value = json.value();
    json.space();
    if (json.at != text.length()) throw json.error("trailing characters");
    return value;
  }

  /** `value` as a JSON string literal. */
  static String quote(String value) {
    StringBuilder out = new StringBuilder(value.length() + 2).append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"' || c == '\\') out.append('\\').append(c);
      else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
      else out.append(c);
    }
    return out.append('"').toString();
  }

  private Object value() {
    if (at >= text.length()) throw error("unexpected end");
    char c = text.charAt(at);
    switch (c) {
      case '{': return object();
      case '[': return array();
      case '"': return string();
      case 't': return literal("true", Boolean.TRUE);
      case 'f': return literal("false", Boolean.FALSE);
      case 'n': return literal("null", null);
      default: return number();
    }
  }

  private Map<String, Object> object() {
    Map<String, Object> map = new LinkedHashMap<>();
    at++;
    space();
    if (peek() == '}') {
      at++;
      return map;
    }
    for (;;) {
      space();
      if (peek() != '"') throw error("expected a key");
      String key = string();
      space();
      expect(':');
      space();
      map.put(key, value());
      space();
      if (peek() == ',') at++;
      else {
        expect('}');
        return map;
      }
    }
  }

  private List<Object> array() {
    List<Object> list = new ArrayList<>();
    at++;
    space();
    if (peek() == ']') {
      at++;
      return list;
    }
    for (;;) {
      space();
      list.add(value());
      space();
      if (peek() == ',') at++;
      else {
        expect(']');
        return list;
      }
    }
  }

  private String string() {
    at++;
    StringBuilder out = new StringBuilder();
    for (;;) {
      if (at >= text.length()) throw error("unterminated string");
      char c = text.charAt(at++);
      if (c == '"') return out.toString();
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char e = text.charAt(at++);
      switch (e) {
        case 'n': out.append('\n'); break;
        case 't': out.append('\t'); break;
        case 'r': out.append('\r'); break;
        case 'b': out.append('\b'); break;
        case 'f': out.append('\f'); break;
        case 'u':
          out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
          at += 4;
          break;
        default: out.append(e);
      }
    }
  }

  private Double number() {
    int start = at;
    while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) at++;
    if (start == at) throw error("unexpected character");
    return Double.valueOf(text.substring(start, at));
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, at)) throw error("unexpected character");
    at += word.length();
    return value;
  }

  private char peek() {
    if (at >= text.length()) throw error("unexpected end");
    return text.charAt(at);
  }

  private void expect(char c) {
    if (peek() != c) throw error("expected '" + c + "'");
    at++;
  }

  private void space() {
    while (at < text.length() && Character.isWhitespace(text.charAt(at))) at++;
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("JSON: " + what + " at offset " + at);
  }
}
