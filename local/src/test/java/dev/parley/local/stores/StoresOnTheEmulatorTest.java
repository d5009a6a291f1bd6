package dev.parley.local.stores;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.store.ConversationsTable;
import dev.parley.functions.store.DynamoConnectionRegistry;
import dev.parley.functions.store.DynamoConversationRepository;
import dev.parley.functions.store.DynamoMessageLog;
import dev.parley.local.dynamodb.Faults;
import dev.parley.model.ClientMessageId;
import dev.parley.model.ConnectionId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.MessageLog;
import dev.parley.ports.UnavailableException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The DynamoDB adapters against the emulator where DynamoDB misbehaves (partial batches, throttling,
 * failed writes, abandoned sends): what the contract suites cannot show with a well-behaved store.
 */
class StoresOnTheEmulatorTest {
    private static final Instant NOW = Instant.now();
    private static final Optional<ConnectionId> C1 = Optional.of(ConnectionId.of("c1"));
    private final EmulatedTables tables = new EmulatedTables();
    private final DynamoDbClient dynamo = tables.dynamo;
    private final dev.parley.local.dynamodb.DynamoDbEmulator emulator = tables.emulator;

    @AfterEach
    void stop() {
        tables.close();
    }

    private static List<UserId> users(int count) {
        return IntStream.range(0, count).mapToObj(i -> UserId.of("user-" + i)).toList();
    }

    @Test
    void aPresenceRenewalWritesTheConnectionsWatchListOnlyAndAChangeReadsTheWatchersOnce() {
        var subscriptions = new dev.parley.functions.store.DynamoPresenceSubscriptions(dynamo, ParleyManifest.PRESENCE);
        var alice = new dev.parley.ports.LiveConnection(ConnectionId.of("alice-phone"), UserId.of("alice"), DeviceId.of("phone"), NOW.plusSeconds(900));
        Map<UserId, Boolean> twenty = new java.util.HashMap<>();
        users(20).forEach(user -> twenty.put(user, true));
        subscriptions.subscribe(alice, twenty, NOW.plusSeconds(300));
        var batchesBefore = emulator.capacity().total(ParleyManifest.PRESENCE, "BatchWriteItem");
        var updatesBefore = emulator.capacity().total(ParleyManifest.PRESENCE, "UpdateItem");
        assertThat(batchesBefore.writeUnits()).as("the first subscription writes an item under each user").isEqualTo(20.0);

        subscriptions.subscribe(alice, twenty, NOW.plusSeconds(450));
        assertThat(emulator.capacity().total(ParleyManifest.PRESENCE, "BatchWriteItem")).as("a renewal writes no item under the users")
                .isEqualTo(batchesBefore);
        var updates = emulator.capacity().total(ParleyManifest.PRESENCE, "UpdateItem");
        assertThat(updates.requests() - updatesBefore.requests()).isEqualTo(1);
        assertThat(updates.writeUnits() - updatesBefore.writeUnits()).as("the watch list of 20, under 1 KB").isEqualTo(1.0);

        var bob = new dev.parley.ports.LiveConnection(ConnectionId.of("bob-phone"), UserId.of("bob"), DeviceId.of("phone"), NOW.plusSeconds(900));
        subscriptions.subscribe(bob, Map.of(UserId.of("user-3"), false), NOW.plusSeconds(300));
        assertThat(subscriptions.subscribers(UserId.of("user-3"), NOW)).extracting(s -> s.connection().connectionId().value(), s -> s.visible())
                .containsExactlyInAnyOrder(tuple("alice-phone", true), tuple("bob-phone", false));
        assertThat(emulator.capacity().total(ParleyManifest.PRESENCE, "Query").requests()).isEqualTo(1);
        assertThat(emulator.capacity().total(ParleyManifest.PRESENCE, "BatchGetItem").requests()).as("both watch lists in one read").isEqualTo(1);
    }

