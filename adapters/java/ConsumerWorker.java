/*
 * One real Apache Kafka Java consumer (KafkaConsumer, the classic protocol) in its own OS
 * process, for the consumer-client role on a real broker. It speaks the JSON-lines protocol
 * of groupcheck/conform/targets/clients/worker.py and app_records.py (same flags, same
 * events on stdout, same commands on stdin), so targets/clients/group.py runs it as the
 * client "java" (GROUPCHECK_JAVA_CLIENT names the folder adapters/java/build.sh built).
 *
 *   OUT_DIR/consumer-worker --client java --assignor range|roundrobin|sticky|cooperative-sticky
 *       --bootstrap HOST:PORT --group G --topic T --name c1 [--instance-id ID]
 *       [--session-timeout-ms N] [--heartbeat-interval-ms N] [--max-poll-interval-ms N]
 *       [--commit-policy auto|sync-on-revoke|after-processing|none]
 *       [--broken skips-revoke|commits-before-processing] [--pattern --partitions N]
 *       [--max-poll-records N] [--process-ms N]
 *
 * --max-poll-records (default: env GROUPCHECK_JAVA_MAX_POLL_RECORDS, else 500, Kafka's) and
 * --process-ms (default: env GROUPCHECK_JAVA_PROCESS_MS, else 0) make the application slow:
 * it sleeps that long per record it processes, so records keep being returned by poll()
 * while a rebalance is under way. GROUPCHECK_JAVA_LOG_DIR, when set, receives the
 * client's own log (slf4j-simple, level info) as <name>-<pid>.log.
 *
 * WHAT IS REPORTED, AND FROM WHAT:
 * - assign / revoke / lost: the ConsumerRebalanceListener's three callbacks (Kafka calls
 *   them inside poll(), on this thread; onPartitionsLost since 2.4); generation and member
 *   id from KafkaConsumer.groupMetadata() at that moment (since 2.5; before, -1 and "").
 * - sample: groupMetadata() and assignment() after each poll, on change and every second.
 * - processed: once per record the application processed (after --process-ms).
 * - commit_sent / commit (auto false): around each commitSync the application makes
 *   (sync-on-revoke: in onPartitionsRevoked, never in onPartitionsLost; after-processing:
 *   after each record; the harness's commit command: what was processed).
 * - commit (auto true): a ConsumerInterceptor's onCommit, which the client calls for each
 *   successful OffsetCommit; with --commit-policy auto that is the auto-commit (a failed
 *   auto-commit is not reported: the client logs it only; the final OffsetFetch counts).
 *   The interceptor may run on the heartbeat thread, so it reports the identity the
 *   consumer thread last saw and never touches the consumer.
 */
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

public class ConsumerWorker {
    static final List<String> ASSIGNORS = Arrays.asList("range", "roundrobin", "sticky", "cooperative-sticky");
    static final List<String> POLICIES = Arrays.asList("auto", "sync-on-revoke", "after-processing", "none");
    static final List<String> BROKEN = Arrays.asList("skips-revoke", "commits-before-processing");
    static final int AUTO_COMMIT_INTERVAL_MS = 1000;      // app_records.AUTO_COMMIT_INTERVAL_MS
    static final int METADATA_MAX_AGE_MS = 1000;          // worker.METADATA_MAX_AGE_MS (--pattern)

    // the identity the consumer thread last saw, for the interceptor (any thread)
    static volatile int lastGeneration = -1;
    static volatile String lastMemberId = "";
    static volatile boolean reportAutoCommits = false;
    static volatile boolean inSyncCommit = false;
    static volatile ConsumerWorker topicsOf;               // partition numbering for the interceptor

    final Map<String, String> opt;
    final String topic, policy, broken;
    final int partitions, processMs;
    final boolean pattern;
    KafkaConsumer<byte[], byte[]> consumer;
    final TreeSet<Integer> owned = new TreeSet<>();
    final TreeMap<Integer, Long> processed = new TreeMap<>();   // partition -> next offset to process
    boolean holdAsked = false, held = false;

