package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.BOB;
import static dev.parley.functions.usecase.Fixture.CAROL;
import static dev.parley.functions.usecase.Fixture.DAVE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.DomainException;
import dev.parley.model.Emoji;
import dev.parley.model.ErrorCode;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.ReactionCount;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** reaction.set and the listing of reactions onto their messages, on the in-memory ports. */
class ReactionsTest {
    private static final Emoji UP = Emoji.of("\uD83D\uDC4D");
    private static final Emoji HEART = Emoji.of("\u2764\uFE0F");

    private final Fixture world = new Fixture();
    private final SetReaction setting = new SetReaction(world.conversations, world.messages, world.reactions, world.clock,
            new SendMessage(world.messages, world.conversations, world.keys, world.media, world.delivery, world.codec, world.clock, Optional.empty()));
    private final List<Duration> slept = new ArrayList<>();
    private final ReactionListings listings = new ReactionListings(world.conversations, world.reactions, world.delivery, world.codec, world.clock,
            wait -> {
                slept.add(wait);
                world.clock.advance(wait);
            }, Duration.ofSeconds(1));
    private final ConversationId team = world.conversations.createIfAbsent(Conversation.group(ConversationId.of("g:team"), ALICE, List.of(BOB, CAROL),
            Optional.empty()), ALICE).conversation().id();
    private final Caller alice = world.online(ALICE, "alice-phone");
    private final Caller bob = world.online(BOB, "bob-phone");
    private final Caller carol = world.online(CAROL, "carol-phone");
    private final long seq = send(ALICE, Content.text("lunch?"));

    private long send(UserId sender, Content content) {
        return world.messages.append(team, ClientMessageId.random(), sender, DeviceId.DEFAULT, Optional.empty(), content, world.clock.millis())
                .message().seq();
    }

    private ServerFrame.ReactionAck react(Caller caller, long target, Optional<Emoji> emoji) {
        return setting.set(caller, new ClientFrame.ReactionSet(team, target, emoji));
    }

    private ReactionListings.Outcome listChanges(long target, int changes) {
        return listings.list(IntStream.range(0, changes).mapToObj(i -> new ReactionListings.Change("record-" + i, team, target)).toList());
    }

    @Test
    void aReactionIsAckedListedOnItsMessageAndToldToEveryMemberOnce() {
        assertThat(react(bob, seq, Optional.of(UP))).isEqualTo(new ServerFrame.ReactionAck(team, seq, Optional.of(UP)));
        world.clock.advance(Duration.ofMillis(5));
        react(carol, seq, Optional.of(UP));
        world.clock.advance(Duration.ofMillis(5));
        react(alice, seq, Optional.of(HEART));
        assertThat(world.framesOf("bob-phone", ServerFrame.ReactionsUpdate.class)).as("nothing until it is listed").isEmpty();

        ReactionListings.Outcome outcome = listChanges(seq, 3);
        List<ReactionCount> expected = List.of(new ReactionCount(UP, 2, List.of(CAROL, BOB)), new ReactionCount(HEART, 1, List.of(ALICE)));
        assertThat(outcome.listed()).as("three changes of one message, one listing").isEqualTo(1);
        assertThat(outcome.posts()).isEqualTo(3);
        for (String connection : List.of("alice-phone", "bob-phone", "carol-phone")) {
            assertThat(world.framesOf(connection, ServerFrame.ReactionsUpdate.class)).as(connection)
                    .containsExactly(new ServerFrame.ReactionsUpdate(team, seq, expected));
        }
        assertThat(world.messages.at(team, seq).orElseThrow().details().reactions()).as("as history lists it").isEqualTo(expected);
    }

    @Test
    void changesWithinASecondOfAListingWaitForTheTurnAndAreListedOnceWithTheExactCount() {
        react(bob, seq, Optional.of(UP));
        listChanges(seq, 1);
        world.clock.advance(Duration.ofMillis(300));
        react(carol, seq, Optional.of(UP));
        react(bob, seq, Optional.empty());
        ReactionListings.Outcome later = listChanges(seq, 2);
        assertThat(slept).as("waited for the turn, a second after the first listing's read").containsExactly(Duration.ofMillis(700));
        assertThat(later.listed()).isEqualTo(1);
        assertThat(world.framesOf("alice-phone", ServerFrame.ReactionsUpdate.class)).extracting(ServerFrame.ReactionsUpdate::reactions)
                .containsExactly(List.of(new ReactionCount(UP, 1, List.of(BOB))), List.of(new ReactionCount(UP, 1, List.of(CAROL))));
    }

