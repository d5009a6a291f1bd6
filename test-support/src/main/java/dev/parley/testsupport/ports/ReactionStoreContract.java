package dev.parley.testsupport.ports;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.Emoji;
import dev.parley.model.Message;
import dev.parley.model.MessageDetails;
import dev.parley.model.Reaction;
import dev.parley.model.ReactionCount;
import dev.parley.model.Relation;
import dev.parley.model.RelationKind;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.MessageLog;
import dev.parley.ports.ReactionStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link ReactionStore} does, run against the in-memory fake and the DynamoDB adapter. */
public abstract class ReactionStoreContract {
    private static final UserId ALICE = UserId.of("alice");
    private static final UserId BOB = UserId.of("bob");
    private static final Emoji UP = Emoji.of("\uD83D\uDC4D");
    private static final Emoji HEART = Emoji.of("\u2764\uFE0F");
    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final long NOW = 1_700_000_000_000L;

    /** The stores a reaction store lists onto: its conversations, their log, and the reactions. */
    public record Stores(ConversationRepository conversations, MessageLog messages, ReactionStore reactions) {
    }

    protected abstract Stores stores();

    private MessageLog log;
    private ReactionStore reactions;
    private ConversationId chat;
    private long seq;

    @BeforeEach
    void aMessageToReactTo() {
        Stores stores = stores();
        log = stores.messages();
        reactions = stores.reactions();
        chat = stores.conversations().createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();
        seq = log.append(chat, ClientMessageId.random(), ALICE, DeviceId.of("phone"), Optional.empty(), Content.text("lunch?"), NOW).message().seq();
    }

    @Test
    void aUserHasOneReactionPerMessageWhichANewOneReplacesAndNoneRemoves() {
        assertThat(reactions.set(chat, seq, BOB, Optional.of(UP), NOW)).isEmpty();
        assertThat(reactions.set(chat, seq, ALICE, Optional.of(UP), NOW + 1)).isEmpty();
        assertThat(reactions.set(chat, seq, BOB, Optional.of(HEART), NOW + 2)).as("replaced").contains(new Reaction(BOB, UP, NOW));
        assertThat(reactions.of(chat, seq)).containsExactlyInAnyOrder(new Reaction(ALICE, UP, NOW + 1), new Reaction(BOB, HEART, NOW + 2));
        assertThat(reactions.set(chat, seq, BOB, Optional.of(HEART), NOW + 9)).as("the same again changes nothing").contains(new Reaction(BOB, HEART, NOW + 2));
        assertThat(reactions.of(chat, seq)).contains(new Reaction(BOB, HEART, NOW + 2));
        assertThat(reactions.set(chat, seq, BOB, Optional.empty(), NOW + 3)).contains(new Reaction(BOB, HEART, NOW + 2));
        assertThat(reactions.set(chat, seq, BOB, Optional.empty(), NOW + 4)).as("removing none").isEmpty();
        assertThat(reactions.of(chat, seq)).containsExactly(new Reaction(ALICE, UP, NOW + 1));
        assertThat(reactions.of(chat, seq + 1)).as("another message's").isEmpty();
        reactions.clear(chat, seq);
        assertThat(reactions.of(chat, seq)).isEmpty();
    }

    @Test
    void aListingPutsTheCountsOnTheMessageAtMostOncePerIntervalAndNeverOverALaterRead() {
        List<ReactionCount> one = List.of(new ReactionCount(UP, 1, List.of(BOB)));
        assertThat(reactions.list(chat, seq, one, NOW, SECOND)).isEqualTo(new ReactionStore.Listing.Listed());
        assertThat(log.at(chat, seq).orElseThrow().details().reactions()).isEqualTo(one);
        assertThat(log.after(chat, 0, 10).getFirst().details().reactions()).as("as history and sync list it").isEqualTo(one);
        List<ReactionCount> two = List.of(new ReactionCount(UP, 2, List.of(ALICE, BOB)));
        assertThat(reactions.list(chat, seq, two, NOW + 999, SECOND)).as("within the interval").isEqualTo(new ReactionStore.Listing.NotBefore(NOW, NOW + 1000));
        assertThat(reactions.list(chat, seq, two, NOW + 1000, SECOND)).isEqualTo(new ReactionStore.Listing.Listed());
        assertThat(reactions.list(chat, seq, one, NOW + 900, SECOND)).as("an older read never replaces a later one")
                .isEqualTo(new ReactionStore.Listing.NotBefore(NOW + 1000, NOW + 2000));
        assertThat(log.at(chat, seq).orElseThrow().details().reactions()).isEqualTo(two);
        reactions.told(chat, seq, NOW + 1000, NOW + 1600);
        reactions.told(chat, seq, NOW, NOW + 9999); // an earlier listing's end changes nothing: the later one holds the turn
        assertThat(reactions.list(chat, seq, List.of(), NOW + 2000, SECOND)).as("an interval after the last listing's posts ended, not its read")
                .isEqualTo(new ReactionStore.Listing.NotBefore(NOW + 1000, NOW + 2600));
        assertThat(reactions.list(chat, seq, List.of(), NOW + 2600, SECOND)).as("every reaction removed").isEqualTo(new ReactionStore.Listing.Listed());
        assertThat(log.at(chat, seq).orElseThrow().details().reactions()).isEmpty();
    }

