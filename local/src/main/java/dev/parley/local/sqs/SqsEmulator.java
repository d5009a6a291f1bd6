package dev.parley.local.sqs;

import dev.parley.functions.manifest.QueueSpec;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import com.typesafe.config.ConfigFactory;
import org.apache.pekko.actor.ActorSystem;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * SQS, locally: ElasticMQ (Apache-2.0, softwaremill/elasticmq), an SQS emulator that runs in this JVM and speaks the SQS JSON
 * protocol the current AWS SDKs use, with message delays, visibility timeouts and redrive to a dead-letter queue; chosen over
 * writing one (docs/local-cloud.md says what was checked). It makes the manifest's queues, redrive policies included.
 */
public final class SqsEmulator implements AutoCloseable {
    /**
     * ElasticMQ's actor system, ours so that its scheduler ticks every 100 ms rather than Pekko's 10 ms: the emulator's
     * timers are SQS's (visibility timeouts, delays, long polls) in whole seconds, and an idle local cloud then does not
     * wake a thread a hundred times a second. A receive still gets a sent message at once (that is a message, not a tick).
     */
    private final ActorSystem actors;
    private final SQSRestServer server;
    private final URI endpoint;
    private final SqsClient client;
    private final Map<String, String> urls = new HashMap<>();

    private SqsEmulator(String host, int port) {
        actors = ActorSystem.create("elasticmq", ConfigFactory.parseString("pekko.scheduler.tick-duration = 100ms").withFallback(ConfigFactory.load()));
        int bound;
        try {
            server = SQSRestServerBuilder.withActorSystem(actors).withInterface(host).withPort(port).withAWSRegion("us-east-1").start();
            bound = server.waitUntilStarted().localAddress().getPort();
        } catch (RuntimeException e) {
            actors.terminate();
            throw e;
        }
        endpoint = URI.create("http://" + host + ":" + bound);
        client = SqsClient.builder().endpointOverride(endpoint).region(Region.US_EAST_1).httpClient(UrlConnectionHttpClient.create())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"))).build();
    }

    /** An emulator on {@code host:port} (0 picks a free port), with these queues made (dead-letter queues before their users). */
    public static SqsEmulator start(String host, int port, List<QueueSpec> queues) {
        SqsEmulator sqs;
        try {
            sqs = new SqsEmulator(host, port);
        } catch (RuntimeException e) {
            throw new IllegalStateException("starting the SQS emulator on port " + port + " failed: " + e.getMessage(), e);
        }
        queues.stream().filter(q -> q.deadLetters().isEmpty()).forEach(sqs::create);
        queues.stream().filter(q -> q.deadLetters().isPresent()).forEach(sqs::create);
        return sqs;
    }

    private void create(QueueSpec spec) {
        Map<QueueAttributeName, String> attributes = new HashMap<>();
        attributes.put(QueueAttributeName.VISIBILITY_TIMEOUT, Long.toString(spec.visibilityTimeout().toSeconds()));
        spec.deadLetters().ifPresent(dead -> attributes.put(QueueAttributeName.REDRIVE_POLICY, "{\"deadLetterTargetArn\":\"" + arn(dead.queue())
                + "\",\"maxReceiveCount\":\"" + dead.maxReceiveCount() + "\"}"));
        urls.put(spec.name(), client.createQueue(b -> b.queueName(spec.name()).attributes(attributes)).queueUrl());
    }

    private String arn(String queue) {
        return client.getQueueAttributes(b -> b.queueUrl(urls.get(queue)).attributeNames(QueueAttributeName.QUEUE_ARN)).attributes()
                .get(QueueAttributeName.QUEUE_ARN);
    }

    /** The URL to give {@code SqsClient.endpointOverride}. */
    public URI endpoint() {
        return endpoint;
    }

    /** A manifest queue's URL. */
    public String url(String queue) {
        String url = urls.get(queue);
        if (url == null) {
            throw new IllegalArgumentException("no queue " + queue);
        }
        return url;
    }

    /** A queue's ARN, as event source mappings and events name it. */
    public String queueArn(String queue) {
        return arn(queue);
    }

    /** A client of the emulator, for the local cloud's own mappings and for tests. */
    public SqsClient client() {
        return client;
    }

    /** Messages a queue holds now: ready, in flight (received, not yet deleted) and delayed. */
    public long messages(String queue) {
        Map<QueueAttributeName, String> counts = client.getQueueAttributes(b -> b.queueUrl(url(queue)).attributeNames(
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE,
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED)).attributes();
        return counts.values().stream().mapToLong(Long::parseLong).sum();
    }

    @Override
    public void close() {
        client.close();
        // The server's own stopAndWait waits a minute for open connections to end, and a long poll whose client gave up can
        // hold one open (it did once in a run of the suite): a few seconds' grace, then the actor system ends them all.
        try {
            scala.concurrent.Await.result(server.stopAndGetFuture().apply(), scala.concurrent.duration.Duration.create(STOP_GRACE_SECONDS,
                    java.util.concurrent.TimeUnit.SECONDS));
        } catch (Exception notStoppedInTime) {
            System.getLogger(SqsEmulator.class.getName()).log(System.Logger.Level.WARNING,
                    "ElasticMQ did not stop within " + STOP_GRACE_SECONDS + " s; its actor system is terminated");
        }
        actors.terminate();
    }

    private static final int STOP_GRACE_SECONDS = 5;
}
