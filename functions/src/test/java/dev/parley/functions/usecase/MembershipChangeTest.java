package dev.parley.functions.usecase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A membership change that loses the optimistic race retries after a jittered, growing wait, and gives up after a bound. */
class MembershipChangeTest {
    private static final UserId ADMIN = UserId.of("admin");
    private static final ConversationId GROUP = ConversationId.of("g:crew");

    /** A conversation whose membership update loses the race a given number of times before it wins. */
    private static final class RacingRepository extends UnsupportedConversationRepository {
        private Stored stored = new Stored(Conversation.group(GROUP, ADMIN, List.of(ADMIN, UserId.of("bob")), Optional.empty()), ADMIN, 1);
        private int racesToLose;
        int attempts;

        RacingRepository(int racesToLose) {
            this.racesToLose = racesToLose;
        }

        @Override
        public Optional<Stored> find(ConversationId id) {
            return Optional.of(stored);
        }

        @Override
        public Optional<ConversationRepository.Summary> summary(ConversationId id) {
            return Optional.empty();
        }

        final List<List<UserId>> repaired = new ArrayList<>();

        @Override
        public void repairMemberships(Stored current, java.util.Collection<UserId> users) {
            repaired.add(List.copyOf(users));
        }

        @Override
        public boolean replace(Stored current, Conversation updated) {
            attempts++;
            if (racesToLose-- > 0) {
                return false;
            }
            stored = new Stored(updated, current.createdBy(), current.version() + 1);
            return true;
        }
    }

    private final Fixture world = new Fixture();
    private final List<Duration> waits = world.waits;

    private Conversations conversations(ConversationRepository repository) {
        return new Conversations(repository, world.messages, world.delivery, world.codec, world.backoff, world.media, world.clock);
    }

    private Optional<ServerFrame> addCarol(Conversations conversations) {
        return Optional.of(conversations.groups().addMembers(Fixture.caller(ADMIN, "admin-phone"),
                new ClientFrame.ConversationMembersAdd(GROUP, List.of(UserId.of("carol")))));
    }

    @Test
    void aLostRaceIsRetriedAfterAGrowingWait() {
        RacingRepository repository = new RacingRepository(3);
        Optional<ServerFrame> answer = addCarol(conversations(repository));
        assertThat(answer).get().isInstanceOfSatisfying(ServerFrame.ConversationUpdated.class,
                updated -> assertThat(updated.conversation().members()).contains(UserId.of("carol")));
        assertThat(repository.attempts).isEqualTo(4);
        assertThat(waits).extracting(Duration::toMillis).containsExactly(10L, 20L, 40L);
    }

    @Test
    void aRaceLostEveryTimeEndsInConflictAfterTheBoundedRetries() {
        RacingRepository repository = new RacingRepository(Integer.MAX_VALUE);
        assertThatThrownBy(() -> addCarol(conversations(repository))).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
        assertThat(repository.attempts).as("the first try and 4 retries").isEqualTo(5);
        assertThat(waits).extracting(Duration::toMillis).containsExactly(10L, 20L, 40L, 40L);
    }

    @Test
    void aChangeAlreadyMadeIsNotMadeAgainButItsMembershipRowsAreRepaired() {
        RacingRepository repository = new RacingRepository(0);
        Conversations conversations = conversations(repository);
        addCarol(conversations);
        assertThat(repository.repaired).isEmpty();
        addCarol(conversations);
        assertThat(repository.attempts).as("the conversation is not updated again").isEqualTo(1);
        assertThat(repository.repaired).containsExactly(List.of(UserId.of("carol")));
    }
}
