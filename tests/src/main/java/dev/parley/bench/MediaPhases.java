package dev.parley.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.bench.MessagingBenchmark.Client;
import dev.parley.bench.MessagingBenchmark.Snapshot;
import dev.parley.client.MultipartForm;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The benchmark's media phase (issue 29): {@link #PAIRS} pairs of users in direct conversations, each round a photo of
 * {@link #OBJECT_BYTES} bytes: the sender's upload grant, its POST straight to the local S3 (S3Proxy, in this JVM), the message
 * naming it, the receiver's download grant and GET. Latencies of each step, what a media message costs in what the cloud
 * counts, and S3's own terms modelled from AWS's prices (requests, 30 days of storage, and data transfer out, named apart).
 */
final class MediaPhases {
    static final int PAIRS = 10;
    /** The seeds' photo: 200 KB (004). */
    static final int OBJECT_BYTES = 200 * 1024;
    static final int WARM_UP_ROUNDS = 400;
    static final int ROUNDS = 200;
    static final int THREADS = 5;
    /** us-east-1 S3 Standard: PUT, COPY, POST, LIST requests; GET, SELECT and other requests (HEAD among them); storage; transfer out. */
    static final double USD_PER_MILLION_POSTS = 5.00;
    static final double USD_PER_MILLION_GETS = 0.40;
    static final double USD_PER_GB_MONTH = 0.023;
    static final double USD_PER_GB_OUT = 0.09;
    static final int RETENTION_DAYS = 30;

    private final MessagingBenchmark bench;
    private final HttpClient http = HttpClient.newHttpClient();

    MediaPhases(MessagingBenchmark bench) {
        this.bench = bench;
    }

    /** Each step's latency, over the measured rounds. */
    private record Steps(Histogram grant, Histogram upload, Histogram sendToReceive, Histogram downloadGrant, Histogram download) {
        Steps() {
            this(new ConcurrentHistogram(3), new ConcurrentHistogram(3), new ConcurrentHistogram(3), new ConcurrentHistogram(3), new ConcurrentHistogram(3));
        }
    }

    void run() throws Exception {
        List<Client> users = bench.connectAll("media", 2 * PAIRS);
        List<String> conversations = new ArrayList<>();
        for (int pair = 0; pair < PAIRS; pair++) {
            JsonNode created = MessagingBenchmark.request(users.get(2 * pair), "{\"type\":\"conversation.create\",\"id\":\"" + UUID.randomUUID()
                    + "\",\"kind\":\"direct\",\"members\":[\"" + users.get(2 * pair + 1).user + "\"]}", json -> json.path("type").asText().equals("conversation.created"));
            conversations.add(created.path("conversation").path("conversation_id").asText());
        }
        byte[] photo = new byte[OBJECT_BYTES];
        ThreadLocalRandom.current().nextBytes(photo);
        // Unmeasured: the grant, send and download paths, and the HTTP clients, compiled first.
        rounds(users, conversations, photo, WARM_UP_ROUNDS, new Steps());
        bench.awaitQuiet();
        Snapshot before = bench.snapshot();
        Steps steps = new Steps();
        long started = System.nanoTime();
        rounds(users, conversations, photo, ROUNDS, steps);
        double seconds = (System.nanoTime() - started) / 1e9;
        bench.awaitQuiet();
        Snapshot after = bench.snapshot();
        // Three frames a media message: the grant's request, the send, the download grant's request.
        Map<String, Object> phase = bench.costs(before, after, ROUNDS, 3L * ROUNDS, ROUNDS);
        phase.put("unit", "media message (" + OBJECT_BYTES + " bytes, downloaded once)");
        phase.put("rounds", ROUNDS);
        phase.put("grantMs", MessagingBenchmark.percentiles(steps.grant()));
        phase.put("uploadMs", MessagingBenchmark.percentiles(steps.upload()));
        phase.put("sendToReceiveMs", MessagingBenchmark.percentiles(steps.sendToReceive()));
        phase.put("downloadGrantMs", MessagingBenchmark.percentiles(steps.downloadGrant()));
        phase.put("downloadMs", MessagingBenchmark.percentiles(steps.download()));
        Map<String, Double> s3 = s3Model();
        phase.put("s3UsdPerMillion", s3);
        double counted = ((Number) phase.get("modelledUsdPerMillionMessages")).doubleValue();
        bench.section.put("media", phase);
        bench.markdown.add("## Media: a 200 KB photo, uploaded, sent and downloaded\n");
        bench.markdown.add(String.format("""
                %d pairs of users, %d rounds in %.1f s (%d at a time, after %d unmeasured): the sender asks for an upload grant, posts \
                the photo to the local S3 (S3Proxy in this JVM, checking the policy and signature), sends the message naming it; the \
                receiver asks for a download grant and GETs the photo. Latency, ms (p50 / p95 / p99 / max):%n
                | step | p50 | p95 | p99 | max |
                |---|---|---|---|---|
                %s
                %s
                %s
                %s
                %s
                """, PAIRS, ROUNDS, seconds, THREADS, WARM_UP_ROUNDS, MessagingBenchmark.row("upload grant (frame to grant)", steps.grant()),
                MessagingBenchmark.row("POST of 200 KB to S3", steps.upload()), MessagingBenchmark.row("send to receive (the send's HeadObject included)", steps.sendToReceive()),
                MessagingBenchmark.row("download grant (its HeadObject and membership read included)", steps.downloadGrant()), MessagingBenchmark.row("GET of 200 KB from S3", steps.download())));
        bench.markdown.add(bench.costTable(phase, "media message"));
        bench.markdown.add(String.format("""
                S3's terms, modelled from us-east-1 prices (the local S3 counts no money): requests %.2f USD per million media messages \
                (a POST at %.2f per million, and three GET-class requests at %.2f: the send's HeadObject, the download grant's, the \
                GET), storage %.2f (%d KB for %d days at %.3f USD per GB-month). With the table's %.2f: **%.2f USD per million media \
                messages**, before data transfer out, which grows with how often a photo is viewed: %.2f USD per million downloads \
                (%.3f per GB to the internet).%n""", s3.get("requests"), USD_PER_MILLION_POSTS, USD_PER_MILLION_GETS, s3.get("storage"),
                OBJECT_BYTES / 1024, RETENTION_DAYS, USD_PER_GB_MONTH, counted, counted + s3.get("requests") + s3.get("storage"),
                s3.get("transferOutPerMillionDownloads"), USD_PER_GB_OUT));
        users.forEach(Client::close);
        bench.awaitQuiet();
    }

    static Map<String, Double> s3Model() {
        double gigabytes = OBJECT_BYTES * 1e6 / (1L << 30);
        Map<String, Double> usd = new LinkedHashMap<>();
        usd.put("requests", USD_PER_MILLION_POSTS + 3 * USD_PER_MILLION_GETS);
        usd.put("storage", gigabytes * USD_PER_GB_MONTH * RETENTION_DAYS / 30.0);
        usd.put("transferOutPerMillionDownloads", gigabytes * USD_PER_GB_OUT);
        return usd;
    }

    /** {@code rounds} rounds, spread over {@link #THREADS} threads, each owning some pairs and running theirs one after another. */
    private void rounds(List<Client> users, List<String> conversations, byte[] photo, int rounds, Steps steps) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> workers = new ArrayList<>();
        for (int thread = 0; thread < THREADS; thread++) {
            int first = thread;
            workers.add(pool.submit(() -> {
                for (int round = first; round < rounds; round += THREADS) {
                    int pair = round % PAIRS;
                    round(users.get(2 * pair), users.get(2 * pair + 1), conversations.get(pair), photo, steps);
                }
                return null;
            }));
        }
        try {
            for (Future<?> worker : workers) {
                worker.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private void round(Client sender, Client receiver, String conversation, byte[] photo, Steps steps) throws Exception {
        long at = System.nanoTime();
        JsonNode grant = MessagingBenchmark.request(sender, "{\"type\":\"media.upload\",\"content_type\":\"image/jpeg\",\"size\":" + photo.length
                + ",\"conversation_id\":\"" + conversation + "\"}", json -> json.path("type").asText().equals("media.upload_grant")
                || json.path("type").asText().equals("error"));
        steps.grant().recordValue(System.nanoTime() - at);
        require(grant, "media.upload_grant");
        Map<String, String> fields = new LinkedHashMap<>();
        grant.path("fields").properties().forEach(field -> fields.put(field.getKey(), field.getValue().asText()));
        at = System.nanoTime();
        HttpResponse<String> posted = http.send(MultipartForm.post(URI.create(grant.path("url").asText()), fields, "image/jpeg", photo),
                HttpResponse.BodyHandlers.ofString());
        steps.upload().recordValue(System.nanoTime() - at);
        if (posted.statusCode() / 100 != 2) {
            throw new IllegalStateException("the local S3 refused an upload: " + posted.statusCode() + " " + posted.body());
        }
        String mediaId = grant.path("media_id").asText();
        CountDownLatch received = new CountDownLatch(1);
        long[] receivedAt = new long[1];
        receiver.onFrame = json -> {
            if (json.path("type").asText().equals("message.receive") && json.path("content").path("media_id").asText().equals(mediaId)) {
                receivedAt[0] = System.nanoTime();
                received.countDown();
            }
        };
        long sent = System.nanoTime();
        JsonNode ack = MessagingBenchmark.request(sender, "{\"type\":\"message.send\",\"id\":\"" + UUID.randomUUID() + "\",\"conversation_id\":\""
                + conversation + "\",\"content\":{\"type\":\"image\",\"media_id\":\"" + mediaId + "\",\"content_type\":\"image/jpeg\",\"size\":"
                + photo.length + "},\"attempt\":1}", json -> json.path("type").asText().equals("message.ack") || json.path("type").asText().equals("error"));
        require(ack, "message.ack");
        if (!received.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException(receiver.user + " did not receive the media message " + mediaId);
        }
        steps.sendToReceive().recordValue(receivedAt[0] - sent);
        receiver.onFrame = json -> { };
        at = System.nanoTime();
        JsonNode download = MessagingBenchmark.request(receiver, "{\"type\":\"media.download\",\"media_id\":\"" + mediaId + "\"}",
                json -> json.path("type").asText().equals("media.download_grant") || json.path("type").asText().equals("error"));
        steps.downloadGrant().recordValue(System.nanoTime() - at);
        require(download, "media.download_grant");
        at = System.nanoTime();
        HttpResponse<byte[]> got = http.send(HttpRequest.newBuilder(URI.create(download.path("url").asText())).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());
        steps.download().recordValue(System.nanoTime() - at);
        if (got.statusCode() != 200 || got.body().length != photo.length) {
            throw new IllegalStateException("the download of " + mediaId + " answered " + got.statusCode() + " with " + got.body().length + " bytes");
        }
    }

    private static void require(JsonNode answer, String type) {
        if (!answer.path("type").asText().equals(type)) {
            throw new IllegalStateException("expected " + type + ", got " + answer);
        }
    }
}
