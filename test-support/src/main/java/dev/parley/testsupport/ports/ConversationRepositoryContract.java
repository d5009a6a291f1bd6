package dev.parley.testsupport.ports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import dev.parley.model.DeviceId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.ConversationRepository.Membership;
import dev.parley.ports.ConversationRepository.Stored;
import dev.parley.ports.MessageLog;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link ConversationRepository} does, run against the in-memory fake and the DynamoDB adapter. */
public abstract class ConversationRepositoryContract {
    private static final UserId ALICE = UserId.of("alice");
    private static final UserId BOB = UserId.of("bob");
    private static final UserId CAROL = UserId.of("carol");
    private static final ConversationId CREW = ConversationId.of("g:crew");

    private ConversationRepository repository;
    private MessageLog messages;

    /** A repository with nothing in it, and the message log that takes seqs from its conversations. */
    protected abstract Stores stores();

    public record Stores(ConversationRepository conversations, MessageLog messages) {
    }

    /** Deletes a member's row behind the repository's back, as a membership write that failed leaves it missing. */
    protected abstract void loseRow(UserId user, ConversationId conversation);

    @BeforeEach
    void freshStores() {
        Stores stores = stores();
        repository = stores.conversations();
        messages = stores.messages();
    }

    private Stored crew(UserId... members) {
        return repository.createIfAbsent(Conversation.group(CREW, ALICE, List.of(members), Optional.empty()), ALICE);
    }

    private void send(ConversationId id, UserId sender, int count) {
        for (int i = 0; i < count; i++) {
            messages.append(id, ClientMessageId.random(), sender, DeviceId.DEFAULT, Optional.empty(), Content.text("m" + i), 1_000 + i);
        }
    }

    @Test
    void aConversationIsCreatedOnceAndEveryMemberGetsARow() {
        Stored created = crew(ALICE, BOB);
        Stored again = repository.createIfAbsent(Conversation.group(CREW, BOB, List.of(BOB, CAROL), Optional.of("other")), BOB);

        assertThat(again).as("the first one, not the second").isEqualTo(created);
        assertThat(created.createdBy()).isEqualTo(ALICE);
        assertThat(repository.summary(CREW)).contains(new ConversationRepository.Summary(CREW, ConversationKind.GROUP, Optional.empty(), 2, 0));
        assertThat(repository.find(CREW)).contains(created);
        assertThat(repository.membership(BOB, CREW)).contains(new Membership(BOB, CREW, 0, ReceiptWatermarks.NONE));
        assertThat(repository.membership(CAROL, CREW)).isEmpty();
        assertThat(repository.members(CREW)).extracting(Membership::user).containsExactlyInAnyOrder(ALICE, BOB);
    }

    @Test
    void creatingAgainKeepsTheRowsThereAndRestoresOnlyTheMissingOnes() {
        crew(ALICE, BOB, CAROL);
        send(CREW, ALICE, 3);
        repository.advance(BOB, CREW, new ReceiptWatermarks(3, 2));
        loseRow(CAROL, CREW);

        crew(ALICE, BOB, CAROL);

        assertThat(repository.requireSummary(CREW).lastSeq()).isEqualTo(3);
        assertThat(repository.membership(BOB, CREW)).as("bob's marks are his, not reset")
                .contains(new Membership(BOB, CREW, 0, new ReceiptWatermarks(3, 2)));
        assertThat(repository.membership(CAROL, CREW)).as("restored, joining after the last seq")
                .contains(new Membership(CAROL, CREW, 3, new ReceiptWatermarks(3, 3)));
    }

    @Test
    void aRepairWritesTheRowsMembersLack() {
        crew(ALICE, BOB);
        send(CREW, BOB, 2);
        loseRow(BOB, CREW);
        Stored stored = repository.find(CREW).orElseThrow();

        repository.repairMemberships(stored, List.of(BOB, CAROL));

        assertThat(repository.membership(BOB, CREW)).contains(new Membership(BOB, CREW, 2, new ReceiptWatermarks(2, 2)));
        assertThat(repository.membership(CAROL, CREW)).as("not a member: no row").isEmpty();
        assertThat(repository.membership(ALICE, CREW)).as("not named: left as it is").contains(new Membership(ALICE, CREW, 0, ReceiptWatermarks.NONE));
    }

