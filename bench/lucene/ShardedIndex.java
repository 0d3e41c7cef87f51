import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.DoubleDocValuesField;
import org.apache.lucene.document.DoublePoint;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.IntPoint;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LogDocMergePolicy;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopFieldCollector;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.search.TopScoreDocCollector;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.MMapDirectory;

/**
 * An index of N shards, each its own Lucene index in an MMapDirectory, written then force-merged to
 * one segment, then searched as Elasticsearch searches (query then fetch):
 *
 * - query phase: every shard's top `from + size` (`TopFieldCollector` for a field sort,
 *   `TopScoreDocCollector` by score, with the request's total-hits threshold: 10,000 by default,
 *   which lets Lucene skip: block-max WAND by score, the points-based sort optimization by a field),
 *   the shards run as tasks on the search pool;
 * - the coordinator's merge: `TopDocs.merge` of the shards' hits, which ties by shard index then doc;
 * - fetch phase: the page's `_id`s from stored fields.
 *
 * The documents arrive with their shard already chosen (the client routes them as deeppage does),
 * and a shard keeps them in arrival order: one writer thread per shard, merges of adjacent segments
 * only (LogDocMergePolicy), so doc order within a shard is the order they were sent.
 */
final class ShardedIndex {
  /** The fields of the catalog corpus and their kinds (see PeerRequest). */
  static final Map<String, String> FIELDS = Map.of("title", "text", "shelf", "int", "price", "double");

  private final String name;
  private final Directory[] directories;
  private IndexWriter[] writers;
  private IndexSearcher[] searchers;
  private final Analyzer analyzer;
  private final Similarity similarity = new BM25Similarity(1.2f, 0.75f);
  private final ExecutorService pool;

  ShardedIndex(String name, int shards, Path dir, Analyzer analyzer, ExecutorService pool) throws IOException {
    this.name = name;
    this.analyzer = analyzer;
    this.pool = pool;
    directories = new Directory[shards];
    writers = new IndexWriter[shards];
    for (int s = 0; s < shards; s++) {
      directories[s] = new MMapDirectory(Files.createDirectories(dir.resolve("shard-" + s)));
      IndexWriterConfig config = new IndexWriterConfig(analyzer).setSimilarity(similarity).setMergePolicy(new LogDocMergePolicy()).setRAMBufferSizeMB(64);
      writers[s] = new IndexWriter(directories[s], config);
    }
  }

  int shards() {
    return directories.length;
  }

  /** One document of the catalog on `shard`: `price` (double), `shelf` (integer), `title` (text). */
  void add(int shard, String id, double price, int shelf, String title) throws IOException {
    if (writers == null) throw new IllegalStateException(name + " is force-merged and read-only");
    Document doc = new Document();
    doc.add(new StringField("_id", id, Field.Store.YES));
    doc.add(new DoublePoint("price", price));
    doc.add(new DoubleDocValuesField("price", price));
    doc.add(new IntPoint("shelf", shelf));
    doc.add(new SortedNumericDocValuesField("shelf", shelf));
    doc.add(new TextField("title", title, Field.Store.NO));
    writers[shard].addDocument(doc);
  }

  /** Every shard merged to one segment and committed; the index is read-only from then on. Returns segments per shard. */
  synchronized int[] forceMerge() throws IOException {
    if (writers != null) {
      for (IndexWriter writer : writers) {
        writer.forceMerge(1);
        writer.commit();
        writer.close();
      }
      writers = null;
      searchers = new IndexSearcher[directories.length];
      for (int s = 0; s < directories.length; s++) {
        searchers[s] = new IndexSearcher(DirectoryReader.open(directories[s]));
        searchers[s].setSimilarity(similarity);
      }
    }
    int[] segments = new int[searchers.length];
    for (int s = 0; s < searchers.length; s++) segments[s] = searchers[s].getIndexReader().leaves().size();
    return segments;
  }

  /** The answer in Elasticsearch's shape: `hits.total`, and each hit's `_id` with its `_score` or `sort`. */
  String search(Map<String, Object> body) throws IOException, InterruptedException, ExecutionException {
    if (searchers == null) throw new IllegalStateException(name + " is not force-merged yet");
    long started = System.nanoTime();
    PeerRequest request = PeerRequest.parse(body, FIELDS, analyzer);
    int wanted = request.from + request.size;
    List<Future<TopDocs>> pending = new ArrayList<>();
    for (IndexSearcher searcher : searchers) pending.add(pool.submit(() -> queryPhase(searcher, request, wanted)));
    TopDocs[] shardHits = request.sort == null ? new TopDocs[searchers.length] : new TopFieldDocs[searchers.length];
    for (int s = 0; s < searchers.length; s++) shardHits[s] = pending.get(s).get();
    TopDocs page = request.sort == null
        ? TopDocs.merge(request.from, request.size, shardHits, true)
        : TopDocs.merge(request.sort, request.from, request.size, (TopFieldDocs[]) shardHits, true);
    return answer(request, shardHits, page, started);
  }

  private static TopDocs queryPhase(IndexSearcher searcher, PeerRequest request, int wanted) throws IOException {
    int numHits = Math.max(1, Math.min(wanted, searcher.getIndexReader().maxDoc()));
    if (request.sort == null) {
      TopScoreDocCollector collector = TopScoreDocCollector.create(numHits, request.totalHitsThreshold);
      searcher.search(request.query, collector);
      return collector.topDocs();
    }
    TopFieldCollector collector = TopFieldCollector.create(request.sort, numHits, request.totalHitsThreshold);
    searcher.search(request.query, collector);
    return collector.topDocs();
  }

  /** The fetch phase and the answer's JSON; a total past the threshold is reported as Elasticsearch does: the threshold, `gte`. */
  private String answer(PeerRequest request, TopDocs[] shardHits, TopDocs page, long started) throws IOException {
    long total = 0;
    boolean lowerBound = false;
    for (TopDocs hits : shardHits) {
      total += hits.totalHits.value;
      lowerBound |= hits.totalHits.relation != org.apache.lucene.search.TotalHits.Relation.EQUAL_TO;
    }
    if (lowerBound || total > request.totalHitsThreshold) {
      total = Math.min(total, request.totalHitsThreshold);
      lowerBound = true;
    }
    StringBuilder hits = new StringBuilder();
    for (ScoreDoc hit : page.scoreDocs) {
      String id = searchers[hit.shardIndex].doc(hit.doc, Set.of("_id")).get("_id");
      if (hits.length() > 0) hits.append(',');
      hits.append("{\"_index\":").append(Json.quote(name)).append(",\"_id\":").append(Json.quote(id));
      if (request.sort == null) hits.append(",\"_score\":").append((double) hit.score);
      else {
        hits.append(",\"_score\":null,\"sort\":[");
        Object[] values = ((org.apache.lucene.search.FieldDoc) hit).fields;
        for (int i = 0; i < values.length; i++) hits.append(i > 0 ? "," : "").append(values[i]);
        hits.append(']');
      }
      hits.append('}');
    }
    long tookMs = (System.nanoTime() - started) / 1_000_000;
    int n = searchers.length;
    return "{\"took\":" + tookMs + ",\"timed_out\":false,\"_shards\":{\"total\":" + n + ",\"successful\":" + n + ",\"skipped\":0,\"failed\":0}"
        + ",\"hits\":{\"total\":{\"value\":" + total + ",\"relation\":\"" + (lowerBound ? "gte" : "eq") + "\"},\"hits\":[" + hits + "]}}";
  }
}