    @Test
    void theNextListingWaitsASecondFromTheEndOfTheLastOnesPostsSoNoConnectionGetsTwoWithinASecond() {
        react(bob, seq, Optional.of(UP));
        long firstRead = world.clock.millis();
        listChanges(seq, 1);
        world.reactions.told(team, seq, firstRead, firstRead + 400); // as if its posts had taken 400 ms
        world.clock.advance(Duration.ofMillis(1000));
        react(carol, seq, Optional.of(UP));
        listChanges(seq, 1);
        assertThat(slept).as("a second after the posts ended, not after the read").containsExactly(Duration.ofMillis(400));
    }

    @Test
    void aBatchWhoseTurnAListingTookSinceItBeganPostsNothing() {
        react(bob, seq, Optional.of(UP));
        // Another batch's listing takes the turn while this one runs: it read after this batch's change was stored.
        dev.parley.ports.ReactionStore racing = listingThen((c, s) -> world.reactions.list(c, s, ReactionCount.of(world.reactions.of(c, s)),
                world.clock.millis(), Duration.ofSeconds(1)), true);
        ReactionListings.Outcome outcome = new ReactionListings(world.conversations, racing, world.delivery, world.codec, world.clock,
                wait -> slept.add(wait), Duration.ofSeconds(1)).list(List.of(new ReactionListings.Change("r", team, seq)));
        assertThat(outcome.listed()).isZero();
        assertThat(slept).as("no wait: the other listing covers it").isEmpty();
        assertThat(world.messages.at(team, seq).orElseThrow().details().reactions()).containsExactly(new ReactionCount(UP, 1, List.of(BOB)));
    }

    @Test
    void aListingThatLandsLaterThanHalfTheSyncOverlapAfterItsStampIsListedAgainWithAFreshStampAndToldOnce() {
        react(bob, seq, Optional.of(UP));
        long stamped = world.clock.millis();
        int[] writes = {0};
        // The first write lands 6 s after its stamp (throttled and retried); a sync that began between 10 s after the stamp and
        // the landing would have missed it and asked next time only from after the stamp.
        dev.parley.ports.ReactionStore slow = listingThen((c, s) -> {
            if (writes[0]++ == 0) {
                world.clock.advance(ReactionListings.LATEST_LANDING.plusSeconds(1));
            }
        }, false);
        ReactionListings.Outcome outcome = new ReactionListings(world.conversations, slow, world.delivery, world.codec, world.clock,
                wait -> slept.add(wait), Duration.ofSeconds(1)).list(List.of(new ReactionListings.Change("r", team, seq)));
        assertThat(writes[0]).as("listed again").isEqualTo(2);
        assertThat(outcome.listed()).isOne();
        assertThat(world.reactions.listedSince(team, stamped + ReactionListings.LATEST_LANDING.toMillis(), seq, 10, Optional.empty()).messages())
                .as("stamped afresh: in the window of a sync that missed the first landing")
                .containsExactly(new dev.parley.model.MessageReactions(seq, List.of(new ReactionCount(UP, 1, List.of(BOB)))));
        assertThat(world.framesOf("alice-phone", ServerFrame.ReactionsUpdate.class)).as("told once, after the second listing").hasSize(1);
        assertThat(slept).isEmpty();
    }

    @Test
    void aListingThatLandsInTimeIsNotListedAgain() {
        react(bob, seq, Optional.of(UP));
        int[] writes = {0};
        dev.parley.ports.ReactionStore prompt = listingThen((c, s) -> {
            writes[0]++;
            world.clock.advance(ReactionListings.LATEST_LANDING.minusMillis(100));
        }, false);
        new ReactionListings(world.conversations, prompt, world.delivery, world.codec, world.clock, wait -> slept.add(wait),
                Duration.ofSeconds(1)).list(List.of(new ReactionListings.Change("r", team, seq)));
        assertThat(writes[0]).isOne();
        assertThat(world.framesOf("alice-phone", ServerFrame.ReactionsUpdate.class)).hasSize(1);
    }