    @Test
    void aDirectConversationKeepsItsShape() {
        Stored direct = repository.createIfAbsent(Conversation.direct(BOB, ALICE), BOB);
        assertThat(repository.find(direct.conversation().id())).get().extracting(Stored::conversation)
                .isEqualTo(Conversation.direct(ALICE, BOB));
        assertThat(repository.requireSummary(direct.conversation().id()).kind()).isEqualTo(ConversationKind.DIRECT);
    }

    @Test
    void aGroupsSummaryCarriesItsNameCountAndLastSeqWhateverItsSize() {
        ConversationId named = ConversationId.of("g:named");
        List<UserId> many = java.util.stream.IntStream.range(0, 150).mapToObj(i -> UserId.of("member-" + i)).toList();
        repository.createIfAbsent(Conversation.group(named, ALICE, many, Optional.of("the many")), ALICE);
        send(named, ALICE, 2);
        assertThat(repository.summaries(List.of(named, CREW))).containsOnlyKeys(named).containsValue(
                new ConversationRepository.Summary(named, ConversationKind.GROUP, Optional.of("the many"), 151, 2));
    }

    @Test
    void unknownConversationsAreNotFound() {
        crew(ALICE, BOB);
        ConversationId nowhere = ConversationId.of("g:nowhere");
        assertThat(repository.find(nowhere)).isEmpty();
        assertThatThrownBy(() -> repository.require(nowhere)).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(repository.summaries(List.of(CREW, nowhere))).containsOnlyKeys(CREW);
        assertThat(repository.summary(nowhere)).isEmpty();
        assertThatThrownBy(() -> repository.requireSummary(nowhere)).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThatThrownBy(() -> repository.requireMembership(nowhere, ALICE)).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThatThrownBy(() -> repository.requireMembership(CREW, CAROL)).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
        assertThat(repository.requireMembership(CREW, BOB).user()).isEqualTo(BOB);
    }

    @Test
    void membersChangeOnlyFromTheVersionTheChangeWasMadeOnAndTheirRowsFollow() {
        Stored first = crew(ALICE, BOB);
        send(CREW, ALICE, 3);
        Stored current = repository.find(CREW).orElseThrow();
        Conversation withCarol = current.conversation().withMembersAdded(ALICE, List.of(CAROL)).withMembersRemoved(ALICE, List.of(BOB));

        assertThat(repository.replace(current, withCarol)).isTrue();
        assertThat(repository.replace(current, current.conversation())).as("a stale version changes nothing").isFalse();

        Stored after = repository.find(CREW).orElseThrow();
        assertThat(after.conversation()).isEqualTo(withCarol);
        assertThat(after.version()).isEqualTo(first.version() + 1);
        assertThat(repository.requireSummary(CREW)).as("the head follows: count and last seq")
                .isEqualTo(new ConversationRepository.Summary(CREW, ConversationKind.GROUP, Optional.empty(), 2, 3));
        assertThat(repository.membership(CAROL, CREW)).as("a new member starts after the last seq")
                .contains(new Membership(CAROL, CREW, 3, new ReceiptWatermarks(3, 3)));
        assertThat(repository.membership(BOB, CREW)).isEmpty();
        repository.repairMemberships(after, List.of(ALICE, BOB, CAROL));
        assertThat(repository.members(CREW)).as("repairing a consistent conversation changes nothing")
                .extracting(Membership::user).containsExactlyInAnyOrder(ALICE, CAROL);
    }

    @Test
    void aUsersMembershipsArePagedInConversationOrderBehindAnOpaqueCursor() {
        List<ConversationId> ids = new ArrayList<>();
        for (String name : List.of("e", "a", "d", "b", "c")) {
            ConversationId id = ConversationId.of("g:" + name);
            repository.createIfAbsent(Conversation.group(id, ALICE, List.of(BOB), Optional.empty()), ALICE);
            ids.add(id);
        }
        List<ConversationId> paged = new ArrayList<>();
        Optional<String> cursor = Optional.empty();
        int pages = 0;
        do {
            ConversationRepository.MembershipPage page = repository.memberships(BOB, cursor, 2);
            assertThat(page.memberships()).hasSizeLessThanOrEqualTo(2);
            page.memberships().forEach(m -> paged.add(m.conversationId()));
            cursor = page.nextCursor();
            pages++;
        } while (cursor.isPresent() && pages < 10);

        assertThat(paged).extracting(ConversationId::value).containsExactly("g:a", "g:b", "g:c", "g:d", "g:e");
        assertThat(repository.memberships(CAROL, Optional.empty(), 2).memberships()).isEmpty();
        assertThatThrownBy(() -> repository.memberships(BOB, Optional.of("not a cursor!"), 2))
                .isInstanceOfSatisfying(InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("cursor"));
    }