    @Test
    void nothingIsListedOnASeqWithoutAMessageOrOnADeletedOne() {
        List<ReactionCount> one = List.of(new ReactionCount(UP, 1, List.of(BOB)));
        assertThat(reactions.list(chat, seq + 5, one, NOW, SECOND)).isEqualTo(new ReactionStore.Listing.Gone());
        reactions.list(chat, seq, one, NOW, SECOND);
        Message deletion = log.append(chat, ClientMessageId.random(), ALICE, DeviceId.of("phone"), Optional.empty(), Content.DELETED,
                MessageDetails.change(new Relation(RelationKind.DELETE, seq)), NOW + 5, Optional.empty(), false, MessageLog.Admission.ADMITTED).message();
        log.applyDelete(deletion);
        assertThat(log.at(chat, seq).orElseThrow().details().reactions()).as("a delete erases the listing").isEmpty();
        assertThat(reactions.list(chat, seq, one, NOW + 5000, SECOND)).isEqualTo(new ReactionStore.Listing.Gone());
        assertThat(log.at(chat, seq).orElseThrow().details().reactions()).isEmpty();
    }

    @Test
    void theListingsSinceATimeArePagedEarliestFirstUpToTheHeldSeqAndLeaveOutDeletedMessages() {
        List<Long> seqs = new java.util.ArrayList<>(List.of(seq));
        for (int i = 0; i < 5; i++) {
            seqs.add(log.append(chat, ClientMessageId.random(), ALICE, DeviceId.of("phone"), Optional.empty(), Content.text("m" + i), NOW).message().seq());
        }
        List<ReactionCount> one = List.of(new ReactionCount(UP, 1, List.of(BOB)));
        List<ReactionCount> two = List.of(new ReactionCount(HEART, 2, List.of(ALICE, BOB)));
        reactions.list(chat, seqs.get(0), one, NOW, SECOND); // before the time asked about
        reactions.list(chat, seqs.get(3), two, NOW + 300, SECOND);
        reactions.list(chat, seqs.get(1), one, NOW + 100, SECOND);
        reactions.list(chat, seqs.get(2), List.of(), NOW + 200, SECOND); // every reaction removed: a change too
        reactions.list(chat, seqs.get(4), one, NOW + 400, SECOND); // to be deleted
        reactions.list(chat, seqs.get(5), one, NOW + 500, SECOND); // above what the device holds
        log.applyDelete(log.append(chat, ClientMessageId.random(), ALICE, DeviceId.of("phone"), Optional.empty(), Content.DELETED,
                MessageDetails.change(new Relation(RelationKind.DELETE, seqs.get(4))), NOW + 5, Optional.empty(), false, MessageLog.Admission.ADMITTED).message());

        List<dev.parley.model.MessageReactions> told = new java.util.ArrayList<>();
        Optional<String> cursor = Optional.empty();
        int pages = 0;
        do {
            ReactionStore.ChangesPage page = reactions.listedSince(chat, NOW, seqs.get(4), 2, cursor);
            assertThat(page.messages()).hasSizeLessThanOrEqualTo(2);
            told.addAll(page.messages());
            cursor = page.next();
            pages++;
        } while (cursor.isPresent() && pages < 10);
        assertThat(told).containsExactly(new dev.parley.model.MessageReactions(seqs.get(1), one),
                new dev.parley.model.MessageReactions(seqs.get(2), List.of()), new dev.parley.model.MessageReactions(seqs.get(3), two));
        assertThat(reactions.listedSince(chat, NOW + 300, seqs.get(5), 10, Optional.empty()).messages()).as("after the time, strictly")
                .extracting(dev.parley.model.MessageReactions::seq).containsExactly(seqs.get(5));
        assertThat(reactions.listedSince(chat, NOW - 1, seqs.get(0), 10, Optional.empty()).messages()).as("the first message only")
                .containsExactly(new dev.parley.model.MessageReactions(seqs.get(0), one));
    }
}