    @Test
    void aWatchListDropsTheTermsThatRanOut() {
        var subscriptions = new dev.parley.functions.store.DynamoPresenceSubscriptions(dynamo, ParleyManifest.PRESENCE);
        var alice = new dev.parley.ports.LiveConnection(ConnectionId.of("alice-phone"), UserId.of("alice"), DeviceId.of("phone"), NOW.plusSeconds(900));
        subscriptions.subscribe(alice, Map.of(UserId.of("bob"), true), NOW.plusSeconds(10));
        subscriptions.subscribe(alice, Map.of(UserId.of("carol"), true), NOW.plusSeconds(700));
        Map<String, AttributeValue> list = dynamo.getItem(b -> b.tableName(ParleyManifest.PRESENCE).key(Map.of("target", AttributeValue.fromS("W#alice-phone"),
                "subscriber", AttributeValue.fromS("-")))).item();
        assertThat(list).as("bob's ran out 390 s before carol's call").doesNotContainKey("t_bob").containsKey("t_carol");
        subscriptions.unsubscribeAll(ConnectionId.of("alice-phone"));
        assertThat(subscriptions.subscribers(UserId.of("carol"), NOW)).isEmpty();
    }

    @Test
    void connectionsLeftUnprocessedAreFetchedOnRetry() {
        DynamoConnectionRegistry registry = tables.connections();
        List<UserId> users = users(150);
        users.forEach(user -> registry.register(ConnectionId.of("c-" + user.value()), user, DeviceId.DEFAULT, NOW, NOW.plusSeconds(600)));
        emulator.faults().add(new Faults.Rule("BatchGetItem", ParleyManifest.CONNECTIONS, Faults.Kind.UNPROCESSED, 0.5, 0));

        var live = registry.liveConnections(users, NOW);

        assertThat(live).hasSize(150);
        users.forEach(user -> assertThat(live.get(user)).extracting(c -> c.connectionId()).containsExactly(ConnectionId.of("c-" + user.value())));
        assertThat(tables.waits).as("a retry waited for each partial answer").isNotEmpty();
    }

    @Test
    void membershipsLeftUnprocessedAreWrittenOnRetry() {
        DynamoConversationRepository repository = tables.conversations();
        List<UserId> members = users(60);
        emulator.faults().add(new Faults.Rule("BatchWriteItem", ParleyManifest.MEMBERSHIPS, Faults.Kind.UNPROCESSED, 0.5, 0));
        ConversationId id = ConversationId.of("g:crowd");

        repository.createIfAbsent(Conversation.group(id, members.getFirst(), members, Optional.empty()), members.getFirst());

        emulator.faults().clear();
        assertThat(repository.members(id)).hasSize(60);
        members.forEach(user -> assertThat(repository.membership(user, id)).as(user.value()).isPresent());
        assertThat(tables.waits).isNotEmpty();
    }

    @Test
    void aRemovalWhoseRowsCannotBeDeletedFailsClosedAndChangesNothing() {
        // Without the SDK's retries, whose backoff on a throttled batch takes most of a minute.
        DynamoConversationRepository repository = tables.conversations(tables.noRetries);
        UserId admin = UserId.of("admin");
        UserId bob = UserId.of("bob");
        ConversationId id = ConversationId.of("g:crew");
        var created = repository.createIfAbsent(Conversation.group(id, admin, List.of(admin, bob), Optional.empty()), admin);

        long fault = emulator.faults().add(new Faults.Rule("BatchWriteItem", ParleyManifest.MEMBERSHIPS, Faults.Kind.UNPROCESSED, 1.0, 0));
        assertThatThrownBy(() -> repository.replace(created, created.conversation().withMembersRemoved(admin, List.of(bob))))
                .isInstanceOfSatisfying(UnavailableException.class, e -> assertThat(e.getMessage()).contains("throttled"));
        emulator.faults().remove(fault);

        assertThat(repository.find(id).orElseThrow().conversation().members()).as("the list is not changed before the rows").contains(bob);
        assertThat(repository.membership(bob, id)).isPresent();
        assertThat(repository.replace(created, created.conversation().withMembersRemoved(admin, List.of(bob)))).isTrue();
        assertThat(repository.membership(bob, id)).isEmpty();
    }

