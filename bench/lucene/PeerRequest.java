import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.IntPoint;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexOrDocValuesQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;

/**
 * The part of Elasticsearch's search body the benchmark sends, as Elasticsearch turns it into
 * Lucene: `match` on a text field (its analyzed terms, each a SHOULD `TermQuery`), `bool.filter` of
 * `term` and `range` on an integer field (an `IndexOrDocValuesQuery` of points and doc values, as
 * Elasticsearch builds for a numeric field with both), `match_all`; `sort` by a numeric field
 * (with points: the sort optimization may skip) or by `_score`; `from`, `size`, `track_total_hits`.
 * Anything else is refused, never ignored: `_source` alone is accepted and has no effect, since
 * every answer carries only `_id`s.
 */
final class PeerRequest {
  /** Elasticsearch's default `track_total_hits`. */
  static final int DEFAULT_TOTAL_HITS_THRESHOLD = 10_000;
  private static final Set<String> KEYS = Set.of("query", "sort", "from", "size", "track_total_hits", "_source");

  final Query query;
  /** Null for a sort by score. */
  final Sort sort;
  final int from;
  final int size;
  final int totalHitsThreshold;

  private PeerRequest(Query query, Sort sort, int from, int size, int totalHitsThreshold) {
    this.query = query;
    this.sort = sort;
    this.from = from;
    this.size = size;
    this.totalHitsThreshold = totalHitsThreshold;
  }

  /** `fields` names each field's kind: "text", "int" or "double". */
  static PeerRequest parse(Map<String, Object> body, Map<String, String> fields, Analyzer analyzer) {
    for (String key : body.keySet()) if (!KEYS.contains(key)) throw new IllegalArgumentException("unsupported key " + key);
    Query query = body.containsKey("query") ? query(object(body.get("query"), "query"), fields, analyzer) : new MatchAllDocsQuery();
    Sort sort = body.containsKey("sort") ? sort(body.get("sort"), fields) : null;
    int from = integer(body.getOrDefault("from", 0.0), "from");
    int size = integer(body.getOrDefault("size", 10.0), "size");
    Object track = body.getOrDefault("track_total_hits", (double) DEFAULT_TOTAL_HITS_THRESHOLD);
    int threshold = track instanceof Boolean ? ((Boolean) track ? Integer.MAX_VALUE : 0) : integer(track, "track_total_hits");
    return new PeerRequest(query, sort, from, size, threshold);
  }

  private static Query query(Map<String, Object> clause, Map<String, String> fields, Analyzer analyzer) {
    if (clause.size() != 1) throw new IllegalArgumentException("a query has one key: " + clause.keySet());
    Map.Entry<String, Object> only = clause.entrySet().iterator().next();
    Map<String, Object> spec = object(only.getValue(), only.getKey());
    switch (only.getKey()) {
      case "match_all": return new MatchAllDocsQuery();
      case "match": return match(spec, fields, analyzer);
      case "bool": return bool(spec, fields, analyzer);
      case "term": return term(spec, fields);
      case "range": return range(spec, fields);
      default: throw new IllegalArgumentException("unsupported query " + only.getKey());
    }
  }

  private static Query match(Map<String, Object> spec, Map<String, String> fields, Analyzer analyzer) {
    String field = onlyField(spec, "match", fields, "text");
    Object value = spec.get(field);
    String text = value instanceof Map ? (String) ((Map<?, ?>) value).get("query") : (String) value;
    List<String> terms = analyze(analyzer, field, text);
    if (terms.size() == 1) return new TermQuery(new Term(field, terms.get(0)));
    BooleanQuery.Builder builder = new BooleanQuery.Builder();
    for (String term : terms) builder.add(new TermQuery(new Term(field, term)), BooleanClause.Occur.SHOULD);
    return builder.build();
  }

  private static Query bool(Map<String, Object> spec, Map<String, String> fields, Analyzer analyzer) {
    BooleanQuery.Builder builder = new BooleanQuery.Builder();
    for (Map.Entry<String, Object> entry : spec.entrySet()) {
      if (!entry.getKey().equals("filter")) throw new IllegalArgumentException("unsupported bool clause " + entry.getKey());
      List<?> clauses = entry.getValue() instanceof List ? (List<?>) entry.getValue() : List.of(entry.getValue());
      for (Object clause : clauses) builder.add(query(object(clause, "filter"), fields, analyzer), BooleanClause.Occur.FILTER);
    }
    return builder.build();
  }

