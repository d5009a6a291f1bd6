package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.ConversationRepository.Membership;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The group-wide marks a sender is told, over random orders of receipts, in random batches, with the
 * members' marks read now fresh, now as an earlier read saw them (as the eventually consistent index
 * may): a told value is never above the members' minimum, equals it whenever the read was fresh, and
 * is never below one told before; and a batch with another member's receipt tells the sender.
 */
class GroupMarksProperties {
    private static final int MEMBERS = 6;
    private static final int MESSAGES = 8;

    /** One receipt: which member, delivered or read, up to which seq; whether the batch ends after it, and reads stale marks. */
    record Receipt(int member, boolean read, int seq, boolean endsBatch, boolean staleRead) {
    }

    @Provide
    Arbitrary<List<Receipt>> receiptOrders() {
        return Combinators.combine(Arbitraries.integers().between(0, MEMBERS - 1), Arbitraries.of(true, false),
                Arbitraries.integers().between(1, MESSAGES), Arbitraries.of(true, false, false), Arbitraries.of(true, false))
                .as(Receipt::new).list().ofMaxSize(60);
    }

    /** The members' marks as the index shows them: when told to lag, as they were at its first read, before any receipt. */
    private static final class LaggingMembers extends DelegatingConversations {
        private List<Membership> firstRead = List.of();
        boolean lagging;

        LaggingMembers(ConversationRepository delegate) {
            super(delegate);
        }

        @Override
        public List<Membership> members(ConversationId conversation) {
            List<Membership> now = super.members(conversation);
            if (firstRead.isEmpty()) {
                firstRead = now.stream().map(m -> new Membership(m.user(), m.conversationId(), m.joinedAfterSeq(), ReceiptWatermarks.NONE)).toList();
            }
            return lagging ? firstRead : now;
        }
    }

    @Property(tries = 200)
    void toldMarksAreTheMembersMinimumAndNeverMoveBack(@ForAll("receiptOrders") List<Receipt> receipts) {
        Fixture world = new Fixture();
        List<UserId> members = IntStream.range(0, MEMBERS).mapToObj(i -> i == 0 ? ALICE : UserId.of("member-" + i)).toList();
        ConversationId crew = world.conversations.createIfAbsent(Conversation.group(ConversationId.of("g:crew"), ALICE, members, Optional.empty()),
                ALICE).conversation().id();
        world.online(ALICE, "alice-phone");
        for (int i = 0; i < MESSAGES; i++) {
            world.messages.append(crew, ClientMessageId.random(), ALICE, DeviceId.DEFAULT, Optional.empty(), Content.text("m" + i), 1);
        }
        Receipts frames = new Receipts(world.conversations);
        LaggingMembers index = new LaggingMembers(world.conversations);
        ReceiptNotices notices = new ReceiptNotices(index, world.messages, world.delivery, world.codec, world.clock,
                world.clock::advance, Duration.ofSeconds(1));
        List<ReceiptNotices.Change> batch = new ArrayList<>();
        ReceiptWatermarks lastTold = ReceiptWatermarks.NONE;
        int record = 0;
        for (Receipt receipt : receipts) {
            UserId reader = members.get(receipt.member());
            ReceiptWatermarks before = world.conversations.membership(reader, crew).orElseThrow().watermarks();
            Caller caller = Fixture.caller(reader, "device");
            if (receipt.read()) {
                frames.read(caller, new ClientFrame.MessageRead(crew, receipt.seq()));
            } else {
                frames.delivered(caller, new ClientFrame.MessageDelivered(crew, receipt.seq()));
            }
            ReceiptWatermarks after = world.conversations.membership(reader, crew).orElseThrow().watermarks();
            if (!after.equals(before)) {
                batch.add(new ReceiptNotices.Change(Integer.toString(record++), reader, crew, before, after));
            }
            if (receipt.endsBatch() && !batch.isEmpty()) {
                int told = world.framesOf("alice-phone", ServerFrame.ReceiptUpdate.class).size();
                boolean othersReceipt = batch.stream().anyMatch(change -> !change.reader().equals(ALICE));
                index.lagging = receipt.staleRead();
                notices.notify(List.copyOf(batch));
                batch.clear();
                List<ServerFrame.ReceiptUpdate> updates = world.framesOf("alice-phone", ServerFrame.ReceiptUpdate.class);
                ReceiptWatermarks minimum = ReceiptWatermarks.allOf(members.stream()
                        .map(member -> world.conversations.membership(member, crew).orElseThrow().watermarks()).toList());
                if (othersReceipt) {
                    assertThat(updates.size()).as("alice is told of others' receipts").isGreaterThan(told);
                }
                for (ServerFrame.ReceiptUpdate update : updates.subList(told, updates.size())) {
                    ReceiptWatermarks group = update.allMembers().orElseThrow();
                    assertThat(group.deliveredSeq()).as("never above the minimum").isLessThanOrEqualTo(minimum.deliveredSeq());
                    assertThat(group.readSeq()).isLessThanOrEqualTo(minimum.readSeq());
                    if (!receipt.staleRead()) {
                        assertThat(group).as("the minimum, read fresh").isEqualTo(minimum);
                    }
                    assertThat(group.deliveredSeq()).as("never back").isGreaterThanOrEqualTo(lastTold.deliveredSeq());
                    assertThat(group.readSeq()).isGreaterThanOrEqualTo(lastTold.readSeq());
                    lastTold = group;
                }
                world.clock.advance(Duration.ofMillis(200));
            }
        }
    }
}