    @Test
    void membershipRowsLostAfterTheConversationWasUpdatedAreRepaired() {
        DynamoConversationRepository repository = tables.conversations(tables.noRetries);
        UserId admin = UserId.of("admin");
        UserId carol = UserId.of("carol");
        ConversationId id = ConversationId.of("g:crew");
        var created = repository.createIfAbsent(Conversation.group(id, admin, List.of(admin), Optional.empty()), admin);

        long fault = emulator.faults().add(new Faults.Rule("BatchWriteItem", ParleyManifest.MEMBERSHIPS, Faults.Kind.UNPROCESSED, 1.0, 0));
        assertThatThrownBy(() -> repository.replace(created, created.conversation().withMembersAdded(admin, List.of(carol))))
                .as("the rows could not be written").isInstanceOf(UnavailableException.class);
        emulator.faults().remove(fault);
        var stored = repository.find(id).orElseThrow();
        assertThat(stored.conversation().members()).contains(carol);
        assertThat(repository.membership(carol, id)).as("so carol cannot send yet").isEmpty();

        repository.repairMemberships(stored, List.of(carol, admin));

        assertThat(repository.membership(carol, id)).get().extracting(m -> m.joinedAfterSeq()).isEqualTo(repository.requireSummary(id).lastSeq());
        assertThat(repository.membership(admin, id)).as("an existing row is left as it is").isPresent();
        assertThat(repository.requireSummary(id).memberCount()).isEqualTo(2);
    }

    @Test
    void aHistoryPageFillsAnAbandonedSeqRightBelowTheSeqItIsAskedBefore() {
        DynamoMessageLog log = messageLog();
        UserId alice = UserId.of("alice");
        ConversationId conversation = direct(alice, UserId.of("bob"));
        long longAgo = System.currentTimeMillis() - DynamoMessageLog.CLAIM_ABANDONED_AFTER.toMillis() - 5_000;
        for (int i = 1; i <= 3; i++) {
            log.append(conversation, ClientMessageId.random(), alice, DeviceId.DEFAULT, C1, Content.text("m" + i), longAgo);
        }
        // Seq 2 as a send that took it and died before storing leaves it: nothing there.
        dynamo.deleteItem(b -> b.tableName(dev.parley.functions.manifest.ParleyManifest.MESSAGES).key(java.util.Map.of(
                dev.parley.functions.store.MessagesTable.CONVERSATION, AttributeValue.fromS(conversation.value()),
                dev.parley.functions.store.MessagesTable.SEQ, AttributeValue.fromN("2"))));

        List<Message> gap = log.before(conversation, 3, 1);
        assertThat(gap).extracting(Message::seq).as("the page a client asks for to fill the gap below 3").containsExactly(2L);
        assertThat(gap.getFirst().isVoid()).as("abandoned: a later message is older than the claim's 30 s").isTrue();
        assertThat(log.before(conversation, 3, 5)).extracting(Message::seq).as("newest first, 3 itself left out").containsExactly(2L, 1L);
        assertThat(log.before(conversation, 4, 5)).extracting(Message::seq).containsExactly(3L, 2L, 1L);
        assertThat(tables.conversations().requireSummary(conversation)).as("the reader that voided seq 2 counted it, once")
                .satisfies(summary -> {
                    assertThat(summary.uncountedSeqs()).containsExactly(2L);
                    assertThat(summary.messagesAfter(0)).isEqualTo(2);
                });
    }

    @Test
    void aVoidWhoseCountFailedIsNeverCountedTwiceNorAMessageCountedAsAVoid() {
        DynamoMessageLog log = messageLog();
        UserId alice = UserId.of("alice");
        ConversationId conversation = direct(alice, UserId.of("bob"));
        long longAgo = System.currentTimeMillis() - DynamoMessageLog.CLAIM_ABANDONED_AFTER.toMillis() - 5_000;
        log.append(conversation, ClientMessageId.random(), alice, DeviceId.DEFAULT, C1, Content.text("m1"), longAgo);
        takeSeq(conversation);
        log.append(conversation, ClientMessageId.random(), alice, DeviceId.DEFAULT, C1, Content.text("m3"), longAgo);
        // The head refuses the count: the void is still written, and the page still reads.
        emulator.faults().add(new Faults.Rule("UpdateItem", ParleyManifest.CONVERSATIONS, Faults.Kind.INTERNAL_SERVER_ERROR, 1.0, 0));
        assertThat(log.after(conversation, 0, 10)).extracting(Message::isVoid).containsExactly(false, true, false);
        emulator.faults().clear();
        assertThat(tables.conversations().requireSummary(conversation).uncountedSeqs()).as("uncounted: one unread too many, never one too few")
                .isEmpty();
        assertThat(log.after(conversation, 0, 10)).extracting(Message::isVoid).containsExactly(false, true, false);
        assertThat(tables.conversations().requireSummary(conversation).uncountedSeqs()).as("a later reader finds the void written: no second count")
                .isEmpty();
    }