    @Test
    void watermarksOnlyMoveForward() {
        crew(ALICE, BOB);
        send(CREW, ALICE, 5);

        assertThat(repository.advance(BOB, CREW, new ReceiptWatermarks(3, 1))).isEqualTo(new ReceiptWatermarks(3, 1));
        assertThat(repository.advance(BOB, CREW, new ReceiptWatermarks(2, 2))).isEqualTo(new ReceiptWatermarks(3, 2));
        assertThat(repository.advance(BOB, CREW, new ReceiptWatermarks(1, 0))).isEqualTo(new ReceiptWatermarks(3, 2));
        assertThat(repository.membership(BOB, CREW)).get().extracting(Membership::watermarks).isEqualTo(new ReceiptWatermarks(3, 2));
        assertThat(repository.members(CREW)).filteredOn(m -> m.user().equals(ALICE)).extracting(Membership::watermarks)
                .containsExactly(ReceiptWatermarks.NONE);
        assertThat(repository.advance(CAROL, CREW, new ReceiptWatermarks(4, 4))).as("no row, nothing stored").isEqualTo(new ReceiptWatermarks(4, 4));
        assertThat(repository.membership(CAROL, CREW)).isEmpty();
    }

    @Test
    void groupMarksOnlyRiseEachMarkOnItsOwn() {
        crew(ALICE, BOB);
        assertThat(repository.raiseGroupMarks(CREW, new ReceiptWatermarks(3, 1))).isEqualTo(new ReceiptWatermarks(3, 1));
        assertThat(repository.raiseGroupMarks(CREW, new ReceiptWatermarks(2, 2))).isEqualTo(new ReceiptWatermarks(3, 2));
        assertThat(repository.raiseGroupMarks(CREW, new ReceiptWatermarks(1, 0))).as("a lagging computation takes nothing back")
                .isEqualTo(new ReceiptWatermarks(3, 2));
    }

    @Test
    void theVoidsEveryMemberHasReadPastLeaveTheSummaryAndNoCountChanges() {
        crew(ALICE, BOB);
        ClientMessageId repeated = ClientMessageId.random();
        messages.append(CREW, repeated, ALICE, DeviceId.DEFAULT, Optional.empty(), Content.text("once"), 1_000);
        send(CREW, BOB, 3);
        messages.append(CREW, repeated, ALICE, DeviceId.DEFAULT, Optional.empty(), Content.text("once"), 1_000);
        send(CREW, BOB, 2);
        messages.append(CREW, repeated, ALICE, DeviceId.DEFAULT, Optional.empty(), Content.text("once"), 1_000);
        ConversationRepository.Summary before = repository.requireSummary(CREW);
        assertThat(before.messagesAfter(0)).as("6 messages, whatever voids the repeats left").isEqualTo(6);
        List<Long> voids = List.copyOf(before.uncountedSeqs());
        // Both read up to a seq between the voids (when there are voids: the in-memory log leaves them where the store does).
        long mark = voids.isEmpty() ? 4 : voids.getFirst() + 1;
        java.util.Map<UserId, Long> unread = new java.util.HashMap<>();
        for (UserId member : List.of(ALICE, BOB)) {
            repository.advance(member, CREW, new ReceiptWatermarks(mark, mark));
            unread.put(member, before.messagesAfter(mark));
        }

        repository.raiseGroupMarks(CREW, new ReceiptWatermarks(mark, mark));

        ConversationRepository.Summary after = repository.requireSummary(CREW);
        assertThat(after.uncountedSeqs()).as("only the voids after the group's read mark are kept")
                .containsExactlyElementsOf(voids.stream().filter(seq -> seq > mark).toList());
        for (UserId member : List.of(ALICE, BOB)) {
            assertThat(after.messagesAfter(mark)).as(member.value()).isEqualTo(unread.get(member));
        }
    }

