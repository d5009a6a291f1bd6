package dev.parley.bench;

import dev.parley.functions.store.MessagesTable;
import dev.parley.functions.store.MessagesTable.StoredMessage;
import dev.parley.model.ClientMessageId;
import dev.parley.model.ConnectionId;
import dev.parley.model.Content;
import dev.parley.model.ContentType;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.model.WireEnum;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import software.amazon.awssdk.enhanced.dynamodb.TableSchema;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What mapping a message to and from its DynamoDB item costs: the hand-written mapping wave 1 used
 * (the baseline, kept here only to measure against), the static table schema the store uses now
 * ({@link MessagesTable#SCHEMA}), and a reflective bean schema ({@code TableSchema.fromBean}) for
 * contrast. Two figures each:
 * <ul>
 * <li>warm: nanoseconds per encode and per decode, after a warm-up that runs until three one-second
 * rounds agree within 5 % (at most 20 s), so the figure is the JIT-compiled code's;</li>
 * <li>cold: in a fresh JVM per run (as a Lambda cold start, or a SnapStart snapshot being made),
 * the milliseconds from the first use of the mapping to the first item encoded and decoded, which
 * is where a schema built by reflection pays for the reflection. Logging is started before the
 * clock, as every function starts it anyway.</li>
 * </ul>
 * Run it with {@code scripts/bench-item-mapping}; it is not part of the test run.
 */
public final class ItemMappingBenchmark {
    static final Message MESSAGE = new Message(ClientMessageId.parse("3f0c6a52-8f6e-4a53-9f43-6a1d2b7c9e10"), ConversationId.of("d:alice:bob"),
            4711, UserId.of("alice"), DeviceId.of("phone"), Content.text("x".repeat(200)), 1_780_391_765_031L);
    static final StoredMessage STORED = new StoredMessage(MESSAGE, Optional.of(ConnectionId.of("Ab1CdEfGhIJ=")));

    /** One way to map: item from message, message from item. */
    record Mapping(String name, Function<StoredMessage, Map<String, AttributeValue>> encode, Function<Map<String, AttributeValue>, StoredMessage> decode) {
    }

    static Mapping mapping(String name) {
        return switch (name) {
            case "hand-written" -> new Mapping(name, HandWrittenItems::item, HandWrittenItems::read);
            case "static-schema" -> new Mapping(name, MessagesTable::item, MessagesTable::read);
            case "bean-schema" -> {
                TableSchema<MessageBean> schema = TableSchema.fromBean(MessageBean.class);
                yield new Mapping(name, stored -> schema.itemToMap(MessageBean.of(stored), true), item -> schema.mapToItem(item).stored());
            }
            default -> throw new IllegalArgumentException("unknown mapping " + name + "; one of hand-written, static-schema, bean-schema");
        };
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("--cold")) {
            // One cold measurement, in this fresh JVM: the parent reads the figure from stdout. Logging is
            // started first, as every Parley function starts it at its cold start anyway (Powertools' log4j,
            // about half a second here): the Enhanced Client's first logger would otherwise be charged for it.
            org.slf4j.LoggerFactory.getLogger(ItemMappingBenchmark.class).debug("logging started");
            long started = System.nanoTime();
            Mapping mapping = mapping(args[1]);
            StoredMessage back = mapping.decode().apply(mapping.encode().apply(STORED));
            long took = System.nanoTime() - started;
            if (!back.equals(STORED)) {
                throw new IllegalStateException(args[1] + " did not map the message back unchanged: " + back);
            }
            System.out.println(took);
            return;
        }
        int coldRuns = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        Path report = Path.of(args.length > 1 ? args[1] : "tests/target/benchmarks/item-mapping.md");
        List<String> rows = new ArrayList<>();
        for (String name : List.of("hand-written", "static-schema", "bean-schema")) {
            double[] cold = cold(name, coldRuns);
            Mapping mapping = mapping(name);
            double encode = warm(() -> mapping.encode().apply(STORED));
            Map<String, AttributeValue> item = mapping.encode().apply(STORED);
            double decode = warm(() -> mapping.decode().apply(item));
            String row = String.format("| %s | %.0f | %.0f | %.1f | %.1f |", name, encode, decode, median(cold), cold[cold.length - 1]);
            System.out.println(row);
            rows.add(row);
        }
        String text = "# Item mapping: a message to and from its DynamoDB item\n\n"
                + "Run " + Instant.now() + ", JDK " + Runtime.version() + ", " + Runtime.getRuntime().availableProcessors() + " cores. "
                + "Warm: ns per call after the warm-up; cold: ms from first use to one item encoded and decoded in a fresh JVM "
                + "whose logging was started first (as a function's is), "
                + coldRuns + " JVMs each (median, slowest).\n\n"
                + "| mapping | encode (ns, warm) | decode (ns, warm) | cold, median (ms) | cold, slowest (ms) |\n|---|---|---|---|---|\n"
                + String.join("\n", rows) + "\n";
        Files.createDirectories(report.toAbsolutePath().getParent());
        Files.writeString(report, text);
        System.out.println("Report written to " + report.toAbsolutePath());
    }

    /** Nanoseconds per call, once the JIT has settled: one-second rounds until three agree within 5 %, at most 20 rounds. */
    private static double warm(Runnable call) {
        List<Double> rounds = new ArrayList<>();
        for (int round = 0; round < 20; round++) {
            long calls = 0;
            long started = System.nanoTime();
            long until = started + 1_000_000_000L;
            long now;
            do {
                for (int i = 0; i < 1_000; i++) {
                    call.run();
                }
                calls += 1_000;
                now = System.nanoTime();
            } while (now < until);
            rounds.add((double) (now - started) / calls);
            if (rounds.size() >= 3) {
                List<Double> last = rounds.subList(rounds.size() - 3, rounds.size());
                double low = last.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
                double high = last.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
                if (high <= low * 1.05) {
                    return last.get(2);
                }
            }
        }
        return rounds.getLast();
    }

    /** Milliseconds of each cold run, ascending. */
    private static double[] cold(String name, int runs) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        double[] millis = new double[runs];
        for (int run = 0; run < runs; run++) {
            Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), ItemMappingBenchmark.class.getName(),
                    "--cold", name).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String out = new String(process.getInputStream().readAllBytes()).strip();
            if (process.waitFor() != 0) {
                throw new IllegalStateException("the cold run of " + name + " failed");
            }
            millis[run] = Long.parseLong(out) / 1e6;
        }
        Arrays.sort(millis);
        return millis;
    }

    private static double median(double[] sorted) {
        return sorted[sorted.length / 2];
    }

    /** The mapping wave 1 wrote by hand (store/Items), as the baseline: a map built attribute by attribute. */
    static final class HandWrittenItems {
        static Map<String, AttributeValue> item(StoredMessage stored) {
            Message message = stored.message();
            Map<String, AttributeValue> content = new HashMap<>();
            content.put("type", AttributeValue.fromS(message.content().type().wireName()));
            message.content().body().ifPresent(body -> content.put("body", AttributeValue.fromS(body)));
            message.content().mediaUrl().ifPresent(url -> content.put("mediaUrl", AttributeValue.fromS(url)));
            Map<String, AttributeValue> item = new HashMap<>();
            item.put("conversationId", AttributeValue.fromS(message.conversationId().value()));
            item.put("seq", AttributeValue.fromN(Long.toString(message.seq())));
            item.put("clientId", AttributeValue.fromS(message.id().toString()));
            item.put("senderId", AttributeValue.fromS(message.senderId().value()));
            item.put("senderDevice", AttributeValue.fromS(message.senderDevice().value()));
            item.put("senderConnection", AttributeValue.fromS(stored.senderConnection().map(ConnectionId::value).orElse("")));
            item.put("content", AttributeValue.fromM(content));
            item.put("serverTimestamp", AttributeValue.fromN(Long.toString(message.serverTimestamp())));
            return item;
        }

        static StoredMessage read(Map<String, AttributeValue> item) {
            Map<String, AttributeValue> content = item.get("content").m();
            Content body = new Content(WireEnum.fromWireName(ContentType.class, content.get("type").s()).orElseThrow(),
                    Optional.ofNullable(content.get("body")).map(AttributeValue::s), Optional.ofNullable(content.get("mediaUrl")).map(AttributeValue::s));
            Message message = new Message(ClientMessageId.parse(item.get("clientId").s()), ConversationId.of(item.get("conversationId").s()),
                    Long.parseLong(item.get("seq").n()), UserId.of(item.get("senderId").s()), DeviceId.of(item.get("senderDevice").s()), body,
                    Long.parseLong(item.get("serverTimestamp").n()));
            String connection = item.get("senderConnection").s();
            return new StoredMessage(message, connection.isEmpty() ? Optional.empty() : Optional.of(ConnectionId.of(connection)));
        }
    }
}
