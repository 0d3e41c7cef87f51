import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.util.Version;

/**
 * Lucene behind HTTP, for the benchmark's `lucene` suite: `java -Dsun.net.httpserver.nodelay=true
 * LucenePeer <data dir>` listens on a free port of 127.0.0.1 and says so on stderr.
 *
 *   GET  /                     versions and the search pool's size
 *   PUT  /{index}              {"shards": N}
 *   POST /{index}/_docs        NDJSON, a document a line: {"_id","_shard","price","shelf","title"}
 *   POST /{index}/_forcemerge  every shard to one segment; the index is searchable from then on
 *   POST /{index}/_search      the body subset PeerRequest reads; Elasticsearch's answer shape
 *
 * The analyzer is Elasticsearch's `standard`: Lucene's StandardAnalyzer with no stop words.
 */
public final class LucenePeer {
  private final Path dataDir;
  private final Map<String, ShardedIndex> indices = new ConcurrentHashMap<>();
  private final StandardAnalyzer analyzer = new StandardAnalyzer(CharArraySet.EMPTY_SET);
  /** Elasticsearch's `search` thread pool: processors × 3 / 2 + 1 threads. */
  private final int searchThreads = Runtime.getRuntime().availableProcessors() * 3 / 2 + 1;
  private final ExecutorService searchPool = Executors.newFixedThreadPool(searchThreads);

  private LucenePeer(Path dataDir) {
    this.dataDir = dataDir;
  }

  public static void main(String[] args) throws IOException {
    if (args.length != 1) throw new IllegalArgumentException("usage: LucenePeer <data dir>");
    LucenePeer peer = new LucenePeer(Path.of(args[0]));
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    server.createContext("/", peer::handle);
    // One request at a time, as the benchmark sends them; a search fans out on the search pool.
    server.setExecutor(Executors.newSingleThreadExecutor());
    server.start();
    System.err.println("lucene peer " + Version.LATEST + " listening on http://127.0.0.1:" + server.getAddress().getPort());
  }

  private void handle(HttpExchange exchange) throws IOException {
    int status = 200;
    String answer;
    try {
      answer = route(exchange.getRequestMethod(), exchange.getRequestURI().getPath(), new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
    } catch (IllegalArgumentException | IllegalStateException e) {
      status = 400;
      answer = "{\"error\":" + Json.quote(String.valueOf(e.getMessage())) + "}";
    } catch (Exception e) {
      status = 500;
      answer = "{\"error\":" + Json.quote(e.toString()) + "}";
    }
    byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("content-type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @SuppressWarnings("unchecked")
  private String route(String method, String path, String body) throws Exception {
    String[] parts = path.replaceAll("^/+|/+$", "").split("/");
    if (method.equals("GET") && parts[0].isEmpty()) {
      return "{\"lucene\":" + Json.quote(Version.LATEST.toString()) + ",\"java\":" + Json.quote(System.getProperty("java.version"))
          + ",\"vm\":" + Json.quote(System.getProperty("java.vm.name")) + ",\"processors\":" + Runtime.getRuntime().availableProcessors()
          + ",\"search_threads\":" + searchThreads + ",\"max_heap_bytes\":" + Runtime.getRuntime().maxMemory() + "}";
    }
    String name = parts[0];
    if (parts.length == 1 && method.equals("PUT")) {
      int shards = (int) (double) (Double) ((Map<String, Object>) Json.parse(body)).get("shards");
      if (indices.containsKey(name)) throw new IllegalArgumentException("index " + name + " exists");
      indices.put(name, new ShardedIndex(name, shards, dataDir.resolve(name), analyzer, searchPool));
      return "{\"acknowledged\":true}";
    }
    ShardedIndex index = indices.get(name);
    if (index == null) throw new IllegalArgumentException("no index " + name);
    String action = parts.length == 2 ? parts[1] : "";
    if (method.equals("POST") && action.equals("_docs")) return "{\"added\":" + addDocuments(index, body) + "}";
    if (method.equals("POST") && action.equals("_forcemerge")) return "{\"segments\":" + Arrays.toString(index.forceMerge()) + "}";
    if (method.equals("POST") && action.equals("_search")) return index.search((Map<String, Object>) Json.parse(body));
    throw new IllegalArgumentException("no route " + method + " " + path);
  }

  @SuppressWarnings("unchecked")
  private static int addDocuments(ShardedIndex index, String ndjson) throws IOException {
    int added = 0;
    for (String line : ndjson.split("\n")) {
      if (line.isBlank()) continue;
      Map<String, Object> doc = (Map<String, Object>) Json.parse(line);
      int shard = (int) (double) (Double) doc.get("_shard");
      if (shard < 0 || shard >= index.shards()) throw new IllegalArgumentException("shard " + shard + " out of range");
      index.add(shard, (String) doc.get("_id"), (Double) doc.get("price"), (int) (double) (Double) doc.get("shelf"), (String) doc.get("title"));
      added++;
    }
    return added;
  }
}