    @Test
    void aMemberHasOneNoticeTurnPerInterval() {
        crew(ALICE, BOB);
        Instant now = Instant.parse("2026-06-01T12:00:00Z");
        Duration second = Duration.ofSeconds(1);

        assertThat(repository.takeNoticeTurn(BOB, CREW, now, second)).isEqualTo(new ConversationRepository.NoticeTurn.Taken());
        assertThat(repository.takeNoticeTurn(BOB, CREW, now.plusMillis(400), second))
                .isEqualTo(new ConversationRepository.NoticeTurn.NotBefore(now.plus(second)));
        assertThat(repository.takeNoticeTurn(ALICE, CREW, now.plusMillis(400), second)).as("each member has their own")
                .isEqualTo(new ConversationRepository.NoticeTurn.Taken());
        assertThat(repository.takeNoticeTurn(BOB, CREW, now.plus(second), second)).isEqualTo(new ConversationRepository.NoticeTurn.Taken());
        assertThat(repository.takeNoticeTurn(CAROL, CREW, now, second)).isEqualTo(new ConversationRepository.NoticeTurn.NotAMember());
        assertThat(repository.takeNoticeTurn(BOB, ConversationId.of("g:nowhere"), now, second)).isEqualTo(new ConversationRepository.NoticeTurn.NotAMember());
        assertThat(repository.membership(BOB, CREW)).as("the turn leaves the row's marks alone")
                .contains(new Membership(BOB, CREW, 0, ReceiptWatermarks.NONE));
    }