    /** The in-memory store, with {@code alongside} run at each listing: before the store's own ({@code before}) or after it. */
    private dev.parley.ports.ReactionStore listingThen(java.util.function.BiConsumer<ConversationId, Long> alongside, boolean before) {
        return new dev.parley.ports.ReactionStore() {
            @Override
            public Optional<dev.parley.model.Reaction> set(ConversationId c, long s, UserId u, Optional<Emoji> e, long at) {
                return world.reactions.set(c, s, u, e, at);
            }

            @Override
            public List<dev.parley.model.Reaction> of(ConversationId c, long s) {
                return world.reactions.of(c, s);
            }

            @Override
            public void clear(ConversationId c, long s) {
                world.reactions.clear(c, s);
            }

            @Override
            public void told(ConversationId c, long s, long readAt, long toldAt) {
                world.reactions.told(c, s, readAt, toldAt);
            }

            @Override
            public ChangesPage listedSince(ConversationId c, long since, long upToSeq, int limit, Optional<String> cursor) {
                return world.reactions.listedSince(c, since, upToSeq, limit, cursor);
            }

            @Override
            public Listing list(ConversationId c, long s, List<ReactionCount> listed, long readAt, Duration interval) {
                if (before) {
                    alongside.accept(c, s);
                }
                Listing listing = world.reactions.list(c, s, listed, readAt, interval);
                if (!before) {
                    alongside.accept(c, s);
                }
                return listing;
            }
        };
    }

    @Test
    void aRemovedReactionAndADeletedMessageAreListedAsTheyAre() {
        react(bob, seq, Optional.of(UP));
        listChanges(seq, 1);
        world.clock.advance(Duration.ofSeconds(2));
        react(bob, seq, Optional.empty());
        listChanges(seq, 1);
        assertThat(world.framesOf("carol-phone", ServerFrame.ReactionsUpdate.class).getLast().reactions()).isEmpty();
        assertThat(world.messages.at(team, seq).orElseThrow().details().reactions()).isEmpty();
    }