    @Test
    void aSendWhoseFunctionDiedAfterItsClaimIsTakenOverOnceTheClaimIsAbandoned() {
        DynamoMessageLog log = messageLog();
        UserId alice = UserId.of("alice");
        ConversationId conversation = direct(alice, UserId.of("bob"));
        ClientMessageId abandoned = ClientMessageId.parse("6f1d2c3b-0000-4000-8000-000000000001");
        ClientMessageId inFlight = ClientMessageId.parse("6f1d2c3b-0000-4000-8000-000000000002");
        long now = System.currentTimeMillis();
        // What a send leaves when its function dies right after claiming its client id.
        claim(conversation, abandoned, alice, now - DynamoMessageLog.CLAIM_ABANDONED_AFTER.toMillis() - 1_000);
        claim(conversation, inFlight, alice, now - 1_000);

        MessageLog.Appended retried = log.append(conversation, abandoned, alice, DeviceId.DEFAULT, C1, Content.text("hello"), now);
        assertThat(retried.duplicate()).isFalse();
        assertThat(retried.message().seq()).as("the seq taken beside the failed claim was given back; the takeover took the next").isEqualTo(2);
        MessageLog.Appended again = log.append(conversation, abandoned, alice, DeviceId.DEFAULT, C1, Content.text("hello"), now + 5);
        assertThat(again.duplicate()).as("the taken-over claim now stands for the stored message").isTrue();
        assertThat(again.message().seq()).isEqualTo(2);

        assertThatThrownBy(() -> log.append(conversation, inFlight, alice, DeviceId.DEFAULT, C1, Content.text("hi"), now))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT);
                    assertThat(e.getMessage()).contains("still in progress");
                });
        List<Message> stored = log.after(conversation, 0, 10);
        assertThat(stored).extracting(Message::seq).containsExactly(1L, 2L, 3L, 4L);
        assertThat(stored).extracting(Message::isVoid).as("each retry's seq given back at once; the refused send stored nothing")
                .containsExactly(true, false, true, true);
    }

    @Test
    void aSendItsAdmissionRefusesLeavesACountedVoidAndItsIdFreeForLater() {
        DynamoMessageLog log = messageLog();
        UserId alice = UserId.of("alice");
        ConversationId conversation = direct(alice, UserId.of("bob"));
        ClientMessageId id = ClientMessageId.parse("6f1d2c3b-0000-4000-8000-000000000041");
        long now = System.currentTimeMillis();
        MessageLog.Admission overTheLimit = () -> {
            throw new dev.parley.model.RateLimitedException("over the limit of messages", java.time.Duration.ofSeconds(1));
        };
        for (boolean resend : List.of(false, true)) {
            assertThatThrownBy(() -> log.append(conversation, id, alice, DeviceId.DEFAULT, C1, Content.text("hi"), now, Optional.empty(), resend,
                    overTheLimit)).as("resend " + resend).isInstanceOf(dev.parley.model.RateLimitedException.class);
        }
        assertThat(log.after(conversation, 0, 10)).as("the first took a seq and gave it back; the resend claimed first and took none")
                .extracting(Message::seq, Message::isVoid).containsExactly(tuple(1L, true));
        assertThat(tables.conversations().requireSummary(conversation).uncountedSeqs()).containsExactly(1L);

        MessageLog.Appended later = log.append(conversation, id, alice, DeviceId.DEFAULT, C1, Content.text("hi"), now + 1_000, Optional.empty(), true,
                MessageLog.Admission.ADMITTED);
        assertThat(later.duplicate()).as("the claims were released: the same send, admitted later, is stored").isFalse();
        assertThat(later.message().seq()).isEqualTo(2);
        assertThat(tables.conversations().requireSummary(conversation).messagesAfter(0)).isEqualTo(1);
    }

    @Test
    void aRetriedSendGivesItsSeqBackAtOnceAndAnswersWithTheOriginal() {
        DynamoMessageLog log = messageLog();
        UserId alice = UserId.of("alice");
        ConversationId conversation = direct(alice, UserId.of("bob"));
        ClientMessageId id = ClientMessageId.parse("6f1d2c3b-0000-4000-8000-000000000031");
        long now = System.currentTimeMillis();
        MessageLog.Appended first = log.append(conversation, id, alice, DeviceId.DEFAULT, C1, Content.text("hi"), now);

        MessageLog.Appended retried = log.append(conversation, id, alice, DeviceId.DEFAULT, C1, Content.text("hi"), now + 10);

        assertThat(retried.duplicate()).isTrue();
        assertThat(retried.message()).isEqualTo(first.message());
        List<Message> stored = log.after(conversation, 0, 10);
        assertThat(stored).extracting(Message::seq).containsExactly(1L, 2L);
        assertThat(stored.get(1).isVoid()).as("the retry's own seq is a void entry now, not a hole readers wait 30 s to fill").isTrue();
        assertThat(tables.conversations().requireSummary(conversation).uncountedSeqs()).as("and counted as one").containsExactly(2L);
        assertThat(log.append(conversation, ClientMessageId.parse("6f1d2c3b-0000-4000-8000-000000000032"), alice, DeviceId.DEFAULT, C1,
                Content.text("next"), now + 20).message().seq()).isEqualTo(3);
        assertThatThrownBy(() -> log.append(conversation, id, UserId.of("bob"), DeviceId.DEFAULT, C1, Content.text("mine"), now + 30))
                .as("another member's send with the same id").isInstanceOfSatisfying(DomainException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
    }

    @Test
    void aSendWhoseFunctionDiedBetweenStoringItsMessageAndRecordingItsSeqIsFoundByItsRetry() {
        DynamoMessageLog log = messageLog();
        UserId alice = UserId.of("alice");
        ConversationId conversation = direct(alice, UserId.of("bob"));
        ClientMessageId lost = ClientMessageId.parse("6f1d2c3b-0000-4000-8000-000000000041");
        long now = System.currentTimeMillis();
        long old = now - DynamoMessageLog.CLAIM_ABANDONED_AFTER.toMillis() - 1_000;
        // The send claimed its id and stored seq 1, and died before the seq reached its claim; others sent after it.
        MessageLog.Appended stored = log.append(conversation, lost, alice, DeviceId.DEFAULT, C1, Content.text("lost ack"), old);
        claim(conversation, lost, alice, old);
        for (int i = 0; i < 150; i++) {
            log.append(conversation, ClientMessageId.random(), alice, DeviceId.DEFAULT, C1, Content.text("later " + i), old + 1 + i);
        }

        MessageLog.Appended retried = log.append(conversation, lost, alice, DeviceId.DEFAULT, C1, Content.text("lost ack"), now);

        assertThat(retried.duplicate()).as("found by searching back through two pages of newer messages").isTrue();
        assertThat(retried.message()).isEqualTo(stored.message());
        assertThat(log.after(conversation, 0, 200)).filteredOn(m -> !m.isVoid()).extracting(Message::id).as("stored once").containsOnlyOnce(lost);
    }

    @Test
    void aRetryWhileTheFastPathIsStillPostingFindsTheStoredMessageBeforeItsSeqIsRecorded() {
        DynamoMessageLog log = messageLog();
        UserId alice = UserId.of("alice");
        ConversationId conversation = direct(alice, UserId.of("bob"));
        ClientMessageId id = ClientMessageId.parse("6f1d2c3b-0000-4000-8000-000000000051");
        MessageLog.FastPathOffer offer = new MessageLog.FastPathOffer(java.time.Duration.ofMillis(150), 64);
        long now = System.currentTimeMillis();
        MessageLog.Appended first = log.append(conversation, id, alice, DeviceId.DEFAULT, C1, Content.text("hi"), now, Optional.of(offer));
        assertThat(first.fastPathUntil()).isPresent();

        // Not recorded yet: the claim has no seq, and the retry searches the conversation for its original.
        MessageLog.Appended retried = log.append(conversation, id, alice, DeviceId.DEFAULT, C1, Content.text("hi"), now + 1, Optional.of(offer));

        assertThat(retried.duplicate()).isTrue();
        assertThat(retried.message()).isEqualTo(first.message());
        assertThat(retried.fastPathUntil()).isEmpty();
        log.recordFastPath(first.message(), new MessageLog.FastPathRecord.Delivered(List.of()));
        assertThat(log.fastPathRecords(List.of(first.message()))).as("the record of the delivery").containsKey(first.message());
        assertThat(log.append(conversation, id, alice, DeviceId.DEFAULT, C1, Content.text("hi"), now + 2).message())
                .as("and after it, through the claim").isEqualTo(first.message());
    }

    @Test
    void aThrottledSeqIncrementReleasesTheClaimSoTheSameSendMayBeRetriedAtOnce() {
        DynamoMessageLog log = messageLog();
        UserId alice = UserId.of("alice");
        ConversationId conversation = direct(alice, UserId.of("bob"));
        ClientMessageId id = ClientMessageId.parse("6f1d2c3b-0000-4000-8000-000000000021");
        long now = System.currentTimeMillis();

        long fault = emulator.faults().add(new Faults.Rule("UpdateItem", ParleyManifest.CONVERSATIONS,
                Faults.Kind.PROVISIONED_THROUGHPUT_EXCEEDED, 1.0, 0));
        assertThatThrownBy(() -> log.append(conversation, id, alice, DeviceId.DEFAULT, C1, Content.text("hi"), now))
                .isInstanceOfSatisfying(UnavailableException.class, e -> assertThat(e.retryAfter()).isEqualTo(java.time.Duration.ofMillis(250)));
        emulator.faults().remove(fault);

        MessageLog.Appended retried = log.append(conversation, id, alice, DeviceId.DEFAULT, C1, Content.text("hi"), now + 1);
        assertThat(retried.duplicate()).isFalse();
        assertThat(retried.message().seq()).as("no seq was taken by the throttled attempt").isEqualTo(1);
    }

    @Test
    void anIncrementThatMayHaveTakenASeqAsksForAWaitPastTheClaimsAbandonment() {
        DynamoMessageLog log = messageLog();
        UserId alice = UserId.of("alice");
        ConversationId conversation = direct(alice, UserId.of("bob"));
        long fault = emulator.faults().add(new Faults.Rule("UpdateItem", ParleyManifest.CONVERSATIONS, Faults.Kind.INTERNAL_SERVER_ERROR, 1.0, 0));
        assertThatThrownBy(() -> log.append(conversation, ClientMessageId.parse("6f1d2c3b-0000-4000-8000-000000000022"), alice, DeviceId.DEFAULT,
                C1, Content.text("hi"), System.currentTimeMillis()))
                .isInstanceOfSatisfying(UnavailableException.class, e -> assertThat(e.retryAfter()).isGreaterThan(DynamoMessageLog.CLAIM_ABANDONED_AFTER));
        emulator.faults().remove(fault);
    }

    @Test
    void aSendThatFailsAfterTakingItsSeqLeavesNoHoleWhenItIsRetried() {
        DynamoMessageLog log = messageLog();
        UserId alice = UserId.of("alice");
        UserId bob = UserId.of("bob");
        ConversationId conversation = direct(alice, bob);
        ClientMessageId failing = ClientMessageId.parse("6f1d2c3b-0000-4000-8000-000000000003");
        long now = System.currentTimeMillis();

        long fault = emulator.faults().add(new Faults.Rule("PutItem", ParleyManifest.MESSAGES, Faults.Kind.INTERNAL_SERVER_ERROR, 1.0, 0));
        assertThatThrownBy(() -> log.append(conversation, failing, alice, DeviceId.DEFAULT, C1, Content.text("first"), now))
                .isInstanceOf(UnavailableException.class);
        emulator.faults().remove(fault);
        // Meanwhile bob's send takes the next seq.
        MessageLog.Appended other = log.append(conversation, ClientMessageId.parse("6f1d2c3b-0000-4000-8000-000000000004"), bob,
                DeviceId.DEFAULT, Optional.of(ConnectionId.of("c2")), Content.text("second"), now + 1);
        assertThat(other.message().seq()).isEqualTo(2);

        MessageLog.Appended retried = log.append(conversation, failing, alice, DeviceId.DEFAULT, C1, Content.text("first"), now + 2);
        assertThat(retried.duplicate()).as("stored now, for the first time").isFalse();
        assertThat(retried.message().seq()).as("the seq the failed send took").isEqualTo(1);
        assertThat(log.after(conversation, 0, 10)).extracting(Message::seq, Message::isVoid)
                .as("the retry gave back the seq it took beside its claim").containsExactly(tuple(1L, false), tuple(2L, false), tuple(3L, true));
        MessageLog.Appended again = log.append(conversation, failing, alice, DeviceId.DEFAULT, C1, Content.text("first"), now + 3);
        assertThat(again.duplicate()).isTrue();
        assertThat(again.message().seq()).isEqualTo(1);
        assertThat(log.append(conversation, ClientMessageId.parse("6f1d2c3b-0000-4000-8000-000000000005"), alice, DeviceId.DEFAULT,
                C1, Content.text("third"), now + 4).message().seq()).isEqualTo(5);
    }

    @Test
    void aSeqLeftEmptyIsVoidedOnceALaterMessageIsOldEnoughAndARetryOfItsSendTakesANewSeq() {
        DynamoMessageLog log = messageLog();
        UserId alice = UserId.of("alice");
        ConversationId conversation = direct(alice, UserId.of("bob"));
        long now = System.currentTimeMillis();
        long old = now - DynamoMessageLog.CLAIM_ABANDONED_AFTER.toMillis() - 5_000;

        // A function killed between taking seq 1 and storing it.
        takeSeq(conversation);
        log.append(conversation, ClientMessageId.parse("6f1d2c3b-0000-4000-8000-000000000011"), alice, DeviceId.DEFAULT, C1,
                Content.text("two"), old);
        // A send whose message put failed after it took seq 3, leaving the seq on its claim.
        ClientMessageId failing = ClientMessageId.parse("6f1d2c3b-0000-4000-8000-000000000013");
        long fault = emulator.faults().add(new Faults.Rule("PutItem", ParleyManifest.MESSAGES, Faults.Kind.INTERNAL_SERVER_ERROR, 1.0, 0));
        assertThatThrownBy(() -> log.append(conversation, failing, alice, DeviceId.DEFAULT, C1, Content.text("three"), old))
                .isInstanceOf(UnavailableException.class);
        emulator.faults().remove(fault);
        log.append(conversation, ClientMessageId.parse("6f1d2c3b-0000-4000-8000-000000000014"), alice, DeviceId.DEFAULT, C1,
                Content.text("four"), old + 1);
        // A fresh hole: its send may still be running.
        takeSeq(conversation);
        log.append(conversation, ClientMessageId.parse("6f1d2c3b-0000-4000-8000-000000000016"), alice, DeviceId.DEFAULT, C1,
                Content.text("six"), now);

        List<Message> read = log.after(conversation, 0, 10);
        assertThat(read).extracting(Message::seq).containsExactly(1L, 2L, 3L, 4L, 6L);
        assertThat(read).extracting(Message::isVoid).containsExactly(true, false, true, false, false);
        assertThat(log.after(conversation, 0, 10)).as("voiding again changes nothing").isEqualTo(read);
        assertThat(log.before(conversation, 7, 10)).extracting(Message::seq).containsExactly(6L, 4L, 3L, 2L, 1L);

        MessageLog.Appended retried = log.append(conversation, failing, alice, DeviceId.DEFAULT, C1, Content.text("three"), now);
        assertThat(retried.message().seq()).as("its seq was voided, so it takes a new one (after giving back the one it took beside its claim)")
                .isEqualTo(8);
        assertThat(retried.duplicate()).isFalse();
        assertThat(log.after(conversation, 2, 10)).extracting(Message::seq, Message::isVoid)
                .containsExactly(tuple(3L, true), tuple(4L, false), tuple(6L, false), tuple(7L, true), tuple(8L, false));
    }

    private DynamoMessageLog messageLog() {
        return tables.messages();
    }

    /** A direct conversation of these two, stored as conversation.create stores it. */
    private ConversationId direct(UserId a, UserId b) {
        return tables.conversations().createIfAbsent(Conversation.direct(a, b), a).conversation().id();
    }

    /** What a send killed right after step 2 leaves: the conversation's counter moved on, nothing stored. */
    private void takeSeq(ConversationId conversation) {
        dynamo.updateItem(b -> b.tableName(ParleyManifest.CONVERSATIONS)
                .key(Map.of(ConversationsTable.PK, AttributeValue.fromS(ConversationsTable.headKey(conversation))))
                .updateExpression("SET #lastSeq = #lastSeq + :one").expressionAttributeNames(Map.of("#lastSeq", ConversationsTable.LAST_SEQ))
                .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1"))));
    }

    private void claim(ConversationId conversation, ClientMessageId id, UserId sender, long at) {
        dynamo.putItem(b -> b.tableName(ParleyManifest.CONVERSATIONS).item(Map.of(
                ConversationsTable.PK, AttributeValue.fromS(ConversationsTable.claimKey(conversation, id)),
                ConversationsTable.CLAIM_SENDER, AttributeValue.fromS(sender.value()),
                ConversationsTable.CLAIM_TIMESTAMP, AttributeValue.fromN(Long.toString(at)))));
    }

    @Test
    void anIdentityItemFromBeforeDeviceListsGetsOneOnTheNextUpload() {
        dynamo.putItem(b -> b.tableName(dev.parley.functions.manifest.ParleyManifest.KEYS).item(java.util.Map.of(
                dev.parley.functions.store.KeysTable.PK, AttributeValue.fromS("U#bob"), dev.parley.functions.store.KeysTable.SK, AttributeValue.fromS("I"),
                dev.parley.functions.store.KeysTable.IDENTITY_KEY, AttributeValue.fromS("bob-identity"))));
        var keys = new dev.parley.functions.store.DynamoKeyDirectory(dynamo, dev.parley.functions.manifest.ParleyManifest.KEYS,
                dev.parley.functions.retry.Backoff.DYNAMODB);
        dynamo.putItem(b -> b.tableName(dev.parley.functions.manifest.ParleyManifest.KEYS).item(java.util.Map.of(
                dev.parley.functions.store.KeysTable.PK, AttributeValue.fromS("U#bob"), dev.parley.functions.store.KeysTable.SK, AttributeValue.fromS("D#laptop"),
                dev.parley.functions.store.KeysTable.REGISTRATION_ID, AttributeValue.fromN("16"))));
        assertThat(keys.devices(List.of(UserId.of("bob")))).as("read from the devices' own items meanwhile").isEqualTo(java.util.Map.of(
                new dev.parley.model.DeviceAddress(UserId.of("bob"), dev.parley.model.DeviceId.of("laptop")), 16));

        keys.upload(UserId.of("bob"), dev.parley.model.DeviceId.of("phone"), new dev.parley.model.DeviceKeys("bob-identity", 17,
                new dev.parley.model.SignedPublicKey(1, "s", "sig"), new dev.parley.model.SignedPublicKey(2, "l", "sig"), Optional.empty(), Optional.empty()));

        assertThat(keys.devices(List.of(UserId.of("bob")))).as("the list made from the devices' items, and the phone").isEqualTo(java.util.Map.of(
                new dev.parley.model.DeviceAddress(UserId.of("bob"), dev.parley.model.DeviceId.of("phone")), 17,
                new dev.parley.model.DeviceAddress(UserId.of("bob"), dev.parley.model.DeviceId.of("laptop")), 16));
    }
}