    @Test
    void pinsAreKeptOnTheHeadBoundedAndADeleteForEveryoneUnpins() {
        crew(ALICE, BOB);
        send(CREW, ALICE, 12);
        assertThat(repository.pin(CREW, 3, true)).containsExactly(3L);
        assertThat(repository.pin(CREW, 3, true)).as("pinned already: nothing changes").containsExactly(3L);
        assertThat(repository.pin(CREW, 1, true)).containsExactly(1L, 3L);
        assertThat(repository.pin(CREW, 7, false)).as("unpinning one not pinned changes nothing").containsExactly(1L, 3L);
        assertThat(repository.pin(CREW, 1, false)).containsExactly(3L);
        for (long seq = 4; seq <= 12; seq++) {
            repository.pin(CREW, seq, true);
        }
        assertThat(repository.summary(CREW).orElseThrow().pinned()).as("as a sync or list reads it").hasSize(Conversation.MAX_PINNED);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> repository.pin(CREW, 2, true)).as("an eleventh")
                .isInstanceOfSatisfying(dev.parley.model.InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("pinned"));
        assertThat(repository.pin(CREW, 12, true)).as("one pinned already is fine when full").hasSize(Conversation.MAX_PINNED);
        long deletion = messages.append(CREW, ClientMessageId.random(), ALICE, DeviceId.DEFAULT, Optional.empty(), Content.DELETED,
                dev.parley.model.MessageDetails.change(new dev.parley.model.Relation(dev.parley.model.RelationKind.DELETE, 5)), 2_000,
                Optional.empty(), false, MessageLog.Admission.ADMITTED).message().seq();
        messages.applyDelete(messages.at(CREW, deletion).orElseThrow());
        assertThat(repository.summary(CREW).orElseThrow().pinned()).as("the deleted message is unpinned").doesNotContain(5L).hasSize(Conversation.MAX_PINNED - 1);
        assertThat(repository.summary(CREW).orElseThrow().uncountedSeqs()).contains(5L, deletion);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> repository.pin(ConversationId.of("g:nowhere"), 1, true))
                .isInstanceOfSatisfying(dev.parley.model.DomainException.class, e -> assertThat(e.code()).isEqualTo(dev.parley.model.ErrorCode.NOT_FOUND));
    }

    @Test
    void mentionsAreCountedAfterTheReadMarkLeaveTheRowAsItPassesThemAndADeletedOneStopsCounting() {
        crew(ALICE, BOB, CAROL);
        send(CREW, ALICE, 6);
        repository.recordMentions(CREW, 2, new dev.parley.model.Mentions(List.of(BOB), false));
        repository.recordMentions(CREW, 2, new dev.parley.model.Mentions(List.of(BOB), false)); // the stream again: nothing more
        repository.recordMentions(CREW, 4, new dev.parley.model.Mentions(List.of(), true));
        repository.recordMentions(CREW, 5, new dev.parley.model.Mentions(List.of(BOB, CAROL, UserId.of("stranger")), false));
        ConversationRepository.Summary summary = repository.summary(CREW).orElseThrow();
        Membership bob = repository.membership(BOB, CREW).orElseThrow();
        assertThat(bob.mentionSeqs()).containsExactly(2L, 5L);
        assertThat(summary.everyoneMentionSeqs()).containsExactly(4L);
        assertThat(summary.mentionsOf(bob)).as("2 and 5 by id, 4 as everyone").isEqualTo(3);
        assertThat(summary.mentionsOf(repository.membership(CAROL, CREW).orElseThrow())).isEqualTo(2);
        assertThat(summary.mentionsOf(repository.membership(ALICE, CREW).orElseThrow())).isEqualTo(1);
        assertThat(repository.membership(UserId.of("stranger"), CREW)).as("no row made for a non-member").isEmpty();

        repository.advance(bob, new ReceiptWatermarks(4, 3));
        Membership read = repository.membership(BOB, CREW).orElseThrow();
        assertThat(read.mentionSeqs()).as("what the read mark passed left the row").containsExactly(5L);
        assertThat(repository.summary(CREW).orElseThrow().mentionsOf(read)).isEqualTo(2);
        long deletion = messages.append(CREW, ClientMessageId.random(), ALICE, DeviceId.DEFAULT, Optional.empty(), Content.DELETED,
                dev.parley.model.MessageDetails.change(new dev.parley.model.Relation(dev.parley.model.RelationKind.DELETE, 5)), 2_000,
                Optional.empty(), false, MessageLog.Admission.ADMITTED).message().seq();
        messages.applyDelete(messages.at(CREW, deletion).orElseThrow());
        assertThat(repository.summary(CREW).orElseThrow().mentionsOf(read)).as("a deleted message mentions no one").isEqualTo(1);
        repository.raiseGroupMarks(CREW, new ReceiptWatermarks(6, 4));
        assertThat(repository.summary(CREW).orElseThrow().everyoneMentionSeqs()).as("read past by every member: gone from the head").isEmpty();
    }

    @Test
    void aReplacedGroupReadsBackWithItsRolesDescriptionAvatarSettingsAndBans() {
        Stored created = crew(BOB, CAROL);
        dev.parley.model.MediaId avatar = dev.parley.model.MediaId.random();
        Conversation governed = created.conversation().withRole(ALICE, List.of(BOB), dev.parley.model.ConversationRole.OWNER)
                .withChanges(ALICE, new dev.parley.model.ConversationChanges(Optional.of("Crew"), Optional.of(Optional.of("who we are")),
                        Optional.of(Optional.of(avatar)), Optional.of(dev.parley.model.ConversationSettings.Audience.ADMINS),
                        Optional.of(dev.parley.model.ConversationSettings.Audience.ALL), Optional.of(java.util.OptionalLong.of(86_400))))
                .withBanned(BOB, List.of(CAROL, UserId.of("dave")));
        assertThat(repository.replace(created, governed)).isTrue();

        Stored stored = repository.require(CREW);
        assertThat(stored.conversation()).isEqualTo(governed);
        assertThat(stored.conversation().owner()).contains(BOB);
        assertThat(stored.version()).isEqualTo(created.version() + 1);
        assertThat(repository.membership(CAROL, CREW)).as("the banned member's row is gone").isEmpty();
        assertThat(repository.summary(CREW).orElseThrow().name()).contains("Crew");
        assertThat(repository.summary(CREW).orElseThrow().memberCount()).isEqualTo(2);

        Conversation cleared = governed.withChanges(BOB, new dev.parley.model.ConversationChanges(Optional.empty(), Optional.of(Optional.empty()),
                Optional.of(Optional.empty()), Optional.of(dev.parley.model.ConversationSettings.Audience.ALL), Optional.empty(),
                Optional.of(java.util.OptionalLong.empty()))).withUnbanned(BOB, List.of(CAROL, UserId.of("dave")));
        assertThat(repository.replace(stored, cleared)).isTrue();
        assertThat(repository.require(CREW).conversation()).as("what was cleared is gone").isEqualTo(cleared);
    }

    @Test
    void anAnnouncementGroupTakesSeqsOnlyFromItsAdmins() {
        Stored created = crew(BOB);
        send(CREW, BOB, 1);
        Conversation announcements = created.conversation().withChanges(ALICE, new dev.parley.model.ConversationChanges(Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.of(dev.parley.model.ConversationSettings.Audience.ADMINS), Optional.empty(), Optional.empty()));
        assertThat(repository.replace(created, announcements)).isTrue();
        long lastSeq = repository.summary(CREW).orElseThrow().lastSeq();

        assertThatThrownBy(() -> send(CREW, BOB, 1)).isInstanceOf(DomainException.class)
                .satisfies(e -> assertThat(((DomainException) e).code()).isEqualTo(ErrorCode.FORBIDDEN)).hasMessageContaining("admins");
        assertThat(repository.summary(CREW).orElseThrow().lastSeq()).as("the refused send took no seq").isEqualTo(lastSeq);
        send(CREW, ALICE, 1);
        Stored now = repository.require(CREW);
        assertThat(repository.replace(now, now.conversation().withRole(ALICE, List.of(BOB), dev.parley.model.ConversationRole.ADMIN))).isTrue();
        send(CREW, BOB, 1);
        assertThat(repository.summary(CREW).orElseThrow().lastSeq()).as("an admin made since sends").isEqualTo(lastSeq + 2);
    }

    @Test
    void anInviteAdmitsAsManyJoinsAsItHasUsesUntilItRunsOutOrIsRevoked() {
        crew(BOB);
        Instant now = Instant.parse("2026-12-07T12:00:00Z");
        dev.parley.model.InviteCode code = dev.parley.model.InviteCode.random();
        repository.createInvite(new ConversationRepository.Invite(code.digest(), CREW, ALICE, now.plusSeconds(3_600), 2, 0, false));

        assertThat(repository.invite(code).orElseThrow().conversationId()).isEqualTo(CREW);
        assertThat(repository.invite(dev.parley.model.InviteCode.random())).isEmpty();
        assertThat(repository.takeInviteUse(code, now)).isTrue();
        assertThat(repository.takeInviteUse(code, now)).isTrue();
        assertThat(repository.takeInviteUse(code, now)).as("used up").isFalse();
        repository.returnInviteUse(code);
        assertThat(repository.invite(code).orElseThrow().uses()).isEqualTo(1);
        assertThat(repository.takeInviteUse(code, now.plusSeconds(3_600))).as("run out").isFalse();
        assertThat(repository.revokeInvite(code)).isTrue();
        assertThat(repository.takeInviteUse(code, now)).as("revoked").isFalse();
        assertThat(repository.invite(code).orElseThrow().revoked()).isTrue();
        assertThat(repository.takeInviteUse(dev.parley.model.InviteCode.random(), now)).as("no such invite").isFalse();
        assertThat(repository.revokeInvite(dev.parley.model.InviteCode.random())).isFalse();
    }

    @Test
    void concurrentJoinsOfATenUseInviteAdmitExactlyTen() throws Exception {
        crew(BOB);
        Instant now = Instant.parse("2026-12-07T12:00:00Z");
        dev.parley.model.InviteCode code = dev.parley.model.InviteCode.random();
        repository.createInvite(new ConversationRepository.Invite(code.digest(), CREW, ALICE, now.plusSeconds(3_600), 10, 0, false));
        int joins = concurrentJoins();
        java.util.concurrent.atomic.AtomicInteger admitted = new java.util.concurrent.atomic.AtomicInteger();
        try (var threads = java.util.concurrent.Executors.newFixedThreadPool(32)) {
            java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
            List<java.util.concurrent.Future<?>> all = new ArrayList<>();
            for (int i = 0; i < joins; i++) {
                all.add(threads.submit(() -> {
                    start.await();
                    if (repository.takeInviteUse(code, now)) {
                        admitted.incrementAndGet();
                    }
                    return null;
                }));
            }
            start.countDown();
            for (var join : all) {
                join.get();
            }
        }
        assertThat(admitted.get()).as(joins + " concurrent joins").isEqualTo(10);
        assertThat(repository.invite(code).orElseThrow().uses()).isEqualTo(10);
    }

    /** How many joins race for the ten uses: the contract's 1,000; an adapter over a network may try fewer per run. */
    protected int concurrentJoins() {
        return 1_000;
    }
}