    @Test
    void aSyncWithChangesSinceTellsTheReactionChangesToTheMessagesTheDeviceHoldsInPages() {
        SyncAndHistory syncs = new SyncAndHistory(world.conversations, world.messages, world.delivery, world.codec, world.reactions, world.clock);
        List<Long> seqs = new ArrayList<>(List.of(seq));
        for (int i = 0; i < 5; i++) {
            seqs.add(send(ALICE, Content.text("m" + i)));
        }
        react(carol, seqs.get(0), Optional.of(UP));
        listChanges(seqs.get(0), 1);
        world.clock.advance(Duration.ofSeconds(30));
        Caller bobTablet = world.online(BOB, "bob-tablet");
        ServerFrame.SyncDone first = syncs.sync(bobTablet, new ClientFrame.SyncRequest(java.util.Map.of(team, seqs.getLast()), 100));
        assertThat(first.changesAt()).as("an overlap before the sync began").isEqualTo(world.clock.millis() - SyncAndHistory.CHANGES_OVERLAP.toMillis());
        assertThat(world.framesOf("bob-tablet", ServerFrame.SyncBatch.class)).as("none asked for")
                .allSatisfy(batch -> assertThat(batch.reactionsChanged()).isEmpty());

        world.clock.advance(Duration.ofSeconds(30));
        for (int i : List.of(1, 2, 3, 4)) {
            react(carol, seqs.get(i), Optional.of(HEART));
            listChanges(seqs.get(i), 1);
        }
        long above = send(ALICE, Content.text("new"));
        react(carol, above, Optional.of(UP));
        listChanges(above, 1);
        world.messages.applyDelete(world.messages.append(team, ClientMessageId.random(), ALICE, DeviceId.DEFAULT, Optional.empty(), Content.DELETED,
                dev.parley.model.MessageDetails.change(new dev.parley.model.Relation(dev.parley.model.RelationKind.DELETE, seqs.get(4))),
                world.clock.millis(), Optional.empty(), false, dev.parley.ports.MessageLog.Admission.ADMITTED).message());

        ServerFrame.SyncDone second = syncs.sync(bobTablet, new ClientFrame.SyncRequest(java.util.Map.of(team, seqs.getLast()), 2,
                java.util.OptionalLong.of(first.changesAt())));
        List<ServerFrame.SyncBatch> batches = world.framesOf("bob-tablet", ServerFrame.SyncBatch.class);
        List<ServerFrame.SyncBatch> pages = batches.stream().filter(batch -> !batch.reactionsChanged().isEmpty()).toList();
        assertThat(pages).as("pages of the sync's limit, after the conversation's messages, carrying no messages")
                .allSatisfy(page -> {
                    assertThat(page.reactionsChanged()).hasSizeBetween(1, 2);
                    assertThat(page.messages()).isEmpty();
                }).hasSize(2);
        assertThat(batches.subList(batches.size() - 2, batches.size())).isEqualTo(pages);
        assertThat(pages.stream().flatMap(page -> page.reactionsChanged().stream()).toList()).as("the held messages reacted to since; not the deleted one")
                .containsExactly(new dev.parley.model.MessageReactions(seqs.get(1), List.of(new ReactionCount(HEART, 1, List.of(CAROL)))),
                        new dev.parley.model.MessageReactions(seqs.get(2), List.of(new ReactionCount(HEART, 1, List.of(CAROL)))),
                        new dev.parley.model.MessageReactions(seqs.get(3), List.of(new ReactionCount(HEART, 1, List.of(CAROL)))));
        assertThat(batches.stream().flatMap(batch -> batch.messages().stream()).toList()).as("newer messages come listed with theirs")
                .filteredOn(m -> m.seq() == above).singleElement()
                .satisfies(m -> assertThat(m.details().reactions()).containsExactly(new ReactionCount(UP, 1, List.of(CAROL))));
        assertThat(second.changesAt()).isGreaterThan(first.changesAt());
        assertThat(second.reactionPages()).as("how many pages it sent, for the device to check").isEqualTo(pages.size());
        assertThat(first.reactionPages()).isZero();
    }

    @Test
    void refusalsNameTheirCauseAndStoreNothing() {
        Caller dave = world.online(DAVE, "dave-phone");
        assertThatThrownBy(() -> react(dave, seq, Optional.of(UP))).as("not a member")
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
        assertThatThrownBy(() -> react(bob, seq + 10, Optional.of(UP))).as("no message there")
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        long sealed = send(ALICE, new Content(dev.parley.model.ContentType.CIPHERTEXT, Optional.of("c2VhbGVk"), Optional.empty()));
        assertThatThrownBy(() -> react(bob, sealed, Optional.of(UP))).as("an end-to-end message")
                .isInstanceOfSatisfying(InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("emoji"));
        long edit = world.messages.append(team, ClientMessageId.random(), ALICE, DeviceId.DEFAULT, Optional.empty(), Content.text("lunch!"),
                dev.parley.model.MessageDetails.change(new dev.parley.model.Relation(dev.parley.model.RelationKind.EDIT, seq)), world.clock.millis(),
                Optional.empty(), false, dev.parley.ports.MessageLog.Admission.ADMITTED).message().seq();
        assertThatThrownBy(() -> react(bob, edit, Optional.of(UP))).as("a change's seq, not a message's")
                .isInstanceOfSatisfying(InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("target_seq"));
        world.messages.applyDelete(world.messages.append(team, ClientMessageId.random(), ALICE, DeviceId.DEFAULT, Optional.empty(), Content.DELETED,
                dev.parley.model.MessageDetails.change(new dev.parley.model.Relation(dev.parley.model.RelationKind.DELETE, seq)), world.clock.millis(),
                Optional.empty(), false, dev.parley.ports.MessageLog.Admission.ADMITTED).message());
        assertThatThrownBy(() -> react(bob, seq, Optional.of(UP))).as("a message deleted for everyone")
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(world.reactions.changes()).isZero();
    }