  private static Query term(Map<String, Object> spec, Map<String, String> fields) {
    String field = onlyField(spec, "term", fields, "int");
    Object value = spec.get(field);
    if (value instanceof Map) value = ((Map<?, ?>) value).get("value");
    int k = integer(value, "term " + field);
    return new IndexOrDocValuesQuery(IntPoint.newExactQuery(field, k), SortedNumericDocValuesField.newSlowExactQuery(field, k));
  }

  /** Integer bounds only, as the benchmark sends; `gt`/`lt` made inclusive. */
  private static Query range(Map<String, Object> spec, Map<String, String> fields) {
    String field = onlyField(spec, "range", fields, "int");
    Map<String, Object> bounds = object(spec.get(field), "range " + field);
    long lo = Integer.MIN_VALUE, hi = Integer.MAX_VALUE;
    for (Map.Entry<String, Object> bound : bounds.entrySet()) {
      int v = integer(bound.getValue(), "range " + field + "." + bound.getKey());
      switch (bound.getKey()) {
        case "gte": lo = Math.max(lo, v); break;
        case "gt": lo = Math.max(lo, (long) v + 1); break;
        case "lte": hi = Math.min(hi, v); break;
        case "lt": hi = Math.min(hi, (long) v - 1); break;
        default: throw new IllegalArgumentException("unsupported range bound " + bound.getKey());
      }
    }
    int from = (int) Math.max(lo, Integer.MIN_VALUE), to = (int) Math.min(hi, Integer.MAX_VALUE);
    return new IndexOrDocValuesQuery(IntPoint.newRangeQuery(field, from, to), SortedNumericDocValuesField.newSlowRangeQuery(field, from, to));
  }

  /** `[{"price":"desc"}]`, `[{"price":{"order":"desc"}}]`, `["_score"]`: one key, a numeric field or `_score`. */
  private static Sort sort(Object spec, Map<String, String> fields) {
    List<?> list = spec instanceof List ? (List<?>) spec : List.of(spec);
    List<SortField> sortFields = new ArrayList<>();
    for (Object item : list) {
      String field;
      String order = null;
      if (item instanceof String) field = (String) item;
      else {
        Map<String, Object> clause = object(item, "sort");
        if (clause.size() != 1) throw new IllegalArgumentException("a sort clause has one key");
        field = clause.keySet().iterator().next();
        Object how = clause.get(field);
        order = how instanceof Map ? (String) ((Map<?, ?>) how).get("order") : (String) how;
      }
      if (field.equals("_score")) {
        if (order != null && !order.equals("desc")) throw new IllegalArgumentException("_score sorts desc only here");
        sortFields.add(SortField.FIELD_SCORE);
        continue;
      }
      String kind = fields.get(field);
      if (kind == null || kind.equals("text")) throw new IllegalArgumentException("cannot sort on " + field);
      boolean reverse = order == null ? false : order.equals("desc");
      SortField sortField = new SortField(field, kind.equals("double") ? SortField.Type.DOUBLE : SortField.Type.INT, reverse);
      // The field has points too: Lucene 8.8 may then skip documents that cannot make the page.
      sortField.setCanUsePoints();
      sortFields.add(sortField);
    }
    // Only `_score`: the plain score path (TopScoreDocCollector), as Elasticsearch takes.
    if (sortFields.size() == 1 && sortFields.get(0) == SortField.FIELD_SCORE) return null;
    return new Sort(sortFields.toArray(new SortField[0]));
  }

  static List<String> analyze(Analyzer analyzer, String field, String text) {
    List<String> terms = new ArrayList<>();
    try (TokenStream stream = analyzer.tokenStream(field, text)) {
      CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
      stream.reset();
      while (stream.incrementToken()) terms.add(term.toString());
      stream.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (terms.isEmpty()) throw new IllegalArgumentException("no terms in " + Json.quote(text));
    return terms;
  }

  private static String onlyField(Map<String, Object> spec, String what, Map<String, String> fields, String kind) {
    if (spec.size() != 1) throw new IllegalArgumentException(what + " names one field");
    String field = spec.keySet().iterator().next();
    if (!kind.equals(fields.get(field))) throw new IllegalArgumentException(what + " on " + field + ": not a " + kind + " field here");
    return field;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> object(Object value, String what) {
    if (!(value instanceof Map)) throw new IllegalArgumentException(what + ": expected an object");
    return (Map<String, Object>) value;
  }

  private static int integer(Object value, String what) {
    if (!(value instanceof Double) || (Double) value != Math.rint((Double) value)) throw new IllegalArgumentException(what + ": expected an integer, got " + value);
    return (int) (double) (Double) value;
  }
}