    ConsumerWorker(Map<String, String> opt) {
        this.opt = opt;
        topic = opt.get("topic");
        policy = opt.get("commit-policy");
        broken = opt.get("broken");
        pattern = opt.containsKey("pattern");
        partitions = Integer.parseInt(opt.getOrDefault("partitions", "1"));
        processMs = Integer.parseInt(opt.get("process-ms"));
    }

    // -- output ------------------------------------------------------------------------

    static String quote(String s) {
        if (s == null) return "null";
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    /** One JSON line: kind, then the fields (already JSON values), then wall. */
    static void emit(String kind, Object... fields) {
        StringBuilder b = new StringBuilder("{\"kind\": ").append(quote(kind));
        for (int i = 0; i < fields.length; i += 2) {
            b.append(", ").append(quote((String) fields[i])).append(": ").append(json(fields[i + 1]));
        }
        b.append(", \"wall\": ").append(System.currentTimeMillis() / 1000.0).append('}');
        synchronized (System.out) {
            System.out.println(b);
            System.out.flush();
        }
    }

    static String json(Object v) {
        if (v == null) return "null";
        if (v instanceof String) return quote((String) v);
        if (v instanceof Collection) {
            StringBuilder b = new StringBuilder("[");
            for (Object x : (Collection<?>) v) b.append(b.length() > 1 ? ", " : "").append(json(x));
            return b.append(']').toString();
        }
        if (v instanceof Map) {
            StringBuilder b = new StringBuilder("{");
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet())
                b.append(b.length() > 1 ? ", " : "").append(quote(String.valueOf(e.getKey()))).append(": ").append(json(e.getValue()));
            return b.append('}').toString();
        }
        return String.valueOf(v);      // numbers, booleans
    }

    // -- partitions numbered as one space (worker.Topics) --------------------------------

    int index(TopicPartition tp) {
        if (!pattern || tp.topic().equals(topic)) return tp.partition();
        String t = tp.topic();
        return Integer.parseInt(t.substring(t.lastIndexOf("-g") + 2)) * partitions + tp.partition();
    }

    TopicPartition partition(int index) {
        if (!pattern) return new TopicPartition(topic, index);
        int k = index / partitions, p = index % partitions;
        return new TopicPartition(k == 0 ? topic : topic + "-g" + k, p);
    }

    TreeSet<Integer> indices(Collection<TopicPartition> tps) {
        TreeSet<Integer> out = new TreeSet<>();
        for (TopicPartition tp : tps) out.add(index(tp));
        return out;
    }

    // -- the client --------------------------------------------------------------------

    /** The client's (generation, member id) from groupMetadata(), by reflection: the method
     *  came with KIP-447 (2.5); an older client reports -1 and "" (the worker still builds). */
    void identity() {
        try {
            Object m = consumer.getClass().getMethod("groupMetadata").invoke(consumer);
            lastGeneration = (Integer) m.getClass().getMethod("generationId").invoke(m);
            String id = (String) m.getClass().getMethod("memberId").invoke(m);
            lastMemberId = id == null ? "" : id;
        } catch (ReflectiveOperationException e) {
            lastGeneration = -1;
            lastMemberId = "";
        }
    }