    @Test
    void aSealedReactionToAnEndToEndMessageIsAnUncountedEntryOfTheLogErasedWithItsTarget() {
        Content body = new Content(dev.parley.model.ContentType.CIPHERTEXT, Optional.of("c2VhbGVkIG1lc3NhZ2U="), Optional.empty());
        long sealed = send(ALICE, body);
        Content reaction = new Content(dev.parley.model.ContentType.CIPHERTEXT, Optional.of("c2VhbGVkIHJlYWN0aW9u"), Optional.empty());
        String id = java.util.UUID.randomUUID().toString();
        ClientFrame.ReactionSet set = new ClientFrame.ReactionSet(team, sealed, Optional.empty(), Optional.of(reaction));

        assertThat(setting.set(bob, set, Optional.of(id))).isEqualTo(new ServerFrame.ReactionAck(team, sealed, Optional.empty()));
        long entry = world.conversations.requireSummary(team).lastSeq();
        dev.parley.model.Message stored = world.messages.at(team, entry).orElseThrow();
        assertThat(stored.id()).as("keyed by the request's id").isEqualTo(ClientMessageId.parse(id));
        assertThat(stored.details().relatesTo()).contains(new dev.parley.model.Relation(dev.parley.model.RelationKind.REACTION, sealed));
        assertThat(stored.content()).isEqualTo(reaction);
        assertThat(world.conversations.requireSummary(team).uncountedSeqs()).as("never counted").contains(entry);
        assertThat(world.reactions.changes()).as("nothing aggregated: the server cannot read it").isZero();
        setting.set(bob, set, Optional.of(id));
        assertThat(world.conversations.requireSummary(team).lastSeq()).as("the same id again is the same entry").isEqualTo(entry);

        assertThatThrownBy(() -> setting.set(carol, set, Optional.empty())).as("no id to key the entry")
                .isInstanceOfSatisfying(InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("id"));
        assertThatThrownBy(() -> setting.set(carol, new ClientFrame.ReactionSet(team, seq, Optional.empty(), Optional.of(reaction)),
                Optional.of(java.util.UUID.randomUUID().toString()))).as("a plaintext message")
                .isInstanceOfSatisfying(InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("ciphertext"));
        assertThatThrownBy(() -> new ClientFrame.ReactionSet(team, sealed, Optional.of(UP), Optional.of(reaction))).as("an emoji beside it")
                .isInstanceOfSatisfying(InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("emoji"));
        assertThatThrownBy(() -> new ClientFrame.ReactionSet(team, sealed, Optional.empty(), Optional.of(Content.text("up"))))
                .isInstanceOfSatisfying(InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("ciphertext.type"));

        world.messages.applyDelete(world.messages.append(team, ClientMessageId.random(), ALICE, DeviceId.DEFAULT, Optional.empty(), Content.DELETED,
                dev.parley.model.MessageDetails.change(new dev.parley.model.Relation(dev.parley.model.RelationKind.DELETE, sealed)), world.clock.millis(),
                Optional.empty(), false, dev.parley.ports.MessageLog.Admission.ADMITTED).message());
        assertThat(world.messages.at(team, entry).orElseThrow().content()).as("erased with its target").isEqualTo(Content.DELETED);
    }

    @Test
    void aMessageCarriesAtMostTwentyDistinctEmoji() {
        List<String> faces = IntStream.range(0, ReactionCount.MAX_DISTINCT).mapToObj(i -> new String(Character.toChars(0x1F600 + i))).toList();
        for (int i = 0; i < faces.size(); i++) {
            UserId user = UserId.of("user" + i);
            world.reactions.set(team, seq, user, Optional.of(Emoji.of(faces.get(i))), world.clock.millis());
        }
        listChanges(seq, 1);
        Emoji another = Emoji.of("\uD83C\uDF55");
        assertThatThrownBy(() -> react(bob, seq, Optional.of(another)))
                .isInstanceOfSatisfying(InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("emoji"));
        assertThat(react(bob, seq, Optional.of(Emoji.of(faces.getFirst()))).emoji()).as("one of them is fine").contains(Emoji.of(faces.getFirst()));
    }
}
