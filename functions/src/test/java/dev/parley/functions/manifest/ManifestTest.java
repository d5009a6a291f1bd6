package dev.parley.functions.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.functions.config.AwsClients;
import dev.parley.functions.config.ParleyConfig;
import dev.parley.functions.handler.FrameHandler;
import dev.parley.functions.store.ConnectionsTable;
import dev.parley.functions.store.DynamoMessageLog;
import dev.parley.functions.store.MembershipsTable;
import dev.parley.functions.store.MessagesTable;
import dev.parley.functions.usecase.FanOut;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ManifestTest {
    private static final TableSpec MESSAGES = new TableSpec("messages", new TableSpec.Key("pk", TableSpec.KeyType.S),
            Optional.of(new TableSpec.Key("seq", TableSpec.KeyType.N)), List.of(), Optional.of("NEW_IMAGE"), Optional.empty());
    private static final TableSpec PLAIN = new TableSpec("plain", new TableSpec.Key("pk", TableSpec.KeyType.S),
            Optional.empty(), List.of(), Optional.empty(), Optional.of("expires"));

    private static FunctionSpec function(String name, Trigger trigger, Map<String, FunctionSpec.TableAccess> tables) {
        return new FunctionSpec(name, "x.Handler", 512, Duration.ofSeconds(10), Map.of(), trigger, tables, false);
    }

    private static Trigger.StreamMapping mapping(String table) {
        return new Trigger.StreamMapping(table, 100, Duration.ZERO, Trigger.StartingPosition.TRIM_HORIZON, 1, true, true, 3,
                Duration.ofHours(1), Optional.of("failures"));
    }

    @Test
    void findsFunctionsByRouteAuthorizerAndStream() {
        Manifest manifest = new Manifest(List.of(
                function("send", new Trigger.WebSocketRoute("message.send"), Map.of("messages", FunctionSpec.TableAccess.READ_WRITE)),
                function("auth", new Trigger.WebSocketAuthorizer(List.of("route.request.querystring.token")), Map.of()),
                function("fanout", mapping("messages"), Map.of("messages", FunctionSpec.TableAccess.STREAM))),
                List.of(MESSAGES, PLAIN));
        assertThat(manifest.route("message.send")).map(FunctionSpec::name).contains("send");
        assertThat(manifest.route("nothing")).isEmpty();
        assertThat(manifest.authorizer()).map(FunctionSpec::name).contains("auth");
        assertThat(manifest.streamConsumers()).extracting(FunctionSpec::name).containsExactly("fanout");
    }

    @Test
    void refusesWhatCannotBeDeployed() {
        FunctionSpec a = function("a", new Trigger.WebSocketRoute("ping"), Map.of());
        assertThatThrownBy(() -> new Manifest(List.of(a, a), List.of())).hasMessage("function a is defined twice");
        assertThatThrownBy(() -> new Manifest(List.of(a, function("b", new Trigger.WebSocketRoute("ping"), Map.of())), List.of()))
                .hasMessage("route ping has two functions");
        assertThatThrownBy(() -> new Manifest(List.of(function("c", new Trigger.WebSocketRoute("x"), Map.of("nope", FunctionSpec.TableAccess.READ))), List.of()))
                .hasMessage("c uses unknown table nope");
        assertThatThrownBy(() -> new Manifest(List.of(function("d", mapping("plain"), Map.of())), List.of(PLAIN)))
                .hasMessage("d maps the stream of table plain, which has none");
        Trigger.WebSocketAuthorizer authorizer = new Trigger.WebSocketAuthorizer(List.of("route.request.header.Authorization"));
        assertThatThrownBy(() -> new Manifest(List.of(function("e", authorizer, Map.of()), function("f", authorizer, Map.of())), List.of()))
                .hasMessageContaining("at most one $connect authorizer");
        assertThatThrownBy(() -> new Manifest(List.of(), List.of(PLAIN, PLAIN))).hasMessage("table plain is defined twice");
    }

    @Test
    void settingsOutsideLambdasLimitsAreRefused() {
        assertThatThrownBy(() -> new FunctionSpec("bad name!", "x", 512, Duration.ofSeconds(1), Map.of(), new Trigger.WebSocketRoute("r"), Map.of(), false))
                .hasMessageContaining("must be 1 to 64 letters");
        assertThatThrownBy(() -> new FunctionSpec("f", "x", 64, Duration.ofSeconds(1), Map.of(), new Trigger.WebSocketRoute("r"), Map.of(), false))
                .hasMessageContaining("memoryMb");
        assertThatThrownBy(() -> new FunctionSpec("f", "x", 512, Duration.ofMinutes(16), Map.of(), new Trigger.WebSocketRoute("r"), Map.of(), false))
                .hasMessageContaining("timeout");
        assertThatThrownBy(() -> new Trigger.StreamMapping("t", 0, Duration.ZERO, Trigger.StartingPosition.LATEST, 1, false, false, 0,
                Duration.ofSeconds(-1), Optional.empty())).hasMessageContaining("batchSize");
        assertThatThrownBy(() -> new Trigger.StreamMapping("t", 10, Duration.ZERO, Trigger.StartingPosition.LATEST, 11, false, false, 0,
                Duration.ofSeconds(-1), Optional.empty())).hasMessageContaining("parallelizationFactor");
        assertThatThrownBy(() -> new Trigger.StreamMapping("t", 10, Duration.ZERO, Trigger.StartingPosition.LATEST, 1, false, false, 0,
                Duration.ofSeconds(30), Optional.empty())).hasMessageContaining("maximumRecordAge");
        Trigger.StreamFilter inserts = new Trigger.StreamFilter("INSERT", "pk", "F#");
        assertThatThrownBy(() -> new Trigger.StreamMapping("t", 10, Duration.ZERO, Trigger.StartingPosition.LATEST, 1, false, false, 0,
                Duration.ofSeconds(-1), Optional.empty(), java.util.Collections.nCopies(6, inserts))).hasMessageContaining("at most 5 filters");
        assertThatThrownBy(() -> new Trigger.StreamFilter("UPSERT", "pk", "F#")).hasMessageContaining("INSERT, MODIFY or REMOVE");
        assertThatThrownBy(() -> new Trigger.StreamFilter("INSERT", "pk", "")).hasMessageContaining("a prefix");
    }

    @Test
    void aStreamFilterIsTheEventPatternLambdaReads() throws Exception {
        var pattern = new com.fasterxml.jackson.databind.ObjectMapper().readTree(new Trigger.StreamFilter("INSERT", "sk", "N#").pattern());
        assertThat(pattern.toString()).isEqualTo("{\"eventName\":[\"INSERT\"],\"dynamodb\":{\"Keys\":{\"sk\":{\"S\":[{\"prefix\":\"N#\"}]}}}}");
    }

    @Test
    void noParleyFunctionMayScan() {
        List<FunctionSpec> withTables = ParleyManifest.manifest().functions().stream().filter(f -> !f.tables().isEmpty()).toList();
        assertThat(withTables).as("functions that use tables").hasSizeGreaterThan(3);
        assertThat(withTables).allSatisfy(f -> f.tables().forEach((table, access) ->
                assertThat(access.operations()).as(f.name() + " on " + table).doesNotContain("Scan")));
    }

    /** The functions that store messages: message.send's route, and $default, which any frame may reach. */
    private static List<FunctionSpec> senders() {
        List<FunctionSpec> senders = ParleyManifest.manifest().functions().stream()
                .filter(f -> f.handler().equals(FrameHandler.class.getName())).toList();
        assertThat(senders).extracting(FunctionSpec::name).contains("route-message-send", "default");
        return senders;
    }

    @Test
    void aSendsWorstCaseFitsTheFrameFunctionsTimeout() {
        // claim, seq, message, and on failure the seq left on the claim: four calls, each bounded.
        Duration worstCase = AwsClients.DYNAMODB_CALL_TIMEOUT.multipliedBy(4);
        assertThat(senders()).allSatisfy(f -> assertThat(worstCase).as(f.name()).isLessThan(f.timeout()));
    }

    @Test
    void aFastPathSendsWorstCaseFitsTheFrameFunctionsTimeout() {
        // claim and seq, then the message, then the longest window and its grace for the posts, then the record on the claim.
        Duration longestWindow = new dev.parley.ports.MessageLog.FastPathOffer(Duration.ofMillis(ParleyConfig.LONGEST_FAST_PATH_WINDOW_MS),
                ParleyConfig.LARGEST_FAST_PATH_MAX_CONNECTIONS).windowFor(ParleyConfig.LARGEST_FAST_PATH_MAX_CONNECTIONS);
        Duration worstCase = AwsClients.DYNAMODB_CALL_TIMEOUT.multipliedBy(3).plus(longestWindow).plus(FanOut.FAST_PATH_GRACE);
        assertThat(senders()).allSatisfy(f -> assertThat(worstCase).as(f.name()).isLessThan(f.timeout()));
    }

    @Test
    void aFastPathSendWaitsForItsPostsAsLongAsOnePostsAttemptMayTake() {
        // Past that, the SDK retries the post itself, and the message may land twice whoever posts it again.
        assertThat(FanOut.FAST_PATH_GRACE).isEqualTo(AwsClients.MANAGEMENT_ATTEMPT_TIMEOUT);
        assertThat(FanOut.RECORD_DEADLINE).as("the fan-out waits past the grace and the record's write")
                .isGreaterThanOrEqualTo(FanOut.FAST_PATH_GRACE.plus(AwsClients.DYNAMODB_CALL_TIMEOUT));
    }

    @Test
    void theFanOutOutlastsItsWaitForFastPathRecordsAndItsDeliveries() {
        FunctionSpec fanOut = ParleyManifest.manifest().function("fanout").orElseThrow();
        Duration waits = FanOut.MAX_FAST_PATH_WAIT.plus(FanOut.RECORD_DEADLINE);
        assertThat(fanOut.timeout()).isGreaterThan(waits.plus(AwsClients.DYNAMODB_CALL_TIMEOUT.multipliedBy(5)));
    }

    @Test
    void everyFunctionThatSendsEndsLongBeforeItsClaimCountsAsAbandoned() {
        assertThat(senders()).allSatisfy(f ->
                assertThat(f.timeout()).as(f.name()).isLessThan(DynamoMessageLog.CLAIM_ABANDONED_AFTER.dividedBy(2)));
    }

    @Test
    void theTablesAreDescribedByTheSameConstantsTheStoresUse() {
        Manifest manifest = ParleyManifest.manifest();
        TableSpec messages = manifest.tables().stream().filter(t -> t.name().equals(ParleyManifest.MESSAGES)).findFirst().orElseThrow();
        assertThat(messages.partitionKey().name()).isEqualTo(MessagesTable.CONVERSATION);
        assertThat(messages.sortKey()).map(TableSpec.Key::name).contains(MessagesTable.SEQ);
        assertThat(messages.globalIndexes()).as("no index by client id (a retried send finds its original through its claim): one sparse index of reaction listings")
                .singleElement().satisfies(index -> {
                    assertThat(index.name()).isEqualTo(MessagesTable.BY_REACTIONS_AT);
                    assertThat(index.partitionKey().name()).isEqualTo(MessagesTable.CONVERSATION);
                    assertThat(index.sortKey()).map(TableSpec.Key::name).contains(MessagesTable.REACTIONS_AT);
                    assertThat(index.nonKeyAttributes()).containsExactly(MessagesTable.REACTIONS);
                });
        // The static schema's keys are the table's keys.
        assertThat(MessagesTable.SCHEMA.tableMetadata().primaryPartitionKey()).isEqualTo(messages.partitionKey().name());
        TableSpec memberships = manifest.tables().stream().filter(t -> t.name().equals(ParleyManifest.MEMBERSHIPS)).findFirst().orElseThrow();
        assertThat(MembershipsTable.SCHEMA.tableMetadata().primaryPartitionKey()).isEqualTo(memberships.partitionKey().name());
        assertThat(MembershipsTable.SCHEMA.tableMetadata().indexPartitionKey(MembershipsTable.BY_CONVERSATION))
                .isEqualTo(memberships.globalIndexes().getFirst().partitionKey().name());
        assertThat(memberships.globalIndexes().getFirst().nonKeyAttributes()).containsExactlyElementsOf(MembershipsTable.PROJECTED);
        TableSpec connections = manifest.tables().stream().filter(t -> t.name().equals(ParleyManifest.CONNECTIONS)).findFirst().orElseThrow();
        assertThat(connections.ttlAttribute()).contains(ConnectionsTable.LEASE);
    }

    @Test
    void theReceiptsFunctionOutlastsItsBatchesWaitsForTurns() {
        FunctionSpec receipts = ParleyManifest.manifest().function("receipts").orElseThrow();
        Duration waits = dev.parley.functions.usecase.ReceiptNotices.LONGEST_INTERVAL.multipliedBy(dev.parley.functions.usecase.ReceiptNotices.WAITS);
        assertThat(receipts.timeout()).isGreaterThan(waits.plus(AwsClients.DYNAMODB_CALL_TIMEOUT.multipliedBy(5)));
    }
}