    KafkaConsumer<byte[], byte[]> create() {
        Map<String, String> classes = new HashMap<>();
        classes.put("range", "org.apache.kafka.clients.consumer.RangeAssignor");
        classes.put("roundrobin", "org.apache.kafka.clients.consumer.RoundRobinAssignor");
        classes.put("sticky", "org.apache.kafka.clients.consumer.StickyAssignor");
        classes.put("cooperative-sticky", "org.apache.kafka.clients.consumer.CooperativeStickyAssignor");
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, opt.get("bootstrap"));
        p.put(ConsumerConfig.GROUP_ID_CONFIG, opt.get("group"));
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, opt.get("name"));
        if (opt.containsKey("instance-id")) p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, opt.get("instance-id"));
        p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, classes.get(opt.get("assignor")));
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, opt.get("session-timeout-ms"));
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, opt.get("heartbeat-interval-ms"));
        p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, opt.get("max-poll-interval-ms"));
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, opt.get("max-poll-records"));
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, String.valueOf("auto".equals(policy)));
        p.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, String.valueOf(AUTO_COMMIT_INTERVAL_MS));
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, CommitReporter.class.getName());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        if (pattern) p.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, String.valueOf(METADATA_MAX_AGE_MS));
        return new KafkaConsumer<>(p);
    }

    /** Reports each successful OffsetCommit the application did not make itself (auto-commits). */
    public static class CommitReporter implements ConsumerInterceptor<byte[], byte[]> {
        public ConsumerRecords<byte[], byte[]> onConsume(ConsumerRecords<byte[], byte[]> records) {
            return records;
        }

        public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
            // an empty map: nothing was consumed yet, the client sent no OffsetCommit
            if (!reportAutoCommits || inSyncCommit || topicsOf == null || offsets.isEmpty()) return;
            TreeMap<Integer, Long> out = new TreeMap<>();
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet())
                out.put(topicsOf.index(e.getKey()), e.getValue().offset());
            emit("commit", "generation", lastGeneration, "member_id", lastMemberId, "offsets", out,
                 "error", null, "auto", true);
        }

        public void close() {
        }

        public void configure(Map<String, ?> configs) {
        }
    }

    /** commitSync of {partition: next offset} between commit_sent and commit; the error name. */
    String syncCommit(Map<Integer, Long> offsets) {
        if (offsets.isEmpty()) return null;
        identity();
        int gen = lastGeneration;
        String mid = lastMemberId;
        emit("commit_sent", "generation", gen, "member_id", mid, "offsets", offsets);
        Map<TopicPartition, OffsetAndMetadata> req = new HashMap<>();
        for (Map.Entry<Integer, Long> e : offsets.entrySet())
            req.put(partition(e.getKey()), new OffsetAndMetadata(e.getValue()));
        String error = null;
        inSyncCommit = true;
        try {
            consumer.commitSync(req);
        } catch (RuntimeException e) {
            error = e.getClass().getSimpleName();
        } finally {
            inSyncCommit = false;
        }
        emit("commit", "generation", gen, "member_id", mid, "offsets", offsets, "error", error, "auto", false);
        return error;
    }

    void callback(String kind, Collection<TopicPartition> tps) {
        TreeSet<Integer> parts = indices(tps);
        List<Integer> before = new ArrayList<>(owned);
        if (kind.equals("assign")) owned.addAll(parts);
        else if (kind.equals("revoke") && "skips-revoke".equals(broken)) return;
        else owned.removeAll(parts);
        identity();
        emit(kind, "partitions", parts, "member_id", lastMemberId, "generation", lastGeneration,
             "owned_before", before, "owned_after", new ArrayList<>(owned));
        if (policy == null || kind.equals("assign")) return;
        TreeMap<Integer, Long> toCommit = new TreeMap<>();
        for (Integer p : parts) {
            Long next = processed.remove(p);
            if (next != null && kind.equals("revoke")) toCommit.put(p, next);
        }
        if ("sync-on-revoke".equals(policy)) syncCommit(toCommit);
    }

    ConsumerRebalanceListener listener() {
        return new ConsumerRebalanceListener() {
            public void onPartitionsAssigned(Collection<TopicPartition> ps) {
                callback("assign", ps);
            }

            public void onPartitionsRevoked(Collection<TopicPartition> ps) {
                callback("revoke", ps);
            }

            public void onPartitionsLost(Collection<TopicPartition> ps) {
                callback("lost", ps);
            }
        };
    }

    // -- the application's records (app_records.Records.steps) --------------------------

    /** Process one returned record; true when the application now holds (polls no more). */
    boolean record(int p, long offset) throws InterruptedException {
        boolean commitsFirst = "commits-before-processing".equals(broken);
        if (commitsFirst) syncCommit(Collections.singletonMap(p, offset + 1));
        if (!(holdAsked && commitsFirst)) {
            if (processMs > 0) Thread.sleep(processMs);
            emit("processed", "partition", p, "offset", offset, "member_id", lastMemberId, "generation", lastGeneration);
            processed.put(p, offset + 1);
        }
        if (holdAsked) {
            holdAsked = false;
            held = true;
            emit("held", "partition", p, "offset", offset);
            return true;
        }
        if ("after-processing".equals(policy) && !commitsFirst) syncCommit(Collections.singletonMap(p, offset + 1));
        return false;
    }

    void poll() throws InterruptedException {
        if (held) {
            Thread.sleep(100);            // blocked before committing: no poll, no callbacks
            return;
        }
        ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
        identity();
        if (policy == null) return;
        for (ConsumerRecord<byte[], byte[]> r : batch) {
            if (record(index(new TopicPartition(r.topic(), r.partition())), r.offset())) return;
        }
    }

    // -- the command loop (worker.loop) --------------------------------------------------

    void run() throws InterruptedException {
        topicsOf = this;
        reportAutoCommits = "auto".equals(policy);
        consumer = create();
        if (pattern) consumer.subscribe(Pattern.compile("^" + Pattern.quote(topic) + "(-g[0-9]+)?$"), listener());
        else consumer.subscribe(Collections.singletonList(topic), listener());
        LinkedBlockingQueue<String> commands = readCommands();
        boolean stalled = false;
        String last = null;
        long lastAt = 0;
        emit("ready");
        while (true) {
            String cmd = stalled ? commands.poll(100, TimeUnit.MILLISECONDS) : commands.poll();
            if ("close".equals(cmd)) {
                consumer.close();
                emit("closed");
                return;
            }
            if ("stall".equals(cmd) || "resume".equals(cmd)) stalled = cmd.equals("stall");
            else if ("commit".equals(cmd) && policy != null) syncCommit(new TreeMap<>(processed));
            else if ("commit".equals(cmd)) commitZero();
            else if ("hold".equals(cmd) && policy != null) {
                holdAsked = true;
                emit("hold_asked");
            }
            if (stalled) continue;
            poll();
            List<Integer> assignment = new ArrayList<>(indices(consumer.assignment()));
            String now = lastGeneration + "/" + lastMemberId + "/" + assignment;
            if (!now.equals(last) || System.currentTimeMillis() - lastAt >= 1000) {
                last = now;
                lastAt = System.currentTimeMillis();
                emit("sample", "generation", lastGeneration, "member_id", lastMemberId, "assignment", assignment);
            }
        }
    }

    /** The harness's commit command without records: commitSync of offset 0 for what it owns.
     *  Owning nothing (after onPartitionsLost), KafkaConsumer sends no OffsetCommit for an empty
     *  map and returns: reported as the error NothingToCommit, since nothing was accepted. */
    void commitZero() {
        identity();
        int gen = lastGeneration;
        String mid = lastMemberId;
        emit("commit_sent", "generation", gen, "member_id", mid);
        Map<TopicPartition, OffsetAndMetadata> req = new HashMap<>();
        for (Integer p : owned) req.put(partition(p), new OffsetAndMetadata(0));
        String error = req.isEmpty() ? "NothingToCommit" : null;
        try {
            if (!req.isEmpty()) consumer.commitSync(req);
        } catch (RuntimeException e) {
            error = e.getClass().getSimpleName();
        }
        emit("commit", "generation", gen, "member_id", mid, "error", error);
    }

    static LinkedBlockingQueue<String> readCommands() {
        LinkedBlockingQueue<String> q = new LinkedBlockingQueue<>();
        Thread t = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) q.add(line.trim());
            } catch (java.io.IOException e) {
                // stdin closed: leave as if told to
            }
            q.add("close");               // the harness went away: leave cleanly
        });
        t.setDaemon(true);
        t.start();
        return q;
    }

    // -- arguments ---------------------------------------------------------------------

    static void usage(String text) {
        System.err.println("consumer-worker: " + text);
        System.exit(2);
    }

    static Map<String, String> parse(String[] args) {
        List<String> flags = Arrays.asList("client", "assignor", "bootstrap", "group", "topic", "name", "instance-id",
            "broken", "commit-policy", "session-timeout-ms", "heartbeat-interval-ms", "max-poll-interval-ms",
            "partitions", "max-poll-records", "process-ms");
        Map<String, String> opt = new HashMap<>();
        opt.put("session-timeout-ms", "6000");
        opt.put("heartbeat-interval-ms", "1000");
        opt.put("max-poll-interval-ms", "9000");
        opt.put("max-poll-records", envOr("GROUPCHECK_JAVA_MAX_POLL_RECORDS", "500"));
        opt.put("process-ms", envOr("GROUPCHECK_JAVA_PROCESS_MS", "0"));
        for (int i = 0; i < args.length; i++) {
            String a = args[i].startsWith("--") ? args[i].substring(2) : null;
            if ("pattern".equals(a)) opt.put("pattern", "true");
            else if (a != null && flags.contains(a) && i + 1 < args.length) opt.put(a, args[++i]);
            else usage("unknown or incomplete argument " + args[i]);
        }
        for (String need : Arrays.asList("client", "assignor", "bootstrap", "group", "topic", "name"))
            if (!opt.containsKey(need)) usage("--" + need + " is required");
        if (!"java".equals(opt.get("client"))) usage("this worker is the client 'java', not " + opt.get("client"));
        if (!ASSIGNORS.contains(opt.get("assignor")))
            usage("java has no assignor '" + opt.get("assignor") + "'; known: " + String.join(", ", ASSIGNORS));
        if (opt.containsKey("commit-policy") && !POLICIES.contains(opt.get("commit-policy")))
            usage("--commit-policy must be one of " + String.join(", ", POLICIES));
        if (opt.containsKey("broken") && !BROKEN.contains(opt.get("broken")))
            usage("--broken must be one of " + String.join(", ", BROKEN));
        if ("commits-before-processing".equals(opt.get("broken")) && !"after-processing".equals(opt.get("commit-policy")))
            usage("--broken commits-before-processing needs --commit-policy after-processing");
        for (String n : Arrays.asList("session-timeout-ms", "heartbeat-interval-ms", "max-poll-interval-ms",
                                      "partitions", "max-poll-records", "process-ms")) {
            String v = opt.get(n);
            if (v != null && !v.matches("[0-9]{1,7}")) usage("--" + n + " must be a whole number, not " + v);
        }
        if (opt.containsKey("pattern") && (Integer.parseInt(opt.getOrDefault("partitions", "0")) < 1
                                           || !opt.get("topic").matches("[A-Za-z0-9_-]+")))
            usage("--pattern needs --partitions >= 1 and a topic of letters, digits, '_' and '-'");
        return opt;
    }

    static String envOr(String name, String otherwise) {
        String v = System.getenv(name);
        return v == null || v.isEmpty() ? otherwise : v;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = parse(args);
        String logDir = System.getenv("GROUPCHECK_JAVA_LOG_DIR");
        if (logDir != null && !logDir.isEmpty()) {
            String pid = java.lang.management.ManagementFactory.getRuntimeMXBean().getName().split("@")[0];
            System.setProperty("org.slf4j.simpleLogger.logFile", logDir + "/" + opt.get("name") + "-" + pid + ".log");
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "info");
            System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
        }
        new ConsumerWorker(opt).run();
    }
}
